import crypto from "node:crypto";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { data, type RouterContextProvider } from "react-router";
import type { Database } from "~/db/client.server";
import { cachedRead } from "~/db/site-cache.server";
import { locations, paymentTypes } from "~/db/schema";
import { acceptedCardBrands } from "~/domain/payments/accepted-cards";
import type { CardBrand } from "~/domain/payments/cards";
import { externalPaymentLink } from "~/domain/payments/pay-bill-link";
import { localDate } from "~/domain/shared/calendar";
import type { YearMonth } from "~/domain/payments/card-schema";
import { settingsForLocation, type AccountGlobalSettings } from "~/domain/shared/account-settings";
import { NO_STORE } from "~/domain/web/cache";
import { storageFor } from "~/storage-software/index.server";
import type { LocationRef } from "~/storage-software/port";
import type { StorageSoftware, TenantLease } from "~/storage-software/port";
import { requireSite } from "../site/context.server";
import { publicOrigin } from "../site/origin.server";
import { now as clockNow } from "~/platform/clock.server";
import { requireTenantSession, type PortalSession } from "../web/session.server";
import { notFound } from "../web/responses.server";
import type { CardPayments } from "../../storage-software/index.server";
import { getCsrfToken } from "../web/csrf.server";

/** A location as the portal needs it. */
export interface PortalLocation extends LocationRef {
  urlSlug: string;
  phoneNumber: string;
  timeZone: string;
  autopayTerms: string;
  moveOutConfirmationMessage: string;
  /** The location's external_payment_link (decision 090); the portal's pay links go there when set. */
  externalPaymentLink: string | null;
  /** The card brands of the location's payment_types (decision 091); none: no card payment online. */
  acceptedCards: CardBrand[];
  /** The location's own global_settings, over the account's (`settingsForLocation`, decision 201). */
  globalSettings: unknown;
}

export async function portalLocations(db: Database, accountId: number): Promise<PortalLocation[]> {
  const rows = await db
    .select({
      id: locations.id,
      name: locations.name,
      software: locations.software,
      status: locations.status,
      urlSlug: locations.urlSlug,
      phoneNumber: locations.phoneNumber,
      timeZone: locations.timeZone,
      autopayTerms: locations.autopayTerms,
      moveOutConfirmationMessage: locations.moveOutConfirmationMessage,
      externalPaymentLink: locations.externalPaymentLink,
      globalSettings: locations.globalSettings,
    })
    .from(locations)
    .where(eq(locations.accountId, accountId))
    .orderBy(asc(locations.id));
  const types = rows.length
    ? await db
        .select({ locationId: paymentTypes.locationId, category: paymentTypes.category })
        .from(paymentTypes)
        .where(and(inArray(paymentTypes.locationId, rows.map((r) => r.id)), isNull(paymentTypes.deletedAt)))
    : [];
  return rows.map((r) => ({ ...r, timeZone: r.timeZone.timeZoneId, acceptedCards: acceptedCardBrands(types.filter((t) => t.locationId === r.id)) }));
}

/**
 * How the portal takes card payments (pay, prepay, autopay) for a unit at this location:
 * - "external": the location's external_payment_link is set; its tenants pay there, not here, by
 *   link or by URL (decision 090, 136);
 * - "no_cards": the location has no payment types, so no card is taken online (decision 091);
 * - "cards": our forms, taking only the location's brands.
 */
/** The saved cards a payment form may offer: only brands the location takes. */
export function usableSavedCards<T extends { brand: CardBrand }>(cards: T[], payment: PortalCardPayment): T[] {
  return payment.kind === "cards" ? cards.filter((c) => payment.accepted.includes(c.brand)) : [];
}

export type PortalCardPayment =
  | { kind: "external"; href: string }
  | { kind: "no_cards" }
  | { kind: "cards"; accepted: CardBrand[]; demonstration: boolean; hosted: boolean };

/**
 * `cards` says whether the location takes cards online at all (decision 200): where they need our
 * payment gateway and none is configured it is "no_cards" too (call the office).
 */
export function portalCardPayment(location: Pick<PortalLocation, "externalPaymentLink" | "acceptedCards">, cards: CardPayments): PortalCardPayment {
  const href = externalPaymentLink(location.externalPaymentLink);
  if (href) return { kind: "external", href };
  if (location.acceptedCards.length === 0 || !cards.online) return { kind: "no_cards" };
  return { kind: "cards", accepted: location.acceptedCards, demonstration: cards.demonstration, hosted: cards.hosted };
}

/**
 * The storage software that answers tenant-level questions (sign-in, profile). Tenants are the
 * account's, so any location's adapter can; the first live one is asked (docs/decisions/050-portal-on-the-port.md).
 */
export function accountStorage(db: Database, list: PortalLocation[]): { storage: StorageSoftware; location: PortalLocation } {
  const location = list.find((l) => l.status === "Live") ?? list[0];
  if (!location) throw data({ message: "No locations" }, { status: 503 });
  return { storage: storageFor(db, location), location };
}

export interface PortalContext {
  db: Database;
  now: Date;
  accountId: number;
  siteName: string;
  /** The website's configured origin for links in emails (never the request's host). */
  origin: string;
  settings: AccountGlobalSettings;
  locations: PortalLocation[];
  /** The office phone shown in "call the office" notes. */
  phone: string;
  /** Today's year and month in the main time zone, for card expiry. */
  today: YearMonth;
  storage: StorageSoftware;
}

export async function portalContext(context: Readonly<RouterContextProvider>): Promise<PortalContext> {
  const { account, website } = await requireSite(context);
  // Locations and their payment types change only when the operator edits them (both tables have the
  // `gatehouse_changed` trigger): through the server's site cache, so a portal page, a sign-in and the
  // page after it do not read them again (issue 22, decision 427). Shared rows: never change them.
  const list = await cachedRead(context, `portalLocations:${account.id}`, () => portalLocations(context.db, account.id));
  return portalContextOf(context.db, { account, website }, clockNow(), list);
}

/**
 * The portal context of an account without a request (a pay link sent from the back office or by the
 * billing run, decision 240): the same locations, settings and software as the portal's pages.
 */
export async function portalContextOf(
  db: Database,
  site: { account: { id: number; globalSettings: AccountGlobalSettings }; website: { websiteName: string; domain: string } },
  now: Date,
  known?: PortalLocation[],
): Promise<PortalContext> {
  const { account, website } = site;
  const list = known ?? (await portalLocations(db, account.id));
  const { storage, location } = accountStorage(db, list);
  const [y, m] = localDate(now, location.timeZone).split("-").map(Number);
  return {
    db,
    now,
    accountId: account.id,
    siteName: website.websiteName,
    origin: publicOrigin(website),
    settings: account.globalSettings,
    locations: list,
    phone: location.phoneNumber,
    today: { year: y!, month: m! },
    storage,
  };
}

/** The portal context of a signed-in tenant (or a redirect to sign in). */
export async function requirePortalTenant(context: Readonly<RouterContextProvider>, request: Request): Promise<PortalContext & { session: PortalSession }> {
  const ctx = await portalContext(context);
  const session = await requireTenantSession(ctx.db, request, ctx.now);
  return { ...ctx, session };
}

/**
 * What the signed-in layout's navigation shows (decision 225): who is signed in, and the CSRF token of
 * its sign-out form (bound to the session: no cookie to set).
 */
export async function portalNavData(request: Request, ctx: PortalContext & { session: PortalSession }): Promise<{ name: string; csrfToken: string }> {
  const [tenant, csrf] = await Promise.all([ctx.storage.getTenant(ctx.session.tenantId), getCsrfToken(request)]);
  return { name: tenant ? `${tenant.firstName} ${tenant.lastName}` : "", csrfToken: csrf.token };
}

interface PortalUnit {
  lease: TenantLease;
  location: PortalLocation;
}

/** Every unit of the tenant, asking each location's software. */
export async function listPortalUnits(ctx: PortalContext, tenantId: string): Promise<PortalUnit[]> {
  const perLocation = await Promise.all(
    ctx.locations.map(async (location) => {
      const leases = await storageFor(ctx.db, location).listTenantLeases(tenantId);
      return leases.map((lease) => ({ lease, location }));
    }),
  );
  return perLocation.flat();
}

/** One of the tenant's units, with its location's software; 404 for anyone else's (or no such) lease. */
export async function requirePortalUnit(ctx: PortalContext, tenantId: string, leaseId: string | undefined) {
  const unit = await findPortalUnit(ctx, tenantId, leaseId);
  if (!unit) throw notFound();
  return unit;
}

/** One of the tenant's units, with its location's software, or null (a pay link's lease, decision 240). */
export async function findPortalUnit(ctx: PortalContext, tenantId: string, leaseId: string | undefined) {
  if (leaseId && /^\d{1,9}$/.test(leaseId)) {
    for (const location of ctx.locations) {
      const storage = storageFor(ctx.db, location);
      const lease = await storage.getTenantLease(tenantId, leaseId);
      if (lease) {
        // What the portal offers for this unit: the account's settings with its location's on top (decision 201).
        const settings = settingsForLocation(ctx.settings, location.globalSettings);
        return { lease, location, storage, settings, today: localDate(ctx.now, location.timeZone) };
      }
    }
  }
  return null;
}

/** A fresh idempotency key for a payment form: a double submit of the same form charges once. */
export function newIdempotencyKey(): string {
  return crypto.randomBytes(18).toString("base64url");
}

/** Response headers of a portal page: never stored, plus any cookies to set. */
export function portalHeaders(...setCookies: Array<string | null | undefined>): Headers {
  const h = new Headers({ "Cache-Control": NO_STORE });
  for (const c of setCookies) if (c) h.append("Set-Cookie", c);
  return h;
}

/** The `headers` export of portal routes: no-store, the loader's and action's cookies, the action's Retry-After. */
export function portalRouteHeaders({ loaderHeaders, actionHeaders }: { loaderHeaders: Headers; actionHeaders?: Headers | null }): Headers {
  const h = new Headers({ "Cache-Control": NO_STORE });
  for (const source of [loaderHeaders, actionHeaders]) for (const c of source?.getSetCookie() ?? []) h.append("Set-Cookie", c);
  // An action that could not be done for now (the facility's system unreachable) says when to retry.
  const retryAfter = actionHeaders?.get("Retry-After");
  if (retryAfter) h.set("Retry-After", retryAfter);
  return h;
}
