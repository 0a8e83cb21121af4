/**
 * Issue 37 point 8 (decision 480): with several server processes, one runs the SiteLink sync. Two
 * scheduler instances (two connection pools on the same PostgreSQL database when the suite runs on
 * PostgreSQL, as two server processes have) check the `sitelink_sync_lease` claim against the SiteLink
 * simulator over SOAP/HTTP; the simulator's own call log is counted. Time is the runners' clock, moved
 * by the test (no waiting).
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "~/db/client.server";
import { siteLinkSyncRunner, syncLeaseHolder } from "~/storage-software/index.server";
import { LEASE_CHECK_MS, LEASE_MS } from "~/storage-software/sitelink/scheduler";
import { isPostgres } from "../support/db";
import { startSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

const START = new Date("2026-11-22T15:00:00Z").getTime();
let t = START;
const clock = () => new Date(t);

let bed: SiteLinkTestbed;
/** The second process's own pool (PostgreSQL); on PGlite (one connection) the same handle. */
let second: DatabaseHandle | null = null;
beforeAll(async () => {
  bed = await startSiteLinkTestbed();
  bed.sim.control.setClock({ to: new Date(START).toISOString() });
  if (isPostgres()) {
    const { rows } = (await bed.handle.db.execute(sql`select current_database() as name`)) as unknown as { rows: Array<{ name: string }> };
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${rows[0]!.name}`;
    second = openDatabase({ url: url.toString(), poolSize: 2 });
  }
});
afterAll(async () => {
  await second?.close();
  await bed?.close();
});

/** One sync's worth of SiteLink calls: a unit poll per location (and the price list on a full sync). */
const polls = () => bed.sim.control.calls({ operation: "UnitsInformation_v3" }).length;
const priceLists = () => bed.sim.control.calls({ operation: "UnitTypePriceList_v2" }).length;

it("two processes make one sync's worth of calls; stopping the leader lets the other take over within a minute", async () => {
  const dbB = second?.db ?? bed.handle.db;
  const a = siteLinkSyncRunner(bed.handle.db, { clock, holder: "process-a" });
  const b = siteLinkSyncRunner(dbB, { clock, holder: "process-b" });
  bed.sim.control.clearCalls();

  // Both start at once: one claims the sync and runs it (a full sync of both locations), the other does nothing.
  const [ra, rb] = await Promise.all([a.check(), b.check()]);
  expect([ra.leads, rb.leads].sort()).toEqual([false, true]);
  const [leader, follower] = ra.leads ? [a, b] : [b, a];
  expect((ra.synced ?? rb.synced)!.map((r) => r.ok)).toEqual([true, true]);
  expect([ra.synced, rb.synced].filter(Boolean)).toHaveLength(1);
  expect(polls()).toBe(2);
  expect(priceLists()).toBe(2);

  // Every check for the next minutes: the leader renews and syncs each minute, the other never calls SiteLink.
  for (let minute = 1; minute <= 3; minute++) {
    for (let check = 0; check < 60_000 / LEASE_CHECK_MS; check++) {
      t += LEASE_CHECK_MS;
      const [l, f] = await Promise.all([leader.check(), follower.check()]);
      expect(l.leads).toBe(true);
      expect(f).toEqual({ leads: false, synced: null });
    }
    expect(polls()).toBe(2 + 2 * minute);
  }
  expect((await syncLeaseHolder(bed.handle.db, clock()))!.holder).toBe(leader.holder);

  // The leader stops (a crash: it neither renews nor releases). The other keeps checking every 15 s.
  const stoppedAt = t;
  const before = polls();
  let tookOverAt: number | null = null;
  while (tookOverAt === null) {
    t += LEASE_CHECK_MS;
    const f = await follower.check();
    if (f.leads) {
      tookOverAt = t;
      expect(f.synced!.every((r) => r.ok)).toBe(true);
    } else expect(polls()).toBe(before);
    expect(t - stoppedAt).toBeLessThanOrEqual(LEASE_MS + LEASE_CHECK_MS);
  }
  expect(tookOverAt - stoppedAt).toBeLessThanOrEqual(60_000);
  expect(polls()).toBe(before + 2);
  expect((await syncLeaseHolder(bed.handle.db, clock()))!.holder).toBe(follower.holder);

  // The old leader comes back (a restarted process): it does not sync while the other holds the lease.
  const restarted = siteLinkSyncRunner(bed.handle.db, { clock, holder: "process-a-restarted" });
  t += LEASE_CHECK_MS;
  expect(await restarted.check()).toEqual({ leads: false, synced: null });
  expect(polls()).toBe(before + 2);

  // A process that shuts down releases the lease: the other takes it at its next check.
  await follower.release();
  t += 1;
  const next = await restarted.check();
  expect(next.leads).toBe(true);
  expect(next.synced).not.toBeNull();
  expect(polls()).toBe(before + 4);
});
