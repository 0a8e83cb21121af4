import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import type { Database } from "~/db/client.server";
import { gatewayEvents, payments } from "~/db/schema/billing";
import { rentals } from "~/db/schema/rental";
import { env } from "~/env.server";
import { logger } from "~/logger.server";
import { getPaymentGateway } from "~/platform/payment-gateway.server";
import { verifyStripeEvent } from "~/platform/stripe-gateway.server";

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
 * - a payment we know nothing of, or one we recorded as declined that succeeded later (a tenant
 *   who completed authentication from the e-mailed link): kept with `needs attention` for the office.
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
    outcome = await act(db, event, key);
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

async function act(db: Database, event: Stripe.Event, key: string | null): Promise<string> {
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
  if (payment?.status === "declined") return "needs attention: recorded as declined, but the processor says it was paid later";
  return "needs attention: a payment we have no record of";
}
