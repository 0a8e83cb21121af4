import { randomBytes } from "node:crypto";

/** Twilio's Message resource (2010-04-01 API), as its JSON carries it. */
export interface FakeMessage {
  sid: string;
  account_sid: string;
  api_version: "2010-04-01";
  body: string;
  date_created: string;
  date_updated: string;
  date_sent: string | null;
  direction: "outbound-api" | "outbound-reply" | "inbound";
  error_code: number | null;
  error_message: string | null;
  from: string;
  to: string;
  messaging_service_sid: null;
  num_media: "0";
  num_segments: string;
  price: null;
  price_unit: "USD";
  status: string;
  status_callback: string | null;
  subresource_uris: { media: string };
  uri: string;
}

const newSid = (prefix: string) => `${prefix}${randomBytes(16).toString("hex")}`;

/** RFC 2822, as Twilio writes dates ("Sat, 28 Nov 2026 16:00:00 +0000"). */
export const rfc2822 = (d: Date) => d.toUTCString().replace("GMT", "+0000");

/** Twilio counts GSM-7 messages in 160-character segments (153 when split), UCS-2 in 70 (67). */
function segments(body: string): number {
  const gsm = /^[\n\r -_a-z¡£¤¥§¿ÄÅÆÇÉÑÖØÜßàäåæèéìñòöøùü\u0394\u03A6\u0393\u039B\u03A9\u03A0\u03A8\u03A3\u0398\u039E{}\\[\]~|€^]*$/.test(body);
  const [one, many] = gsm ? [160, 153] : [70, 67];
  return body.length <= one ? 1 : Math.ceil(body.length / many);
}

export function messageOf(input: { accountSid: string; from: string; to: string; body: string; direction: FakeMessage["direction"]; status: string; statusCallback?: string | null; now: Date }): FakeMessage {
  const sid = newSid("SM");
  const uri = `/2010-04-01/Accounts/${input.accountSid}/Messages/${sid}.json`;
  return {
    sid,
    account_sid: input.accountSid,
    api_version: "2010-04-01",
    body: input.body,
    date_created: rfc2822(input.now),
    date_updated: rfc2822(input.now),
    date_sent: null,
    direction: input.direction,
    error_code: null,
    error_message: null,
    from: input.from,
    to: input.to,
    messaging_service_sid: null,
    num_media: "0",
    num_segments: String(segments(input.body)),
    price: null,
    price_unit: "USD",
    status: input.status,
    status_callback: input.statusCallback ?? null,
    subresource_uris: { media: uri.replace(/\.json$/, "/Media.json") },
    uri,
  };
}

/** Twilio's error body (https://www.twilio.com/docs/api/errors). */
export function errorBody(status: number, code: number, message: string) {
  return { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status };
}

/** The opt-out and opt-in keywords Twilio's default Advanced Opt-Out honours (and HELP). */
const OPT_OUT = new Set(["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"]);
const OPT_IN = new Set(["START", "YES", "UNSTOP"]);

export function optKeyword(body: string): "out" | "in" | null {
  const word = body.trim().toUpperCase();
  if (OPT_OUT.has(word)) return "out";
  if (OPT_IN.has(word)) return "in";
  return null;
}
