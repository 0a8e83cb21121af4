/**
 * The online rental's move-in (issue 4): the quote of a rental (the storage port's quoteMoveIn,
 * asked again before the card is charged), the lease text, and the final step that moves the tenant
 * in through the port and sends the welcome email.
 *
 * The rest of the rental lives beside it: the rules (app/domain/rental/rules.ts), the rental context
 * (rental-context.server.ts), the rental state (rental.server.ts), the lease links
 * (lease-links.server.ts) and the confirmation read model (rental-confirmation.server.ts): import
 * each from its own module (decision 235).
 */
import type { Database } from "~/db/client.server";
import { LEASE_SIGNED_AT_OFFICE, leaseText, type LeaseParties } from "~/domain/rental/lease";
import { formatCents } from "~/domain/shared/money";
import { firstPeriod } from "~/domain/rental/move-in-quote";
import { formatPhone } from "~/domain/shared/phone";
import { tenantFromForm } from "~/domain/shared/tenant-form";
import { effectiveMoveInDate } from "~/domain/rental/move-in-date";
import { unitDescription } from "~/domain/rental/rules";
import { ChargesChangedError, OutcomeUnknownError, PaymentDeclinedError } from "~/storage-software/errors";
import type { InsurancePlanOption, MoveInCheck, MoveInQuote, MoveInResult, PaymentMethodInput } from "~/storage-software/port";
import { CARD_DECLINED_MESSAGE } from "../payments/card-attempts.server";
import { now as clockNow } from "~/platform/clock.server";
import { rentalDetails, clearSignature, renewRentalKey, sha256, type Rental, type TenantDetails } from "./record.server";
import { sendEmail } from "../mail/outbox.server";
import { leaseLinkLine, leaseLinkSecrets } from "./lease-links.server";
import { AUTOPAY_NOT_SET_UP, autopaySetupPath } from "./confirmation.server";
import { loadRentalContext, type RentalContext } from "./context.server";
import { publicOrigin } from "../site/origin.server";
import { eq } from "drizzle-orm";
import { rentals, locations, websites } from "~/db/schema";
import { phoneAgreedToTexts } from "../texts/rental.server";


interface RentalQuote {
  quote: MoveInQuote;
  plans: InsurancePlanOption[];
  plan: InsurancePlanOption | null;
}

/**
 * The one server-computed quote for this rental's answers: the chosen move-in date while it is
 * still allowed, else the first allowed date (today in the location's time zone).
 */
export async function quoteRental(ctx: RentalContext, insuranceChoice: string | null, moveInDate?: string | null): Promise<RentalQuote> {
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

export function rentalLeaseText(ctx: RentalContext, details: TenantDetails, q: RentalQuote): string {
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

type PlaceMoveInResult =
  | { status: "completed"; leaseId: string; created: boolean }
  | { status: "declined"; message: string; reason: string }
  /** The bank wants the visitor to confirm the payment on the page (3-D Secure, decision 405): nothing rented yet, the rental keeps its key. */
  | { status: "authenticate"; clientSecret: string }
  | { status: "changed" }
  /** The software did not say whether the move-in went through: the rental is `confirming`. */
  | { status: "confirming" };

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
  rental: Rental,
  input: { payment: PaymentMethodInput; autopay: boolean; now: Date; origin: string },
): Promise<PlaceMoveInResult> {
  const details = rentalDetails(rental);
  if (rental.completedLeaseId) return { status: "completed", leaseId: String(rental.completedLeaseId), created: false };
  // is_sitelink_esign_enabled off (decision 203): no online signature; the lease is signed at the office.
  const eSign = ctx.settings.is_sitelink_esign_enabled;
  if (!details || !rental.webPwHash) return { status: "changed" };
  if (eSign && (!rental.leaseHash || !rental.signedAt || !rental.signedName)) return { status: "changed" };
  const q = await quoteRental(ctx, rental.insuranceChoice, rental.moveInDate);
  const text = rentalLeaseText(ctx, details, q);
  if (eSign && sha256(text) !== rental.leaseHash) {
    await clearSignature(db, rental.id);
    return { status: "changed" };
  }
  // Signed online: the signature of the rental. Not: an empty name (LEASE_SIGNED_AT_OFFICE), the
  // text recorded as it stands at payment, `signedAt` the time it was recorded.
  const lease =
    eSign && rental.signedName && rental.signedAt
      ? { text, hash: rental.leaseHash!, signedName: rental.signedName, signedAt: rental.signedAt, signedIp: rental.signedIp ?? "" }
      : { text, hash: sha256(text), signedName: LEASE_SIGNED_AT_OFFICE, signedAt: input.now, signedIp: "" };
  const { paidThroughDate, nextDueDate } = firstPeriod(q.quote.moveInDate);
  let result: MoveInResult;
  try {
    result = await ctx.storage.moveIn({
      rentalId: rental.id,
      idempotencyKey: rental.idempotencyKey,
      unitTypeId: ctx.unitType.id,
      // bSMSOptIn at SiteLink: the phone's consent as it stands now (the details step's opt-in, or a STOP since: decision 511).
      tenant: { ...tenantFromForm(details), webPwHash: rental.webPwHash, smsOptIn: await phoneAgreedToTexts(db, ctx.location.accountId, details.cell_phone) },
      moveInDate: q.quote.moveInDate,
      paidThroughDate,
      nextDueDate,
      monthlyRate: q.quote.monthlyRate,
      insurancePlanId: q.quote.insurancePlanId,
      insurancePremium: q.quote.insurancePremium,
      lines: q.quote.lines,
      total: q.quote.total,
      promotion: q.quote.promotion ?? null,
      payment: input.payment,
      autopay: input.autopay,
      lease,
      now: input.now,
    });
  } catch (error) {
    if (error instanceof PaymentDeclinedError && error.authentication?.inPage && error.authentication.clientSecret) {
      // Held for the visitor's authentication: the same key stays, so the intent completed on the page is this payment.
      return { status: "authenticate", clientSecret: error.authentication.clientSecret };
    }
    if (error instanceof PaymentDeclinedError) {
      // The adapter recorded the declined attempt for the office. A new key for the next attempt, so the next card is really tried.
      await renewRentalKey(db, rental.id);
      // The gateway's reason is for the server log only (card-attempts.server.ts), never the visitor.
      return { status: "declined", message: CARD_DECLINED_MESSAGE, reason: error.reason };
    }
    // Never "declined" for a payment whose outcome is unknown: the adapter reads it back.
    if (error instanceof OutcomeUnknownError) return { status: "confirming" };
    if (error instanceof ChargesChangedError) {
      await clearSignature(db, rental.id);
      return { status: "changed" };
    }
    throw error;
  }
  if (result.created) {
    await sendMoveInEmail(db, ctx, { details, quote: q.quote, result, origin: input.origin });
  }
  return { status: "completed", leaseId: result.leaseId, created: result.created };
}

/**
 * A rental whose move-in is being confirmed (`confirming`): asks the storage software where it
 * stands. When it went through, the welcome email goes out once (the first time it is seen as done).
 */
export async function confirmRental(
  db: Database,
  ctx: RentalContext,
  rental: Rental,
  input: { now: Date; origin: string },
): Promise<MoveInCheck> {
  const outcome = await ctx.storage.confirmMoveIn({ rentalId: rental.id, now: input.now });
  if (outcome.status === "completed" && outcome.result.created) {
    const details = rentalDetails(rental);
    if (details) {
      const q = await quoteRental(ctx, rental.insuranceChoice, rental.moveInDate);
      await sendMoveInEmail(db, ctx, { details, quote: q.quote, result: outcome.result, origin: input.origin });
    }
  }
  return outcome;
}

/**
 * Background half of the confirming state: every `confirming` rental is settled even when the
 * visitor closed the page (housekeeping). Returns how many were settled (completed or not).
 */
export async function sweepConfirmingRentals(db: Database, now: Date): Promise<number> {
  const waiting = await db.select().from(rentals).where(eq(rentals.status, "confirming"));
  let settled = 0;
  for (const c of waiting) {
    try {
      const outcome = await confirmOneRental(db, c, now);
      if (outcome && outcome.status !== "pending") settled++;
    } catch {
      // The software is unreachable: the next sweep tries again.
    }
  }
  return settled;
}

/** One rental's move-in read back (the sweep's path), with the welcome email when it went through; null when its unit type is gone. */
async function confirmOneRental(db: Database, c: Rental, now: Date): Promise<MoveInCheck | null> {
  const ctx = await loadRentalContext(db, String(c.unitTypeId), now);
  if (!ctx) return null;
  const [row] = await db
    .select({ domain: websites.domain })
    .from(locations)
    .innerJoin(websites, eq(websites.accountId, locations.accountId))
    .where(eq(locations.id, c.locationId));
  return confirmRental(db, ctx, c, { now, origin: publicOrigin({ domain: row?.domain ?? "localhost" }) });
}

/**
 * The back office's "retry" of a move-in whose outcome is unknown (issue 23, decision 261): the same
 * reconciliation as the sweep, for one rental: SiteLink is read back, never sent the move-in again.
 * Throws when the software cannot be reached (the caller says so).
 */
export async function confirmRentalMoveIn(db: Database, rentalId: string, now: Date): Promise<MoveInCheck | null> {
  const [c] = await db.select().from(rentals).where(eq(rentals.id, rentalId));
  return c ? confirmOneRental(db, c, now) : null;
}

async function sendMoveInEmail(
  db: Database,
  ctx: RentalContext,
  input: { details: TenantDetails; quote: MoveInQuote; result: MoveInResult; origin: string },
) {
  const { details, quote, result } = input;
  // Autopay chosen but not on (confirmed only by reading the software back): say so, with the link.
  const record = await ctx.storage.getMoveIn(result.leaseId).catch(() => null);
  const autopayNote = record?.autopayNotSetUp ? ["", AUTOPAY_NOT_SET_UP, `Set up autopay: ${input.origin}${autopaySetupPath(result.leaseId)}`] : [];
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
    // What the promotion still gives the later months (decision 672).
    ...(quote.promotion?.later ? [`  ${quote.promotion.later}`] : []),
    "",
    `Paid through ${quote.paidThroughDate}. Next payment of ${formatCents(quote.monthlyTotal)} due ${quote.nextDueDate}.`,
    ...autopayNote,
    "",
    leaseLinkLine(input.origin, result.leaseId),
    `Pay your bill and manage your account: ${input.origin}/customer-portal/login (sign in with ${details.email} and the password you chose).`,
    "",
    `Questions? Call us at ${formatPhone(ctx.location.phoneNumber)}.`,
  ].join("\n");
  // The gate code and the lease link are redacted from the outbox once sent (decision 071).
  await sendEmail(db, {
    locationId: ctx.location.id,
    to: details.email,
    subject: `Your rental at ${ctx.operatorName} ${ctx.location.name}`,
    text,
    secrets: [...leaseLinkSecrets(input.origin, result.leaseId), result.gateCode],
  });
}
