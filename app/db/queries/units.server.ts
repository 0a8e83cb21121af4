/**
 * Read models for the unit pages. Availability comes from the location's storage software (the port),
 * read at most once per request and location however many loaders ask (docs/decisions/033).
 */
import type { RouterContextProvider } from "react-router";
import { cardPaymentsAt, storageFor, type CardPayments } from "~/storage-software/index.server";
import type { LocationRef } from "~/storage-software/port";
import { StorageSoftwareError, storageErrorMessage } from "~/storage-software/errors";
import type { UnitTypeAvailability } from "~/storage-software/port";
import {
  allUnitsListing,
  locationUnitListing,
  shownUnitTypes,
  type AccountUnitSettings,
  type ListingLocation,
  type UnitListingView,
} from "~/domain/site/units-listing";
import { parseUnitFilters, unitTypeSlugs } from "~/domain/site/units";
import { settingsForLocation, type AccountGlobalSettings } from "~/domain/shared/account-settings";
import { logger } from "~/platform/logger.server";
import { readUnitsLocations } from "./cached-reads.server";
import { normalise, type UnitsLocation } from "./units-locations.server";
// The locations' rows have a module of their own (decision 546): the cached reads read them without importing this one.
export { getUnitsLocation } from "./units-locations.server";
import { availabilityAsOfText } from "~/domain/site/availability-freshness";

const perRequest = new WeakMap<object, Map<number, Promise<UnitTypeAvailability[]>>>();

/**
 * The unit types of a location with live availability, read once per request (once per side of the
 * draft's diff, which renders many pages on one side: `readScope`, decision 661). Coming-soon
 * locations list no units and are not asked at all.
 */
export function getUnitAvailability(context: Readonly<RouterContextProvider>, location: LocationRef): Promise<UnitTypeAvailability[]> {
  if (location.status !== "Live") return Promise.resolve([]);
  const scope = context.readScope ?? context;
  let byLocation = perRequest.get(scope);
  if (!byLocation) {
    byLocation = new Map();
    perRequest.set(scope, byLocation);
  }
  let pending = byLocation.get(location.id);
  if (!pending) {
    pending = storageFor(context.db, location).listUnitTypes();
    byLocation.set(location.id, pending);
  }
  return pending;
}

/**
 * When the location's counts were read from its software (null: live). A SiteLink location's counts
 * come from the last inventory sync; pages say how old they are (docs/decisions/111).
 */
async function availabilityAsOf(context: Readonly<RouterContextProvider>, location: LocationRef): Promise<Date | null> {
  try {
    return await storageFor(context.db, location).availabilityAsOf();
  } catch (error) {
    if (error instanceof StorageSoftwareError) return null;
    throw error;
  }
}

/**
 * Availability for a page: when the location's software fails with a StorageSoftwareError the page
 * still renders, with no units and a sentence for visitors (anything else is a bug and propagates).
 * `freshness` is "Availability as of 2:41 PM." when the counts come from a sync, else null.
 */
export async function getUnitAvailabilityOrNotice(
  context: Readonly<RouterContextProvider>,
  location: LocationRef & { phoneNumber: string; timeZone?: { timeZoneId: string } },
  options: { nameInFreshness?: boolean } = {},
): Promise<{ types: UnitTypeAvailability[]; notice: string | null; freshness: string | null }> {
  try {
    const types = await getUnitAvailability(context, location);
    const asOf = location.status === "Live" ? await availabilityAsOf(context, location) : null;
    const freshness =
      asOf && location.timeZone
        ? availabilityAsOfText(asOf, location.timeZone.timeZoneId, new Date(), options.nameInFreshness ? location.name : undefined)
        : null;
    return { types, notice: null, freshness };
  } catch (error) {
    if (!(error instanceof StorageSoftwareError)) throw error;
    logger.warn({ location: location.name, err: error }, "[storage-software] availability could not be loaded");
    return {
      types: [],
      notice: `Prices and availability at ${location.name} could not be loaded. ${storageErrorMessage(error, location.phoneNumber)}`,
      freshness: null,
    };
  }
}

/**
 * The flags and settings a location's listing follows: the account's global_settings with the
 * location's own on top (decision 201).
 */
export function accountUnitSettings(
  account: {
    isSplitUnitsByUnitType: boolean;
    globalSettings: AccountGlobalSettings;
  },
  locationSettings: unknown = {},
  cards: boolean | Pick<CardPayments, "online" | "awaitingGoLive"> = true,
): AccountUnitSettings {
  const settings = settingsForLocation(account.globalSettings, locationSettings);
  const payments = typeof cards === "boolean" ? { online: cards, awaitingGoLive: false } : cards;
  return {
    webRatesEnabled: settings.is_web_rates_enabled,
    // A SiteLink location before its go-live check passed shows as rentals switched off (issue 37).
    rentalsEnabled: settings.is_rentals_enabled && !payments.awaitingGoLive,
    cardPaymentsOnline: payments.online,
    reservationsEnabled: settings.is_reservations_enabled,
    splitByUnitType: account.isSplitUnitsByUnitType,
    valuePricingEnabled: settings.is_value_pricing_enabled,
  };
}

/**
 * Whether the location takes cards online (decision 200): without, its unit cards say to call to rent;
 * and whether it awaits its SiteLink go-live check (issue 37): then rentals show as switched off.
 */
export async function cardPaymentsOnline(context: Readonly<RouterContextProvider>, location: LocationRef): Promise<Pick<CardPayments, "online" | "awaitingGoLive">> {
  return cardPaymentsAt(storageFor(context.db, location), location);
}

/** A location page's unit listing (live locations; coming-soon ones list none). */
export async function getLocationUnitListing(
  context: Readonly<RouterContextProvider>,
  location: LocationRef & Omit<ListingLocation, "specificUnitTypesToShow"> & { specificUnitTypesToShow: unknown; globalSettings: unknown },
  account: Parameters<typeof accountUnitSettings>[0],
  params: URLSearchParams,
): Promise<UnitListingView> {
  const { types, notice, freshness } = await getUnitAvailabilityOrNotice(context, location);
  const { specificUnitTypesToShow } = normalise({ specificUnitTypesToShow: location.specificUnitTypesToShow, address: null });
  const settings = accountUnitSettings(account, location.globalSettings, await cardPaymentsOnline(context, location));
  const listing = locationUnitListing(types, { ...location, specificUnitTypesToShow }, settings, parseUnitFilters(params));
  return { ...listing, notices: notice ? [notice] : [], freshness: freshness ? [freshness] : [] };
}

/** /units: the rentable unit types of every live location. */
export async function getAllUnitsListing(
  context: Readonly<RouterContextProvider>,
  account: Parameters<typeof accountUnitSettings>[0] & { id: number },
  params: URLSearchParams,
): Promise<{ listing: UnitListingView; locations: UnitsLocation[] }> {
  const live = await readUnitsLocations(context, account.id);
  const loaded = await Promise.all(
    live.map(async (location) => ({
      location,
      settings: accountUnitSettings(account, location.globalSettings, await cardPaymentsOnline(context, location)),
      ...(await getUnitAvailabilityOrNotice(context, location, { nameInFreshness: live.length > 1 })),
    })),
  );
  const listing = allUnitsListing(loaded, accountUnitSettings(account), parseUnitFilters(params));
  return {
    listing: { ...listing, notices: loaded.flatMap((l) => (l.notice ? [l.notice] : [])), freshness: loaded.flatMap((l) => (l.freshness ? [l.freshness] : [])) },
    locations: live,
  };
}

/**
 * Paths of every unit type page of the account's live locations (shown types, sold out or not), for
 * the sitemap: "/locations/{url_slug}/units/{unitTypeSlug}".
 */
export async function listUnitTypePagePaths(context: Readonly<RouterContextProvider>, accountId: number): Promise<string[]> {
  const live = await readUnitsLocations(context, accountId);
  const paths: string[] = [];
  for (const location of live) {
    const { types } = await getUnitAvailabilityOrNotice(context, location);
    const slugs = unitTypeSlugs(types);
    for (const t of shownUnitTypes(types, location)) paths.push(`/locations/${location.urlSlug}/units/${slugs.get(t.id)}`);
  }
  return paths;
}
