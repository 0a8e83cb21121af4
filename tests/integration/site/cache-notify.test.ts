import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { requeuePurges } from "~/db/cache-purges.server";
import { readPageChanges } from "~/db/page-changes.server";
import { createTestDatabase } from "../support/db";

/**
 * The `gatehouse_changed` notification (migrations 0003 and 0006, decision 191) tells every server
 * process to drop its page and site caches. Only a row that really changed may send it: a statement
 * that changes nothing — a conditional sweep with nothing to sweep, an update to the same values —
 * must not, or any page view that runs one empties every cache.
 */
let handle: DatabaseHandle;
let stop: (() => Promise<void>) | undefined;
let received = 0;
let payloads: string[] = [];
let ready: Promise<void>;

beforeEach(async () => {
  handle = await createTestDatabase();
  received = 0;
  payloads = [];
  let listening!: () => void;
  ready = new Promise((r) => (listening = r));
  stop = handle.listen(
    "gatehouse_changed",
    (payload) => {
      received++;
      payloads.push(payload);
    },
    () => listening(),
  );
  // PGlite listens in-process at once (no reconnect callback): a real change shows when it is live.
  if (handle.driver === "pglite") listening();
});
afterEach(async () => {
  await stop?.();
  await handle?.close();
});

async function until(count: number) {
  while (received < count) await new Promise((r) => setTimeout(r, 10));
}
const realChange = () => handle.db.execute(sql`update accounts set tagline = ${`changed ${Math.random()}`}`);

describe("gatehouse_changed notifies real changes only (issue 19)", () => {
  it("statements that change no row send nothing; a real change sends one, however many rows", async () => {
    await ready;
    // Sync point: the listener is live once a real change has come through.
    await realChange();
    await until(1);
    received = 0;
    // Nothing changes here.
    await handle.db.execute(sql`update reservations set status = 'expired' where expires_at < now() - interval '100 years'`);
    await handle.db.execute(sql`update units set held_until = held_until`);
    await handle.db.execute(sql`update unit_types set name = name`);
    await handle.db.execute(sql`delete from redirects where from_path = '/never-a-rule'`);
    await handle.db.execute(sql`update websites set website_name = website_name`);
    // A real change to many rows in one statement: one notification for the table.
    await handle.db.execute(sql`update units set held_until = now() + interval '1 minute' where held_until is null`);
    await until(1);
    // One more real change: the notifications come in commit order, so any sent by the statements
    // above would have arrived before this one.
    await realChange();
    await until(2);
    expect(received).toBe(2);
  });

  it("a real change is counted once, at its commit, and notified with the count; a change no page shows by its table; tags put back count nothing (decision 710)", async () => {
    await ready;
    await realChange();
    await until(1);
    received = 0;
    payloads = [];
    const before = await readPageChanges(handle.db);
    // Two tables, several rows, one transaction: one count, one notification carrying it.
    await handle.db.transaction(async (tx) => {
      await tx.execute(sql`update accounts set tagline = ${`counted ${Math.random()}`}`);
      await tx.execute(sql`update units set held_until = now() + interval '2 minutes' where held_until is null`);
    });
    await until(1);
    expect(await readPageChanges(handle.db)).toBe(before + 1);
    // Bookkeeping no page shows: notified by its table's name, not counted.
    await handle.db.execute(sql`update websites set has_new_changes = not has_new_changes`);
    await until(2);
    // Tags a process puts back after a failed purge: neither counted nor notified.
    await requeuePurges(handle.db, ["site"]);
    await realChange();
    await until(3);
    expect(payloads).toEqual([String(before + 1), "websites", String(before + 2)]);
    expect(await readPageChanges(handle.db)).toBe(before + 2);
  });
});
