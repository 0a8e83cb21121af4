/**
 * `npm run sitelink:configure -- --location <url_slug> --endpoint <CallCenterWs.asmx URL>
 *    --corp-code C --location-code L --user U (--password-env VAR | --password-stdin)
 *    [--api-key-env VAR | --api-key-stdin] [--card-charged-by sitelink|gateway] [--test-mode]
 *    [--card-type visa=5 --card-type mastercard=6 ...] [--pay-method card=1,cash=2,check=3]
 *    [--billing-frequency 3] [--channel-type 1]`
 *
 * `--pay-method` sets MoveInWithDiscount_v7's iPayMethod ids at this site (decision 180): the sources
 * disagree (LSETUP: card 1, cash 2, check 3, the default; the manual: card 0, check 1, cash 2).
 *
 * Creates or replaces a location's SiteLink settings (docs/decisions/110). Secrets are never taken
 * from the command line (it shows in `ps` and shell history): either the NAME of an environment
 * variable the server will read, or the value on standard input, stored AES-256-GCM encrypted under
 * SITELINK_SECRET_KEY. With both --password-stdin and --api-key-stdin, the first line is the password
 * and the second the API key. `--remove` deletes the location's settings (it goes back to the local
 * adapter). The running server picks the change up within 30 seconds.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import { eq } from "drizzle-orm";
import { databaseOptionsFromEnv, openDatabase } from "~/db/client.server";
import { locations, sitelinkSites } from "~/db/schema";
import { saveSiteLinkSettings, siteLinkSettingsProblems } from "~/storage-software/index.server";
import { envOrExit } from "~/platform/env.server";

const USAGE = `Usage: npm run sitelink:configure -- --location <url_slug> --endpoint <CallCenterWs.asmx URL>
    --corp-code C --location-code L --user U (--password-env VAR | --password-stdin)
    [--api-key-env VAR | --api-key-stdin] [--card-charged-by sitelink|gateway] [--test-mode]
    [--card-type visa=5 --card-type mastercard=6 ...] [--pay-method card=1,cash=2,check=3]
    [--billing-frequency 3] [--channel-type 1]
  npm run sitelink:configure -- --location <url_slug> --remove`;

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      options: {
        location: { type: "string" },
        endpoint: { type: "string" },
        "corp-code": { type: "string" },
        "location-code": { type: "string" },
        user: { type: "string" },
        "password-env": { type: "string" },
        "password-stdin": { type: "boolean", default: false },
        "api-key-env": { type: "string" },
        "api-key-stdin": { type: "boolean", default: false },
        "card-charged-by": { type: "string", default: "sitelink" },
        "test-mode": { type: "boolean", default: false },
        "card-type": { type: "string", multiple: true, default: [] },
        "pay-method": { type: "string", multiple: true, default: [] },
        "billing-frequency": { type: "string", default: "3" },
        "channel-type": { type: "string", default: "1" },
        remove: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }).values;
  } catch (error) {
    // An unknown option or a missing value: say so, with the usage, not a stack trace.
    return fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
}

const values = parse();
if (values.help) {
  console.log(
    `${USAGE}\n\nCreates or replaces a location's SiteLink settings. Secrets never on the command line: the name of\nan environment variable, or the value on standard input (stored encrypted). Exit 0 when saved, 2 on wrong usage.`,
  );
  process.exit(0);
}

// Every variable checked before anything runs: a bad value stops the command with a clear message (decision 210).
envOrExit({ server: false });

if (!values.location) fail("--location <url_slug> is required.");
const handle = openDatabase(databaseOptionsFromEnv());
try {
  const [location] = await handle.db.select({ id: locations.id, name: locations.name }).from(locations).where(eq(locations.urlSlug, values.location.toLowerCase()));
  if (!location) fail(`No location with the URL slug "${values.location}".`);
  if (values.remove) {
    await handle.db.delete(sitelinkSites).where(eq(sitelinkSites.locationId, location.id));
    console.log(`${location.name}: SiteLink settings removed (served by the local adapter).`);
  } else {
    for (const name of ["endpoint", "corp-code", "location-code", "user"] as const) if (!values[name]) fail(`--${name} is required.`);
    if (!values["password-env"] === !values["password-stdin"]) fail("Give the password either as --password-env VAR or on standard input with --password-stdin (one of them).");
    if (values["api-key-env"] && values["api-key-stdin"]) fail("Give the API key either as --api-key-env VAR or with --api-key-stdin, not both.");
    // Refused before anything is read or saved: an http:// endpoint in production (or off this machine),
    // a secret from a variable not named SITELINK_…_PASSWORD / SITELINK_…_API_KEY (docs/decisions/186).
    const problems = siteLinkSettingsProblems({ endpoint: values.endpoint!, passwordEnv: values["password-env"] ?? null, apiKeyEnv: values["api-key-env"] ?? null });
    if (problems.length) fail(`SiteLink settings refused:\n  - ${problems.join("\n  - ")}`);
    if (values["card-charged-by"] !== "sitelink" && values["card-charged-by"] !== "gateway") fail("--card-charged-by is sitelink (SiteLink's processor) or gateway (our gateway, recorded in SiteLink).");
    const cardTypeIds: Record<string, number> = {};
    for (const pair of values["card-type"]) {
      const m = /^(visa|mastercard|discover|amex)=(\d+)$/.exec(pair.trim().toLowerCase());
      if (!m) fail(`--card-type ${pair}: expected brand=PmtTypeID, e.g. visa=5 (brands: visa, mastercard, discover, amex).`);
      cardTypeIds[m[1]!] = Number(m[2]);
    }
    const payMethodIds: Record<string, number> = {};
    for (const pair of values["pay-method"].flatMap((v) => v.split(","))) {
      if (!pair.trim()) continue;
      const m = /^(card|cash|check)=(\d+)$/.exec(pair.trim().toLowerCase());
      if (!m) fail(`--pay-method ${pair}: expected card=N,cash=N,check=N (MoveIn's iPayMethod ids), e.g. card=1,cash=2,check=3.`);
      payMethodIds[m[1]!] = Number(m[2]);
    }
    const stdinLines = values["password-stdin"] || values["api-key-stdin"] ? fs.readFileSync(0, "utf8").split(/\r?\n/) : [];
    const password = values["password-stdin"] ? (stdinLines.shift() ?? "") : null;
    const apiKey = values["api-key-stdin"] ? (stdinLines.shift() ?? "") : null;
    if (values["password-stdin"] && !password) fail("No password on standard input.");
    if (values["api-key-stdin"] && !apiKey) fail("No API key on standard input.");
    await saveSiteLinkSettings(handle.db, {
      locationId: location.id,
      endpoint: values.endpoint!,
      corpCode: values["corp-code"]!,
      locationCode: values["location-code"]!,
      corpUser: values.user!,
      passwordEnv: values["password-env"] ?? null,
      password,
      apiKeyEnv: values["api-key-env"] ?? null,
      apiKey,
      cardChargedBy: values["card-charged-by"],
      testMode: values["test-mode"],
      cardTypeIds,
      payMethodIds,
      billingFrequency: Number(values["billing-frequency"]),
      channelType: values["channel-type"] === "0" ? 0 : 1,
    });
    console.log(
      `${location.name}: SiteLink settings saved (${values["corp-code"]}/${values["location-code"]} at ${new URL(values.endpoint!).host}; password ${values["password-env"] ? `from ${values["password-env"]}` : "stored encrypted"}). Online rentals and payments there stay off until npm run sitelink:verify -- --location ${values.location.toLowerCase()} --test-mode-move-in passes with these settings (decision 470); npm run sitelink:status shows where it stands.`,
    );
  }
} catch (error) {
  fail(`Could not save the SiteLink settings: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await handle.close();
}
