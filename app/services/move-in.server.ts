/**
 * The online rental use cases (issue 4): the rental context of a unit type, the checkout state kept
 * in the `checkouts` table (its id in an HttpOnly cookie), each step's save, and the move-in itself.
 * Every figure comes from `quoteMoveIn`, computed again here before the card is charged.
 */
import crypto from "node:crypto";
import { and, asc, eq, lt } from "drizzle-orm";
import { createCookie } from "react-router";
import type { Database } from "~/db/client.server";
import { accounts, checkouts, locations, units, unitTypes, websites } from "~/db/schema";
import { leaseText, type LeaseParties } from "~/domain/lease";
import { formatCents } from "~/domain/money";
import { firstPeriod, localToday } from "~/domain/move-in-quote";
import type { CheckoutProgress } from "~/domain/move-in-steps";
import { formatPhone } from "~/domain/phone";
import { parseAccountGlobalSettings, RENTALS_DISABLED_MESSAGE, type AccountGlobalSettings } from "~/domain/account-settings";
import { tenantFromForm, type AccountCreationInput } from "~/domain/tenant-form";
import { env } from "~/env.server";
import { now as clockNow } from "./clock.server";
import { cookieName, hostCookieOptions } from "./cookie-names.server";
import { PaymentDeclinedError } from "~/storage-software/errors";
import { storageFor } from "~/storage-software/index.server";
import type { InsurancePlanOption, MoveInQuote, MoveInRecord, MoveInResult, PaymentMethodInput, StorageSoftware, UnitTypeAvailability } from "~/storage-software/port";
import { getPaymentGateway } from "./payment-gateway.server";
import { hashPassword } from "./password.server";
import { sendEmail } from "./email.server";
import { CARD_DECLINED_MESSAGE } from "./card-attempts.server";
import type { CardBrand } from "~/db/schema/billing";
import { isUnitTypeShown } from "~/domain/units";
import { acceptedCardBrands } from "~/domain/accepted-cards";
import { effectiveMoveInDate, moveInDates } from "~/domain/move-in-date";

/** How long a unit is kept for one visitor between steps. */
export const HOLD_MINUTES = 15;

// ------------------------------------------------------------------ context

export type RentalBlock = "rentals_off" | "coming_soon" | "no_card_payment" | "sunday" | "sold_out" | null;

export interface RentalContext {
  storage: StorageSoftware;
  settings: AccountGlobalSettings;
  operatorName: string;
  location: {
    id: number;
    name: string;
    urlSlug: string;
    status: "Live" | "Coming Soon";
    phoneNumber: string;
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
   */
  offered: boolean;
  /** The card brands the location takes (its payment_types); empty: no card payments online. */
  acceptedCards: CardBrand[];
  /** The move-in dates a visitor may pick (rental_days_in_advance, Sundays per the account; decision 094). */
  moveInDates: string[];
}

/**
 * The unit type with its location, account flags and storage software; null when there is no such
 * unit type. Reads availability once.
 */
export async function loadRentalContext(db: Database, unitTypeId: string, now: Date): Promise<RentalContext | null> {
  if (!/^\d{1,9}$/.test(unitTypeId)) return null;
  const row = await db.query.unitTypes.findFirst({
    columns: { id: true },
    where: eq(unitTypes.id, Number(unitTypeId)),
    with: { location: { with: { address: true, paymentTypes: true } } },
  });
  if (!row) return null;
  const loc = row.location;
  const account = await db.query.accounts.findFirst({ where: eq(accounts.id, loc.accountId) });
  if (!account) return null;
  const website = await db.query.websites.findFirst({ columns: { websiteName: true }, where: eq(websites.accountId, account.id) });
  const storage = storageFor(db, { id: loc.id, name: loc.name, software: loc.software, status: loc.status });
  // Expired reservations give their units back before availability is read (expired on read).
  await storage.expireReservations(now);
  const unitType = await storage.getUnitType(String(row.id), { now });
  if (!unitType) return null;
  const timeZone = loc.timeZone.timeZoneId;
  const a = loc.address;
  const settings = parseAccountGlobalSettings(account.globalSettings);
  const today = localToday(now, timeZone);
  return {
    storage,
    settings,
    operatorName: website?.websiteName ?? account.name,
    location: {
      id: loc.id,
      name: loc.name,
      urlSlug: loc.urlSlug,
      status: loc.status,
      phoneNumber: loc.phoneNumber,
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
    offered: isUnitTypeShown(unitType, {
      isShowOnlySpecificUnitTypes: loc.isShowOnlySpecificUnitTypes,
      specificUnitTypesToShow: Array.isArray(loc.specificUnitTypesToShow) ? loc.specificUnitTypesToShow.filter((s) => typeof s === "string") : [],
    }),
    acceptedCards: acceptedCardBrands(loc.paymentTypes),
  };
}

/** Why this unit type cannot be rented online right now, or null. Spec §9 rules. */
export function rentalBlock(ctx: RentalContext, options: { ignoreAvailability?: boolean } = {}): RentalBlock {
  if (!ctx.settings.is_rentals_enabled) return "rentals_off";
  if (ctx.location.status !== "Live") return "coming_soon";
  // A location with no payment types takes no card payments online: rent at the office.
  if (ctx.acceptedCards.length === 0) return "no_card_payment";
  // No move-in date left to pick (today is Sunday, Sundays are not allowed and nothing in advance).
  if (ctx.moveInDates.length === 0) return "sunday";
  if (!options.ignoreAvailability && ctx.unitType.availableCount < 1) return "sold_out";
  return null;
}

export function rentalBlockMessage(block: Exclude<RentalBlock, null>, phone: string): string {
  switch (block) {
    case "rentals_off":
      return RENTALS_DISABLED_MESSAGE;
    case "coming_soon":
      return `This location is coming soon and cannot be rented online yet. Call ${phone} to hear when it opens.`;
    case "no_card_payment":
      return `This location does not take card payments online. Please call the office at ${phone} to rent this unit.`;
    case "sunday":
      return `Online rentals are not available on Sundays. Please come back tomorrow or call ${phone}.`;
    case "sold_out":
      return `Sorry, this unit size is sold out. Please choose another size or call ${phone}; we may have something similar.`;
  }
}

// ------------------------------------------------------------------ checkout state

export function checkoutCookie() {
  const e = env();
  return createCookie(cookieName("checkout", e.secureCookies), {
    ...hostCookieOptions(e.secureCookies),
    secrets: e.sessionSecrets,
    maxAge: 60 * 60 * 24,
  });
}

export async function readCheckoutId(request: Request): Promise<string | null> {
  const v = await checkoutCookie().parse(request.headers.get("Cookie"));
  return typeof v === "string" && /^[A-Za-z0-9_-]{20,100}$/.test(v) ? v : null;
}

export function checkoutCookieHeader(id: string): Promise<string> {
  return checkoutCookie().serialize(id);
}

export function clearCheckoutCookieHeader(): Promise<string> {
  return checkoutCookie().serialize("", { maxAge: 0 });
}

export type Checkout = typeof checkouts.$inferSelect;

/**
 * A checkout the visitor can go on with: open, or "charging" (a payment was started and the
 * database went away before it was recorded: paying again completes it with the same charge).
 */
export function isActiveCheckout(c: Pick<Checkout, "status">): boolean {
  return c.status === "open" || c.status === "charging";
}

/**
 * Before a step changes what will be charged, a started but unrecorded charge of this checkout is
 * voided and the checkout gets a new idempotency key, so the next payment is a new charge of the
 * new total (issue 14).
 */
async function reopenCharging(db: Database, checkout: Checkout): Promise<void> {
  if (checkout.status !== "charging") return;
  const gateway = getPaymentGateway();
  if ((await gateway.lookup(checkout.idempotencyKey))?.status === "approved") await gateway.refund(checkout.idempotencyKey);
  const idempotencyKey = randomId();
  await db.update(checkouts).set({ status: "open", idempotencyKey }).where(and(eq(checkouts.id, checkout.id), eq(checkouts.status, "charging")));
  checkout.status = "open";
  checkout.idempotencyKey = idempotencyKey;
}

/**
 * Payments started but never recorded (the database went away between charge and record, and the
 * visitor did not come back within the hold): the charge is voided, the unit released, the
 * checkout closed. Returns how many.
 */
export async function sweepUnrecordedCharges(db: Database, now: Date): Promise<number> {
  const stale = await db
    .select()
    .from(checkouts)
    .where(and(eq(checkouts.status, "charging"), lt(checkouts.expiresAt, new Date(now.getTime() - 5 * 60_000))));
  const gateway = getPaymentGateway();
  let count = 0;
  for (const c of stale) {
    const charge = await gateway.lookup(c.idempotencyKey);
    if (charge?.status === "approved") await gateway.refund(c.idempotencyKey);
    const closed = await db
      .update(checkouts)
      .set({ status: "abandoned", webPwHash: null, unitId: null })
      .where(and(eq(checkouts.id, c.id), eq(checkouts.status, "charging")))
      .returning({ id: checkouts.id });
    if (closed.length) {
      await db.update(units).set({ heldUntil: null, holdToken: null }).where(eq(units.holdToken, c.id));
      count++;
    }
  }
  return count;
}

/** The visitor's checkout for this unit type (from the cookie), or null. */
export async function getCheckout(db: Database, id: string | null, unitTypeId: string): Promise<Checkout | null> {
  if (!id) return null;
  const row = await db.query.checkouts.findFirst({ where: eq(checkouts.id, id) });
  if (!row || String(row.unitTypeId) !== unitTypeId) return null;
  return row;
}

/** The tenant details kept on the checkout (the form's names; no password). */
export type TenantDetails = Omit<AccountCreationInput, "web_pw" | "confirm_web_pw">;

export function checkoutDetails(c: Checkout | null): TenantDetails | null {
  return (c?.tenantDetails as TenantDetails | null | undefined) ?? null;
}

export function checkoutProgress(c: Checkout | null): CheckoutProgress {
  const hasDetails = Boolean(c?.tenantDetails && c.webPwHash);
  const hasProtection = hasDetails && c?.insuranceChoice != null;
  return { hasDetails, hasProtection, hasReviewed: hasProtection, hasSigned: hasProtection && Boolean(c?.leaseHash && c.signedAt) };
}

const randomId = () => crypto.randomBytes(24).toString("base64url");

/**
 * Saves the tenant details step: creates the checkout (or updates the visitor's own), holds a unit for
 * HOLD_MINUTES and returns the checkout id. Throws UnitUnavailableError when no unit is free.
 * Changing the details clears a signature already given (the lease text names the tenant).
 */
export async function saveDetails(
  db: Database,
  ctx: RentalContext,
  input: { existing: Checkout | null; details: TenantDetails; webPw: string | undefined; now: Date },
): Promise<string> {
  if (input.existing) await reopenCharging(db, input.existing);
  const id = input.existing && input.existing.status === "open" ? input.existing.id : randomId();
  const until = new Date(input.now.getTime() + HOLD_MINUTES * 60_000);
  const hold = await ctx.storage.holdUnit({ unitTypeId: ctx.unitType.id, holdToken: id, until, now: input.now });
  const webPwHash = input.webPw ? await hashPassword(input.webPw) : (input.existing?.webPwHash ?? null);
  const values = {
    tenantDetails: input.details as unknown as Record<string, unknown>,
    webPwHash,
    unitId: Number(hold.unitId),
    expiresAt: until,
    signedName: null,
    signedAt: null,
    signedIp: null,
    leaseHash: null,
  };
  try {
    if (input.existing && input.existing.status === "open") {
      await db.update(checkouts).set(values).where(eq(checkouts.id, id));
    } else {
      await db.insert(checkouts).values({
        id,
        locationId: ctx.location.id,
        unitTypeId: Number(ctx.unitType.id),
        idempotencyKey: randomId(),
        moveInDate: ctx.today,
        ...values,
      });
    }
  } catch (error) {
    // Nothing half-saved: a new checkout that could not be written lets go of the unit it just held.
    if (!(input.existing && input.existing.status === "open")) await ctx.storage.releaseHold(id).catch(() => undefined);
    throw error;
  }
  return id;
}

/** Keeps the unit held while the visitor moves on (re-holds one if the hold ran out and a unit is free). */
export async function renewHold(db: Database, ctx: RentalContext, checkout: Checkout, now: Date): Promise<void> {
  const until = new Date(now.getTime() + HOLD_MINUTES * 60_000);
  const hold = await ctx.storage.holdUnit({ unitTypeId: ctx.unitType.id, holdToken: checkout.id, until, now });
  await db.update(checkouts).set({ unitId: Number(hold.unitId), expiresAt: until }).where(eq(checkouts.id, checkout.id));
}

export async function saveProtection(db: Database, ctx: RentalContext, checkout: Checkout, choice: string, now: Date, moveInDate?: string | null) {
  await reopenCharging(db, checkout);
  await renewHold(db, ctx, checkout, now);
  const date = effectiveMoveInDate(moveInDate, ctx.moveInDates) ?? ctx.today;
  const changed = checkout.insuranceChoice !== choice || checkout.moveInDate !== date;
  checkout.moveInDate = date;
  await db
    .update(checkouts)
    .set({
      insuranceChoice: choice,
      moveInDate: date,
      ...(changed ? { signedName: null, signedAt: null, signedIp: null, leaseHash: null } : {}),
    })
    .where(eq(checkouts.id, checkout.id));
}

/** The visitor leaves: the unit is released at once and the checkout is closed. */
export async function abandonCheckout(db: Database, ctx: RentalContext, checkout: Checkout) {
  await reopenCharging(db, checkout);
  await ctx.storage.releaseHold(checkout.id);
  await db
    .update(checkouts)
    .set({ status: "abandoned", webPwHash: null, unitId: null })
    .where(and(eq(checkouts.id, checkout.id), eq(checkouts.status, "open")));
}

/**
 * A visitor who starts renting another unit type lets go of the unit held for the previous one
 * (one checkout, one held unit per browser).
 */
export async function releaseOtherCheckout(db: Database, ctx: RentalContext, checkoutId: string | null, unitTypeId: string) {
  if (!checkoutId) return;
  const other = await db.query.checkouts.findFirst({ where: eq(checkouts.id, checkoutId) });
  if (!other || other.status !== "open" || String(other.unitTypeId) === unitTypeId) return;
  await ctx.storage.releaseHold(other.id);
  await db.update(checkouts).set({ status: "abandoned", webPwHash: null, unitId: null }).where(eq(checkouts.id, other.id));
}

/** Closes checkouts idle for a day (their holds have long run out) and forgets their password hashes. */
export async function sweepAbandonedCheckouts(db: Database, now: Date): Promise<number> {
  const rows = await db
    .update(checkouts)
    .set({ status: "abandoned", webPwHash: null })
    .where(and(eq(checkouts.status, "open"), lt(checkouts.expiresAt, new Date(now.getTime() - 24 * 60 * 60_000))))
    .returning({ id: checkouts.id });
  return rows.length;
}

// ------------------------------------------------------------------ quote and lease

export interface CheckoutQuote {
  quote: MoveInQuote;
  plans: InsurancePlanOption[];
  plan: InsurancePlanOption | null;
}

/**
 * The one server-computed quote for this checkout's answers: the chosen move-in date while it is
 * still allowed, else the first allowed date (today in the location's time zone).
 */
export async function quoteCheckout(ctx: RentalContext, insuranceChoice: string | null, moveInDate?: string | null): Promise<CheckoutQuote> {
  const plans = ctx.settings.is_insurance_shown ? await ctx.storage.listInsurancePlans() : [];
  const plan = insuranceChoice && insuranceChoice !== "none" ? (plans.find((p) => p.id === insuranceChoice) ?? null) : null;
  const quote = await ctx.storage.quoteMoveIn({
    unitTypeId: ctx.unitType.id,
    insurancePlanId: plan?.id ?? null,
    moveInDate: effectiveMoveInDate(moveInDate, ctx.moveInDates) ?? ctx.today,
    pricing: { isWebRatesEnabled: ctx.settings.is_web_rates_enabled, fakeDiscountPercentage: ctx.settings.fake_discount_percentage },
    now: clockNow(),
  });
  return { quote, plans, plan };
}

export function unitDescription(u: Pick<UnitTypeAvailability, "name" | "width" | "length">): string {
  return `${u.width}' x ${u.length}' ${u.name}`;
}

export function checkoutLeaseText(ctx: RentalContext, details: TenantDetails, q: CheckoutQuote): string {
  const parties: LeaseParties = {
    operatorName: ctx.operatorName,
    location: { name: ctx.location.name, address: ctx.location.address, phone: ctx.location.phoneNumber },
    tenant: tenantFromForm(details),
    unit: { description: ctx.unitType.name, width: ctx.unitType.width, length: ctx.unitType.length },
    insurance: q.plan ? { coverage: q.plan.coverage, premium: q.plan.premium } : null,
    autopayTerms: ctx.location.autopayTerms,
  };
  return leaseText(parties, q.quote);
}

export const sha256 = (text: string) => crypto.createHash("sha256").update(text, "utf8").digest("hex");

export async function saveSignature(
  db: Database,
  ctx: RentalContext,
  checkout: Checkout,
  input: { signedName: string; text: string; ip: string; now: Date },
) {
  await reopenCharging(db, checkout);
  await renewHold(db, ctx, checkout, input.now);
  await db
    .update(checkouts)
    .set({ signedName: input.signedName, signedAt: input.now, signedIp: input.ip, leaseHash: sha256(input.text) })
    .where(eq(checkouts.id, checkout.id));
}

// ------------------------------------------------------------------ lease document links

/** How long a lease link (confirmation page, email) works; after that the tenant opens it in the portal. */
export const LEASE_LINK_DAYS = 30;
/** How long after the move-in the confirmation page is shown (to the checkout's browser only). */
export const CONFIRMATION_HOURS = 24;

function leaseMac(leaseId: number | string, expires: number, secret: string): string {
  return crypto.createHmac("sha256", secret).update(`lease:${leaseId}:${expires}`).digest("base64url").slice(0, 32);
}
function legacyLeaseMac(leaseId: number | string, secret: string): string {
  return crypto.createHmac("sha256", secret).update(`lease:${leaseId}`).digest("base64url").slice(0, 32);
}

/**
 * The printable lease of a lease, for links (confirmation, email). The token is `{expiry}.{mac}`:
 * the expiry (Unix seconds, LEASE_LINK_DAYS from `now`) is inside the HMAC (SESSION_SECRET), so it
 * cannot be extended (docs/decisions/078-expiring-lease-links-and-confirmation.md).
 */
export function leaseDocumentPath(leaseId: number | string, now: Date = clockNow()): string {
  const expires = Math.floor(now.getTime() / 1000) + LEASE_LINK_DAYS * 24 * 60 * 60;
  return `/rent/lease/${leaseId}?token=${expires}.${leaseMac(leaseId, expires, env().sessionSecrets[0]!)}`;
}

/** The portal's link to a lease: no token, it opens for the signed-in tenant who holds the lease. */
export function portalLeasePath(leaseId: number | string): string {
  return `/rent/lease/${leaseId}`;
}

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
};

/**
 * "ok": a genuine, unexpired link; "expired": a genuine link past its expiry (or an old link without
 * one, made before links expired); "invalid": anything else. Every secret of the list verifies.
 */
export function checkLeaseToken(leaseId: string, token: string | null, now: Date = clockNow()): "ok" | "expired" | "invalid" {
  if (!token || !/^\d{1,9}$/.test(leaseId)) return "invalid";
  const secrets = env().sessionSecrets;
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{32})$/.exec(token);
  if (m) {
    const expires = Number(m[1]);
    if (!secrets.some((s) => sameText(leaseMac(leaseId, expires, s), m[2]!))) return "invalid";
    return expires * 1000 > now.getTime() ? "ok" : "expired";
  }
  return secrets.some((s) => sameText(legacyLeaseMac(leaseId, s), token)) ? "expired" : "invalid";
}

export function verifyLeaseToken(leaseId: string, token: string | null, now: Date = clockNow()): boolean {
  return checkLeaseToken(leaseId, token, now) === "ok";
}

/** Whether the confirmation page of this lease's move-in is still shown (CONFIRMATION_HOURS after it). */
export async function isConfirmationViewable(storage: StorageSoftware, leaseId: number | string, now: Date): Promise<boolean> {
  const m = await storage.getMoveIn(String(leaseId));
  if (!m) return false;
  return now.getTime() - m.createdAt.getTime() < CONFIRMATION_HOURS * 60 * 60 * 1000;
}

/**
 * The move-in behind a lease link (/rent/lease/:id carries no location): each location's storage
 * software is asked in turn, first answer wins (a handful of locations; a lease id is one
 * location's). docs/decisions/100-storage-port-only-way-in.md.
 */
async function findMoveIn(db: Database, leaseId: string): Promise<MoveInRecord | null> {
  if (!/^\d{1,9}$/.test(leaseId)) return null;
  const list = await db.select({ id: locations.id, name: locations.name, software: locations.software, status: locations.status }).from(locations).orderBy(asc(locations.id));
  for (const location of list) {
    const m = await storageFor(db, location).getMoveIn(leaseId);
    if (m) return m;
  }
  return null;
}

/** The holder of a lease (for the portal's tokenless lease link). */
export async function leaseTenantId(db: Database, leaseId: number | string): Promise<string | null> {
  return (await findMoveIn(db, String(leaseId)))?.tenantId ?? null;
}

// ------------------------------------------------------------------ the move-in

export type PlaceMoveInResult =
  | { status: "completed"; leaseId: string; created: boolean }
  | { status: "declined"; message: string; reason: string }
  | { status: "changed" };

/**
 * The final step. Recomputes the quote and the lease text; if either changed since the visitor
 * signed (a rate changed, the date rolled over), the signature is cleared and the visitor reviews
 * again. Otherwise the port's moveIn does everything in one transaction and charges once.
 * A decline leaves nothing behind except the declined attempt's record, and a fresh idempotency key
 * so the visitor can try another card.
 */
export async function placeMoveIn(
  db: Database,
  ctx: RentalContext,
  checkout: Checkout,
  input: { payment: PaymentMethodInput; autopay: boolean; now: Date; origin: string },
): Promise<PlaceMoveInResult> {
  const details = checkoutDetails(checkout);
  if (checkout.completedLeaseId) return { status: "completed", leaseId: String(checkout.completedLeaseId), created: false };
  if (!details || !checkout.webPwHash || !checkout.leaseHash || !checkout.signedAt || !checkout.signedName) return { status: "changed" };
  const q = await quoteCheckout(ctx, checkout.insuranceChoice, checkout.moveInDate);
  const text = checkoutLeaseText(ctx, details, q);
  if (sha256(text) !== checkout.leaseHash) {
    await db.update(checkouts).set({ signedName: null, signedAt: null, signedIp: null, leaseHash: null }).where(eq(checkouts.id, checkout.id));
    return { status: "changed" };
  }
  const { paidThroughDate, nextDueDate } = firstPeriod(q.quote.moveInDate);
  let result: MoveInResult;
  try {
    result = await ctx.storage.moveIn({
      checkoutId: checkout.id,
      idempotencyKey: checkout.idempotencyKey,
      unitTypeId: ctx.unitType.id,
      tenant: { ...tenantFromForm(details), webPwHash: checkout.webPwHash },
      moveInDate: q.quote.moveInDate,
      paidThroughDate,
      nextDueDate,
      monthlyRate: q.quote.monthlyRate,
      insurancePlanId: q.quote.insurancePlanId,
      insurancePremium: q.quote.insurancePremium,
      lines: q.quote.lines,
      total: q.quote.total,
      payment: input.payment,
      autopay: input.autopay,
      lease: { text, hash: checkout.leaseHash, signedName: checkout.signedName, signedAt: checkout.signedAt, signedIp: checkout.signedIp ?? "" },
      now: input.now,
    });
  } catch (error) {
    if (error instanceof PaymentDeclinedError) {
      // The adapter recorded the declined attempt for the office. A new key for the next attempt, so the next card is really tried.
      await db.update(checkouts).set({ idempotencyKey: randomId() }).where(eq(checkouts.id, checkout.id));
      // The gateway's reason is for the server log only (card-attempts.server.ts), never the visitor.
      return { status: "declined", message: CARD_DECLINED_MESSAGE, reason: error.reason };
    }
    throw error;
  }
  if (result.created) {
    await sendMoveInEmail(db, ctx, { details, quote: q.quote, result, origin: input.origin });
  }
  return { status: "completed", leaseId: result.leaseId, created: result.created };
}

/** The location's success message with the gate code filled in (sanitise it before rendering). */
export function rentalSuccessHtml(message: string, gateCode: string): string {
  const code = gateCode.replace(/[^0-9A-Za-z]/g, "");
  if (message.includes("{gate_code}")) return message.replaceAll("{gate_code}", code);
  return `${message}\n<p>Your gate code is <strong>${code}</strong>. At the keypad, enter the digits and then press <strong>#</strong>.</p>`;
}

async function sendMoveInEmail(
  db: Database,
  ctx: RentalContext,
  input: { details: TenantDetails; quote: MoveInQuote; result: MoveInResult; origin: string },
) {
  const { details, quote, result } = input;
  const lines = quote.lines.map((l) => `  ${l.description}: ${formatCents(l.amount)}${l.tax ? ` + tax ${formatCents(l.tax)}` : ""}`);
  const text = [
    `Hello ${details.first_name},`,
    "",
    `Welcome to ${ctx.operatorName} ${ctx.location.name}. Your rental of unit ${result.unitName} (${unitDescription(ctx.unitType)}) is complete.`,
    "",
    `Your gate code: ${result.gateCode}`,
    `At the gate keypad, enter the digits of your gate code and then press # (for example ${result.gateCode}#).`,
    "",
    "Receipt",
    ...lines,
    `  Total paid: ${formatCents(quote.total)} (card ending ${result.cardLast4}, authorisation ${result.authReference})`,
    "",
    `Paid through ${quote.paidThroughDate}. Next payment of ${formatCents(quote.monthlyTotal)} due ${quote.nextDueDate}.`,
    "",
    `Your lease: ${input.origin}${leaseDocumentPath(result.leaseId)}`,
    `Pay your bill and manage your account: ${input.origin}/customer-portal/login (sign in with ${details.email} and the password you chose).`,
    "",
    `Questions? Call us at ${formatPhone(ctx.location.phoneNumber)}.`,
  ].join("\n");
  // The gate code and the lease link are redacted from the outbox once sent (decision 071).
  await sendEmail(db, {
    to: details.email,
    subject: `Your rental at ${ctx.operatorName} ${ctx.location.name}`,
    text,
    secrets: [`${input.origin}${leaseDocumentPath(result.leaseId)}`, leaseDocumentPath(result.leaseId), result.gateCode],
  });
}

// ------------------------------------------------------------------ confirmation and lease document

export interface MoveInConfirmation {
  leaseId: number;
  unitName: string;
  gateCode: string;
  firstName: string;
  email: string;
  moveInDate: string;
  paidThroughDate: string;
  nextDueDate: string;
  monthlyRate: number;
  autopayEnabled: boolean;
  lines: Array<{ description: string; kind: string; amount: number; tax: number }>;
  totalCharged: number;
  payment: { amount: number; cardBrand: string; cardLast4: string; authReference: string | null } | null;
  leasePath: string;
}

export async function getMoveInConfirmation(storage: StorageSoftware, leaseId: number | string): Promise<MoveInConfirmation | null> {
  const m = await storage.getMoveIn(String(leaseId));
  if (!m) return null;
  return {
    leaseId: Number(m.leaseId),
    unitName: m.unitName,
    gateCode: m.gateCode,
    firstName: m.firstName,
    email: m.email,
    moveInDate: m.moveInDate,
    paidThroughDate: m.paidThroughDate,
    nextDueDate: m.nextDueDate,
    monthlyRate: m.monthlyRate,
    autopayEnabled: m.autopayEnabled,
    lines: m.lines,
    totalCharged: m.lines.reduce((s, l) => s + l.amount + (l.kind === "credit" ? 0 : l.tax), 0),
    payment: m.payment ? { amount: m.payment.amount, cardBrand: m.payment.cardBrand, cardLast4: m.payment.cardLast4, authReference: m.payment.authReference } : null,
    leasePath: leaseDocumentPath(m.leaseId),
  };
}

/** The signed lease of a move-in, for the printable document. */
export async function getLeaseDocument(db: Database, leaseId: number | string) {
  const m = await findMoveIn(db, String(leaseId));
  if (!m) return null;
  return { leaseId: m.leaseId, tenantId: m.tenantId, unitName: m.unitName, moveInDate: m.moveInDate, ...m.lease };
}
