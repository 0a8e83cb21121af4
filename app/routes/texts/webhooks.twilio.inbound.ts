import type { Route } from "./+types/webhooks.twilio.inbound";
import { now as clockNow } from "~/platform/clock.server";
import { siteOriginFor } from "~/services/site/origin.server";
import { takeInboundText } from "~/services/texts/webhooks.server";
import { twilioWebhookInput, webhookResponse } from "~/services/texts/webhook-request.server";

/** Texts to a location's number (Twilio's messaging webhook, issue 40, decision 493): answered with TwiML. */
export async function action({ request, context }: Route.ActionArgs) {
  const input = await twilioWebhookInput(request, await siteOriginFor(context), clockNow());
  return webhookResponse(await takeInboundText(context.db, input));
}

export function loader() {
  return new Response("Method not allowed", { status: 405, headers: { Allow: "POST" } });
}
