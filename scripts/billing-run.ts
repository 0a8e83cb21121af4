/**
 * The daily billing run from the command line: `npm run billing:run [-- --date YYYY-MM-DD] [-- --force]`.
 * Without --date it bills today (in the locations' time zone). See docs/decisions/053-billing-run.md.
 *
 * PGlite is single-process: while the server has the PGlite directory open this command cannot open
 * it, so it refuses and says so (the server's own daily job does the run). On PostgreSQL
 * (DATABASE_URL) it runs alongside any number of servers: the date is claimed once.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { databaseOptionsFromEnv, openDatabase } from "~/db/client.server";
import { isIsoDate } from "~/domain/shared/calendar";
import { billingDateToday, runBilling, serverPidFile } from "~/services/payments/billing-run.server";
import { now as clockNow } from "~/platform/clock.server";
import { envOrExit } from "~/platform/env.server";

// Every variable checked before anything runs: a bad value stops the command with a clear message (decision 210).
envOrExit({ server: false });

const { values } = parseArgs({ options: { date: { type: "string" }, force: { type: "boolean", default: false } } });

if (values.date && !isIsoDate(values.date)) {
  console.error(`--date must be a date like 2026-12-22 (got "${values.date}").`);
  process.exit(2);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const options = databaseOptionsFromEnv();
if (!options.url && options.pgliteDir) {
  const dir = path.resolve(options.pgliteDir);
  const pidFile = serverPidFile(dir);
  const serverPid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, "utf8")) : NaN;
  const heldByServer = Number.isInteger(serverPid) && pidAlive(serverPid);
  const heldByPglite = fs.existsSync(path.join(dir, "postmaster.pid"));
  if (heldByServer || heldByPglite) {
    console.error(
      [
        `The PGlite database in ${dir} is open in another process${heldByServer ? ` (the server, pid ${serverPid})` : ""}.`,
        "PGlite allows one process at a time, so this command cannot run while the server is up.",
        "The running server bills every day by itself (its daily job); to bill now by hand, stop the server first,",
        "or run on PostgreSQL (DATABASE_URL), where the command and the servers can run together.",
        heldByServer ? "" : `If no server is running, the last one did not close cleanly: remove ${path.join(dir, "postmaster.pid")} and try again.`,
      ]
        .filter(Boolean)
        .join("\n"),
    );
    process.exit(1);
  }
}

const handle = openDatabase(options);
try {
  const now = clockNow();
  const runDate = values.date ?? (await billingDateToday(handle.db, now));
  const result = await runBilling(handle.db, { runDate, now, force: values.force, log: (l) => console.log(l) });
  if (result.skipped) {
    console.log(`[billing] ${runDate} was already billed (or is being billed by another process). Use --force to run it again; postings are idempotent.`);
  }
} finally {
  await handle.close();
}
