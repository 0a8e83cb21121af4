/**
 * The rental context of a unit type (issue 4): its location, the account's flags, the storage
 * software and the unit type's live availability, read once per request.
 */
import type { CardBrand } from "~/domain/payments/cards";
import { eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { cachedRead, type CacheContext } from "~/db/site-cache.server";
import { unitTypes } from "~/db/schema";
import { earliestReservationExpiries } from "~/db/queries/availability-changes.server";
import { parseAccountGlobalSettings, settingsForLocation, type AccountGlobalSettings } from "~/domain/shared/account-settings";
import { acceptedCardBrands } from "~/domain/payments/accepted-cards";
import { moveInDates } from "~/domain/rental/move-in-date";
import { localDate } from "~/domain/shared/calendar";
import { isAmongSpecificUnitTypes } from "~/domain/site/units";
import { storageFor } from "~/storage-software/index.server";
import type { StorageSoftware, UnitTypeAvailability } from "~/storage-software/port";
import { cardPaymentsAt, type CardPayments } from "../../storage-software/index.server";
import { notFound } from "../web/responses.server";

export interface RentalContext {
  storage: StorageSoftware;
  /** The account's global_settings with the location's own on top (decision 201). */
  settings: AccountGlobalSettings;
  operatorName: string;
  location: {
    id: number;
    accountId: number;
    name: string;
    urlSlug: string;
    status: "Live" | "Coming Soon";
    phoneNumber: string;
    /** The text message number (spec: Location.sms), or null. */
    sms: string | null;
    timeZone: string;
    address: string;
    rentalSuccessMessage: string;
    reservationSuccessMessage: string;
    autopayTerms: string;
    isShowExtraChargesAtCheckout: boolean;
    isHideExtraChargesForParkingOrOffice: boolean;
  };
  unitType: UnitTypeAvailability;
  today: string;
  /**
   * False when the location's is_show_only_specific_unit_types hides this type: it is then neither
   * rentable nor reservable, even by URL (decision 031). Confirmations and cancel links still work.
   * A type hidden online (`unitType.isHiddenOnline`, decision 326) is offered but blocked: its pages
   * say so, like a sold-out type (`rentalBlock`, `reservationBlock`).
   */
  offered: boolean;
  /** The card brands the location takes (its payment_types); empty: no card payments online. */
  acceptedCards: CardBrand[];
  /** The move-in dates a visitor may pick (rental_days_in_advance, Sundays per the account; decision 094). */
  moveInDates: string[];
  /** Whether cards are taken online here and whether the card form is a demonstration (decision 200). */
  cardPayments: CardPayments;
  /**
   * The moment through which expired reservations are known to be swept (the `now` this context was
   * read at: swept then, or none was due): a hold of the same request at that moment need not sweep
   * again (decision 420).
   */
  sweptAt?: Date;
}

/**
 * The unit type with its location, account flags and storage software; null when there is no such
 * unit type. Reads availability once.
 */
export async function loadRentalContext(db: Database, unitTypeId: string, now: Date, cache: CacheContext = {}): Promise<RentalContext | null> {
  if (!/^\d{1,9}$/.test(unitTypeId)) return null;
  const row = await readRentalType(db, Number(unitTypeId), cache);
  if (!row) return null;
  const loc = row.location;
  const account = loc.account;
  // A location added from the console rents only once it is published (decision 620).
  if (!account || !loc.isPublished) return null;
  const website = account.websites[0];
  const storage = storageFor(db, { id: loc.id, name: loc.name, software: loc.software, status: loc.status });
  // Expired reservations give their units back before availability is read (expired on read), when
  // one may be due: a sweep that would change nothing is not sent (issue 22, decision 420).
  const sweep = await reservationMayHaveExpired(db, cache, loc.id, now);
  if (sweep) await storage.expireReservations(now);
  const unitType = await storage.getUnitType(String(row.id), { now });
  if (!unitType) return null;
  const timeZone = loc.timeZone.timeZoneId;
  const a = loc.address;
  const settings = settingsForLocation(parseAccountGlobalSettings(account.globalSettings), loc.globalSettings);
  const cardPayments = await cardPaymentsAt(storage, loc);
  const today = localDate(now, timeZone);
  return {
    storage,
    settings,
    operatorName: website?.websiteName ?? account.name,
    location: {
      id: loc.id,
      accountId: loc.accountId,
      name: loc.name,
      urlSlug: loc.urlSlug,
      status: loc.status,
      phoneNumber: loc.phoneNumber,
      sms: loc.sms,
      timeZone,
      address: a ? `${a.street1}${a.street2 ? `, ${a.street2}` : ""}, ${a.city}, ${a.stateProvince} ${a.postal}` : loc.name,
      rentalSuccessMessage: loc.rentalSuccessMessage,
      reservationSuccessMessage: loc.reservationSuccessMessage,
      autopayTerms: loc.autopayTerms,
      isShowExtraChargesAtCheckout: loc.isShowExtraChargesAtCheckout,
      isHideExtraChargesForParkingOrOffice: loc.isHideExtraChargesForParkingOrOffice,
    },
    unitType,
    today,
    moveInDates: moveInDates(today, settings.rental_days_in_advance, settings.is_rentals_on_sunday_allowed),
    offered: isAmongSpecificUnitTypes(unitType, {
      isShowOnlySpecificUnitTypes: loc.isShowOnlySpecificUnitTypes,
      specificUnitTypesToShow: Array.isArray(loc.specificUnitTypesToShow) ? loc.specificUnitTypesToShow.filter((s) => typeof s === "string") : [],
    }),
    acceptedCards: acceptedCardBrands(loc.paymentTypes),
    cardPayments,
    sweptAt: now,
  };
}

/**
 * Whether a reservation of the location may have run out by `now`, so that the sweep of expired
 * reservations has something to do (issue 22, decision 420). Without the server's site cache (tests,
 * scripts): always (the sweep runs, as before). With it: each location's earliest active-reservation
 * expiry is kept until a change drops the cache (reservations has the `gatehouse_changed` trigger, and
 * this process's own writes drop it too); the sweep runs only when that moment has come. A new
 * reservation always ends in the future, so one not yet seen through the notification cannot be due.
 */
async function reservationMayHaveExpired(db: Database, cache: CacheContext, locationId: number, now: Date): Promise<boolean> {
  if (!cache.siteCache) return true;
  const expiries = await cachedRead(cache, "reservationExpiries", () => earliestReservationExpiries(db), {
    validUntil: (byLocation) => Math.min(Number.POSITIVE_INFINITY, ...byLocation.values()),
  });
  const earliest = expiries.get(locationId);
  return earliest !== undefined && earliest <= now.getTime();
}

/** The type with its location, the location's address and payment types, the account and the website's name. */
function rentalTypeRow(db: Database, id: number) {
  return db.query.unitTypes.findFirst({
    columns: { id: true },
    where: eq(unitTypes.id, id),
    with: { location: { with: { address: true, paymentTypes: true, account: { with: { websites: { columns: { websiteName: true }, limit: 1 } } } } } },
  });
}

/**
 * The rows behind a rental context that only the operator changes (issue 22): one statement without
 * the server's site cache (tests, scripts); with it, none in a rush — the rows are kept until a change
 * drops the cache (every table read here has the `gatehouse_changed` trigger: unit_types, locations,
 * addresses, payment_types, accounts, websites). A key per unit type that exists (the set of ids is
 * cached too), so a visitor's made-up id adds no entry. The rows are shared: never change them.
 * Availability is not cached here: it is read afresh on every request.
 */
async function readRentalType(db: Database, id: number, cache: CacheContext) {
  if (!cache.siteCache) return rentalTypeRow(db, id);
  const ids = await cachedRead(cache, "unitTypeIds", async () => new Set((await db.select({ id: unitTypes.id }).from(unitTypes)).map((r) => r.id)));
  if (!ids.has(id)) return undefined;
  return cachedRead(cache, `rentalType:${id}`, () => rentalTypeRow(db, id));
}

/**
 * The rental context as an action left it when it wrote nothing (issue 22, decision 332): kept for the
 * page's loader of the same request (a form posted without JavaScript runs the action, then the loader),
 * so the loser of a rush is not swept and read again. Keyed by the request's router context, so it
 * lives exactly as long as the request; a request whose action wrote anything, or redirected, keeps
 * nothing, and its loader reads afresh.
 */
const keptForPage = new WeakMap<object, { unitTypeId: string; ctx: RentalContext }>();

export function keepRentalContextForPage(requestContext: object, unitTypeId: string, ctx: RentalContext): void {
  keptForPage.set(requestContext, { unitTypeId, ctx });
}

/** The context kept by this request's action for the same unit type, once; undefined: read it. */
export function takeRentalContextOfAction(requestContext: object, unitTypeId: string): RentalContext | undefined {
  const kept = keptForPage.get(requestContext);
  keptForPage.delete(requestContext);
  return kept && kept.unitTypeId === unitTypeId ? kept.ctx : undefined;
}

/** The context after a hold found no unit free: the page then says "sold out", as a fresh read would. */
export function soldOutContext(ctx: RentalContext): RentalContext {
  return { ...ctx, unitType: { ...ctx.unitType, availableCount: 0 } };
}

/**
 * The rental context of a rental or reservation page: not found when there is no such unit type, or
 * when the location hides it (is_show_only_specific_unit_types: not offered online, even by URL).
 */
export async function requireRentalContext(db: Database, unitTypeId: string, now: Date, cache: CacheContext = {}): Promise<RentalContext> {
  const ctx = await loadRentalContext(db, unitTypeId, now, cache);
  if (!ctx) throw notFound();
  if (!ctx.offered) throw notFound(undefined, "This unit is not offered online");
  return ctx;
}
