/**
 * Picks the moment to stop PostgreSQL. A fast shutdown that finds no application transaction open
 * only costs idle connections (which the pool already survives); the dangerous moment is a
 * transaction in flight, above all a move-in (the card is charged inside it today). So the test
 * watches pg_stat_activity and stops the database the instant it sees one:
 *
 *   1. up to `moveInWaitMs`: a transaction that looks like a move-in (checkouts FOR UPDATE, or
 *      writing leases / payments / tenants / ledger lines);
 *   2. then up to `anyWaitMs`: any application transaction;
 *   3. then stop anyway ("timed").
 *
 * FAULT_STOP_MOMENT=timed skips the watching.
 */
import pg from "pg";
import { sleep } from "./ports";

export type StopMoment = "move-in transaction" | "transaction" | "timed";

const MOVE_IN = /from\s+"?checkouts"?[\s\S]*for update|insert into "?(leases|payments|tenants|ledger_entries|saved_cards)"?/i;

export async function waitForStopMoment(url: string, options: { moveInWaitMs: number; anyWaitMs: number; pollMs?: number }): Promise<StopMoment> {
  if (process.env.FAULT_STOP_MOMENT === "timed") return "timed";
  const c = new pg.Client({ connectionString: url });
  c.on("error", () => {});
  await c.connect();
  try {
    const start = Date.now();
    for (;;) {
      const elapsed = Date.now() - start;
      if (elapsed > options.moveInWaitMs + options.anyWaitMs) return "timed";
      const { rows } = await c.query<{ query: string }>(
        `select query from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid()
            and backend_type = 'client backend' and xact_start is not null`,
      );
      if (rows.some((r) => MOVE_IN.test(r.query))) return "move-in transaction";
      if (elapsed > options.moveInWaitMs && rows.length) return "transaction";
      await sleep(options.pollMs ?? 5);
    }
  } finally {
    void c.end().catch(() => {});
  }
}
