/**
 * Periodic jobs claimed once (issue 41, decision 562): of the processes that tick in the same period,
 * one claims it; the next period is claimed afresh; a week later the rows are pruned.
 * tests/fault/pooler.test.ts shows it with three built processes through PgBouncer.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { jobRuns } from "~/db/schema";
import { claimJobPeriod, finishJobRun, periodStart, pruneJobRuns } from "~/services/jobs/claims.server";
import { createTestDatabase } from "../support/db";

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await createTestDatabase({ seeded: false });
});
afterAll(async () => handle?.close());

const FIVE_MINUTES = 5 * 60_000;

it("one of three processes claims each period; the others skip it", async () => {
  const db = handle.db;
  const t = new Date("2026-11-28T10:02:30Z");
  const claims = await Promise.all(["a", "b", "c"].map((holder, i) => claimJobPeriod(db, "housekeeping", FIVE_MINUTES, new Date(t.getTime() + i * 1000), holder)));
  expect(claims.filter(Boolean)).toHaveLength(1);
  expect(claims.find(Boolean)).toEqual(new Date("2026-11-28T10:00:00Z"));
  // Later in the same period: still taken, by any process.
  expect(await claimJobPeriod(db, "housekeeping", FIVE_MINUTES, new Date("2026-11-28T10:04:59Z"), "a")).toBeNull();
  // Another job's period is its own.
  expect(await claimJobPeriod(db, "reconciliation", 3600_000, t, "b")).toEqual(new Date("2026-11-28T10:00:00Z"));
  // The next period: claimed again, once.
  const next = await Promise.all(["a", "b", "c"].map((holder) => claimJobPeriod(db, "housekeeping", FIVE_MINUTES, new Date("2026-11-28T10:05:01Z"), holder)));
  expect(next.filter(Boolean)).toHaveLength(1);
  await finishJobRun(db, "housekeeping", next.find(Boolean)!, new Date("2026-11-28T10:05:02Z"));
  const rows = await db.select().from(jobRuns).orderBy(jobRuns.job, jobRuns.periodStart);
  expect(rows.map((r) => [r.job, r.periodStart.toISOString(), r.finishedAt?.toISOString() ?? null])).toEqual([
    ["housekeeping", "2026-11-28T10:00:00.000Z", null],
    ["housekeeping", "2026-11-28T10:05:00.000Z", "2026-11-28T10:05:02.000Z"],
    ["reconciliation", "2026-11-28T10:00:00.000Z", null],
  ]);
  // A week later the runs of 10:00 are pruned; the one of 10:05 is kept.
  expect(await pruneJobRuns(db, new Date("2026-12-05T10:04:00Z"))).toBe(2);
  expect(await db.select().from(jobRuns)).toHaveLength(1);
});

it("periods are aligned on the clock, not on when a process started", () => {
  expect(periodStart(new Date("2026-11-28T10:07:00Z"), FIVE_MINUTES).toISOString()).toBe("2026-11-28T10:05:00.000Z");
  expect(periodStart(new Date("2026-11-28T10:59:59Z"), 3600_000).toISOString()).toBe("2026-11-28T10:00:00.000Z");
});
