import type { CardBrand } from "~/domain/payments/cards";
import { and, eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { leases, locations, payments, savedCards } from "~/db/schema";
import { ledgerEntries } from "~/db/schema/billing";
import { localDate } from "~/domain/shared/calendar";
import { balanceOf, lastPostedPeriod, prepayQuote } from "~/domain/payments/billing";
import { postCharges, type Executor } from "../shared/ledger";
import type { LeaseRow } from "../shared/tenants";
import { domainLedger, refreshPaidThrough, termsOf } from "./tenants";

/** The most months a tenant can prepay (the portal's prepay form offers fewer). */
const MAX_PREPAY_MONTHS = 24;

/**
 * A prepayment recorded late (decision 414): the months it paid for are the ones whose charges, posted
 * now, come to exactly its amount (the tenant's quote, made from the same ledger unless a charge was
 * posted since); their charges are posted before the payment, as `prepay` does. No match (the ledger
 * changed meanwhile): the payment stands as a credit, which the next billing runs use up.
 */
async function postPrepaidMonths(tx: Executor, lease: LeaseRow, amount: number, now: Date): Promise<string | null> {
  const lines = await domainLedger(tx, lease.id);
  const terms = await termsOf(tx, lease);
  const from = { lastPostedPeriod: lastPostedPeriod(lease.moveInDate, lines), balance: balanceOf(lines) };
  for (let months = 1; months <= MAX_PREPAY_MONTHS; months++) {
    const q = prepayQuote(terms, { ...from, months });
    if (q.total > amount) return null;
    if (q.total !== amount) continue;
    await postCharges(tx, { leaseId: lease.id, tenantId: lease.tenantId, lines: q.lines, now });
    return `Prepayment, ${months} month${months === 1 ? "" : "s"} (paid through ${q.newPaidThroughDate})`;
  }
  return null;
}

export type LatePaymentOutcome = "recorded" | "already recorded" | "not ours" | "amount differs";

/**
 * A card payment we recorded as declined (it waited for the cardholder's authentication, 3-D Secure)
 * that the processor confirms as paid later: the tenant completed it from the e-mailed link, in the
 * browser after the page answered, or by the processor's hosted page (issue 25, decision 395). At a
 * location on our own units the declined row becomes the approved payment, with its ledger line and
 * the new paid-through date, in one transaction under a lock on the lease. Once: the row is switched
 * from `declined` to `approved` by a conditional UPDATE, so a duplicate webhook, the tenant's return
 * and the webhook racing each other record it once. Payments at SiteLink locations are not ours to
 * record here ("not ours": the office sees them).
 */
export async function recordLateCardPayment(
  db: Database,
  input: { idempotencyKey: string; amount: number; authReference: string; now: Date },
  isOurs: (locationId: number) => Promise<boolean>,
): Promise<LatePaymentOutcome> {
  const row = await db.query.payments.findFirst({ where: eq(payments.idempotencyKey, input.idempotencyKey) });
  if (!row) return "not ours";
  if (row.status === "approved" || row.status === "refunded") return "already recorded";
  if (row.leaseId === null || row.tenantId === null) return "not ours";
  if (row.amount !== input.amount) return "amount differs";
  const [lease] = await db.select().from(leases).where(eq(leases.id, row.leaseId));
  if (!lease) return "not ours";
  // Only where the location's storage software is this adapter (the port's choice, index.server.ts).
  if (!(await isOurs(lease.locationId))) return "not ours";
  const [location] = await db.select({ timeZone: locations.timeZone }).from(locations).where(eq(locations.id, lease.locationId));
  const entryDate = localDate(input.now, location?.timeZone.timeZoneId ?? "America/New_York");
  return db.transaction(async (tx) => {
    const [locked] = await tx.select().from(leases).where(eq(leases.id, lease.id)).for("update");
    const [switched] = await tx
      .update(payments)
      .set({ status: "approved", authReference: input.authReference, declineReason: null, updatedAt: input.now })
      .where(and(eq(payments.id, row.id), eq(payments.status, "declined")))
      .returning({ id: payments.id });
    if (!switched) return "already recorded";
    const prepaid = row.source === "prepay" && locked ? await postPrepaidMonths(tx, locked, row.amount, input.now) : null;
    await tx.insert(ledgerEntries).values({
      leaseId: lease.id,
      tenantId: row.tenantId!,
      kind: "payment",
      description:
        prepaid ?? (row.source === "autopay" ? `Autopay (${brandName(row.cardBrand)} ending ${row.cardLast4})` : `Card payment (${row.cardBrand} ending ${row.cardLast4})`),
      amount: row.amount,
      tax: 0,
      entryDate,
      paymentId: row.id,
      postedAt: input.now,
    });
    if (locked) await refreshPaidThrough(tx, locked);
    return "recorded";
  });
}

const brandName = (brand: string) => (brand === "mastercard" ? "Master Card" : brand === "visa" ? "Visa" : "Discover");

/**
 * "Save this card" on a payment the bank held and the tenant completed on the page (decision 443):
 * the late recording has no card to save, so the card the processor charged (its saved-card token,
 * `cus_…:pm_…`, set up for later use by the first attempt) is saved for the tenant once the payment
 * is approved under this key. The same card again (brand, last four, expiry) keeps one row, with the
 * new token. False when there is no such approved payment of this tenant.
 */
export async function saveLatePaymentCard(
  db: Database,
  input: { idempotencyKey: string; tenantId: number; card: { brand: CardBrand; last4: string; expMonth: number; expYear: number; token: string } },
): Promise<boolean> {
  const row = await db.query.payments.findFirst({ where: eq(payments.idempotencyKey, input.idempotencyKey) });
  if (!row || row.status !== "approved" || row.tenantId !== input.tenantId) return false;
  const c = input.card;
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select()
      .from(savedCards)
      .where(and(eq(savedCards.tenantId, input.tenantId), eq(savedCards.brand, c.brand), eq(savedCards.last4, c.last4), eq(savedCards.expMonth, c.expMonth), eq(savedCards.expYear, c.expYear)))
      .for("update");
    if (existing) {
      if (existing.gatewayToken !== c.token) await tx.update(savedCards).set({ gatewayToken: c.token, updatedAt: new Date() }).where(eq(savedCards.id, existing.id));
      return true;
    }
    await tx.insert(savedCards).values({ tenantId: input.tenantId, brand: c.brand, last4: c.last4, expMonth: c.expMonth, expYear: c.expYear, nameOnCard: "", gatewayToken: c.token });
    return true;
  });
}
