/**
 * `npm run start:sitelink`: the whole site against the SiteLink simulator, in one command
 * (issue 11 §3, docs/decisions/113).
 *
 * 1. Starts the SiteLink simulator (real SOAP 1.1 on 127.0.0.1:SITELINK_SIM_PORT, default 8765; its
 *    state is kept in data/sitelink-demo/simulator.json between runs).
 * 2. Prepares its own database (PGlite in data/sitelink-demo/pglite, so `npm start`'s demo data is
 *    untouched; or DATABASE_URL if set): migrations, seed, `use_demo_units` off, and the SiteLink
 *    settings of every seeded location the simulator knows (Lumberton L001, Jacksonville L002),
 *    the password and API key read from environment variables (never stored).
 * 3. Starts the built server (`npm run build` first: the npm script does it) with that database; its
 *    housekeeping syncs the inventory from the simulator at once and then every minute.
 *
 * Ctrl-C stops both. Nothing here is for production: the simulator's corp credentials are fixed demo
 * values.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { eq, inArray } from "drizzle-orm";
import { getDatabase } from "~/db/client.server";
import { runMigrations } from "~/db/migrate.server";
import { accounts, locations } from "~/db/schema";
import { saveSiteLinkSettings } from "~/storage-software/index.server";
import { seedDatabase } from "../seeds/seed";
import { DEMO_CORP, DEMO_SITES, startSiteLinkSimulator } from "../sitelink-simulator/index";
import type { SimState } from "../sitelink-simulator/state";

const dir = path.resolve(process.env.SITELINK_DEMO_DIR ?? path.join("data", "sitelink-demo"));
fs.mkdirSync(dir, { recursive: true });
if (!process.env.DATABASE_URL) process.env.PGLITE_DIR ??= path.join(dir, "pglite");
const snapshot = path.join(dir, "simulator.json");
const port = Number(process.env.SITELINK_SIM_PORT ?? 8765);

// The simulator's corp secrets reach the server only through these environment variables.
const PASSWORD_ENV = "SITELINK_SIM_PASSWORD";
const API_KEY_ENV = "SITELINK_SIM_API_KEY";
process.env[PASSWORD_ENV] = DEMO_CORP.password;
process.env[API_KEY_ENV] = DEMO_CORP.apiKey;

const seed = fs.existsSync(snapshot) ? (JSON.parse(fs.readFileSync(snapshot, "utf8")) as SimState) : "demo";
const sim = await startSiteLinkSimulator({ port, seed, log: (line) => process.stdout.write(`${line}\n`) });
process.stdout.write(`SiteLink simulator at ${sim.url}\n`);

const handle = getDatabase();
try {
  await runMigrations(handle);
  await seedDatabase(handle.db);
  const slugs = DEMO_SITES.map((s) => s.slug);
  const rows = await handle.db.select({ id: locations.id, slug: locations.urlSlug, accountId: locations.accountId }).from(locations).where(inArray(locations.urlSlug, slugs));
  for (const accountId of new Set(rows.map((r) => r.accountId))) {
    await handle.db.update(accounts).set({ useDemoUnits: false }).where(eq(accounts.id, accountId));
  }
  for (const row of rows) {
    const site = DEMO_SITES.find((s) => s.slug === row.slug)!;
    const cardTypeIds = Object.fromEntries(site.paymentTypes.filter((p) => p.brand).map((p) => [p.brand!, p.PmtTypeID]));
    await saveSiteLinkSettings(handle.db, {
      locationId: row.id,
      endpoint: sim.url,
      corpCode: DEMO_CORP.corpCode,
      locationCode: site.sLocationCode,
      corpUser: DEMO_CORP.userName,
      passwordEnv: PASSWORD_ENV,
      apiKeyEnv: API_KEY_ENV,
      // A site with a processor charges cards itself (A); one without records our gateway's payments (B).
      cardChargedBy: site.processor ? "sitelink" : "gateway",
      testMode: true,
      cardTypeIds,
    });
    process.stdout.write(`${row.slug}: SiteLink location ${site.sLocationCode} (${site.processor ? "SiteLink charges cards" : "our gateway charges cards"})\n`);
  }
} finally {
  await handle.close();
}

const server = spawn(process.execPath, ["server.js"], {
  stdio: "inherit",
  env: { ...process.env, SITELINK_SYNC_INTERVAL_MS: process.env.SITELINK_SYNC_INTERVAL_MS ?? "60000" },
});

let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  fs.writeFileSync(snapshot, JSON.stringify(sim.control.snapshot(), null, 2));
  await sim.close();
  process.exit(code);
}
server.on("exit", (code) => void stop(code ?? 0));
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    server.kill(signal);
  });
}
