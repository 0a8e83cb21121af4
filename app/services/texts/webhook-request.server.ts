import type { WebhookAnswer, WebhookInput } from "./webhooks.server";

/**
 * A Twilio webhook request as the service checks it: the address Twilio was given (the site's
 * configured origin with the request's path and query, never its Host header) and the form's fields.
 */
export async function twilioWebhookInput(request: Request, origin: string, now: Date): Promise<WebhookInput> {
  const url = new URL(request.url);
  const form = new URLSearchParams(await request.text());
  return { url: `${origin}${url.pathname}${url.search}`, params: Object.fromEntries(form), signature: request.headers.get("x-twilio-signature"), now };
}

export function webhookResponse(answer: WebhookAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: { "Content-Type": answer.contentType, "Cache-Control": "no-store" } });
}
