import { and, eq, lt, or } from "drizzle-orm";
import type Stripe from "stripe";
import type { Database } from "~/db/client.server";
import { gatewayEvents, payments } from "~/db/schema/billing";
import { rentals } from "~/db/schema/rental";
import { leases } from "~/db/schema";
import { env } from "~/platform/env.server";
import { logger } from "~/platform/logger.server";
import { getPaymentGateway } from "~/platform/payments/gateway.server";
import { verifyStripeEvent } from "~/platform/payments/stripe.server";
import { recordLatePayment, refundLateAtSiteLink } from "./late-payments.server";

const LATE_SITELINK_REFUNDED = "refunded: paid after authentication at a SiteLink location, where it cannot be booked afterwards";
import { takeHostedPageEvent } from "../portal/hosted-payment.server";
import { finishRentalFromWebhook } from "../rental/submit.server";
import { publicOrigin } from "../site/origin.server";
import { readWebsite } from "~/db/queries/cached-reads.server";

/** The configured origin of the (one) website, for the links of a mail sent from a webhook. */
async function siteOrigin(db: Database): Promise<string> {
  const website = await readWebsite({ db });
  if (!website) throw new Error("No website to send the mail from");
  return publicOrigin(website);
}

/**
 * Stripe's webhooks (issue 25, docs/decisions/382-stripe-webhooks.md): verified with the endpoint's
 * signing secret (Stripe's signature and its five-minute tolerance, so an old delivery replayed is
 * refused), taken once per event id (`gateway_events`: a duplicate delivery is answered 200 and not
 * acted on again), and compared with what we recorded under the payment's key, so that the money
 * and the lease agree:
 * - a payment confirmed for a key we recorded as paid: nothing to do;
 * - a rental checkout still being paid (`charging`): the visitor's return or the sweep finishes it;
 * - a rental checkout closed without a lease (abandoned or cancelled) whose payment succeeded after
 *   it was left: the money is refunded in full at once (no lease, no money);
 * - a payment we recorded as declined because it awaited the cardholder's authentication, which
 *   succeeded later (the tenant completed it from the e-mailed link or the page): recorded as the
 *   payment once, with its ledger line, at a location on our own units (decision 395);
 * - a rental's card declined while the bank waited, confirmed by the cardholder afterwards: once the
 *   page has had its time, refunded unless the rental used that PaymentIntent (decision 412);
 * - a payment we know nothing of yet: `waiting` (the page's request may still be recording it, a
 *   timeout after the charge), judged again when that request records it or by housekeeping after
 *   WAITING_MS; only then, still unknown, `needs attention` (decision 411);
 * - a late success we cannot record (a SiteLink location, another amount): kept with
 *   `needs attention` for the office.
 */
type WebhookAnswer = { status: 200 | 400; message: string };

export async function takeStripeWebhook(db: Database, input: { body: string; signature: string | null; now: Date }): Promise<WebhookAnswer> {
  const secret = env().STRIPE_WEBHOOK_SECRET;
  if (!secret) return { status: 400, message: "Stripe webhooks are not configured here." };
  if (!input.signature) return { status: 400, message: "Missing Stripe-Signature." };
  let event: Stripe.Event;
  try {
    event = verifyStripeEvent(input.body, input.signature, secret);
  } catch {
    return { status: 400, message: "The signature does not match." };
  }
  const key = keyOf(event);
  const taken = await db
    .insert(gatewayEvents)
    .values({ id: event.id, processor: "stripe", type: event.type, idempotencyKey: key, outcome: "received", receivedAt: input.now })
    .onConflictDoNothing()
    .returning({ id: gatewayEvents.id });
  if (taken.length === 0) return { status: 200, message: "Already taken." };
  let outcome: string;
  try {
    outcome = await act(db, event, key, input.now);
  } catch (error) {
    // Not taken after all: Stripe delivers it again later.
    await db.delete(gatewayEvents).where(eq(gatewayEvents.id, event.id));
    throw error;
  }
  await db.update(gatewayEvents).set({ outcome }).where(eq(gatewayEvents.id, event.id));
  // The page's request may have recorded its payment between our look and our write (it judges the
  // waiting rows of its key right after recording): look once more, now that the row says waiting.
  if (outcome === WAITING_OUTCOME && key) {
    await recheckWaitingWebhooks(db, input.now, { key }).catch((error: unknown) => logger.warn({ err: error, event: event.id }, "[webhooks] a waiting event could not be judged again now; housekeeping will"));
  }
  if (outcome.startsWith("needs attention")) logger.warn({ event: event.id, type: event.type, key }, outcome);
  return { status: 200, message: outcome };
}

function keyOf(event: Stripe.Event): string | null {
  const o = event.data.object as { metadata?: Record<string, string> | null };
  return o.metadata?.gatehouse_key ?? null;
}

/** The amount and PaymentIntent of a payment the event says succeeded. */
function paidOf(event: Stripe.Event): { amount: number; intentId: string } | null {
  if (event.type === "payment_intent.succeeded") {
    const pi = event.data.object;
    return { amount: pi.amount_received || pi.amount, intentId: pi.id };
  }
  if (event.type === "checkout.session.completed") {
    const session = event.data.object;
    const pi = typeof session.payment_intent === "string" ? session.payment_intent : (session.payment_intent?.id ?? null);
    return pi && session.amount_total !== null ? { amount: session.amount_total, intentId: pi } : null;
  }
  return null;
}

async function act(db: Database, event: Stripe.Event, key: string | null, now: Date): Promise<string> {
  // A portal or pay-link Checkout (decision 400): recorded once, as its return would.
  const portalCheckout = await takeHostedPageEvent(db, event, now);
  if (portalCheckout !== null) return portalCheckout;
  // A rental paid on Checkout whose visitor did not come back: finished here as the return would (decision 433).
  if (event.type === "checkout.session.completed" && key && event.data.object.payment_status === "paid") {
    const session = event.data.object;
    const finished = await finishRentalFromWebhook(db, { key, sessionId: session.id, autopay: session.metadata?.gatehouse_autopay === "1", now, origin: () => siteOrigin(db) });
    if (finished !== null) return finished;
  }
  const succeeded =
    event.type === "payment_intent.succeeded" || (event.type === "checkout.session.completed" && (event.data.object as Stripe.Checkout.Session).payment_status === "paid");
  const failed = event.type === "payment_intent.payment_failed";
  if (!succeeded && !failed) return "ignored";
  if (!key) return succeeded ? "needs attention: a payment without our key" : "ignored";
  if (failed) {
    const payment = await db.query.payments.findFirst({ columns: { status: true }, where: eq(payments.idempotencyKey, key) });
    return payment?.status === "approved" ? "needs attention: recorded as paid, but the processor says the payment failed" : "nothing recorded as paid";
  }
  return judgeSuccess(db, key, { paid: paidOf(event), settled: false, now });
}

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
async function judgeSuccess(db: Database, key: string, input: { paid: { amount: number; intentId: string } | null; settled: boolean; now: Date }): Promise<string> {
  const payment = await db.query.payments.findFirst({ columns: { status: true }, where: eq(payments.idempotencyKey, key) });
  if (payment?.status === "approved" || payment?.status === "refunded") return "already recorded";
  const checkout = await db.query.rentals.findFirst({ columns: { id: true, status: true, locationId: true }, where: eq(rentals.idempotencyKey, key) });
  if (checkout) {
    if (checkout.status === "completed") return "already recorded";
    if (checkout.status === "charging" || checkout.status === "open" || checkout.status === "confirming") return "pending: the rental is finished on return or by the sweep";
    const refunded = await getPaymentGateway({ id: checkout.locationId }).refund(key);
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
  // A rental's card declined while the bank waited (the checkout took a new key for the next card,
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
