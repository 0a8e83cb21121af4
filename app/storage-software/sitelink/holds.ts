/**
 * Rental holds at a SiteLink location (study §3.3, §3.6): SiteLink has no hold, so holds are ours,
 * on the catalogue mirror (`units.held_until` / `hold_token`, the same conditional UPDATE as the local
 * adapter). What makes them safe is the fresh re-check: before a unit is held (or a hold renewed),
 * UnitsInformationByUnitID reads it in SiteLink right now; a unit the office rented, reserved or took
 * out of service since the last sync is mirrored as such and the next one is tried. No sync lag at the
 * moment of renting: the move-in re-checks again (./move-in.ts) and SiteLink's own -2 is the last word.
 *
 * A local hold is invisible to the office (a held unit can still be rented at the counter); the
 * re-check at move-in turns that into "that unit has just been taken" with nothing charged.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { unitTypes, units } from "~/db/schema";
import type { UnitHold } from "../port";
import type { LocationRef } from "../port";
import { UnitUnavailableError } from "../errors";
import type { SiteLinkCall } from "./client";
import { rowsOf, type Row } from "./dataset";
import { okRead } from "./errors";
import { mirrorUnitRow, rentableNow } from "./sync";

/** How many units of a type are re-checked in SiteLink before answering "none free". */
const MAX_CHECKS = 4;

interface SiteLinkHoldDeps {
  db: Database;
  location: LocationRef;
  call: SiteLinkCall;
}

type Row2 = Record<string, unknown>;
const rowsOfResult = (result: unknown): Row2[] => (result as { rows: Row2[] }).rows;

/** SiteLink's current row for one unit, or null when SiteLink does not know it. Throws SoftwareUnreachableError. */
export async function freshUnitRow(call: SiteLinkCall, externalUnitId: string): Promise<Row | null> {
  const answer = okRead(await call("UnitsInformationByUnitID", { UnitID: Number(externalUnitId) }), "UnitsInformationByUnitID");
  return rowsOf(answer, "Table").find((r) => (r.UnitID ?? "").trim() === externalUnitId) ?? null;
}

/** Units of the type this token may hold now: its own hold first, then free ones by name. */
async function candidates(tx: Database | Transaction, locationId: number, typeId: number, token: string, now: Date) {
  const nowIso = now.toISOString();
  const result = await tx.execute(sql`
    select id, name, external_id from units
    where location_id = ${locationId} and unit_type_id = ${typeId} and status = 'available' and external_id is not null
      and (hold_token = ${token} or held_until is null or held_until <= ${nowIso}::timestamptz)
    order by (hold_token is not distinct from ${token}) desc, name
    limit ${MAX_CHECKS}`);
  return rowsOfResult(result).map((r) => ({ id: Number(r.id), name: String(r.name), externalId: String(r.external_id) }));
}

/** Claims this unit for the token if it is still free locally; true when claimed. */
async function claim(db: Database, unitId: number, token: string, until: Date, now: Date): Promise<boolean> {
  const nowIso = now.toISOString();
  const result = await db.execute(sql`
    update units set held_until = ${until.toISOString()}::timestamptz, hold_token = ${token}, updated_at = now()
    where id = ${unitId} and status = 'available'
      and (hold_token = ${token} or held_until is null or held_until <= ${nowIso}::timestamptz)
    returning id`);
  return rowsOfResult(result).length === 1;
}

export function siteLinkHolds(deps: SiteLinkHoldDeps) {
  const { db, location, call } = deps;

  return {
    async holdUnit({ unitTypeId, holdToken, until, now }: { unitTypeId: string; holdToken: string; until: Date; now: Date }): Promise<UnitHold> {
      if (!/^\d{1,9}$/.test(unitTypeId)) throw new UnitUnavailableError("No such unit type");
      const typeId = Number(unitTypeId);
      const [type] = await db
        .select({ id: unitTypes.id })
        .from(unitTypes)
        .where(and(eq(unitTypes.id, typeId), eq(unitTypes.locationId, location.id)));
      if (!type) throw new UnitUnavailableError("No such unit type");
      // A rental holds at most one unit: let go of a unit of another type it may hold.
      await db.execute(sql`update units set held_until = null, hold_token = null where hold_token = ${holdToken} and unit_type_id <> ${typeId}`);

      const tried = new Set<number>();
      for (let round = 0; round < 3; round++) {
        const list = (await candidates(db, location.id, typeId, holdToken, now)).filter((c) => !tried.has(c.id));
        if (!list.length) break;
        for (const unit of list) {
          tried.add(unit.id);
          const fresh = await freshUnitRow(call, unit.externalId);
          if (!fresh || !rentableNow(fresh)) {
            // The office changed it since the last sync: the catalogue learns it now.
            if (fresh) await mirrorUnitRow(db, location.id, fresh);
            else await db.update(units).set({ status: "unavailable" }).where(eq(units.id, unit.id));
            continue;
          }
          if (await claim(db, unit.id, holdToken, until, now)) {
            return { unitId: String(unit.id), unitName: unit.name, holdToken, heldUntil: until };
          }
        }
      }
      // Nothing to hold: make sure this token holds nothing of the type either.
      await db.execute(sql`update units set held_until = null, hold_token = null where hold_token = ${holdToken}`);
      throw new UnitUnavailableError("No unit of this type is available");
    },

    async releaseHold(holdToken: string): Promise<void> {
      await db.update(units).set({ heldUntil: null, holdToken: null }).where(and(eq(units.holdToken, holdToken), eq(units.locationId, location.id)));
    },
  };
}
