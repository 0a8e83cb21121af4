import { and, asc, eq, isNotNull, sql, type Placeholder } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations, sitelinkDiscountPlans, unitTypes, units } from "~/db/schema";
import { localDate } from "~/domain/shared/calendar";
import { shownPromotion } from "~/domain/rental/promotion";
import type { UnitTypeAvailability } from "./port";

/**
 * A location's unit types from our catalogue tables, smallest first, with availability counted in the
 * database in one grouped query: a unit is available when its status is `available` and it is not held
 * by a rental (no hold, or a hold that ended at or before `at`). Reserved, rented and unavailable
 * units never count. Both adapters read it: the local adapter's own demo inventory, and the SiteLink
 * adapter's synced copy (`syncedOnly`: only the unit types and units that came from the software).
 */
function unitTypeQuery(db: Database, synced: boolean, locationId: Placeholder | number, atIso: Placeholder | string, unitTypeId?: number) {
  return db
    .select({
      id: unitTypes.id,
      locationId: unitTypes.locationId,
      name: unitTypes.name,
      category: unitTypes.category,
      width: unitTypes.width,
      length: unitTypes.length,
      height: unitTypes.height,
      floor: unitTypes.floor,
      features: unitTypes.features,
      description: unitTypes.description,
      isHiddenOnline: unitTypes.isHiddenOnline,
      promotionKind: unitTypes.promotionKind,
      promotionAmount: unitTypes.promotionAmount,
      promotionPercent: unitTypes.promotionPercent,
      promotionMonths: unitTypes.promotionMonths,
      promotionPlanId: unitTypes.promotionPlanId,
      promotionStartsOn: unitTypes.promotionStartsOn,
      promotionEndsOn: unitTypes.promotionEndsOn,
      // The plan a SiteLink promotion names, as SiteLink last listed it (decision 673).
      planName: sitelinkDiscountPlans.name,
      planListed: sitelinkDiscountPlans.listed,
      planTerms: sitelinkDiscountPlans.terms,
      planNotOffered: sitelinkDiscountPlans.notOffered,
      timeZone: sql<string>`${locations.timeZone}->>'timeZoneId'`,
      images: unitTypes.images,
      standardRate: unitTypes.standardRate,
      webRate: unitTypes.webRate,
      availableCount: sql<number>`count(${units.id}) filter (where ${units.status} = 'available' and (${units.heldUntil} is null or ${units.heldUntil} <= ${atIso}::timestamptz))`.mapWith(Number),
      totalCount: sql<number>`count(${units.id})`.mapWith(Number),
    })
    .from(unitTypes)
    .innerJoin(locations, eq(locations.id, unitTypes.locationId))
    .leftJoin(units, synced ? and(eq(units.unitTypeId, unitTypes.id), isNotNull(units.externalId)) : eq(units.unitTypeId, unitTypes.id))
    .leftJoin(sitelinkDiscountPlans, and(eq(sitelinkDiscountPlans.locationId, unitTypes.locationId), eq(sitelinkDiscountPlans.concessionId, unitTypes.promotionPlanId)))
    .where(
      and(
        eq(unitTypes.locationId, locationId),
        synced ? isNotNull(unitTypes.externalId) : undefined,
        unitTypeId === undefined ? undefined : eq(unitTypes.id, unitTypeId),
      ),
    )
    .groupBy(unitTypes.id, locations.id, sitelinkDiscountPlans.locationId, sitelinkDiscountPlans.concessionId)
    .orderBy(asc(sql`${unitTypes.width} * ${unitTypes.length}`), asc(unitTypes.width), asc(unitTypes.category), asc(unitTypes.id));
}
type UnitTypeRow = Awaited<ReturnType<typeof unitTypeQuery>>[number];

/**
 * The list query of a location page, built once per database handle (decision 164: Drizzle built the
 * same SQL text on every page-cache miss); the location and the moment are parameters. Still a live
 * read, never cached. The statement is unnamed (""): a named one lives on one server connection, and
 * through a pooler in transaction mode the next transaction may get another connection, which has it
 * already ("prepared statement … already exists") or not at all (issue 41, decision 560).
 */
function prepareList(db: Database, synced: boolean) {
  return unitTypeQuery(db, synced, sql.placeholder("locationId"), sql.placeholder("at")).prepare("");
}
const preparedLists = new WeakMap<Database, Map<boolean, ReturnType<typeof prepareList>>>();
function listQuery(db: Database, synced: boolean) {
  let byKind = preparedLists.get(db);
  if (!byKind) preparedLists.set(db, (byKind = new Map()));
  let prepared = byKind.get(synced);
  if (!prepared) byKind.set(synced, (prepared = prepareList(db, synced)));
  return prepared;
}

/**
 * A row as the port gives it; the promotion is the text shown today in the location's time zone: what
 * applies (decision 674), at SiteLink worded from the plan as SiteLink last listed it (decision 673).
 */
function toAvailability(row: UnitTypeRow, at: Date, software: "local" | "sitelink"): UnitTypeAvailability {
  const {
    promotionKind,
    promotionAmount,
    promotionPercent,
    promotionMonths,
    promotionPlanId,
    promotionStartsOn,
    promotionEndsOn,
    planName,
    planListed,
    planTerms,
    planNotOffered,
    timeZone,
    ...rest
  } = row;
  const today = localDate(at, timeZone || "UTC");
  const plan = planName === null ? null : { name: planName, listed: planListed === true, terms: planTerms ?? null, notOffered: planNotOffered };
  const promotion = shownPromotion(
    { promotionKind, promotionAmount, promotionPercent, promotionMonths, promotionPlanId, promotionStartsOn, promotionEndsOn },
    today,
    software,
    plan,
  );
  return {
    ...rest,
    promotion,
    id: String(row.id),
    features: Array.isArray(row.features) ? row.features : [],
    images: Array.isArray(row.images) ? row.images : [],
  };
}

export async function catalogueUnitTypes(
  db: Database,
  locationId: number,
  options: { at: Date; unitTypeId?: number; syncedOnly?: boolean },
): Promise<UnitTypeAvailability[]> {
  const synced = options.syncedOnly === true;
  const atIso = options.at.toISOString();
  const rows =
    options.unitTypeId === undefined
      ? await listQuery(db, synced).execute({ locationId, at: atIso })
      : await unitTypeQuery(db, synced, locationId, atIso, options.unitTypeId);
  return rows.map((r) => toAvailability(r, options.at, synced ? "sitelink" : "local"));
}
