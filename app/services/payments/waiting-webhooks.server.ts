/**
 * A processor's word that a payment succeeded, judged against our records (decisions 411, 412, 441):
 * at once for a webhook, and again for a webhook that came before the page's own request recorded
 * anything (the re-check, by the page's request and by housekeeping). A module of its own (decision
 * 521) so that the portal's payments can ask for the re-check without importing the webhooks' handler.
 */
import { and, eq, lt, or } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { gatewayEvents, payments } from "~/db/schema/billing";
import { rentals } from "~/db/schema/rental";
import { leases } from "~/db/schema";
import { logger } from "~/platform/logger.server";
import { getPaymentGateway } from "~/platform/payments/gateway.server";
import { recordLatePayment, refundLateAtSiteLink } from "./late-payments.server";

const LATE_SITELINK_REFUNDED = "refunded: paid after authentication at a SiteLink location, where it cannot be booked afterwards";

/**
 * The outcome of a webhook that came before anything was recorded under its key: the page's own
 * request may still be waiting for Stripe's answer (a timeout after the charge, decision 395), or the
 * visitor's page may still send the PaymentIntent it confirmed. Not flagged yet: checked again once
 * the request has settled (decision 411).
 */
export const WAITING_OUTCOME = "waiting: no record yet; checked again once the page's request has settled";
/** After this long the page's request has settled (the gateway's 20-second timeout, its retries and the lookup are far shorter). */
export const WAITING_MS = 5 * 60_000;

/**
 * What a payment the processor says succeeded under `key` means for us. `settled`: the page's
 * request has had its time (the re-check); before that, a key with no record is only waiting.
 * `paid`: the amount and PaymentIntent from the event; on the re-check, from the gateway's lookup.
 */
export async function judgeSuccess(db: Database, key: string, input: { paid: { amount: number; intentId: string } | null; settled: boolean; now: Date }): Promise<string> {
  const payment = await db.query.payments.findFirst({ columns: { status: true }, where: eq(payments.idempotencyKey, key) });
  if (payment?.status === "approved" || payment?.status === "refunded") return "already recorded";
  const rental = await db.query.rentals.findFirst({ columns: { id: true, status: true, locationId: true }, where: eq(rentals.idempotencyKey, key) });
  if (rental) {
    if (rental.status === "completed") return "already recorded";
    if (rental.status === "charging" || rental.status === "open" || rental.status === "confirming") return "pending: the rental is finished on return or by the sweep";
    const refunded = await getPaymentGateway({ id: rental.locationId }).refund(key);
    return refunded.refunded ? "refunded: paid after the rental was closed" : "already refunded";
  }
  if (payment?.status === "declined") {
    // Held for authentication and completed later (the e-mailed link, the page's own script, the
    // processor's hosted page): recorded as the payment, once, with its receipt (decisions 395, 410).
    const paid = input.paid;
    if (!paid) return "needs attention: recorded as declined, but the processor says it was paid later";
    const recorded = await recordLatePayment(db, { idempotencyKey: key, amount: paid.amount, authReference: paid.intentId, now: input.now });
    if (recorded === "recorded") return "recorded: paid after authentication";
    if (recorded === "already recorded") return "already recorded";
    if (recorded === "refunded") return LATE_SITELINK_REFUNDED;
    return recorded === "amount differs"
      ? "needs attention: recorded as declined, and the processor says another amount was paid later"
      : "needs attention: recorded as declined, but the processor says it was paid later";
  }
  // A portal, prepay or autopay payment at a SiteLink option-B location, kept as declined (KEY:declined)
  // and confirmed by the cardholder afterwards: nothing can book it in SiteLink now, so it is refunded (decision 441).
  if (await refundLateAtSiteLink(db, { idempotencyKey: key, now: input.now })) return LATE_SITELINK_REFUNDED;
  // A rental's card declined while the bank waited (the rental took a new key for the next card,
  // the attempt is kept as KEY:declined) and confirmed by the cardholder afterwards: once the page
  // has had its time to send that PaymentIntent, money without a lease is given back (decision 412).
  const moveIn = await db.query.payments.findFirst({ columns: { locationId: true }, where: and(eq(payments.idempotencyKey, `${key}:declined`), eq(payments.source, "move_in")) });
  if (moveIn) {
    if (!input.settled) return WAITING_OUTCOME;
    if (input.paid) {
      const used = await db.query.payments.findFirst({ columns: { id: true }, where: and(eq(payments.authReference, input.paid.intentId), eq(payments.status, "approved")) });
      if (used) return "already recorded";
    }
    if (moveIn.locationId === null) return "needs attention: paid after the rental's card was declined";
    const refunded = await getPaymentGateway({ id: moveIn.locationId }).refund(key);
    return refunded.refunded ? "refunded: paid after the rental's card was declined" : "already refunded";
  }
  return input.settled ? "needs attention: a payment we have no record of" : WAITING_OUTCOME;
}

/**
 * Webhooks answered WAITING_OUTCOME, judged again: those of `key` at once (the page's request has
 * just recorded its payment), or every one received WAITING_MS ago or more (housekeeping), when a
 * key still without a record is a real problem for the office. Each row is claimed by a conditional
 * UPDATE, so several processes sweeping at once judge it once.
 */
export async function recheckWaitingWebhooks(db: Database, now: Date, only?: { key: string }): Promise<number> {
  const rows = await db
    .select()
    .from(gatewayEvents)
    .where(
      and(
        eq(gatewayEvents.outcome, WAITING_OUTCOME),
        only ? eq(gatewayEvents.idempotencyKey, only.key) : lt(gatewayEvents.receivedAt, new Date(now.getTime() - WAITING_MS)),
      ),
    );
  let judged = 0;
  for (const row of rows) {
    if (!row.idempotencyKey) continue;
    const [claimed] = await db
      .update(gatewayEvents)
      .set({ outcome: "rechecking" })
      .where(and(eq(gatewayEvents.id, row.id), eq(gatewayEvents.outcome, WAITING_OUTCOME)))
      .returning({ id: gatewayEvents.id });
    if (!claimed) continue;
    let outcome = WAITING_OUTCOME;
    try {
      const settled = row.receivedAt.getTime() <= now.getTime() - WAITING_MS;
      outcome = await judgeSuccess(db, row.idempotencyKey, { paid: settled ? await paidByLookup(db, row.idempotencyKey) : null, settled, now });
    } catch (error) {
      // The processor or the database did not answer: still waiting, judged on the next sweep.
      logger.warn({ err: error, event: row.id }, "[webhooks] a waiting event could not be judged; it is judged again later");
    }
    await db.update(gatewayEvents).set({ outcome }).where(eq(gatewayEvents.id, row.id));
    if (outcome.startsWith("needs attention")) logger.warn({ event: row.id, type: row.type, key: row.idempotencyKey }, outcome);
    if (outcome !== WAITING_OUTCOME) judged++;
  }
  return judged;
}

/** The key's charge as the gateway finds it (the re-check has no event body): its PaymentIntent, and the amount we tried. */
async function paidByLookup(db: Database, key: string): Promise<{ amount: number; intentId: string } | null> {
  const attempt = await db.query.payments.findFirst({ columns: { locationId: true, leaseId: true, amount: true }, where: or(eq(payments.idempotencyKey, key), eq(payments.idempotencyKey, `${key}:declined`)) });
  let locationId = attempt?.locationId ?? null;
  if (locationId === null && attempt?.leaseId != null) {
    locationId = (await db.query.leases.findFirst({ columns: { locationId: true }, where: eq(leases.id, attempt.leaseId) }))?.locationId ?? null;
  }
  if (locationId === null) return null;
  const charge = await getPaymentGateway({ id: locationId }).lookup(key);
  return charge?.status === "approved" && charge.authReference ? { amount: attempt!.amount, intentId: charge.authReference } : null;
}
