/**
 * Periodic jobs claimed once across processes (issue 41, decision 562). Every process runs the same
 * timers; at each tick it asks `claimJobPeriod` whether this process runs the job's current period
 * (the clock rounded down to the job's interval). The first process to insert the period's row in
 * `job_runs` runs it; the others skip it. One INSERT … ON CONFLICT DO NOTHING: no session state, so it
 * holds through PgBouncer in transaction mode, at any number of processes and machines.
 *
 * A process that stops in the middle leaves its row unfinished: that period is not run again (every
 * job here is a sweep the next period repeats anyway).
 */
import crypto from "node:crypto";
import os from "node:os";
import { and, eq, lt } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { jobRuns } from "~/db/schema";

/** This process's name in `job_runs.holder`. */
const JOB_HOLDER = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString("hex")}`;

/** How long the rows are kept (for an operator's "who ran what when"). */
const KEEP_MS = 7 * 24 * 3600_000;

/** The start of the period of `everyMs` that `now` falls in (periods aligned on the epoch). */
export function periodStart(now: Date, everyMs: number): Date {
  return new Date(Math.floor(now.getTime() / everyMs) * everyMs);
}

/**
 * Claims `job`'s current period for this process: the period's start when this process runs it,
 * null when another process (or this one, earlier) already has.
 */
export async function claimJobPeriod(db: Database, job: string, everyMs: number, now: Date, holder = JOB_HOLDER): Promise<Date | null> {
  const period = periodStart(now, everyMs);
  const won = await db
    .insert(jobRuns)
    .values({ job, periodStart: period, holder, startedAt: now })
    .onConflictDoNothing()
    .returning({ job: jobRuns.job });
  return won.length ? period : null;
}

/**
 * Claims one run of `job` for `period` (any instant: a report's time, decision 613) inside the caller's
 * transaction, finished at once: true when this transaction inserted the row. A second process's
 * insert waits for this transaction and then finds the row, so what the transaction does (queue an
 * e-mail) happens once; a rollback frees the claim.
 */
export async function claimJobOnce(tx: Database | Transaction, job: string, period: Date, now: Date, holder = JOB_HOLDER): Promise<boolean> {
  const won = await tx
    .insert(jobRuns)
    .values({ job, periodStart: period, holder, startedAt: now, finishedAt: now })
    .onConflictDoNothing()
    .returning({ job: jobRuns.job });
  return won.length > 0;
}

/** Records that the run of `job` for `period` finished. */
export async function finishJobRun(db: Database, job: string, period: Date, now: Date): Promise<void> {
  await db.update(jobRuns).set({ finishedAt: now }).where(and(eq(jobRuns.job, job), eq(jobRuns.periodStart, period)));
}

/** Deletes the rows of runs older than a week (housekeeping). */
export async function pruneJobRuns(db: Database, now: Date): Promise<number> {
  const gone = await db
    .delete(jobRuns)
    .where(lt(jobRuns.periodStart, new Date(now.getTime() - KEEP_MS)))
    .returning({ job: jobRuns.job });
  return gone.length;
}
