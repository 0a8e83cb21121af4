import { createHmac } from "node:crypto";

/**
 * X-Twilio-Signature as Twilio computes it for a form POST
 * (https://www.twilio.com/docs/usage/webhooks/webhooks-security): the full URL Twilio requested, then
 * every POST field's name and value appended in the order of the names, HMAC-SHA1 with the account's
 * auth token, base64. Written here from Twilio's description (not borrowed from the package that
 * checks it), so a test of the check is a test against the published rule.
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return createHmac("sha1", authToken).update(Buffer.from(data, "utf8")).digest("base64");
}
