import crypto from "node:crypto";
import fs from "node:fs";
import type { CardBrand } from "~/domain/payments/cards";
import { cardBrand, luhnValid } from "~/domain/payments/cards";

import { env } from "~/platform/env.server";
import { now as clockNow } from "../clock.server";
import { createStripeGateway } from "./stripe.server";

// The contract's types, from their own module (decision 546): this module and the Stripe gateway both implement it.
export type * from "./gateway-types";
import type { CardDetails, ChargeResult, PaymentGateway } from "./gateway-types";

/**
 * The built-in test gateway (docs/decisions/041-move-in-transaction.md, 200-no-test-gateway-in-production.md). Approves any Luhn-valid number of an
 * accepted brand (the standard public test numbers 4242 4242 4242 4242, 5555 5555 5555 4444,
 * 6011 1111 1111 1117 …) except:
 *  - 4000 0000 0000 0002: declined ("Your card was declined.") — the documented decline number;
 *  - 4000 0000 0000 9995: declined ("Your card has insufficient funds.");
 *  - 4000 0000 0000 0341: can be saved (tokenised), but every charge declines — for autopay declines.
 */
const DECLINED_CARDS: Record<string, string> = {
  "4000000000000002": "Your card was declined.",
  "4000000000009995": "Your card has insufficient funds.",
};
const SAVES_BUT_DECLINES = "4000000000000341";
const DECLINE_LATER_REASON = "Your card was declined.";

export function createTestGateway(): PaymentGateway {
  const results = new Map<string, ChargeResult>();
  /** Cents refunded per charge key, and the partial refunds' own keys. */
  const refundedOf = new Map<string, number>();
  const partKeys = new Set<string>();
  /** What this gateway took and gave back, as a processor keeps it (listActivity). */
  const taken: Array<{ key: string; amount: number; at: Date; result: Extract<ChargeResult, { status: "approved" }> }> = [];
  const givenBack: Array<{ key: string; amount: number; at: Date }> = [];

  function check(card: CardDetails): { ok: true; brand: CardBrand; last4: string; number: string } | { ok: false; reason: string; brand: CardBrand | null; last4: string } {
    const number = card.number.replace(/\D/g, "");
    const brand = cardBrand(number);
    const last4 = number.slice(-4);
    if (!brand || !luhnValid(number)) return { ok: false, reason: "This card number is not valid.", brand, last4 };
    if (DECLINED_CARDS[number]) return { ok: false, reason: DECLINED_CARDS[number]!, brand, last4 };
    return { ok: true, brand, last4, number };
  }

  /** `tok_{brand}_{last4}_{ok|decline}_{MMYYYY}_{random}`: the test gateway's tokens carry what a processor would tell. */
  function token(brand: CardBrand, last4: string, number: string, card: CardDetails): string {
    const flag = number === SAVES_BUT_DECLINES ? "decline" : "ok";
    const expiry = `${String(card.expMonth).padStart(2, "0")}${card.expYear}`;
    return `tok_${brand}_${last4}_${flag}_${expiry}_${crypto.randomBytes(6).toString("hex")}`;
  }

  function parseToken(cardToken: string) {
    const [, brand, last4, flag, expiry] = cardToken.split("_");
    const m = /^(\d{2})(\d{4})$/.exec(expiry ?? "");
    const known = (["visa", "mastercard", "discover"] as const).find((b) => b === brand) ?? null;
    return { brand: known, last4: /^\d{4}$/.test(last4 ?? "") ? last4! : "", ok: flag === "ok" && known !== null && /^\d{4}$/.test(last4 ?? ""), expMonth: m ? Number(m[1]) : undefined, expYear: m ? Number(m[2]) : undefined };
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
        const t = parseToken(input.cardToken);
        result = t.ok
          ? approve(t.brand!, t.last4, input.cardToken, { expMonth: t.expMonth, expYear: t.expYear })
          : { status: "declined", reason: DECLINE_LATER_REASON, brand: t.brand, last4: t.last4 };
      } else {
        const c = check(input.card);
        if (!c.ok) result = { status: "declined", reason: c.reason, brand: c.brand, last4: c.last4 };
        else if (c.number === SAVES_BUT_DECLINES) result = { status: "declined", reason: DECLINE_LATER_REASON, brand: c.brand, last4: c.last4 };
        else result = approve(c.brand, c.last4, token(c.brand, c.last4, c.number, input.card), { expMonth: input.card.expMonth, expYear: input.card.expYear });
      }
      results.set(input.idempotencyKey, result);
      if (result.status === "approved") taken.push({ key: input.idempotencyKey, amount: input.amount, at: clockNow(), result });
      logCharge(input, result);
      return result;
    },
    async lookup(idempotencyKey) {
      return results.get(idempotencyKey) ?? null;
    },
    async refund(idempotencyKey, part) {
      const r = results.get(idempotencyKey);
      if (!r || r.status !== "approved") return { refunded: false };
      if (part && partKeys.has(part.key)) return { refunded: true };
      const charge = taken.find((t) => t.key === idempotencyKey);
      const left = (charge?.amount ?? 0) - (refundedOf.get(idempotencyKey) ?? 0);
      const amount = part ? part.amount : left;
      if (left <= 0 || amount <= 0 || amount > left || (!part && refundedOf.has(idempotencyKey))) return { refunded: false };
      if (part) partKeys.add(part.key);
      refundedOf.set(idempotencyKey, (refundedOf.get(idempotencyKey) ?? 0) + amount);
      givenBack.push({ key: idempotencyKey, amount, at: clockNow() });
      logRefund(idempotencyKey, r);
      return { refunded: true };
    },
    async listActivity({ from, to }) {
      const within = (at: Date) => at >= from && at < to;
      const givenBackOf = (key: string) => givenBack.filter((g) => g.key === key).reduce((sum, g) => sum + g.amount, 0);
      return {
        charges: taken
          .filter((t) => within(t.at))
          .map((t) => ({ id: t.result.authReference, key: t.key, amount: t.amount, refunded: givenBackOf(t.key), created: t.at, card: `${t.result.brand} ${t.result.last4}` })),
        refunds: givenBack
          .filter((g) => within(g.at))
          .map((g, i) => ({ id: `REFUND-${i + 1}-${g.key}`, chargeId: taken.find((t) => t.key === g.key)!.result.authReference, amount: g.amount, created: g.at })),
      };
    },
    async tokenize(input) {
      if ("kind" in input && input.kind === "token") {
        const t = parseToken(input.token);
        if (!t.brand || !t.last4) return { status: "declined", reason: "This card could not be saved." };
        return { status: "ok", brand: t.brand, last4: t.last4, cardToken: input.token, expMonth: t.expMonth, expYear: t.expYear };
      }
      const card = "kind" in input ? input.card : input;
      const c = check(card);
      if (!c.ok) return { status: "declined", reason: c.reason };
      return { status: "ok", brand: c.brand, last4: c.last4, cardToken: token(c.brand, c.last4, c.number, card), expMonth: card.expMonth, expYear: card.expYear };
    },
  };
}

/**
 * Fault tests only (tests/fault): with PAYMENT_GATEWAY_LOG set to a file, every new charge (not a
 * repeat answered from memory) is appended to it as one JSON line, so the test can compare what the
 * "card network" took with what the database recorded, across server restarts.
 */
function logCharge(input: { amount: number; idempotencyKey: string }, result: ChargeResult) {
  const file = env().PAYMENT_GATEWAY_LOG;
  if (!file) return;
  const line = {
    at: new Date().toISOString(),
    pid: process.pid,
    idempotencyKey: input.idempotencyKey,
    amount: input.amount,
    status: result.status,
    last4: result.last4,
    authReference: result.status === "approved" ? result.authReference : null,
  };
  fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
}

function logRefund(idempotencyKey: string, charge: Extract<ChargeResult, { status: "approved" }>) {
  const file = env().PAYMENT_GATEWAY_LOG;
  if (!file) return;
  const line = { at: new Date().toISOString(), pid: process.pid, idempotencyKey, amount: 0, status: "refunded", last4: charge.last4, authReference: charge.authReference };
  fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
}

function approve(brand: CardBrand, last4: string, cardToken: string, expiry: { expMonth?: number; expYear?: number } = {}): ChargeResult {
  return { status: "approved", authReference: `AUTH-${crypto.randomBytes(5).toString("hex").toUpperCase()}`, brand, last4, cardToken, ...expiry };
}

/** The gateway names PAYMENT_GATEWAY (and PAYMENT_GATEWAY_LOCATIONS) may hold (app/platform/env.server.ts). */
type PaymentGatewayName = "test" | "stripe" | "none";

/** What a card payment whose gateway is missing is told (never reached through the pages, which offer "call the office" first). */
const NO_GATEWAY_REASON = "Card payments are not taken online at this location. Please call the office.";

/**
 * The gateway of PAYMENT_GATEWAY=none: takes nothing. Every charge and card check is refused before
 * anything leaves the server; there is nothing to look up or refund. It is the last line: the pages
 * and actions ask `paymentGatewayFor` first and offer "call the office" instead of a card form.
 */
export const NO_GATEWAY: PaymentGateway = {
  fields: "own-inputs",
  async charge() {
    return { status: "declined", reason: NO_GATEWAY_REASON, brand: null, last4: "" };
  },
  async tokenize() {
    return { status: "declined", reason: NO_GATEWAY_REASON };
  },
  async lookup() {
    return null;
  },
  async refund() {
    return { refunded: false };
  },
  async listActivity() {
    return { charges: [], refunds: [] };
  },
};

let nameForTests: PaymentGatewayName | undefined;
let testOverride: PaymentGateway | undefined;
let builtIn: PaymentGateway | undefined;
let stripeGateway: { key: string; gateway: PaymentGateway } | undefined;

/** Tests: replace the process's gateway (null: back to a fresh test gateway). */
export function setPaymentGatewayForTests(g: PaymentGateway | null): void {
  testOverride = g ?? undefined;
  if (!g) builtIn = undefined;
}

/** Tests: act as if PAYMENT_GATEWAY were `name` (null: back to the environment's). */
export function setPaymentGatewayNameForTests(name: PaymentGatewayName | null): void {
  nameForTests = name ?? undefined;
}

/**
 * The configured gateway (docs/decisions/200, 381): for a location, its PAYMENT_GATEWAY_LOCATIONS
 * entry; else PAYMENT_GATEWAY; else the test gateway outside production and none in production
 * (where the server does not even start without the setting).
 */
export function configuredPaymentGateway(location?: { id: number }): PaymentGatewayName {
  if (nameForTests) return nameForTests;
  const e = env();
  const own = location ? e.PAYMENT_GATEWAY_LOCATIONS?.[String(location.id)] : undefined;
  return own ?? e.PAYMENT_GATEWAY ?? (e.NODE_ENV === "production" ? "none" : "test");
}

/** The gateway a location's card payments go through, when one is configured. */
interface LocationGateway {
  gateway: PaymentGateway;
  /** True for the built-in test gateway: every card form says it is a demonstration and no real card is charged. */
  demonstration: boolean;
}

/**
 * The gateway that charges this location's cards where our gateway charges them (local-adapter
 * locations, SiteLink option B), or null when none is configured (docs/decisions/200, 381): the
 * location's PAYMENT_GATEWAY_LOCATIONS entry or PAYMENT_GATEWAY. Stripe answers `demonstration: false`.
 */
export function paymentGatewayFor(location: { id: number }): LocationGateway | null {
  const name = configuredPaymentGateway(location);
  if (name === "none") return null;
  return { gateway: getPaymentGateway(location), demonstration: testOverride ? testOverride.fields !== "hosted" : name === "test" };
}

/**
 * The gateway of a location (or, without one, of the process): the configured one (NO_GATEWAY when
 * none), or a test's replacement. Stripe's client is made once per secret key.
 */
export function getPaymentGateway(location?: { id: number }): PaymentGateway {
  if (testOverride) return testOverride;
  const name = configuredPaymentGateway(location);
  if (name === "none") return NO_GATEWAY;
  if (name === "stripe") {
    const e = env();
    const key = e.STRIPE_SECRET_KEY;
    if (!key) return NO_GATEWAY;
    if (stripeGateway?.key !== `${key} ${e.STRIPE_API_BASE ?? ""}`) {
      stripeGateway = { key: `${key} ${e.STRIPE_API_BASE ?? ""}`, gateway: createStripeGateway({ secretKey: key, apiBase: e.STRIPE_API_BASE }) };
    }
    return stripeGateway.gateway;
  }
  builtIn ??= createTestGateway();
  return builtIn;
}

/**
 * The hosts the payment pages' Content-Security-Policy adds when Stripe takes some location's cards
 * (decision 383): Stripe.js and its frames, its API, and Checkout as a form's destination (the pay
 * button's POST is answered with a redirect to Checkout, which `form-action` governs). With
 * STRIPE_API_BASE (tests) that one origin serves all of them (the Stripe fake). Empty without Stripe.
 */
export function hostedFieldsCspSources(): { scriptSrc: string[]; connectSrc: string[]; frameSrc: string[]; formAction: string[] } {
  const e = env();
  const stripe = e.PAYMENT_GATEWAY === "stripe" || Object.values(e.PAYMENT_GATEWAY_LOCATIONS ?? {}).includes("stripe");
  if (!stripe) return { scriptSrc: [], connectSrc: [], frameSrc: [], formAction: [] };
  // A stand-in for Stripe.js (STRIPE_JS_URL, tests) draws its frames and calls its API on its own origin.
  const js = e.STRIPE_JS_URL ? [new URL(e.STRIPE_JS_URL).origin] : [];
  const merge = (...lists: string[][]) => [...new Set(lists.flat())];
  if (e.STRIPE_API_BASE) {
    const origin = new URL(e.STRIPE_API_BASE).origin;
    return { scriptSrc: merge([origin], js), connectSrc: merge([origin], js), frameSrc: merge([origin], js), formAction: [origin] };
  }
  return {
    scriptSrc: js.length ? js : ["https://js.stripe.com"],
    connectSrc: merge(["https://api.stripe.com"], js),
    frameSrc: js.length ? merge(js, ["https://hooks.stripe.com"]) : ["https://js.stripe.com", "https://hooks.stripe.com"],
    formAction: ["https://checkout.stripe.com"],
  };
}

/** Where the card pages load Stripe.js from: Stripe's own address, exactly (or a test's stand-in, STRIPE_JS_URL). */
const STRIPE_JS_URL = "https://js.stripe.com/v3/";

/**
 * What a card page with Stripe's hosted fields gives the browser (decision 390): the publishable key
 * and the Stripe.js address. Null where no location uses Stripe or no publishable key is set (the
 * forms then work as without JavaScript: Checkout on the rental, a message on the portal's pages).
 */
export function hostedFieldsClientConfig(): { publishableKey: string; jsUrl: string } | null {
  const e = env();
  const stripe = e.PAYMENT_GATEWAY === "stripe" || Object.values(e.PAYMENT_GATEWAY_LOCATIONS ?? {}).includes("stripe");
  if (!stripe || !e.STRIPE_PUBLISHABLE_KEY) return null;
  return { publishableKey: e.STRIPE_PUBLISHABLE_KEY, jsUrl: e.STRIPE_JS_URL ?? STRIPE_JS_URL };
}
