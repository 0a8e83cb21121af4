/**
 * `npm run sitelink:status [-- --json] [-- --check]`: each location's adapter, last SiteLink sync,
 * last error and the write-journal rows that need attention (docs/decisions/113). Never prints a
 * password or API key: only where each comes from and whether it resolves.
 *
 * On PostgreSQL it reads the database directly, alongside running servers. On PGlite (one process at
 * a time) while the server holds the directory, it shows the snapshot the server writes after each
 * sync round, and says when that was. `--check` exits 1 when something needs attention.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { databaseOptionsFromEnv, openDatabase } from "~/db/client.server";
import { now as clockNow } from "~/platform/clock.server";
import { collectSiteLinkStatus, formatSiteLinkStatus, statusSnapshotFile, type SiteLinkStatus } from "~/storage-software/index.server";
import { envOrExit } from "~/platform/env.server";

// Every variable checked before anything runs: a bad value stops the command with a clear message (decision 210).
envOrExit({ server: false });

const { values } = parseArgs({ options: { json: { type: "boolean", default: false }, check: { type: "boolean", default: false } } });

function print(status: SiteLinkStatus, note?: string) {
  if (values.json) console.log(JSON.stringify(status, null, 2));
  else {
    if (note) console.log(note);
    console.log(formatSiteLinkStatus(status, clockNow()));
  }
  if (values.check && status.needsAttention) process.exitCode = 1;
}

const options = databaseOptionsFromEnv();
const pgliteHeld = !options.url && options.pgliteDir && fs.existsSync(path.join(path.resolve(options.pgliteDir), "postmaster.pid"));

if (pgliteHeld) {
  const snapshot = statusSnapshotFile();
  if (snapshot && fs.existsSync(snapshot)) {
    const status = JSON.parse(fs.readFileSync(snapshot, "utf8")) as SiteLinkStatus;
    print(status, `The PGlite database is open in the running server; this is the status it wrote at ${status.generatedAt}.\n`);
  } else {
    console.log(
      "The PGlite database is open in another process (the server), and no status snapshot exists yet (the server writes one after each SiteLink sync round).\n" +
        "Wait a minute and try again, stop the server, or run on PostgreSQL (DATABASE_URL) where this command reads the database directly.",
    );
    process.exitCode = values.check ? 1 : 0;
  }
} else {
  const handle = openDatabase(options);
  try {
    print(await collectSiteLinkStatus(handle.db, clockNow()));
  } finally {
    await handle.close();
  }
}
