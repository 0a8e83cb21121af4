import { phoneDigits } from "../shared/phone";

/**
 * Texting rules (issue 40, decisions 490–493): who may be texted, when, and what an inbound keyword means.
 * Pure: the caller passes `now` and the location's time zone.
 */

/** A US number in E.164 (`+19105550134`), as the text-message provider writes it, or null. */
export function textNumber(value: string | null | undefined): string | null {
  if (!value) return null;
  const d = phoneDigits(value);
  return d ? `+1${d}` : null;
}

/** Texts go out only from 8 am to 9 pm in the location's time zone (decision 491). */
const TEXTING_HOURS = { from: 8, until: 21 } as const;

function localHourMinute(now: Date, timeZone: string): { hour: number; minute: number } {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, hour: "numeric", minute: "numeric", hourCycle: "h23" }).formatToParts(now);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? "0");
  return { hour: get("hour") % 24, minute: get("minute") };
}

/** Whether `now` is within the texting hours in `timeZone` (8:00 up to, not including, 21:00). */
export function withinTextingHours(now: Date, timeZone: string): boolean {
  const { hour } = localHourMinute(now, timeZone);
  return hour >= TEXTING_HOURS.from && hour < TEXTING_HOURS.until;
}

/** The longest text the desk writes by hand (three segments). */
export const LEAD_TEXT_MAX = 480;

/** The desk's message when a text is refused for the hour. */
export const QUIET_HOURS_MESSAGE = "Texts are sent only between 8 am and 9 pm in the location's time zone. Please send it again after 8 am, or e-mail it now.";

/** The keywords carriers and Twilio treat as opting out, back in, and asking for help (CTIA). */
const STOP_WORDS = new Set(["STOP", "STOPALL", "STOP ALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT", "OPT OUT", "REVOKE"]);
const START_WORDS = new Set(["START", "YES", "UNSTOP", "SUBSCRIBE", "OPTIN", "OPT IN"]);
const HELP_WORDS = new Set(["HELP", "INFO"]);

type TextKeyword = "stop" | "start" | "help";

/** The keyword an inbound text is, when the whole message is one (case, spaces and punctuation around it ignored). */
export function textKeyword(body: string): TextKeyword | null {
  const word = body
    .trim()
    .replace(/[.!?]+$/, "")
    .replace(/\s+/g, " ")
    .toUpperCase();
  if (STOP_WORDS.has(word)) return "stop";
  if (START_WORDS.has(word)) return "start";
  if (HELP_WORDS.has(word)) return "help";
  return null;
}

/** The answers to the keywords, naming the business (what carriers require of them). */
export function keywordReply(keyword: TextKeyword, business: { name: string; phone: string | null }): string {
  const call = business.phone ? ` or call ${business.phone}` : "";
  switch (keyword) {
    case "stop":
      return `${business.name}: you will get no more texts from this number. Reply START to receive texts again.`;
    case "start":
      return `${business.name}: you will receive texts from this number again. Msg & data rates may apply. Reply HELP for help, STOP to stop.`;
    case "help":
      return `${business.name}: texts about your storage and payments. For help reply here${call}. Msg & data rates may apply. Reply STOP to stop.`;
  }
}

/** Delivery statuses in the order they move (a later callback never moves a message back). */
const STATUS_ORDER = ["accepted", "scheduled", "queued", "sending", "sent", "receiving", "received", "delivered", "undelivered", "failed", "read", "canceled"] as const;
type TextStatus = (typeof STATUS_ORDER)[number];

export function isTextStatus(value: string): value is TextStatus {
  return (STATUS_ORDER as readonly string[]).includes(value);
}

/** Whether a status callback of `next` should replace `current`: final statuses stay; otherwise only forward. */
export function statusMovesForward(current: string, next: TextStatus): boolean {
  const final = new Set(["delivered", "undelivered", "failed", "read", "canceled"]);
  if (current === next) return false;
  if (final.has(current)) return current === "delivered" && next === "read";
  const at = (s: string) => STATUS_ORDER.indexOf(s as TextStatus);
  return at(next) > at(current);
}
