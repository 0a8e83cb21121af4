/**
 * The SiteLink inventory sync job (issue 11 §3, study §8.4), started with the server's housekeeping:
 *
 * - every SITELINK_SYNC_INTERVAL_MS (default 60 s): an incremental sync of each SiteLink location
 *   (UnitsInformation_v3 since SiteLink's last poll marker);
 * - every 15 minutes: the rates (UnitTypePriceList_v2);
 * - a full sync at start-up and nightly (the first tick after 02:00 in the location's time zone, when
 *   the last full sync is more than 20 hours old), which also catches deletions and anything missed.
 *
 * A location whose SiteLink cannot be reached keeps its last catalogue (pages show how old it is) and
 * its error is recorded for `npm run sitelink:status`. Several processes running it at once do no
 * harm (every write is an upsert).
 */
import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { accounts, locations, sitelinkSites } from "~/db/schema";
import { isDatabaseUnavailable } from "~/db/unavailable";
import { logger } from "~/logger.server";
import { createSiteLinkClient } from "./client";
import type { OperationContract } from "./contract";
import contractJson from "./operations.json";
import { adapterChoiceFor, loadSiteLinkSettings } from "./settings";
import { collectSiteLinkStatus } from "./status";
import { readSyncState, syncInventory, syncRates, type SyncReport } from "./sync";
import { env, type Env } from "~/env.server";

const contract = contractJson as unknown as OperationContract;
const RATES_EVERY_MS = 15 * 60_000;
const FULL_AFTER_MS = 20 * 3600_000;

export interface LocationSyncResult {
  locationId: number;
  name: string;
  ok: boolean;
  report?: SyncReport;
  error?: string;
}

/** The locations the SiteLink adapter serves (adapterChoiceFor: use_demo_units off, software sitelink, settings present). */
export async function siteLinkLocations(db: Database) {
  const rows = await db
    .select({ id: locations.id, name: locations.name, timeZone: locations.timeZone, software: locations.software, useDemoUnits: accounts.useDemoUnits })
    .from(locations)
    .innerJoin(accounts, eq(accounts.id, locations.accountId))
    .innerJoin(sitelinkSites, eq(sitelinkSites.locationId, locations.id));
  return rows
    .filter((r) => adapterChoiceFor({ useDemoUnits: r.useDemoUnits, software: r.software, hasSiteLinkSettings: true }).choice === "sitelink")
    .map(({ id, name, timeZone }) => ({ id, name, timeZone }));
}

function localHour(now: Date, timeZone: string): number {
  try {
    return Number(new Intl.DateTimeFormat("en-US", { timeZone, hour: "numeric", hourCycle: "h23" }).format(now));
  } catch {
    return now.getUTCHours();
  }
}

// Per process: full sync on the first tick (start-up), rates every 15 minutes.
const startedFull = new WeakMap<Database, Set<number>>();
const ratesAt = new WeakMap<Database, Map<number, number>>();

/**
 * One sync round over every SiteLink location. `full: true` forces full syncs; otherwise each
 * location gets what is due (see the header). Never throws for one location's failure.
 */
export async function runSiteLinkSync(
  db: Database,
  options: { now?: Date; clock?: () => Date; full?: boolean; fetch?: typeof fetch } = {},
): Promise<LocationSyncResult[]> {
  const clock = options.clock ?? (() => new Date());
  const now = options.now ?? clock();
  const results: LocationSyncResult[] = [];
  let full = startedFull.get(db);
  if (!full) startedFull.set(db, (full = new Set()));
  let rates = ratesAt.get(db);
  if (!rates) ratesAt.set(db, (rates = new Map()));
  for (const loc of await siteLinkLocations(db)) {
    try {
      const settings = await loadSiteLinkSettings(db, loc.id);
      if (!settings) continue;
      const client = createSiteLinkClient({
        endpoint: settings.endpoint,
        credentials: settings.credentials,
        contract,
        readTimeoutMs: settings.readTimeoutMs,
        writeTimeoutMs: settings.writeTimeoutMs,
        fetch: options.fetch,
      });
      const state = await readSyncState(db, loc.id);
      const lastFull = state?.lastFullSyncAt?.getTime() ?? 0;
      const nightly = now.getTime() - lastFull > FULL_AFTER_MS && localHour(now, loc.timeZone.timeZoneId) >= 2;
      const doFull = options.full === true || !full.has(loc.id) || nightly;
      const deps = { db, locationId: loc.id, call: client.call, now: clock };
      const report = await syncInventory(deps, { full: doFull });
      if (doFull) {
        full.add(loc.id);
        rates.set(loc.id, now.getTime());
      } else if (now.getTime() - (rates.get(loc.id) ?? 0) >= RATES_EVERY_MS) {
        await syncRates(deps);
        rates.set(loc.id, now.getTime());
      }
      results.push({ locationId: loc.id, name: loc.name, ok: true, report });
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      const message = error instanceof Error ? error.message : String(error);
      logger.warn({ location: loc.id, error: message }, "[sitelink] inventory sync failed; pages keep the last catalogue and say how old it is");
      results.push({ locationId: loc.id, name: loc.name, ok: false, error: message });
    }
  }
  return results;
}

/**
 * Where the running server leaves its latest status for `npm run sitelink:status` when the PGlite
 * directory is held by the server (PGlite is one process at a time). Null on PostgreSQL or in memory.
 */
export function statusSnapshotFile(e: Pick<Env, "DATABASE_URL" | "PGLITE_DIR"> = env()): string | null {
  if (e.DATABASE_URL) return null;
  const dir = e.PGLITE_DIR ?? path.resolve("data", "pglite");
  if (dir.startsWith("memory://")) return null;
  return `${path.resolve(dir).replace(/[/\\]+$/, "")}.sitelink-status.json`;
}

/** Starts the sync in the server process (off under NODE_ENV=test or SITELINK_SYNC=off). Returns a stop function. */
export function startSiteLinkSync(db: Database, clock: () => Date = () => new Date()): () => void {
  const e = env();
  if (e.NODE_ENV === "test" || e.SITELINK_SYNC === "off") return () => {};
  const g = globalThis as unknown as { __gatehouseSiteLinkSync?: () => void };
  if (g.__gatehouseSiteLinkSync) return g.__gatehouseSiteLinkSync;
  const every = Math.max(5_000, e.SITELINK_SYNC_INTERVAL_MS || 60_000);
  const snapshot = statusSnapshotFile();
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const results = await runSiteLinkSync(db, { clock });
      if (snapshot && results.length) {
        const status = await collectSiteLinkStatus(db, clock());
        fs.writeFileSync(snapshot, JSON.stringify(status, null, 2), { mode: 0o600 });
      }
    } catch (error) {
      if (isDatabaseUnavailable(error)) logger.warn("[sitelink] database unavailable; the inventory sync will be retried");
      else logger.error({ err: error }, "[sitelink] inventory sync round failed; it will be retried");
    } finally {
      running = false;
    }
  };
  const first = setTimeout(tick, 2_000);
  const timer = setInterval(tick, every);
  first.unref();
  timer.unref();
  g.__gatehouseSiteLinkSync = () => {
    clearTimeout(first);
    clearInterval(timer);
  };
  return g.__gatehouseSiteLinkSync;
}
