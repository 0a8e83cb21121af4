import { env } from "~/platform/env.server";
import { createTwilioTexts } from "./twilio.server";

// The provider's contract, from its own module (decision 546): Twilio implements it without importing this chooser.
export type * from "./provider-types";
import type { TextMessageProvider } from "./provider-types";

/** Why texts are off, or null when a provider is configured. Every page that would text shows it. */
export function textsOffReason(): string | null {
  const e = env();
  if (e.TWILIO_ACCOUNT_SID && e.TWILIO_AUTH_TOKEN) return null;
  return "Texts are off: no text-message provider is configured (TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN).";
}

let made: { key: string; provider: TextMessageProvider } | null = null;

/** The configured provider, or null when texts are off. */
export function textProvider(): TextMessageProvider | null {
  const e = env();
  if (!e.TWILIO_ACCOUNT_SID || !e.TWILIO_AUTH_TOKEN) return null;
  const key = [e.TWILIO_ACCOUNT_SID, e.TWILIO_AUTH_TOKEN, e.TWILIO_API_BASE ?? ""].join(" ");
  if (made?.key !== key) made = { key, provider: createTwilioTexts({ accountSid: e.TWILIO_ACCOUNT_SID, authToken: e.TWILIO_AUTH_TOKEN, apiBase: e.TWILIO_API_BASE }) };
  return made.provider;
}
