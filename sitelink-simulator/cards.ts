/**
 * Card payments through SiteLink's own processor (option A, study §3.5). Test numbers are the
 * project's test gateway numbers (app/platform/payments/gateway.server.ts): they decline whatever
 * bTestMode says, like a processor's test cards.
 */
import type { SiteRecord } from "./state";
import type { DateTimeValue } from "./wire";
import { brandOf, luhnValid } from "./values";

export const DECLINED_CARDS: Record<string, string> = {
  "4000000000000002": "Your card was declined.",
  "4000000000009995": "Your card has insufficient funds.",
};
/** Accepted when stored for autopay; declined by the simulator's autopay run. */
export const AUTOPAY_DECLINE_CARD = "4000000000000341";

type CardCheck =
  | { ok: true; last4: string; typeId: number; description: string }
  | { ok: false; code: number; message: string };

function processorCheck(site: SiteRecord): CardCheck | null {
  if (!site.processor) return { ok: false, code: -20, message: "Site not setup to use Authorize.Net or PPI PayMover" };
  if (!site.cardConfig) return { ok: false, code: -21, message: "No credit card configuration" };
  return null;
}

/** Checks a card payment in SiteLink's order: processor, card type id, number, expiry, authorisation. */
export function checkCard(site: SiteRecord, typeId: number, number: string, expiration: DateTimeValue | null, today: string): CardCheck {
  const processor = processorCheck(site);
  if (processor) return processor;
  const type = site.paymentTypes.find((t) => t.PmtTypeID === typeId && t.sCategory === "Credit Card");
  if (!type) return { ok: false, code: -4, message: "Error getting Credit Card Type ID" };
  const digits = number.replace(/[\s-]/g, "");
  if (!luhnValid(digits) || (type.brand && brandOf(digits) !== type.brand)) {
    return { ok: false, code: -14, message: "Credit Card number is invalid" };
  }
  if (!expiration || expiration.date < today) {
    return { ok: false, code: -100, message: "Credit Card not being authorized: the card has expired." };
  }
  const declined = DECLINED_CARDS[digits];
  if (declined) return { ok: false, code: -100, message: `Credit Card not being authorized: ${declined}` };
  return { ok: true, last4: digits.slice(-4), typeId, description: `${type.sPmtTypeDesc} ending ${digits.slice(-4)}` };
}
