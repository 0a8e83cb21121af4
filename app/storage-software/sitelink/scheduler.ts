/**
 * The SiteLink inventory sync job (issue 11 §3, study §8.4), started with the server's housekeeping:
 *
 * - every SITELINK_SYNC_INTERVAL_MS (default 60 s): an incremental sync of each SiteLink location
 *   (UnitsInformation_v3 since SiteLink's last poll marker);
 * - every 15 minutes: the rates (UnitTypePriceList_v2) and the site's discount plans (DiscountPlansRetrieve,
 *   decision 673);
 * - a full sync at start-up and nightly (the first tick after 02:00 in the location's time zone, when
 *   the last full sync is more than 20 hours old), which also catches deletions and anything missed.
 *
 * A location whose SiteLink cannot be reached keeps its last catalogue (pages show how old it is) and
 * its error is recorded for `npm run sitelink:status`.
 *
 * One process runs it (issue 37 point 8, decision 480): every process checks the `sitelink_sync_lease`
 * row every LEASE_CHECK_MS; the one that holds it (or finds it expired) renews it for LEASE_MS and
 * syncs when a sync is due; the others do nothing. A holder that stops is taken over by another
 * process at most LEASE_MS + LEASE_CHECK_MS (one minute) later; one that shuts down releases it at
 * once. Were two ever to overlap (a database pause longer than the lease), no harm: every write of
 * the sync is an upsert.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { accounts, locations, sitelinkSites, sitelinkSyncLease } from "~/db/schema";
import { isDatabaseUnavailable } from "~/db/unavailable";
import { logger } from "~/platform/logger.server";
import { createSiteLinkClient } from "./client";
import type { OperationContract } from "./contract";
import contractJson from "./operations.json";
import { adapterChoiceFor, loadSiteLinkSettings } from "./settings";
import { collectSiteLinkStatus } from "./status";
import { readSyncState, syncInventory, syncRates, type SyncReport } from "./sync";
import { readDiscountPlans } from "./discount-plans";
import { localDate } from "~/domain/shared/calendar";
import { env, type Env } from "~/platform/env.server";

const contract = contractJson as unknown as OperationContract;
const RATES_EVERY_MS = 15 * 60_000;
const FULL_AFTER_MS = 20 * 3600_000;
/** How long a claim of the sync lasts unless renewed. */
export const LEASE_MS = 45_000;
/** How often every process checks (and the holder renews) the claim: takeover within LEASE_MS + this. */
export const LEASE_CHECK_MS = 15_000;
const LEASE = "sync";

interface LocationSyncResult {
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
      let ratesRead = doFull;
      if (doFull) {
        full.add(loc.id);
        rates.set(loc.id, now.getTime());
      } else if (now.getTime() - (rates.get(loc.id) ?? 0) >= RATES_EVERY_MS) {
        await syncRates(deps);
        rates.set(loc.id, now.getTime());
        ratesRead = true;
      }
      // With the rates: the site's discount plans, so a plan changed or removed in SiteLink is worded
      // (or no longer offered) on the website and told to the office (decision 673).
      if (ratesRead) {
        await readDiscountPlans({ db, locationId: loc.id, call: client.call, now: clock() }, localDate(now, loc.timeZone.timeZoneId)).catch((error: unknown) => {
          if (isDatabaseUnavailable(error)) throw error;
          logger.warn({ location: loc.id, error: error instanceof Error ? error.message : String(error) }, "[sitelink] the discount plans could not be read; the website keeps the plans as last read");
        });
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

/**
 * Claims (or renews) the sync for `holder` until now + LEASE_MS: true when it holds it. One statement
 * that only one process can win: the row is inserted, or updated when this holder has it or its
 * claim has expired.
 */
async function claimSyncLease(db: Database, holder: string, now: Date): Promise<boolean> {
  const until = new Date(now.getTime() + LEASE_MS);
  const won = await db
    .insert(sitelinkSyncLease)
    .values({ name: LEASE, holder, leasedUntil: until, acquiredAt: now })
    .onConflictDoUpdate({
      target: sitelinkSyncLease.name,
      set: {
        holder,
        leasedUntil: until,
        acquiredAt: sql`case when ${sitelinkSyncLease.holder} = ${holder} then ${sitelinkSyncLease.acquiredAt} else ${now.toISOString()}::timestamptz end`,
      },
      setWhere: sql`${sitelinkSyncLease.holder} = ${holder} or ${sitelinkSyncLease.leasedUntil} < ${now.toISOString()}::timestamptz`,
    })
    .returning({ holder: sitelinkSyncLease.holder });
  return won.length > 0;
}

/** Gives the claim up (a process shutting down): another process takes the sync at its next check. */
async function releaseSyncLease(db: Database, holder: string): Promise<void> {
  await db
    .update(sitelinkSyncLease)
    .set({ holder: "", leasedUntil: new Date(0) })
    .where(and(eq(sitelinkSyncLease.name, LEASE), eq(sitelinkSyncLease.holder, holder)));
}

/** Who holds the sync now (for `sitelink:status` and tests), or null when nobody does. */
export async function syncLeaseHolder(db: Database, now: Date): Promise<{ holder: string; since: Date; until: Date } | null> {
  const [row] = await db.select().from(sitelinkSyncLease).where(eq(sitelinkSyncLease.name, LEASE));
  return row && row.holder && row.leasedUntil > now ? { holder: row.holder, since: row.acquiredAt, until: row.leasedUntil } : null;
}

interface SiteLinkSyncRunner {
  /** This process's name in the lease. */
  holder: string;
  /**
   * One check: claim or renew the lease; when held and a sync is due (none yet, or `everyMs` since the
   * last one began), run it. `synced` is null when this process did not sync (not the holder, not due).
   */
  check(): Promise<{ leads: boolean; synced: LocationSyncResult[] | null }>;
  /** Stops syncing here and releases the lease. */
  release(): Promise<void>;
}

/**
 * The sync of one process under the lease (the timers are startSiteLinkSync's; tests call `check`).
 * `fetch`: SiteLink's transport (tests); `onSynced`: after each sync this process ran.
 */
export function siteLinkSyncRunner(
  db: Database,
  options: { clock?: () => Date; everyMs?: number; holder?: string; fetch?: typeof fetch; onSynced?: (results: LocationSyncResult[]) => Promise<void> | void } = {},
): SiteLinkSyncRunner {
  const clock = options.clock ?? (() => new Date());
  const everyMs = options.everyMs ?? 60_000;
  const holder = options.holder ?? `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString("hex")}`;
  let lastSyncAt: number | null = null;
  let released = false;
  return {
    holder,
    async check() {
      if (released) return { leads: false, synced: null };
      const now = clock();
      const leads = await claimSyncLease(db, holder, now);
      if (!leads) {
        // Another process syncs: when this one takes over, it starts with a sync.
        lastSyncAt = null;
        return { leads, synced: null };
      }
      if (lastSyncAt !== null && now.getTime() - lastSyncAt < everyMs && now.getTime() >= lastSyncAt) return { leads, synced: null };
      lastSyncAt = now.getTime();
      const results = await runSiteLinkSync(db, { clock, now, fetch: options.fetch });
      await options.onSynced?.(results);
      return { leads, synced: results };
    },
    async release() {
      released = true;
      await releaseSyncLease(db, holder);
    },
  };
}

/**
 * Starts the sync in the server process (off under NODE_ENV=test or SITELINK_SYNC=off): the lease is
 * checked every LEASE_CHECK_MS, and the process holding it syncs every SITELINK_SYNC_INTERVAL_MS.
 * Returns a stop function, which releases the lease.
 */
export function startSiteLinkSync(db: Database, clock: () => Date = () => new Date()): () => Promise<void> {
  const e = env();
  if (e.NODE_ENV === "test" || e.SITELINK_SYNC === "off") return async () => {};
  const g = globalThis as unknown as { __gatehouseSiteLinkSync?: () => Promise<void> };
  if (g.__gatehouseSiteLinkSync) return g.__gatehouseSiteLinkSync;
  const every = Math.max(5_000, e.SITELINK_SYNC_INTERVAL_MS || 60_000);
  const snapshot = statusSnapshotFile();
  const runner = siteLinkSyncRunner(db, {
    clock,
    everyMs: every,
    onSynced: async (results) => {
      if (snapshot && results.length) {
        const status = await collectSiteLinkStatus(db, clock());
        fs.writeFileSync(snapshot, JSON.stringify(status, null, 2), { mode: 0o600 });
      }
    },
  });
  let syncing: Promise<void> | null = null;
  const renew = async () => {
    try {
      await claimSyncLease(db, runner.holder, clock());
    } catch (error) {
      if (!isDatabaseUnavailable(error)) logger.error({ err: error }, "[sitelink] the sync lease could not be renewed");
    }
  };
  const tick = async () => {
    // A sync still running: only the lease is renewed, so that a long sync keeps it.
    if (syncing) return renew();
    syncing = (async () => {
      try {
        await runner.check();
      } catch (error) {
        if (isDatabaseUnavailable(error)) logger.warn("[sitelink] database unavailable; the inventory sync will be retried");
        else logger.error({ err: error }, "[sitelink] inventory sync round failed; it will be retried");
      } finally {
        syncing = null;
      }
    })();
    await syncing;
  };
  const first = setTimeout(tick, 2_000);
  const timer = setInterval(tick, Math.min(LEASE_CHECK_MS, every));
  first.unref();
  timer.unref();
  g.__gatehouseSiteLinkSync = async () => {
    clearTimeout(first);
    clearInterval(timer);
    delete g.__gatehouseSiteLinkSync;
    await runner.release().catch(() => undefined);
  };
  return g.__gatehouseSiteLinkSync;
}

/** Stops this process's sync and releases its lease (the server's shutdown), so another process takes over at once. */
export async function stopSiteLinkSync(): Promise<void> {
  await (globalThis as unknown as { __gatehouseSiteLinkSync?: () => Promise<void> }).__gatehouseSiteLinkSync?.();
}
