/**
 * `npm run start:sitelink`: the whole site against the SiteLink simulator, in one command
 * (issue 11 §3, docs/decisions/113).
 *
 * 1. Starts the SiteLink simulator (real SOAP 1.1 on 127.0.0.1:SITELINK_SIM_PORT, default 8765; its
 *    state is kept in data/sitelink-demo/simulator.json between runs).
 * 2. Prepares its own database (PGlite in data/sitelink-demo/pglite, so `npm start`'s demo data is
 *    untouched; or DATABASE_URL if set): migrations, seed, `use_demo_units` off, and the SiteLink
 *    settings of every seeded location the simulator knows (Lumberton L001, Jacksonville L002),
 *    the password and API key read from environment variables (never stored). Without `npm start`'s
 *    demo tenant: SiteLink holds the tenants here, and that tenant's lease (ours only) sat on the unit
 *    SiteLink rents to Pat, the office tenant who claims it at /customer-portal/create-sign-in
 *    (decision 171); a demo database made before is repaired (that lease ended).
 * 3. Starts the built server (`npm run build` first: the npm script does it) with that database; its
 *    housekeeping syncs the inventory from the simulator at once and then every minute.
 *
 * Ctrl-C stops both. Nothing here is for production: the simulator's corp credentials are fixed demo
 * values.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { databaseOptionsFromEnv, openDatabase } from "~/db/client.server";
import { envOrExit, loadEnv, rawEnv, type EnvSource } from "~/platform/env.server";
import { runMigrations } from "~/db/migrate.server";
import { leases, tenants } from "~/db/schema";
import { seedDatabase } from "../seeds/seed";
import { DEMO_TENANT_EMAIL } from "../seeds/demo-tenant";
import { DEMO_CORP, startSiteLinkSimulator } from "../sitelink-simulator/index";
import { connectDemoSites } from "./sitelink-demo-sites";
import type { SimState } from "../sitelink-simulator/state";

const config = envOrExit({ server: false });
const dir = path.resolve(config.SITELINK_DEMO_DIR ?? path.join("data", "sitelink-demo"));
fs.mkdirSync(dir, { recursive: true });
const snapshot = path.join(dir, "simulator.json");
const port = config.SITELINK_SIM_PORT ?? 8765;

// The simulator's corp secrets reach the server only through these environment variables.
const PASSWORD_ENV = "SITELINK_SIM_PASSWORD";
const API_KEY_ENV = "SITELINK_SIM_API_KEY";
/** The environment of this command's database work and of the server it starts. */
const serverEnv: EnvSource = {
  ...rawEnv(),
  ...(config.DATABASE_URL ? {} : { PGLITE_DIR: config.PGLITE_DIR ?? path.join(dir, "pglite") }),
  [PASSWORD_ENV]: DEMO_CORP.password,
  [API_KEY_ENV]: DEMO_CORP.apiKey,
  SITELINK_SYNC_INTERVAL_MS: String(config.SITELINK_SYNC_INTERVAL_MS ?? 60_000),
};

const seed = fs.existsSync(snapshot) ? (JSON.parse(fs.readFileSync(snapshot, "utf8")) as SimState) : "demo";
const sim = await startSiteLinkSimulator({ port, seed, log: (line) => process.stdout.write(`${line}\n`) });
process.stdout.write(`SiteLink simulator at ${sim.url}\n`);

const handle = openDatabase(databaseOptionsFromEnv(loadEnv(serverEnv)));
try {
  await runMigrations(handle);
  // No demo portal tenant: at SiteLink locations the tenants are SiteLink's (decision 171).
  await seedDatabase(handle.db, { env: { ...serverEnv, SEED_DEMO_TENANT: "false" } });
  const connected = await connectDemoSites(handle.db, sim.url, { passwordEnv: PASSWORD_ENV, apiKeyEnv: API_KEY_ENV }, serverEnv);
  for (const { slug, site } of connected) {
    process.stdout.write(`${slug}: SiteLink location ${site.sLocationCode} (${site.processor ? "SiteLink charges cards" : "our gateway charges cards"})\n`);
  }
  // A demo database made before decision 171 has the demo tenant's lease (ours only, no SiteLink
  // ledger) on the unit SiteLink rents to Pat: end it, so that Pat's claim shows the unit.
  const ended = await handle.db
    .update(leases)
    .set({ status: "moved_out" })
    .where(
      and(
        inArray(
          leases.locationId,
          connected.map((c) => c.locationId),
        ),
        isNull(leases.externalId),
        eq(leases.status, "active"),
        inArray(leases.tenantId, handle.db.select({ id: tenants.id }).from(tenants).where(sql`lower(${tenants.email}) = ${DEMO_TENANT_EMAIL}`)),
      ),
    )
    .returning({ id: leases.id });
  if (ended.length) process.stdout.write(`Ended ${ended.length} demo-tenant lease(s) that SiteLink does not know\n`);
} finally {
  await handle.close();
}

const server = spawn(process.execPath, ["server.js"], {
  stdio: "inherit",
  env: serverEnv,
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
