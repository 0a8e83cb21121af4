/**
 * The state of an online rental (issue 4): the `checkouts` row (its id in an HttpOnly
 * cookie), each step's save, the unit held for it through the storage port, and the sweeps of
 * rentals left behind. The move-in itself is app/services/move-in.server.ts.
 */
import crypto from "node:crypto";
import { and, eq, inArray, lt } from "drizzle-orm";
import { signedCookie } from "~/platform/signed-cookie.server";
import type { Database, Transaction } from "~/db/client.server";
import { rentals, locations } from "~/db/schema";
import { storageFor } from "~/storage-software/index.server";
import { holdEndsAt, holdUntil } from "~/domain/rental/hold";
import { effectiveMoveInDate } from "~/domain/rental/move-in-date";
import type { RentalProgress } from "~/domain/rental/steps";
import type { AccountCreationInput } from "~/domain/shared/tenant-form";
import { env } from "~/platform/env.server";
import { cookieName, hostCookieOptions } from "../web/cookie-names.server";
import { getPaymentGateway, type PaymentGateway } from "~/platform/payments/gateway.server";
import { hashPassword } from "~/platform/password.server";
import type { RentalContext } from "./context.server";

/** A rental is kept a day: its cookie lasts a day, and an open rental is closed a day after its hold ended. */
const RENTAL_KEPT_MS = 24 * 60 * 60_000;

export function rentalCookie() {
  const e = env();
  return signedCookie(cookieName("checkout", e.secureCookies), {
    ...hostCookieOptions(e.secureCookies),
    secrets: e.sessionSecrets,
    maxAge: RENTAL_KEPT_MS / 1000,
  });
}

export async function readRentalId(request: Request): Promise<string | null> {
  const v = await rentalCookie().parse(request.headers.get("Cookie"));
  return typeof v === "string" && /^[A-Za-z0-9_-]{20,100}$/.test(v) ? v : null;
}

export function rentalCookieHeader(id: string): Promise<string> {
  return rentalCookie().serialize(id);
}

export function clearRentalCookieHeader(): Promise<string> {
  return rentalCookie().serialize("", { maxAge: 0 });
}

export type Rental = typeof rentals.$inferSelect;

/**
 * A rental the visitor can go on with: open, or "charging" (a payment was started and the
 * database went away before it was recorded: paying again completes it with the same charge).
 */
export function isActiveRental(c: Pick<Rental, "status">): boolean {
  return c.status === "open" || c.status === "charging";
}

/**
 * Before a step changes what will be charged, a started but unrecorded charge of this rental is
 * voided and the rental gets a new idempotency key, so the next payment is a new charge of the
 * new total (issue 14).
 */
async function reopenCharging(db: Database, rental: Rental): Promise<void> {
  if (rental.status !== "charging") return;
  await voidRentalPayment(getPaymentGateway({ id: rental.locationId }), rental.idempotencyKey);
  const idempotencyKey = randomId();
  await db.update(rentals).set({ status: "open", idempotencyKey }).where(and(eq(rentals.id, rental.id), eq(rentals.status, "charging")));
  rental.status = "open";
  rental.idempotencyKey = idempotencyKey;
}

/**
 * Gives up the payment made under a rental's key when no lease is recorded with it, so that the
 * money and the lease agree (decisions 382, 405): an approved charge is refunded; one still awaiting
 * the visitor's authentication (3-D Secure on the pay step) is cancelled, so it can no longer be
 * completed; one completed a moment before the cancel is refunded. The processor's refund and cancel
 * are idempotent, so a webhook refunding the same payment at the same time refunds it once.
 */
async function voidRentalPayment(gateway: PaymentGateway, idempotencyKey: string): Promise<"refunded" | "canceled" | "none"> {
  const charge = await gateway.lookup(idempotencyKey);
  if (!charge) return "none";
  if (charge.status !== "approved") {
    if (!gateway.cancelPending) return "none";
    if ((await gateway.cancelPending(idempotencyKey)).canceled) return "canceled";
    if ((await gateway.lookup(idempotencyKey))?.status !== "approved") return "none";
  }
  return (await gateway.refund(idempotencyKey)).refunded ? "refunded" : "none";
}

/**
 * A new card for a rental still `charging` (decision 405): the bank asked the visitor to confirm
 * the last card on the page and it was not done (the check failed, was closed, or the visitor came
 * back later). The payment awaiting it is cancelled and the rental gets a new key, so that the new
 * card is really charged (under the old key the processor would answer the first payment again).
 * A payment already approved under the key (or none found: an unknown outcome) keeps the key: this
 * attempt then records that one payment.
 */
export async function retryChargingWithNewCard(db: Database, rental: Rental): Promise<void> {
  if (rental.status !== "charging") return;
  const gateway = getPaymentGateway({ id: rental.locationId });
  const key = rental.idempotencyKey;
  const charge = await gateway.lookup(key);
  if (!charge || charge.status === "approved") return;
  if (gateway.cancelPending && !(await gateway.cancelPending(key)).canceled && (await gateway.lookup(key))?.status === "approved") return;
  const idempotencyKey = randomId();
  const reopened = await db
    .update(rentals)
    .set({ status: "open", idempotencyKey })
    .where(and(eq(rentals.id, rental.id), eq(rentals.status, "charging"), eq(rentals.idempotencyKey, key)))
    .returning({ id: rentals.id });
  if (reopened.length) {
    rental.status = "open";
    rental.idempotencyKey = idempotencyKey;
  }
}

/**
 * A payment completed in the browser (the bank's check on the pay step, decision 405) that did not end
 * in the lease (the charges changed, the unit went, it was refused): what was paid under `key` goes
 * back at once (refunded, or cancelled while still pending) and the rental gets a new key for the
 * next attempt. A rental completed or being confirmed meanwhile is left alone.
 */
export async function giveUpUnrentedPayment(db: Database, rental: Pick<Rental, "id" | "locationId">, key: string): Promise<void> {
  const current = await db.query.rentals.findFirst({ columns: { status: true, completedLeaseId: true }, where: eq(rentals.id, rental.id) });
  if (!current || current.completedLeaseId != null || !isActiveRental(current)) return;
  await voidRentalPayment(getPaymentGateway({ id: rental.locationId }), key);
  await db
    .update(rentals)
    .set({ status: "open", idempotencyKey: randomId() })
    .where(and(eq(rentals.id, rental.id), inArray(rentals.status, ["open", "charging"])));
}

/**
 * Payments started but never recorded (the database went away between charge and record, and the
 * visitor did not come back within the hold): the charge is voided, the unit released, the
 * rental closed. Returns how many.
 */
export async function sweepUnrecordedCharges(db: Database, now: Date): Promise<number> {
  const stale = await db
    .select()
    .from(rentals)
    .where(and(eq(rentals.status, "charging"), lt(rentals.expiresAt, new Date(now.getTime() - 5 * 60_000))));
  let count = 0;
  for (const c of stale) {
    // An approved charge is refunded; one still awaiting the visitor's authentication is cancelled (decision 405).
    await voidRentalPayment(getPaymentGateway({ id: c.locationId }), c.idempotencyKey);
    const closed = await db
      .update(rentals)
      .set({ status: "abandoned", webPwHash: null, unitId: null })
      .where(and(eq(rentals.id, c.id), eq(rentals.status, "charging")))
      .returning({ id: rentals.id });
    if (closed.length) {
      const location = await db.query.locations.findFirst({ columns: { id: true, name: true, software: true, status: true }, where: eq(locations.id, c.locationId) });
      if (location) await storageFor(db, location).releaseHold(c.id);
      count++;
    }
  }
  return count;
}

/** The visitor's rental for this unit type (from the cookie), or null. */
export async function getRental(db: Database, id: string | null, unitTypeId: string): Promise<Rental | null> {
  if (!id) return null;
  const row = await db.query.rentals.findFirst({ where: eq(rentals.id, id) });
  if (!row || String(row.unitTypeId) !== unitTypeId) return null;
  return row;
}

/** The tenant details kept on the rental (the form's names; no password). */
/** The details step's answers: the account form without the password, and the texting opt-in (decision 511). */
export type TenantDetails = Omit<AccountCreationInput, "web_pw" | "confirm_web_pw"> & { text_opt_in?: boolean };

export function rentalDetails(c: Rental | null): TenantDetails | null {
  return (c?.tenantDetails as TenantDetails | null | undefined) ?? null;
}

export function rentalProgress(c: Rental | null): RentalProgress {
  const hasDetails = Boolean(c?.tenantDetails && c.webPwHash);
  const hasProtection = hasDetails && c?.insuranceChoice != null;
  return { hasDetails, hasProtection, hasReviewed: hasProtection, hasSigned: hasProtection && Boolean(c?.leaseHash && c.signedAt) };
}

/**
 * From when a rental's hold cap (MAX_HOLD_MINUTES) counts: its first hold, or the last time the renter
 * came back through the reminder's link (decision 517), which held a unit afresh.
 */
function holdCountsFrom(c: Pick<Rental, "createdAt" | "resumedAt">): Date {
  return c.resumedAt && c.resumedAt > c.createdAt ? c.resumedAt : c.createdAt;
}

const randomId = () => crypto.randomBytes(24).toString("base64url");

/** The unit held for a details step not saved yet (holdForDetails). */
export interface DetailsHold {
  /** The rental's id: the visitor's open rental, or a new one. */
  id: string;
  unitId: string;
  until: Date;
  /** A new rental: nothing of the visitor's is saved yet, so a refusal lets go of the unit. */
  isNew: boolean;
  /** When the details were submitted (a new rental's first hold, from which MAX_HOLD_MINUTES counts). */
  at: Date;
}

/**
 * The first step of saving the details (issue 22, decision 206): the unit is held for the visitor's
 * rental (or a new one) before anything else is checked or written, so a visitor whose unit is gone
 * learns it from this one write. Throws UnitUnavailableError when no unit is free.
 */
export async function holdForDetails(db: Database, ctx: RentalContext, input: { existing: Rental | null; now: Date }): Promise<DetailsHold> {
  if (input.existing) await reopenCharging(db, input.existing);
  const isNew = !(input.existing && input.existing.status === "open");
  const id = isNew ? randomId() : input.existing!.id;
  const until = isNew ? holdEndsAt(input.now) : holdUntil(holdCountsFrom(input.existing!), input.now);
  // Past the hold cap the rental keeps going without a hold, on its unit and expiry (decision 197).
  if (!until) return { id, unitId: input.existing!.unitId === null ? "" : String(input.existing!.unitId), until: input.existing!.expiresAt, isNew: false, at: input.now };
  // The context of this request has just swept expired reservations at this moment (or knew none was
  // due): the hold need not sweep again (decision 420).
  const swept = ctx.sweptAt !== undefined && ctx.sweptAt.getTime() === input.now.getTime();
  const hold = await ctx.storage.holdUnit({ unitTypeId: ctx.unitType.id, holdToken: id, until, now: input.now, ...(swept ? { swept } : {}) });
  return { id, unitId: hold.unitId, until, isNew, at: input.now };
}

/** A check after holdForDetails refused the visitor: a new rental's unit is let go at once (nothing was saved). */
export async function releaseDetailsHold(ctx: RentalContext, hold: DetailsHold): Promise<void> {
  if (hold.isNew) await ctx.storage.releaseHold(hold.id);
}

/**
 * Saves the tenant details step: holds a unit (holdForDetails), then saves the details on it
 * (saveHeldDetails). Throws UnitUnavailableError when no unit is free.
 */
export async function saveDetails(
  db: Database,
  ctx: RentalContext,
  input: { existing: Rental | null; details: TenantDetails; webPw: string | undefined; now: Date },
): Promise<string> {
  const hold = await holdForDetails(db, ctx, input);
  return saveHeldDetails(db, ctx, { ...input, hold });
}

/**
 * Saves the tenant details step on the unit held by holdForDetails: hashes the password (off the event
 * loop), creates the rental (or updates the visitor's own) and returns its id. Changing the details
 * clears a signature already given (the lease text names the tenant).
 */
export async function saveHeldDetails(
  db: Database,
  ctx: RentalContext,
  input: {
    existing: Rental | null;
    hold: DetailsHold;
    details: TenantDetails;
    webPw: string | undefined;
    /** Written in the same transaction as the details (the texting opt-in's consent, decision 511). */
    alsoWrite?: (tx: Transaction, rentalId: string) => Promise<void>;
  },
): Promise<string> {
  const { hold } = input;
  try {
    const webPwHash = input.webPw ? await hashPassword(input.webPw) : (input.existing?.webPwHash ?? null);
    const values = {
      tenantDetails: input.details as unknown as Record<string, unknown>,
      webPwHash,
      unitId: hold.unitId === "" ? null : Number(hold.unitId),
      expiresAt: hold.until,
      signedName: null,
      signedAt: null,
      signedIp: null,
      leaseHash: null,
    };
    await db.transaction(async (tx) => {
      if (!hold.isNew) {
        await tx.update(rentals).set(values).where(eq(rentals.id, hold.id));
      } else {
        await tx.insert(rentals).values({
          id: hold.id,
          locationId: ctx.location.id,
          unitTypeId: Number(ctx.unitType.id),
          idempotencyKey: randomId(),
          moveInDate: ctx.today,
          // The hold cap counts from here, on the service's clock.
          createdAt: hold.at,
          ...values,
        });
      }
      await input.alsoWrite?.(tx, hold.id);
    });
  } catch (error) {
    // Nothing half-saved: a new rental that could not be written lets go of the unit it just held.
    await releaseDetailsHold(ctx, hold).catch(() => undefined);
    throw error;
  }
  return hold.id;
}

/**
 * Keeps the unit held while the visitor moves on (re-holds one if the hold ran out and a unit is
 * free), never beyond MAX_HOLD_MINUTES from the rental's first hold.
 */
export async function renewHold(db: Database, ctx: RentalContext, rental: Rental, now: Date): Promise<void> {
  const until = holdUntil(holdCountsFrom(rental), now);
  // Past the hold cap nothing is held any longer; the pay step rents the unit if it is still free.
  if (!until) return;
  const hold = await ctx.storage.holdUnit({ unitTypeId: ctx.unitType.id, holdToken: rental.id, until, now });
  await db.update(rentals).set({ unitId: Number(hold.unitId), expiresAt: until }).where(eq(rentals.id, rental.id));
}

export async function saveProtection(db: Database, ctx: RentalContext, rental: Rental, choice: string, now: Date, moveInDate?: string | null) {
  await reopenCharging(db, rental);
  await renewHold(db, ctx, rental, now);
  const date = effectiveMoveInDate(moveInDate, ctx.moveInDates) ?? ctx.today;
  const changed = rental.insuranceChoice !== choice || rental.moveInDate !== date;
  rental.moveInDate = date;
  await db
    .update(rentals)
    .set({
      insuranceChoice: choice,
      moveInDate: date,
      ...(changed ? { signedName: null, signedAt: null, signedIp: null, leaseHash: null } : {}),
    })
    .where(eq(rentals.id, rental.id));
}

/** The visitor leaves: the unit is released at once and the rental is closed. */
export async function abandonRental(db: Database, ctx: RentalContext, rental: Rental) {
  await reopenCharging(db, rental);
  await ctx.storage.releaseHold(rental.id);
  await db
    .update(rentals)
    .set({ status: "abandoned", webPwHash: null, unitId: null })
    .where(and(eq(rentals.id, rental.id), eq(rentals.status, "open")));
}

/**
 * A visitor who starts renting another unit type lets go of the unit held for the previous one
 * (one rental, one held unit per browser).
 */
export async function releaseOtherRental(db: Database, ctx: RentalContext, rentalId: string | null, unitTypeId: string) {
  if (!rentalId) return;
  const other = await db.query.rentals.findFirst({ where: eq(rentals.id, rentalId) });
  if (!other || other.status !== "open" || String(other.unitTypeId) === unitTypeId) return;
  await ctx.storage.releaseHold(other.id);
  await db.update(rentals).set({ status: "abandoned", webPwHash: null, unitId: null }).where(eq(rentals.id, other.id));
}

/** Closes rentals idle for a day (their holds have long run out) and forgets their password hashes. */
export async function sweepAbandonedRentals(db: Database, now: Date): Promise<number> {
  const rows = await db
    .update(rentals)
    .set({ status: "abandoned", webPwHash: null })
    .where(and(eq(rentals.status, "open"), lt(rentals.expiresAt, new Date(now.getTime() - RENTAL_KEPT_MS))))
    .returning({ id: rentals.id });
  return rows.length;
}

export const sha256 = (text: string) => crypto.createHash("sha256").update(text, "utf8").digest("hex");

export async function saveSignature(
  db: Database,
  ctx: RentalContext,
  rental: Rental,
  input: { signedName: string; text: string; ip: string; now: Date },
) {
  await reopenCharging(db, rental);
  await renewHold(db, ctx, rental, input.now);
  await db
    .update(rentals)
    .set({ signedName: input.signedName, signedAt: input.now, signedIp: input.ip, leaseHash: sha256(input.text) })
    .where(eq(rentals.id, rental.id));
}

/** The signature no longer matches what would be signed now (a rate or the date changed): sign again. */
export async function clearSignature(db: Database, rentalId: string): Promise<void> {
  await db.update(rentals).set({ signedName: null, signedAt: null, signedIp: null, leaseHash: null }).where(eq(rentals.id, rentalId));
}

/** A new idempotency key after a declined card, so the next card is really tried. */
export async function renewRentalKey(db: Database, rentalId: string): Promise<void> {
  await db.update(rentals).set({ idempotencyKey: randomId() }).where(eq(rentals.id, rentalId));
}
