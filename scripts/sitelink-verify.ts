/**
 * `npm run sitelink:verify -- --location <url_slug> [--tenant-id N] [--test-mode-move-in [--unit-id N]] [--json]`
 *
 * Checks the operator's own SiteLink account before a location is switched on (issue 20, decision
 * 188): every operation the adapter uses, whether its answer has the tables and columns the adapter
 * reads, the site's card types, billing frequency, the pay method that works and the success codes
 * seen. Only reads; with --test-mode-move-in one move-in with bTestMode true (per candidate pay method
 * until one is taken) for verify's own test tenant (made once, used again by every later run), never
 * a second unit for it, moved out as far as the API goes. --tenant-id names a tenant with a lease whose
 * records are read (never written). Never prints a
 * secret or the corp user name. Exit 0 (READY) only when every item the adapter relies on was checked
 * and nothing differs; 1 when something differs or was not checked (named, with the flag that checks
 * it); 2 on wrong usage. Each run is kept as the location's go-live check (issue 37, decision 470):
 * online rentals and payments are on only while the latest passed with the settings now saved.
 */
import { parseArgs } from "node:util";
import { databaseOptionsFromEnv, openDatabase } from "~/db/client.server";
import { now as clockNow } from "~/platform/clock.server";
import { formatGoLiveReport, verifySiteLinkLocation } from "~/storage-software/index.server";
import { envOrExit } from "~/platform/env.server";

// Every variable checked before anything runs: a bad value stops the command with a clear message (decision 210).
envOrExit({ server: false });

const USAGE = "Usage: npm run sitelink:verify -- --location <url_slug> [--test-mode-move-in] [--tenant-id <SiteLink TenantID of a tenant with a lease, read only>] [--unit-id <SiteLink UnitID>] [--json]";

function usage(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      options: {
        location: { type: "string" },
        "tenant-id": { type: "string" },
        "unit-id": { type: "string" },
        "test-mode-move-in": { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    // An unknown option or a missing value: say so, with the usage, not a stack trace.
    return usage(error instanceof Error ? error.message : String(error));
  }
}

const values = parse();
if (values.help) {
  console.log(
    `${USAGE}\n\nChecks a location's own SiteLink account before it is switched on: reads, plus with --test-mode-move-in a\ntest tenant (made once, used again) and one move-in in test mode for it (never a second unit), moved out as far\nas the API goes; --tenant-id names a tenant with a lease whose records (its ledger's too) are read, never written.\nExit 0 (READY) only when every item the adapter relies on was checked and nothing differs;\n1 when something differs or was not checked (named, with the flag that checks it); 2 on wrong usage.\nThe result is kept: online rentals and payments at the location are on only while its latest check passed\nwith the settings now saved.`,
  );
  process.exit(0);
}

if (!values.location) usage("--location <url_slug> is required.");
for (const name of ["tenant-id", "unit-id"] as const) if (values[name] !== undefined && !/^\d{1,9}$/.test(values[name])) usage(`--${name} must be a number.`);

const handle = openDatabase(databaseOptionsFromEnv());
try {
  const report = await verifySiteLinkLocation(handle.db, values.location, {
    now: clockNow(),
    tenantId: values["tenant-id"] ?? null,
    unitId: values["unit-id"] ?? null,
    testModeMoveIn: values["test-mode-move-in"],
    // Said before it is sent (to stderr with --json, so the JSON stays clean).
    say: (line) => (values.json ? console.error(line) : console.log(line)),
  });
  console.log(values.json ? JSON.stringify(report, null, 2) : formatGoLiveReport(report));
  process.exitCode = report.ok ? 0 : 1;
} catch (error) {
  // A database error's message carries its SQL: say only what went wrong.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : null;
  console.error(cause ? `The database could not be read: ${cause.message}` : error instanceof Error ? error.message : String(error));
  process.exitCode = 2;
} finally {
  await handle.close();
}
