import type { Route } from "./+types/webhooks.stripe";
import { now as clockNow } from "~/platform/clock.server";
import { takeStripeWebhook } from "~/services/payments/stripe-webhooks.server";

/** Stripe's webhook endpoint (decision 382): the raw body and its Stripe-Signature, verified by the service. */
export async function action({ request, context }: Route.ActionArgs) {
  if (request.method !== "POST") return new Response("Method not allowed", { status: 405, headers: { Allow: "POST" } });
  const answer = await takeStripeWebhook(context.db, { body: await request.text(), signature: request.headers.get("stripe-signature"), now: clockNow() });
  return Response.json({ received: answer.status === 200, message: answer.message }, { status: answer.status, headers: { "Cache-Control": "no-store" } });
}

export function loader() {
  return new Response("Method not allowed", { status: 405, headers: { Allow: "POST" } });
}
