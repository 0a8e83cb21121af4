import { and, asc, eq, isNull, type SQL } from "drizzle-orm";
import { publishedLocation } from "./published-locations";
import type { Database } from "~/db/client.server";
import {
  addresses,
  amenities,
  hoursBlocks,
  insurancePlans,
  locationImages,
  locations,
  paymentTypes,
  specialHours,
} from "~/db/schema";
import { parseExtraCharges } from "~/domain/site/location-settings";
import { logger } from "~/platform/logger.server";

export type LocationSummary = Awaited<ReturnType<typeof listLocations>>[number];

/**
 * The columns of a location every list of locations reads (the home page, /view-locations, the
 * sitemap): the draft's diff reads them too (decision 661: a change of any other column of a location
 * shows on no list).
 */
export const LOCATION_LIST_COLUMNS = {
  id: locations.id,
  name: locations.name,
  urlSlug: locations.urlSlug,
  status: locations.status,
  software: locations.software,
  phoneNumber: locations.phoneNumber,
  metaTagline: locations.metaTagline,
  mainImage: locations.mainImage,
  /** The location's own global_settings (decision 201); pages strip it with `withRentsOnline`. */
  globalSettings: locations.globalSettings,
};

/** Every location of the account with its address, for lists and the footer. Live ones first. */
export async function listLocations(db: Database, accountId: number) {
  const rows = await db
    .select({
      ...LOCATION_LIST_COLUMNS,
      address: {
        street1: addresses.street1,
        street2: addresses.street2,
        city: addresses.city,
        stateProvince: addresses.stateProvince,
        postal: addresses.postal,
        lat: addresses.lat,
        lon: addresses.lon,
      },
    })
    .from(locations)
    .leftJoin(addresses, eq(addresses.locationId, locations.id))
    .where(and(eq(locations.accountId, accountId), publishedLocation))
    .orderBy(asc(locations.id));
  return rows.sort((a, b) => Number(a.status !== "Live") - Number(b.status !== "Live"));
}

/** Everything a location page shows, by slug; null when there is no such location. */
export function getLocationPage(db: Database, slug: string) {
  return locationPage(db, eq(locations.urlSlug, slug.toLowerCase()));
}

/** The same by location id (the site cache keys it by id). */
export function getLocationPageById(db: Database, id: number) {
  return locationPage(db, eq(locations.id, id));
}

async function locationPage(db: Database, where: SQL) {
  const location = await db.query.locations.findFirst({
    where: and(where, publishedLocation),
    with: {
      address: true,
      hoursBlocks: { with: { items: true }, orderBy: asc(hoursBlocks.type) },
      // Every date the location has: which are upcoming is decided per request (the row set does not
      // change with the clock, so the site cache may keep it until a write).
      specialHours: { columns: { date: true, label: true, isClosed: true, open: true, close: true }, orderBy: asc(specialHours.date) },
      amenities: { orderBy: asc(amenities.index) },
      media: { orderBy: asc(locationImages.index) },
      insurancePlans: { orderBy: asc(insurancePlans.coverage) },
      paymentTypes: { where: isNull(paymentTypes.deletedAt), orderBy: asc(paymentTypes.id) },
    },
  });
  if (!location) return null;
  const charges = parseExtraCharges(location.chargesToShowAtCheckout);
  if (!charges.ok) logger.error({ location: location.urlSlug, problem: charges.error }, "extra charges of a location could not be read");
  return { ...location, extraCharges: charges.ok ? charges.charges : [] };
}
