import type { Route } from "./+types/webhooks.twilio.status";
import { now as clockNow } from "~/platform/clock.server";
import { siteOriginFor } from "~/services/site/origin.server";
import { takeTextStatus } from "~/services/texts/webhooks.server";
import { twilioWebhookInput, webhookResponse } from "~/services/texts/webhook-request.server";

/** Twilio's delivery status callbacks (issue 40, decision 493): the signature, checked by the service, is the only gate. */
export async function action({ request, context }: Route.ActionArgs) {
  const input = await twilioWebhookInput(request, await siteOriginFor(context), clockNow());
  return webhookResponse(await takeTextStatus(context.db, input));
}

export function loader() {
  return new Response("Method not allowed", { status: 405, headers: { Allow: "POST" } });
}
