/**
 * The inventory sync of a SiteLink location (issue 11 §3, study §3.1, §3.2, §8.4): SiteLink's unit
 * types, rates and unit states mirrored into our catalogue (`unit_types`, `units`, keyed by
 * `external_id`), so pages read one local query and operator content (category, features,
 * description, height) stays ours.
 *
 * - Full sync (start-up, nightly, or when nothing was synced yet): UnitTypePriceList_v2 for the rates
 *   of each type and size, UnitsInformation_v3 from tick 0 for every unit; units SiteLink no longer
 *   lists become unavailable (never deleted: leases and rentals point at them).
 * - Incremental sync (about every minute): UnitsInformation_v3 with SiteLink's own lngLastTimePolled
 *   marker (stored as returned, never our clock), only the units changed since.
 *
 * Group key of a unit type (SiteLink's UnitTypeID is a category such as "Drive-Up", not a size):
 * `{UnitTypeID}:{width}x{length}:c{climate}:f{floor}:i{inside}`.
 *
 * Availability between syncs can be stale: pages say "Availability as of …" (sitelink_sync_state.
 * last_synced_at), and holdUnit re-reads the unit in SiteLink before it holds it (./holds.ts).
 */
import { and, eq, inArray, isNotNull, notInArray, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { sitelinkSyncState, unitTypes, units, type UnitCategory, type UnitStatus } from "~/db/schema";
import type { SiteLinkCall } from "./client";
import { rowsOf, type Row } from "./dataset";
import { okRead } from "./errors";
import { decimalToNumber, intOrNull, isTrue, optionalCents } from "./money";

const UNITS_OP = "UnitsInformation_v3";
const PRICE_LIST_OP = "UnitTypePriceList_v2";

export interface SyncReport {
  full: boolean;
  unitsSeen: number;
  typesCreated: number;
  unitsCreated: number;
  unitsUpdated: number;
  unitsGone: number;
}

/** The mirror status of a SiteLink unit row. */
function unitStatusOf(row: Row): UnitStatus {
  if (row.dDeleted || !isTrue(row.bRentable) || isTrue(row.bExcludeFromWebsite)) return "unavailable";
  if (isTrue(row.bRented)) return "rented";
  if (isTrue(row.bWaitingListReserved)) return "reserved";
  return "available";
}

/** True when SiteLink says the unit can be rented now (what holdUnit checks, fresh). */
export function rentableNow(row: Row): boolean {
  return unitStatusOf(row) === "available";
}

function groupKey(row: Row): string | null {
  const typeId = intOrNull(row.UnitTypeID);
  if (typeId === null) return null;
  const w = decimalToNumber(row.dcWidth, 0);
  const l = decimalToNumber(row.dcLength, 0);
  return `${typeId}:${w}x${l}:c${isTrue(row.bClimate) ? 1 : 0}:f${intOrNull(row.iFloor) ?? 1}:i${isTrue(row.bInside) ? 1 : 0}`;
}

/** Our category for a new type (the operator can change it; the sync never overwrites it). */
function categoryOf(row: Row): UnitCategory {
  const name = (row.sTypeName ?? "").toLowerCase();
  if (/park|rv|boat|vehicle/.test(name)) return "parking";
  if (isTrue(row.bClimate) || /climate/.test(name)) return "climate_controlled";
  if (isTrue(row.bInside) || /indoor|inside/.test(name)) return "indoor";
  return "drive_up";
}

interface TypeFacts {
  key: string;
  name: string;
  width: number;
  length: number;
  floor: number;
  standardRate: number;
  webRate: number;
  sample: Row;
}

function typeFacts(row: Row): TypeFacts | null {
  const key = groupKey(row);
  if (!key) return null;
  const standardRate = optionalCents(row.dcStdRate);
  const web = optionalCents(row.dcWebRate);
  return {
    key,
    name: (row.sTypeName ?? "").trim() || "Storage unit",
    width: decimalToNumber(row.dcWidth, 0),
    length: decimalToNumber(row.dcLength, 0),
    floor: intOrNull(row.iFloor) ?? 1,
    standardRate,
    webRate: web > 0 ? web : standardRate,
    sample: row,
  };
}

type Executor = Database | Transaction;

/** Inserts or updates the unit types of `facts`; returns key -> unit_types.id. Types with no rate are skipped. */
async function upsertTypes(tx: Executor, locationId: number, facts: TypeFacts[], updateRates: boolean): Promise<{ ids: Map<string, number>; created: number }> {
  const existing = await tx
    .select({ id: unitTypes.id, externalId: unitTypes.externalId })
    .from(unitTypes)
    .where(and(eq(unitTypes.locationId, locationId), isNotNull(unitTypes.externalId)));
  const ids = new Map(existing.map((t) => [t.externalId!, t.id]));
  let created = 0;
  for (const f of facts) {
    const id = ids.get(f.key);
    if (id !== undefined) {
      await tx
        .update(unitTypes)
        .set({
          name: f.name,
          width: f.width,
          length: f.length,
          floor: f.floor,
          ...(updateRates && f.standardRate > 0 ? { standardRate: f.standardRate, webRate: f.webRate } : {}),
        })
        .where(eq(unitTypes.id, id));
      continue;
    }
    // SiteLink sometimes lists a type at $0 (not for rent online): not shown, like ST does.
    if (f.standardRate <= 0) continue;
    const [row] = await tx
      .insert(unitTypes)
      .values({
        locationId,
        name: f.name,
        category: categoryOf(f.sample),
        width: f.width,
        length: f.length,
        floor: f.floor,
        standardRate: f.standardRate,
        webRate: f.webRate,
        externalId: f.key,
      })
      // Another process syncing the same location at the same moment inserted it first.
      .onConflictDoUpdate({ target: [unitTypes.locationId, unitTypes.externalId], set: { name: f.name } })
      .returning({ id: unitTypes.id });
    ids.set(f.key, row!.id);
    created++;
  }
  return { ids, created };
}

/** Mirrors SiteLink unit rows; returns [created, updated]. */
async function upsertUnits(tx: Executor, locationId: number, rows: Row[], typeIds: Map<string, number>): Promise<[number, number]> {
  const mine = await tx
    .select({ id: units.id, name: units.name, externalId: units.externalId })
    .from(units)
    .where(eq(units.locationId, locationId));
  const byExternal = new Map(mine.filter((u) => u.externalId !== null).map((u) => [u.externalId!, u.id]));
  const byName = new Map(mine.filter((u) => u.externalId === null).map((u) => [u.name, u.id]));
  // Names are unique per location: who holds each name now.
  const nameHolder = new Map(mine.map((u) => [u.name, { id: u.id, externalId: u.externalId }]));
  const nameOf = new Map(mine.filter((u) => u.externalId !== null).map((u) => [u.externalId!, u.name]));
  let created = 0;
  let updated = 0;
  for (const row of rows) {
    const unitId = intOrNull(row.UnitID);
    const key = groupKey(row);
    const typeId = key ? typeIds.get(key) : undefined;
    if (unitId === null || typeId === undefined) continue;
    const values = {
      unitTypeId: typeId,
      name: (row.sUnitName ?? "").trim() || `Unit ${unitId}`,
      floor: intOrNull(row.iFloor) ?? 1,
      status: unitStatusOf(row),
      externalId: String(unitId),
    };
    // A unit already mirrored, or a local unit of the same name (demo data before SiteLink) adopted.
    const id = byExternal.get(values.externalId) ?? byName.get(values.name);
    // The name belongs to another SiteLink unit (deleted and re-created at the office): that one,
    // which SiteLink no longer lists under this name, gets its id appended, so the sync never jams.
    const holder = nameHolder.get(values.name);
    if (holder && holder.id !== id && row.dDeleted) {
      // A deleted unit never takes a name from another: it keeps its own with its id appended.
      values.name = `${values.name} (#${values.externalId})`;
    } else if (holder && holder.id !== id && holder.externalId !== null) {
      const renamed = `${values.name} (#${holder.externalId})`;
      await tx.update(units).set({ name: renamed }).where(eq(units.id, holder.id));
      nameHolder.set(renamed, holder);
      nameOf.set(holder.externalId, renamed);
    }
    if (id !== undefined) {
      await tx.update(units).set(values).where(eq(units.id, id));
      byName.delete(values.name);
      updated++;
    } else {
      const [inserted] = await tx
        .insert(units)
        .values({ locationId, ...values })
        .onConflictDoUpdate({ target: [units.locationId, units.externalId], set: values })
        .returning({ id: units.id });
      byExternal.set(values.externalId, inserted!.id);
      created++;
    }
    const previous = nameOf.get(values.externalId);
    if (previous !== undefined && previous !== values.name) nameHolder.delete(previous);
    nameHolder.set(values.name, { id: id ?? byExternal.get(values.externalId)!, externalId: values.externalId });
    nameOf.set(values.externalId, values.name);
  }
  return [created, updated];
}

interface SyncDeps {
  db: Database;
  locationId: number;
  call: SiteLinkCall;
  now: () => Date;
}

async function syncState(db: Executor, locationId: number) {
  const [row] = await db.select().from(sitelinkSyncState).where(eq(sitelinkSyncState.locationId, locationId));
  return row ?? null;
}

/**
 * One sync of the location. `full` forces a full sync; without it a location never synced (or whose
 * marker was lost) gets a full one too. Records success or the error in sitelink_sync_state; throws
 * the error (SoftwareUnreachableError when SiteLink could not answer).
 */
export async function syncInventory(deps: SyncDeps, options: { full?: boolean } = {}): Promise<SyncReport> {
  const { db, locationId, now } = deps;
  const state = await syncState(db, locationId);
  const full = options.full === true || !state?.lastTimePolled;
  const attemptAt = now();
  try {
    const report = full ? await fullSync(deps) : await incrementalSync(deps, state!.lastTimePolled!);
    const at = now();
    await db
      .insert(sitelinkSyncState)
      .values({
        locationId,
        lastTimePolled: report.marker,
        lastSyncedAt: at,
        lastFullSyncAt: full ? at : null,
        lastAttemptAt: attemptAt,
        lastError: null,
        lastErrorAt: null,
        consecutiveFailures: 0,
      })
      .onConflictDoUpdate({
        target: sitelinkSyncState.locationId,
        set: {
          lastTimePolled: report.marker ?? sql`${sitelinkSyncState.lastTimePolled}`,
          lastSyncedAt: at,
          ...(full ? { lastFullSyncAt: at } : {}),
          lastAttemptAt: attemptAt,
          lastError: null,
          lastErrorAt: null,
          consecutiveFailures: 0,
        },
      });
    return { full, unitsSeen: report.unitsSeen, typesCreated: report.typesCreated, unitsCreated: report.unitsCreated, unitsUpdated: report.unitsUpdated, unitsGone: report.unitsGone };
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    await db
      .insert(sitelinkSyncState)
      .values({ locationId, lastAttemptAt: attemptAt, lastError: message, lastErrorAt: attemptAt, consecutiveFailures: 1 })
      .onConflictDoUpdate({
        target: sitelinkSyncState.locationId,
        set: {
          lastAttemptAt: attemptAt,
          lastError: message,
          lastErrorAt: attemptAt,
          consecutiveFailures: sql`${sitelinkSyncState.consecutiveFailures} + 1`,
        },
      })
      .catch(() => undefined);
    throw error;
  }
}

type InnerReport = Omit<SyncReport, "full"> & { marker: string | null };

function markerOf(answer: { tables: Record<string, Row[]> }): string | null {
  const m = rowsOf(answer as never, "Table1")[0]?.lngLastTimePolled?.trim();
  return m && /^\d+$/.test(m) ? m : null;
}

async function fullSync({ db, locationId, call }: SyncDeps): Promise<InnerReport> {
  const prices = okRead(await call(PRICE_LIST_OP, {}), PRICE_LIST_OP);
  const unitsAnswer = okRead(await call(UNITS_OP, { lngLastTimePolled: "0", bReturnExcludedFromWebsiteUnits: true }), UNITS_OP);
  const priceRows = rowsOf(prices, "Table");
  const unitRows = rowsOf(unitsAnswer, "Table").filter((r) => intOrNull(r.UnitID) !== null);
  const facts = new Map<string, TypeFacts>();
  // Rates from the price list; sizes and names of groups it does not list come from the units.
  for (const r of priceRows) {
    const f = typeFacts(r);
    if (f) facts.set(f.key, f);
  }
  for (const r of unitRows) {
    const f = typeFacts(r);
    if (f && !facts.has(f.key)) facts.set(f.key, f);
  }
  return db.transaction(async (tx) => {
    const { ids, created: typesCreated } = await upsertTypes(tx, locationId, [...facts.values()], true);
    const [unitsCreated, unitsUpdated] = await upsertUnits(tx, locationId, unitRows, ids);
    const seen = unitRows.map((r) => String(intOrNull(r.UnitID)));
    const gone = await tx
      .update(units)
      .set({ status: "unavailable" })
      .where(
        and(
          eq(units.locationId, locationId),
          isNotNull(units.externalId),
          seen.length ? notInArray(units.externalId, seen) : undefined,
          inArray(units.status, ["available", "reserved"]),
        ),
      )
      .returning({ id: units.id });
    return { marker: markerOf(unitsAnswer), unitsSeen: unitRows.length, typesCreated, unitsCreated, unitsUpdated, unitsGone: gone.length };
  });
}

async function incrementalSync({ db, locationId, call }: SyncDeps, marker: string): Promise<InnerReport> {
  const answer = okRead(await call(UNITS_OP, { lngLastTimePolled: marker, bReturnExcludedFromWebsiteUnits: true }), UNITS_OP);
  const unitRows = rowsOf(answer, "Table").filter((r) => intOrNull(r.UnitID) !== null);
  const next = markerOf(answer) ?? marker;
  if (!unitRows.length) return { marker: next, unitsSeen: 0, typesCreated: 0, unitsCreated: 0, unitsUpdated: 0, unitsGone: 0 };
  const facts = new Map<string, TypeFacts>();
  for (const r of unitRows) {
    const f = typeFacts(r);
    if (f && !facts.has(f.key)) facts.set(f.key, f);
  }
  return db.transaction(async (tx) => {
    // Rates stay the price list's (full sync); a new size seen here gets its type from the unit row.
    const { ids, created: typesCreated } = await upsertTypes(tx, locationId, [...facts.values()], false);
    const [unitsCreated, unitsUpdated] = await upsertUnits(tx, locationId, unitRows, ids);
    return { marker: next, unitsSeen: unitRows.length, typesCreated, unitsCreated, unitsUpdated, unitsGone: 0 };
  });
}

/**
 * The rates of every type and size from the price list (about every 15 minutes: an office rate change
 * does not necessarily touch the units' poll marker). New sizes get their type here too.
 */
export async function syncRates({ db, locationId, call }: SyncDeps): Promise<number> {
  const prices = okRead(await call(PRICE_LIST_OP, {}), PRICE_LIST_OP);
  const facts = rowsOf(prices, "Table")
    .map(typeFacts)
    .filter((f): f is TypeFacts => f !== null);
  return db.transaction(async (tx) => (await upsertTypes(tx, locationId, facts, true)).ids.size);
}

/** Mirrors one fresh unit row (holdUnit's re-check) so the catalogue agrees with what SiteLink said. */
export async function mirrorUnitRow(db: Executor, locationId: number, row: Row): Promise<void> {
  const unitId = intOrNull(row.UnitID);
  if (unitId === null) return;
  await db
    .update(units)
    .set({ status: unitStatusOf(row) })
    .where(and(eq(units.locationId, locationId), eq(units.externalId, String(unitId))));
}

/** When availability was last read from SiteLink (null: never). */
export async function availabilityAsOf(db: Executor, locationId: number): Promise<Date | null> {
  const state = await syncState(db, locationId);
  return state?.lastSyncedAt ?? null;
}

export async function readSyncState(db: Executor, locationId: number) {
  return syncState(db, locationId);
}
