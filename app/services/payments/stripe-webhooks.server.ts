import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import type { Database } from "~/db/client.server";
import { gatewayEvents, payments } from "~/db/schema/billing";
import { env } from "~/platform/env.server";
import { logger } from "~/platform/logger.server";
import { verifyStripeEvent } from "~/platform/payments/stripe.server";
import { takeHostedPageEvent } from "../portal/hosted-payment.server";
import { judgeSuccess, recheckWaitingWebhooks, WAITING_OUTCOME } from "./waiting-webhooks.server";
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
 * - a rental still being paid (`charging`): the visitor's return or the sweep finishes it;
 * - a rental closed without a lease (abandoned or cancelled) whose payment succeeded after
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

