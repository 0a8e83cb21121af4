import { primaryKey, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * One row per run of a periodic job (issue 41, decision 562): the process that inserts the row for a
 * job's period runs it; the others, finding the row, skip that period. A claim is one INSERT … ON
 * CONFLICT DO NOTHING, so it holds through a pooler in transaction mode and at any number of processes.
 * Rows older than a week are deleted by housekeeping.
 */
export const jobRuns = pgTable(
  "job_runs",
  {
    /** "housekeeping", "reconciliation" … */
    job: text().notNull(),
    /** The start of the period this run is for (the clock rounded down to the job's interval). */
    periodStart: timestamp({ withTimezone: true }).notNull(),
    /** The process that ran it (host:pid:random). */
    holder: text().notNull(),
    startedAt: timestamp({ withTimezone: true }).notNull(),
    /** Null while it runs, or when the process stopped before the end (the next period runs again). */
    finishedAt: timestamp({ withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.job, t.periodStart] })],
);
