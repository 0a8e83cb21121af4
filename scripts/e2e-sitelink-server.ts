/**
 * Browser tests at a SiteLink location (issue 11 "Done when"): the SiteLink simulator on its own
 * port and the built server on another, with a fresh seeded PGlite database of its own,
 * `use_demo_units` off and Lumberton (L001, SiteLink's processor charges) and Jacksonville (L002, our
 * gateway charges) connected to the simulator (the password and API key from environment variables,
 * never stored). Started by playwright.config.ts as a second webServer.
 *
 * The write timeouts are short (E2E_SITELINK_WRITE_TIMEOUT_MS, default 2 s) so that the
 * commit-then-timeout test does not wait SiteLink's production 45 s. The specs drive the simulator
 * through its control API (/__sim/ on E2E_SITELINK_SIM_PORT).
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import { eq } from "drizzle-orm";
import { getDatabase } from "~/db/client.server";
import { runMigrations } from "~/db/migrate.server";
import { sitelinkSites } from "~/db/schema";
import { seedDatabase } from "../seeds/seed";
import { DEMO_CORP, startSiteLinkSimulator } from "../sitelink-simulator/index";
import { connectDemoSites } from "./sitelink-demo-sites";

const simPort = Number(process.env.E2E_SITELINK_SIM_PORT ?? 3422);
const dir = process.env.PGLITE_DIR ?? "data/e2e-sitelink";
process.env.PGLITE_DIR = dir;
// A fresh database: a copy of the run's seeded template when playwright.config.ts set one (decision
// 522; the migrations and the seed below then find everything there and change nothing), else empty.
if (process.env.E2E_SEEDED_TEMPLATE) execFileSync(process.execPath, ["scripts/e2e-seeded-db.mjs", dir], { stdio: "inherit", env: process.env });
else fs.rmSync(dir, { recursive: true, force: true });

const PASSWORD_ENV = "SITELINK_E2E_PASSWORD";
const API_KEY_ENV = "SITELINK_E2E_API_KEY";
process.env[PASSWORD_ENV] = DEMO_CORP.password;
process.env[API_KEY_ENV] = DEMO_CORP.apiKey;

const sim = await startSiteLinkSimulator({ port: simPort, seed: "demo" });
// The specs' own stock of Lumberton's 10' x 10' Drive-Up type in SiteLink (each project rents, and
// has rented at the office, several units), so the demo inventory is never sold out by a run.
sim.control.createUnitType("L001", { typeName: "Drive-Up", width: 10, length: 10, stdRate: 9200, webRate: 8300, statuses: Array(16).fill("available") });
// And Jacksonville's, for the option-B rental (our gateway charges; one unit per project and run).
sim.control.createUnitType("L002", { typeName: "Drive-Up", width: 10, length: 10, stdRate: 9200, webRate: 8300, statuses: Array(4).fill("available") });
// The promotion spec's own type at Lumberton and the site's "1st Month Free" discount plan (issue 40),
// which the spec names as the type's promotion (tests/e2e/storage-software/sitelink-promotion.spec.ts).
sim.control.createUnitType("L001", { typeName: "Drive-Up", width: 6, length: 9, stdRate: 7400, webRate: 6600, statuses: Array(6).fill("available") });
sim.control.configureSite("L001", { concessions: [{ ConcessionID: 41, sPlanName: "1st Month Free", pcDiscount: 100 }] });

const handle = getDatabase();
try {
  await runMigrations(handle);
  await seedDatabase(handle.db);
  // Lumberton (L001: SiteLink's processor charges, option A) and Jacksonville (L002: our gateway
  // charges and SiteLink records the payment, option B).
  const connected = await connectDemoSites(handle.db, sim.url, { passwordEnv: PASSWORD_ENV, apiKeyEnv: API_KEY_ENV });
  for (const { locationId } of connected) {
    await handle.db
      .update(sitelinkSites)
      .set({ writeTimeoutMs: Number(process.env.E2E_SITELINK_WRITE_TIMEOUT_MS ?? 2000) })
      .where(eq(sitelinkSites.locationId, locationId));
  }
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
