import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import type { Database } from "~/db/client.server";
import { gatewayEvents, payments } from "~/db/schema/billing";
import { rentals } from "~/db/schema/rental";
import { env } from "~/env.server";
import { logger } from "~/logger.server";
import { getPaymentGateway } from "~/platform/payment-gateway.server";
import { verifyStripeEvent } from "~/platform/stripe-gateway.server";
import { recordLateCardPayment } from "~/storage-software/index.server";
import { takeCheckoutEvent } from "./portal-hosted-payment.server";

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
 * - a payment we know nothing of, or a late success we cannot record (a SiteLink location, another
 *   amount): kept with `needs attention` for the office.
 */
export type WebhookAnswer = { status: 200 | 400; message: string };

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
  const portalCheckout = await takeCheckoutEvent(db, event, now);
  if (portalCheckout !== null) return portalCheckout;
  const succeeded =
    event.type === "payment_intent.succeeded" || (event.type === "checkout.session.completed" && (event.data.object as Stripe.Checkout.Session).payment_status === "paid");
  const failed = event.type === "payment_intent.payment_failed";
  if (!succeeded && !failed) return "ignored";
  if (!key) return succeeded ? "needs attention: a payment without our key" : "ignored";
  const payment = await db.query.payments.findFirst({ columns: { status: true }, where: eq(payments.idempotencyKey, key) });
  const checkout = await db.query.rentals.findFirst({ columns: { id: true, status: true, locationId: true }, where: eq(rentals.idempotencyKey, key) });
  if (failed) {
    return payment?.status === "approved" ? "needs attention: recorded as paid, but the processor says the payment failed" : "nothing recorded as paid";
  }
  if (payment?.status === "approved" || payment?.status === "refunded") return "already recorded";
  if (checkout) {
    if (checkout.status === "completed") return "already recorded";
    if (checkout.status === "charging" || checkout.status === "open" || checkout.status === "confirming") return "pending: the rental is finished on return or by the sweep";
    const refunded = await getPaymentGateway({ id: checkout.locationId }).refund(key);
    return refunded.refunded ? "refunded: paid after the rental was closed" : "already refunded";
  }
  if (payment?.status === "declined") {
    // Held for authentication and completed later (the e-mailed link, the page's own script, the
    // processor's hosted page): recorded as the payment, once (decision 395).
    const paid = paidOf(event);
    if (!paid) return "needs attention: recorded as declined, but the processor says it was paid later";
    const recorded = await recordLateCardPayment(db, { idempotencyKey: key, amount: paid.amount, authReference: paid.intentId, now });
    if (recorded === "recorded") return "recorded: paid after authentication";
    if (recorded === "already recorded") return "already recorded";
    return recorded === "amount differs"
      ? "needs attention: recorded as declined, and the processor says another amount was paid later"
      : "needs attention: recorded as declined, but the processor says it was paid later";
  }
  return "needs attention: a payment we have no record of";
}
