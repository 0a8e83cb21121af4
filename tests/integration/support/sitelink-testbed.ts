/**
 * A SiteLink test bed: the SiteLink simulator on an ephemeral port (real SOAP over HTTP), a seeded
 * test database with `use_demo_units` off, and Lumberton (L001) and Jacksonville (L002) configured
 * to use it. Lumberton's password comes from an environment variable, Jacksonville's is stored
 * encrypted (both ways of docs/decisions/110 are exercised).
 */
import crypto from "node:crypto";
import { and, eq, isNotNull, ne, sql } from "drizzle-orm";
import { expect } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, locations, sitelinkSites, units, unitTypes } from "~/db/schema";
import type { LocationRef } from "~/storage-software/index.server";
import { forgetStorageChoices, recordSimulatorPass, runSiteLinkSync, saveSiteLinkSettings } from "~/storage-software/index.server";
import { DEMO_CORP, startSiteLinkSimulator, type RunningSimulator, type StartOptions } from "../../../sitelink-simulator/index";
import { createTestDatabase } from "./db";

export const PASSWORD_ENV = "SITELINK_TEST_PASSWORD";
const API_KEY_ENV = "SITELINK_TEST_API_KEY";

export interface SiteLinkTestbed {
  handle: DatabaseHandle;
  sim: RunningSimulator;
  lumberton: LocationRef;
  jacksonville: LocationRef;
  /** Simulator log lines (never console.error: tests fail on it). */
  simLog: string[];
  close(): Promise<void>;
}

async function locationRef(handle: DatabaseHandle, slug: string): Promise<LocationRef> {
  const row = await handle.db.query.locations.findFirst({ where: eq(locations.urlSlug, slug) });
  if (!row) throw new Error(`no location ${slug}`);
  return { id: row.id, name: row.name, software: row.software, status: row.status };
}

export async function startSiteLinkTestbed(options: StartOptions = {}): Promise<SiteLinkTestbed> {
  const simLog: string[] = [];
  const sim = await startSiteLinkSimulator({ port: 0, log: (l) => simLog.push(l), ...options });
  process.env[PASSWORD_ENV] = DEMO_CORP.password;
  process.env[API_KEY_ENV] = DEMO_CORP.apiKey;
  process.env.SITELINK_SECRET_KEY ??= crypto.randomBytes(32).toString("hex");
  const handle = await createTestDatabase();
  const lumberton = await locationRef(handle, "lumberton-nc-28358");
  const jacksonville = await locationRef(handle, "jacksonville-nc-28546");
  const [loc] = await handle.db.select({ accountId: locations.accountId }).from(locations).where(eq(locations.id, lumberton.id));
  await handle.db.update(accounts).set({ useDemoUnits: false }).where(eq(accounts.id, loc!.accountId));
  const common = { endpoint: sim.url, corpCode: DEMO_CORP.corpCode, corpUser: DEMO_CORP.userName, testMode: true, cardTypeIds: { mastercard: 5, visa: 6, discover: 8 } };
  await saveSiteLinkSettings(handle.db, { ...common, locationId: lumberton.id, locationCode: "L001", passwordEnv: PASSWORD_ENV, apiKeyEnv: API_KEY_ENV });
  await saveSiteLinkSettings(handle.db, {
    ...common,
    locationId: jacksonville.id,
    locationCode: "L002",
    password: DEMO_CORP.password,
    apiKey: DEMO_CORP.apiKey,
    cardChargedBy: "gateway",
    cardTypeIds: { visa: 5, mastercard: 6, discover: 7 },
  });
  // Both locations connected to the simulator are switched on as the demo seed does (issue 37).
  await recordSimulatorPasses(handle, [lumberton.id, jacksonville.id]);
  return {
    handle,
    sim,
    lumberton,
    jacksonville,
    simLog,
    async close() {
      await handle.close();
      await sim.close();
    },
  };
}

/**
 * The test bed with the simulator's clock at `now`, short SiteLink timeouts (so that "no answer" is
 * quick in tests; 45 s writes in production) and a full inventory sync done.
 */
export async function startSyncedSiteLinkTestbed(now: Date, timeouts: { writeTimeoutMs?: number; readTimeoutMs?: number } = {}): Promise<SiteLinkTestbed> {
  const bed = await startSiteLinkTestbed();
  bed.sim.control.setClock({ to: now.toISOString() });
  await bed.handle.db.update(sitelinkSites).set({ writeTimeoutMs: 1500, ...timeouts });
  forgetStorageChoices(bed.handle.db);
  expect((await runSiteLinkSync(bed.handle.db, { full: true, now })).every((r) => r.ok)).toBe(true);
  return bed;
}

/** The storage unit type (not parking) synced from SiteLink at `location` with the most free units, and how many. */
export async function roomiestSyncedUnitType(bed: SiteLinkTestbed, location: LocationRef): Promise<{ id: string; free: number }> {
  const rows = await bed.handle.db
    .select({ id: unitTypes.id, free: sql<number>`count(*) filter (where ${units.status} = 'available')`.mapWith(Number) })
    .from(unitTypes)
    .innerJoin(units, eq(units.unitTypeId, unitTypes.id))
    .where(and(eq(unitTypes.locationId, location.id), isNotNull(unitTypes.externalId), ne(unitTypes.category, "parking")))
    .groupBy(unitTypes.id);
  const pick = rows.sort((a, b) => b.free - a.free)[0]!;
  return { id: String(pick.id), free: pick.free };
}

/** The simulator's readings of what the sources leave open (sitelink-simulator/state.ts SiteReadings, decision 180). */
export interface Readings {
  payMethod: "lsetup" | "manual";
  successCode: "id" | "zero";
  /** What a move-in with bTestMode does (issue 37): "records" (the simulator's default) or "nothing". */
  testMode?: "records" | "nothing";
}

/** The simulator's default readings (the contract suite runs on them). */
export const DEFAULT_READINGS: Readings = { payMethod: "lsetup", successCode: "id" };

/** The pay-method ids an operator configures for each iPayMethod reading (`sitelink:configure --pay-method`). */
export const PAY_METHOD_IDS = {
  lsetup: { card: 1, cash: 2, check: 3 },
  manual: { card: 0, cash: 2, check: 1 },
} as const;

/** Both simulated sites answer by `readings`; the locations' settings carry the matching pay-method ids. */
export async function useReadings(bed: SiteLinkTestbed, readings: Readings, payMethodIds: { card: number; cash: number; check: number } = PAY_METHOD_IDS[readings.payMethod]): Promise<void> {
  for (const code of ["L001", "L002"]) bed.sim.control.configureSite(code, { readings });
  await bed.handle.db.update(sitelinkSites).set({ payMethodIds });
  await recordSimulatorPasses(bed.handle, [bed.lumberton.id, bed.jacksonville.id]);
  forgetStorageChoices(bed.handle.db);
}

/**
 * The simulator's locations switched on for their settings as saved now (issue 37, decision 470: the
 * demo seed's record, as `npm run start:sitelink` makes). The go-live tests make their own checks.
 */
async function recordSimulatorPasses(handle: DatabaseHandle, locationIds: number[], now = new Date()): Promise<void> {
  for (const id of locationIds) await recordSimulatorPass(handle.db, id, now);
}
