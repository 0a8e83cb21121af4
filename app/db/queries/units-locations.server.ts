/**
 * The account's locations as the unit listings need them (their row, address and own settings): the
 * query the cached reads (./cached-reads.server.ts) keep and ./units.server.ts builds listings from.
 * A module of its own so that neither of those two imports the other (decision 546).
 */
import { and, asc, eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { addresses, locations } from "~/db/schema";
import { publishedLocation } from "./published-locations";
import type { LocationRef } from "~/storage-software/port";
import type { ListingLocation } from "~/domain/site/units-listing";

export type UnitsLocation = ListingLocation & LocationRef & {
  /** The location's own global_settings (decision 201): `accountUnitSettings` puts them over the account's. */
  globalSettings: unknown;
  address: { street1: string; street2: string | null; city: string; stateProvince: string; postal: string } | null;
};

/**
 * The columns of a location the unit listings read (/units, the size guide, the unit type pages): the
 * draft's diff reads them too (decision 661: a change of any other column shows on no listing).
 */
export const UNITS_LOCATION_COLUMNS = {
  id: locations.id,
  name: locations.name,
  urlSlug: locations.urlSlug,
  status: locations.status,
  software: locations.software,
  phoneNumber: locations.phoneNumber,
  timeZone: locations.timeZone,
  isShowOnlySpecificUnitTypes: locations.isShowOnlySpecificUnitTypes,
  specificUnitTypesToShow: locations.specificUnitTypesToShow,
  hasMatchOnLocationPageFilter: locations.hasMatchOnLocationPageFilter,
  globalSettings: locations.globalSettings,
};

const columns = {
  ...UNITS_LOCATION_COLUMNS,
  address: {
    street1: addresses.street1,
    street2: addresses.street2,
    city: addresses.city,
    stateProvince: addresses.stateProvince,
    postal: addresses.postal,
  },
};

/** The row's JSON list of unit types to show as strings only, and its address (null without one). */
export function normalise(row: {
  specificUnitTypesToShow: unknown;
  address: UnitsLocation["address"];
}) {
  return {
    specificUnitTypesToShow: Array.isArray(row.specificUnitTypesToShow)
      ? row.specificUnitTypesToShow.filter((s): s is string => typeof s === "string")
      : [],
    address: row.address,
  };
}

/** The account's live locations, in id order, with what the unit listing needs. */
export async function listUnitsLocations(db: Database, accountId: number): Promise<UnitsLocation[]> {
  const rows = await db
    .select(columns)
    .from(locations)
    .leftJoin(addresses, eq(addresses.locationId, locations.id))
    .where(and(eq(locations.accountId, accountId), eq(locations.status, "Live"), publishedLocation))
    .orderBy(asc(locations.id));
  return rows.map((r) => ({ ...r, ...normalise(r) }));
}

/** One location of the account by slug (any status), or null. */
export async function getUnitsLocation(db: Database, accountId: number, slug: string): Promise<UnitsLocation | null> {
  const [row] = await db
    .select(columns)
    .from(locations)
    .leftJoin(addresses, eq(addresses.locationId, locations.id))
    .where(and(eq(locations.accountId, accountId), eq(locations.urlSlug, slug.toLowerCase()), publishedLocation));
  return row ? { ...row, ...normalise(row) } : null;
}

