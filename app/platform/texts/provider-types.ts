/** The text message provider's contract (decision 546): types only, implemented by ./twilio.server.ts and chosen in ./provider.server.ts. */
/**
 * The text-message provider port (issue 40, decision 490): what the services use to send a text and to
 * trust a webhook from the provider. One real implementation (Twilio, through the official `twilio`
 * package); the tests and development point it at the Twilio fake (twilio-fake/, TWILIO_API_BASE).
 */
export interface TextMessageProvider {
  /**
   * Sends `body` from `from` to `to` (E.164), asking for delivery reports at `statusCallback`.
   * `accepted`: the provider took it (its id and first status); `refused`: it said no (its error code,
   * e.g. 21610 for a number that replied STOP); `unknown`: no answer (a time-out): it may have gone,
   * so it is recorded as such and never sent again blindly.
   */
  send(input: { from: string; to: string; body: string; statusCallback: string }): Promise<SendTextResult>;
  /** Whether a webhook's X-Twilio-Signature is the provider's for this public URL and these form fields. */
  verifyWebhook(input: { url: string; params: Record<string, string>; signature: string | null }): boolean;
  /** The answer to an inbound text: a reply to send back in the same exchange, or none. */
  replyDocument(reply: string | null): { body: string; contentType: string };
}

export type SendTextResult =
  | { outcome: "accepted"; sid: string; status: string }
  | { outcome: "refused"; code: string; message: string }
  | { outcome: "unknown"; message: string };

