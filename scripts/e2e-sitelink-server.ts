/**
 * Browser tests at a SiteLink location (issue 11 "Done when"): the SiteLink simulator on its own
 * port and the built server on another, with a fresh seeded PGlite database of its own,
 * `use_demo_units` off and Lumberton (L001) connected to the simulator (the password and API key
 * from environment variables, never stored). Started by playwright.config.ts as a second webServer.
 *
 * Lumberton's write timeout is short (E2E_SITELINK_WRITE_TIMEOUT_MS, default 2 s) so that the
 * commit-then-timeout test does not wait SiteLink's production 45 s. The specs drive the simulator
 * through its control API (/__sim/ on E2E_SITELINK_SIM_PORT).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { eq } from "drizzle-orm";
import { getDatabase } from "~/db/client.server";
import { runMigrations } from "~/db/migrate.server";
import { accounts, locations, sitelinkSites } from "~/db/schema";
import { saveSiteLinkSettings } from "~/storage-software/index.server";
import { seedDatabase } from "../seeds/seed";
import { DEMO_CORP, DEMO_SITES, startSiteLinkSimulator } from "../sitelink-simulator/index";

const simPort = Number(process.env.E2E_SITELINK_SIM_PORT ?? 3422);
const dir = process.env.PGLITE_DIR ?? "data/e2e-sitelink";
fs.rmSync(dir, { recursive: true, force: true });
process.env.PGLITE_DIR = dir;

const PASSWORD_ENV = "SITELINK_E2E_PASSWORD";
const API_KEY_ENV = "SITELINK_E2E_API_KEY";
process.env[PASSWORD_ENV] = DEMO_CORP.password;
process.env[API_KEY_ENV] = DEMO_CORP.apiKey;

const sim = await startSiteLinkSimulator({ port: simPort, seed: "demo" });
// The specs' own stock of Lumberton's 10' x 10' Drive-Up type in SiteLink (each project rents, and
// has rented at the office, several units), so the demo inventory is never sold out by a run.
sim.control.createUnitType("L001", { typeName: "Drive-Up", width: 10, length: 10, stdRate: 9200, webRate: 8300, statuses: Array(16).fill("available") });

const handle = getDatabase();
try {
  await runMigrations(handle);
  await seedDatabase(handle.db);
  const site = DEMO_SITES.find((s) => s.slug === "lumberton-nc-28358")!;
  const [row] = await handle.db.select({ id: locations.id, accountId: locations.accountId }).from(locations).where(eq(locations.urlSlug, site.slug));
  if (!row) throw new Error("no seeded Lumberton");
  await handle.db.update(accounts).set({ useDemoUnits: false }).where(eq(accounts.id, row.accountId));
  const cardTypeIds = Object.fromEntries(site.paymentTypes.filter((p) => p.brand).map((p) => [p.brand!, p.PmtTypeID]));
  await saveSiteLinkSettings(handle.db, {
    locationId: row.id,
    endpoint: sim.url,
    corpCode: DEMO_CORP.corpCode,
    locationCode: site.sLocationCode,
    corpUser: DEMO_CORP.userName,
    passwordEnv: PASSWORD_ENV,
    apiKeyEnv: API_KEY_ENV,
    cardChargedBy: site.processor ? "sitelink" : "gateway",
    testMode: true,
    cardTypeIds,
  });
  await handle.db
    .update(sitelinkSites)
    .set({
      writeTimeoutMs: Number(process.env.E2E_SITELINK_WRITE_TIMEOUT_MS ?? 2000),
    })
    .where(eq(sitelinkSites.locationId, row.id));
} finally {
  await handle.close();
}

const server = spawn(process.execPath, ["server.js"], {
  stdio: "inherit",
  env: { ...process.env, SITELINK_SYNC_INTERVAL_MS: "60000" },
});
let stopping = false;
async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  await sim.close();
  process.exit(code);
}
server.on("exit", (code) => void stop(code ?? 0));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.kill(signal));
