import crypto from "node:crypto";
import type { CardBrand } from "~/db/schema/billing";
import { cardBrand, luhnValid } from "~/domain/cards";

/** What the gateway is given: the card exists only in memory for the length of the call. */
export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvv: string;
  nameOnCard: string;
  postalCode: string;
}

/**
 * How a payment flow receives the payer's card (docs/decisions/079-payment-method-input.md): either
 * our own card fields (only with the built-in test gateway, which has no hosted fields), or a token a
 * processor's hosted fields / tokenisation made in the browser, so the card number never reaches us.
 * Flows pass it through to the gateway unchanged; only the gateway and the form's fields component
 * know which kind they deal with.
 */
export type PaymentMethodInput = { kind: "card"; card: CardDetails } | { kind: "token"; token: string };

export type ChargeResult =
  | { status: "approved"; authReference: string; brand: CardBrand; last4: string; cardToken: string }
  | { status: "declined"; reason: string; brand: CardBrand | null; last4: string };

export type TokenizeResult =
  | { status: "ok"; brand: CardBrand; last4: string; cardToken: string }
  | { status: "declined"; reason: string };

/** A payment gateway. Services use only this interface; the card number goes no further. */
export interface PaymentGateway {
  /**
   * What the payment form shows: `"own-inputs"` (our CardFields, the test gateway) or `"hosted"` (a
   * processor's fields in its own iframe, which post back a token in `payment_token`).
   */
  readonly fields: "own-inputs" | "hosted";
  /** Charges a card, a payment method, or a saved card by its token. A repeated `idempotencyKey` returns the first result. */
  charge(
    input:
      | { amount: number; idempotencyKey: string; card: CardDetails }
      | { amount: number; idempotencyKey: string; method: PaymentMethodInput }
      | { amount: number; idempotencyKey: string; cardToken: string },
  ): Promise<ChargeResult>;
  /** Checks a card and returns a token to charge it later (autopay, saved cards) without charging now. */
  tokenize(card: CardDetails): Promise<TokenizeResult>;
}

/**
 * The built-in test gateway (docs/decisions/005-payments.md). Approves any Luhn-valid number of an
 * accepted brand (the standard public test numbers 4242 4242 4242 4242, 5555 5555 5555 4444,
 * 6011 1111 1111 1117 …) except:
 *  - 4000 0000 0000 0002: declined ("Your card was declined.") — the documented decline number;
 *  - 4000 0000 0000 9995: declined ("Your card has insufficient funds.");
 *  - 4000 0000 0000 0341: can be saved (tokenised), but every charge declines — for autopay declines.
 */
export const DECLINED_CARDS: Record<string, string> = {
  "4000000000000002": "Your card was declined.",
  "4000000000009995": "Your card has insufficient funds.",
};
export const SAVES_BUT_DECLINES = "4000000000000341";
const DECLINE_LATER_REASON = "Your card was declined.";

export function createTestGateway(): PaymentGateway {
  const results = new Map<string, ChargeResult>();

  function check(card: CardDetails): { ok: true; brand: CardBrand; last4: string; number: string } | { ok: false; reason: string; brand: CardBrand | null; last4: string } {
    const number = card.number.replace(/\D/g, "");
    const brand = cardBrand(number);
    const last4 = number.slice(-4);
    if (!brand || !luhnValid(number)) return { ok: false, reason: "This card number is not valid.", brand, last4 };
    if (DECLINED_CARDS[number]) return { ok: false, reason: DECLINED_CARDS[number]!, brand, last4 };
    return { ok: true, brand, last4, number };
  }

  function token(brand: CardBrand, last4: string, number: string): string {
    const flag = number === SAVES_BUT_DECLINES ? "decline" : "ok";
    return `tok_${brand}_${last4}_${flag}_${crypto.randomBytes(6).toString("hex")}`;
  }

  return {
    fields: "own-inputs",
    async charge(request) {
      const previous = results.get(request.idempotencyKey);
      if (previous) return previous;
      const input =
        "method" in request
          ? request.method.kind === "card"
            ? { ...request, card: request.method.card }
            : { ...request, cardToken: request.method.token }
          : request;
      let result: ChargeResult;
      if ("cardToken" in input) {
        const [, brand, last4, flag] = input.cardToken.split("_");
        result =
          flag === "ok"
            ? approve(brand as CardBrand, last4 ?? "", input.cardToken)
            : { status: "declined", reason: DECLINE_LATER_REASON, brand: (brand as CardBrand) ?? null, last4: last4 ?? "" };
      } else {
        const c = check(input.card);
        if (!c.ok) result = { status: "declined", reason: c.reason, brand: c.brand, last4: c.last4 };
        else if (c.number === SAVES_BUT_DECLINES) result = { status: "declined", reason: DECLINE_LATER_REASON, brand: c.brand, last4: c.last4 };
        else result = approve(c.brand, c.last4, token(c.brand, c.last4, c.number));
      }
      results.set(input.idempotencyKey, result);
      return result;
    },
    async tokenize(card) {
      const c = check(card);
      if (!c.ok) return { status: "declined", reason: c.reason };
      return { status: "ok", brand: c.brand, last4: c.last4, cardToken: token(c.brand, c.last4, c.number) };
    },
  };
}

function approve(brand: CardBrand, last4: string, cardToken: string): ChargeResult {
  return { status: "approved", authReference: `AUTH-${crypto.randomBytes(5).toString("hex").toUpperCase()}`, brand, last4, cardToken };
}

let gateway: PaymentGateway | undefined;
/** The process's gateway. Only the test gateway exists today; a real one plugs in here. */
export function getPaymentGateway(): PaymentGateway {
  gateway ??= createTestGateway();
  return gateway;
}
