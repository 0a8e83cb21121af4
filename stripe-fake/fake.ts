/**
 * The API's state and rules: customers, payment methods, payment intents, setup intents, charges,
 * refunds, checkout sessions, events. Object shapes follow the `stripe` package's types
 * (node_modules/stripe/esm/resources/*.d.ts) and Stripe's API reference; only the fields Gatehouse
 * reads are computed, the rest carry the documented defaults (null, false, {}).
 */
import { randomBytes } from "node:crypto";
import { AUTHENTICATION_FAILED, AUTHENTICATION_REQUIRED, behaviourOf, brandOf, luhnValid, SETUP_AUTHENTICATION_FAILED, TEST_PAYMENT_METHODS } from "./cards";
import { cardError, type Decline, invalid, invalidInteger, missingParam, resourceMissing, StripeFakeError, unexpectedState } from "./errors";
import type { FormValue, Params } from "./form";
import { newWebhookSecret, type StripeEvent, type WebhookDispatcher } from "./webhooks";

/** The API version of the `stripe` package installed (its `ApiVersion`), the fake account's default. */
export const DEFAULT_API_VERSION = "2026-10-28.endive";

type Obj = Record<string, unknown> & { id: string; object: string };

export interface CallContext {
  keyKind: "secret" | "publishable";
  requestId: string;
  idempotencyKey?: string;
  apiVersion: string;
}

/** What the fake knows of a PaymentMethod that the API never shows (the full number). */
interface CardSecret {
  number: string;
  /** Authenticated for future off-session use (a SetupIntent, or setup_future_usage after 3DS). */
  setUp: boolean;
  /** Used once without a Customer: Stripe refuses to use it again. */
  consumed: boolean;
}

const PREFIX: Record<string, string> = {
  customer: "cus",
  payment_method: "pm",
  payment_intent: "pi",
  setup_intent: "seti",
  charge: "ch",
  refund: "re",
  event: "evt",
  "checkout.session": "cs_test",
  webhook_endpoint: "we",
};

const KIND_NAME: Record<string, string> = {
  cus: "customer",
  pm: "PaymentMethod",
  pi: "payment_intent",
  seti: "setupintent",
  ch: "charge",
  re: "refund",
  evt: "event",
  cs: "checkout.session",
};

export function randomId(prefix: string, length = 24): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const bytes = randomBytes(length);
  let s = "";
  for (const b of bytes) s += alphabet[b % alphabet.length];
  return `${prefix}_${s}`;
}

const now = () => Math.floor(Date.now() / 1000);

function str(params: Params, name: string): string | undefined {
  const v = params[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw invalid(`Invalid string: ${JSON.stringify(v)}`, { code: "parameter_invalid_string", param: name }, false);
  return v === "" ? undefined : v;
}

function int(params: Params, name: string): number | undefined {
  const v = str(params, name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw invalidInteger(name, v);
  return Number(v);
}

function bool(params: Params, name: string): boolean | undefined {
  const v = str(params, name);
  if (v === undefined) return undefined;
  if (v !== "true" && v !== "false") throw invalid(`Invalid boolean: ${v}`, { code: "parameter_invalid_boolean", param: name }, false);
  return v === "true";
}

function sub(params: Params, name: string): Params | undefined {
  const v = params[name];
  if (v === undefined || v === "") return undefined;
  if (typeof v === "string" || Array.isArray(v)) throw invalid(`Invalid object`, { code: "parameter_invalid_object", param: name }, false);
  return v;
}

function list(params: Params, name: string): string[] {
  const v = params[name];
  if (v === undefined || v === "") return [];
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === "string");
  throw invalid(`Invalid array`, { code: "parameter_invalid_array", param: name }, false);
}

/** Metadata: strings only; an empty value unsets the key (Stripe's rule). */
function metadata(current: Record<string, string>, params: Params): Record<string, string> {
  const m = sub(params, "metadata");
  if (!m) return current;
  const out = { ...current };
  for (const [k, v] of Object.entries(m)) {
    if (typeof v !== "string") throw invalid(`Invalid metadata[${k}]`, { param: `metadata[${k}]` }, false);
    if (v === "") delete out[k];
    else out[k] = v;
  }
  return out;
}

function nullAddress() {
  return { city: null, country: null, line1: null, line2: null, postal_code: null, state: null };
}

function billingDetails(p: Params | undefined) {
  const address = p ? sub(p, "address") : undefined;
  return {
    address: { ...nullAddress(), ...(address ?? {}) },
    email: (p && str(p, "email")) ?? null,
    name: (p && str(p, "name")) ?? null,
    phone: (p && str(p, "phone")) ?? null,
    tax_id: null,
  };
}

interface FakeOptions {
  /** The fake's own origin, for the URLs it hands out (3DS page, hosted checkout). */
  origin: string;
  webhooks: WebhookDispatcher;
}

export class StripeFake {
  objects = new Map<string, Obj>();
  private cards = new Map<string, CardSecret>();
  private pendingEvents: StripeEvent[] = [];

  constructor(private readonly options: FakeOptions) {}

  reset(): void {
    this.objects.clear();
    this.cards.clear();
    this.pendingEvents = [];
  }

  get origin(): string {
    return this.options.origin;
  }

  /** Events raised by the last call, to be delivered once its response is sent. */
  takeEvents(): StripeEvent[] {
    const e = this.pendingEvents;
    this.pendingEvents = [];
    return e;
  }

  get<T extends Obj = Obj>(id: string, kind?: string, param = "id"): T {
    const o = this.objects.get(id);
    if (!o || (kind && o.object !== kind)) {
      const prefix = id.startsWith("cs_") ? "cs" : id.split("_")[0] ?? "";
      throw resourceMissing(KIND_NAME[prefix] ?? kind ?? "object", id, param);
    }
    return o as T;
  }

  private put<T extends Obj>(o: T): T {
    this.objects.set(o.id, o);
    return o;
  }

  private newObject(object: string, fields: Record<string, unknown>): Obj {
    return this.put({ id: randomId(PREFIX[object] ?? object), object, created: now(), livemode: false, ...fields });
  }

  event(type: string, object: Obj, ctx: CallContext | undefined, previous?: Record<string, unknown>): void {
    const ev: StripeEvent = {
      id: randomId("evt"),
      object: "event",
      api_version: DEFAULT_API_VERSION,
      created: now(),
      data: { object: publicView(object) as Record<string, unknown>, ...(previous ? { previous_attributes: publicView(previous) as Record<string, unknown> } : {}) },
      livemode: false,
      pending_webhooks: this.options.webhooks.endpoints.length,
      request: { id: ctx?.requestId ?? null, idempotency_key: ctx?.idempotencyKey ?? null },
      type,
    };
    this.put(ev as unknown as Obj);
    this.pendingEvents.push(ev);
  }

  // ---------------------------------------------------------------- customers

  createCustomer(params: Params, ctx: CallContext): Obj {
    const invoice = sub(params, "invoice_settings");
    const c = this.newObject("customer", {
      address: null,
      balance: 0,
      currency: null,
      default_source: null,
      delinquent: false,
      description: str(params, "description") ?? null,
      discount: null,
      email: str(params, "email") ?? null,
      invoice_prefix: randomId("", 8).slice(1).toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      metadata: metadata({}, params),
      name: str(params, "name") ?? null,
      next_invoice_sequence: 1,
      phone: str(params, "phone") ?? null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: "none",
      test_clock: null,
    });
    this.event("customer.created", c, ctx);
    const pm = str(params, "payment_method");
    if (pm) this.attach(pm, c.id, ctx);
    const dpm = invoice && typeof invoice.default_payment_method === "string" ? invoice.default_payment_method : undefined;
    if (dpm) this.setDefaultPaymentMethod(c, dpm);
    return c;
  }

  updateCustomer(id: string, params: Params, ctx: CallContext): Obj {
    const c = this.get(id, "customer");
    const previous: Record<string, unknown> = {};
    for (const f of ["email", "name", "phone", "description"]) {
      if (params[f] !== undefined) {
        previous[f] = c[f];
        c[f] = str(params, f) ?? null;
      }
    }
    if (params.metadata !== undefined) {
      previous.metadata = c.metadata;
      c.metadata = metadata(c.metadata as Record<string, string>, params);
    }
    const invoice = sub(params, "invoice_settings");
    if (invoice && invoice.default_payment_method !== undefined) {
      previous.invoice_settings = structuredClone(c.invoice_settings);
      const dpm = invoice.default_payment_method;
      if (dpm === "") (c.invoice_settings as Record<string, unknown>).default_payment_method = null;
      else if (typeof dpm === "string") this.setDefaultPaymentMethod(c, dpm);
    }
    this.event("customer.updated", c, ctx, previous);
    return c;
  }

  private setDefaultPaymentMethod(c: Obj, pmId: string): void {
    const pm = this.get(pmId, "payment_method", "invoice_settings[default_payment_method]");
    if (pm.customer !== c.id) {
      throw invalid(`No such PaymentMethod: '${pmId}'; It's possible this PaymentMethod exists on one of your connected accounts, in which case you should retry this request on that connected account.`, {
        code: "resource_missing",
        param: "invoice_settings[default_payment_method]",
      });
    }
    (c.invoice_settings as Record<string, unknown>).default_payment_method = pmId;
  }

  // ---------------------------------------------------------- payment methods

  /** `card[number]…` (Stripe.js, publishable key) or a test PaymentMethod id. */
  createPaymentMethod(params: Params, ctx: CallContext): Obj {
    const type = str(params, "type");
    if (!type) throw missingParam("type");
    if (type !== "card") throw invalid(`The payment method type "${type}" is invalid. The fake supports "card" only.`, { param: "type" }, false);
    const card = sub(params, "card");
    if (!card) throw missingParam("card");
    const number = typeof card.number === "string" ? card.number.replace(/\s+/g, "") : undefined;
    if (number === undefined) throw missingParam("card[number]");
    if (ctx.keyKind === "secret") {
      throw invalid(
        "Sending credit card numbers directly to the Stripe API is generally unsafe. We suggest you use test tokens that map to the test card you are using, see https://stripe.com/docs/testing. To enable testing raw card data APIs, see https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis.",
        {},
        false,
      );
    }
    if (!luhnValid(number)) throw cardError({ code: "incorrect_number", message: "Your card number is incorrect." }, { param: "number" });
    const expMonth = Number(card.exp_month);
    const expYear = Number(card.exp_year);
    if (!Number.isInteger(expMonth) || expMonth < 1 || expMonth > 12) throw cardError({ code: "invalid_expiry_month", message: "Your card's expiration month is invalid." }, { param: "exp_month" });
    const year = expYear < 100 ? 2000 + expYear : expYear;
    const today = new Date();
    if (!Number.isInteger(year) || year < today.getUTCFullYear() || (year === today.getUTCFullYear() && expMonth < today.getUTCMonth() + 1)) {
      throw cardError({ code: "invalid_expiry_year", message: "Your card's expiration year is invalid." }, { param: "exp_year" });
    }
    if (typeof card.cvc === "string" && !/^\d{3,4}$/.test(card.cvc)) throw cardError({ code: "invalid_cvc", message: "Your card's security code is invalid." }, { param: "cvc" });
    return this.newCardPaymentMethod(number, expMonth, year, billingDetails(sub(params, "billing_details")), metadata({}, params));
  }

  private newCardPaymentMethod(number: string, expMonth: number, expYear: number, billing: ReturnType<typeof billingDetails>, meta: Record<string, string>): Obj {
    const brand = brandOf(number);
    const pm = this.newObject("payment_method", {
      allow_redisplay: "unspecified",
      billing_details: billing,
      card: {
        brand,
        checks: { address_line1_check: null, address_postal_code_check: billing.address.postal_code ? "pass" : null, cvc_check: "pass" },
        country: "US",
        display_brand: brand,
        exp_month: expMonth,
        exp_year: expYear,
        fingerprint: Buffer.from(number).toString("base64url").slice(-16),
        funding: "credit",
        generated_from: null,
        last4: number.slice(-4),
        networks: { available: [brand], preferred: null },
        regulated_status: "unregulated",
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      customer: null,
      metadata: meta,
      type: "card",
    });
    this.cards.set(pm.id, { number, setUp: false, consumed: false });
    return pm;
  }

  /** A PaymentMethod id as a request names it: a test id (`pm_card_visa`) makes a new PaymentMethod. */
  resolvePaymentMethod(id: string, param = "payment_method"): Obj {
    const test = TEST_PAYMENT_METHODS[id];
    if (test) return this.newCardPaymentMethod(test.number, 12, new Date().getUTCFullYear() + 3, billingDetails(undefined), {});
    return this.get(id, "payment_method", param);
  }

  cardOf(pm: Obj): CardSecret {
    const c = this.cards.get(pm.id);
    if (!c) throw new Error(`no card for ${pm.id}`);
    return c;
  }

  attach(pmId: string, customerId: string, ctx: CallContext): Obj {
    const customer = this.get(customerId, "customer", "customer");
    const pm = this.resolvePaymentMethod(pmId, "payment_method");
    const card = this.cardOf(pm);
    if (pm.customer === customer.id) return pm;
    if (pm.customer) throw invalid("The payment method you provided has already been attached to a customer.", { code: "payment_method_unexpected_state" });
    if (card.consumed) {
      throw invalid(
        "This PaymentMethod was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.",
        { code: "payment_method_unexpected_state", param: "payment_method" },
      );
    }
    const b = behaviourOf(card.number);
    if (b.attachDeclines && b.charge) throw cardError(b.charge, { payment_method: structuredClone(pm) });
    pm.customer = customer.id;
    this.event("payment_method.attached", pm, ctx);
    return pm;
  }

  detach(pmId: string, ctx: CallContext): Obj {
    const pm = this.get(pmId, "payment_method", "payment_method");
    if (!pm.customer) throw invalid(`The payment method you provided is not attached to a customer so detachment is impossible.`, { code: "payment_method_unexpected_state" });
    const customer = this.objects.get(pm.customer as string);
    const inv = customer?.invoice_settings as Record<string, unknown> | undefined;
    if (inv?.default_payment_method === pm.id) inv.default_payment_method = null;
    pm.customer = null;
    this.cardOf(pm).consumed = true;
    this.event("payment_method.detached", pm, ctx, { customer: customer?.id ?? null });
    return pm;
  }

  listPaymentMethods(customerId: string | undefined, type: string | undefined): Obj[] {
    if (customerId) this.get(customerId, "customer", "customer");
    return [...this.objects.values()]
      .filter((o) => o.object === "payment_method" && (!customerId || o.customer === customerId) && (!type || o.type === type))
      .sort((a, b) => (b.created as number) - (a.created as number));
  }

  // ---------------------------------------------------------- payment intents

  createPaymentIntent(params: Params, ctx: CallContext): Obj {
    const amount = int(params, "amount");
    if (amount === undefined) throw missingParam("amount");
    const currency = str(params, "currency")?.toLowerCase();
    if (!currency) throw missingParam("currency");
    if (amount < 50) throw invalid("Amount must be at least $0.50 usd", { code: "amount_too_small", param: "amount" }, false);
    if (amount > 99999999) throw invalid("Amount must be no more than $999,999.99", { code: "amount_too_large", param: "amount" }, false);
    const customer = str(params, "customer");
    if (customer) this.get(customer, "customer", "customer");
    const confirm = bool(params, "confirm") ?? false;
    const offSession = bool(params, "off_session");
    if (params.off_session !== undefined && !confirm) {
      throw invalid("You may only specify `off_session` when `confirm=true`.", { param: "off_session" }, false);
    }
    const sfu = str(params, "setup_future_usage");
    if (sfu && sfu !== "on_session" && sfu !== "off_session") throw invalid(`Invalid setup_future_usage: must be one of on_session or off_session`, { param: "setup_future_usage", code: "parameter_invalid_string" }, false);
    const auto = sub(params, "automatic_payment_methods");
    const id = randomId("pi");
    const pi: Obj = this.put({
      id,
      object: "payment_intent",
      amount,
      amount_capturable: 0,
      amount_details: { tip: {} },
      amount_received: 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: auto ? { allow_redirects: auto.allow_redirects ?? "always", enabled: auto.enabled === "true" } : null,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: str(params, "capture_method") ?? "automatic",
      client_secret: `${id}_secret_${randomBytes(12).toString("base64url")}`,
      confirmation_method: str(params, "confirmation_method") ?? "automatic",
      created: now(),
      currency,
      customer: customer ?? null,
      description: str(params, "description") ?? null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: metadata({}, params),
      next_action: null,
      on_behalf_of: null,
      payment_method: null,
      payment_method_configuration_details: null,
      payment_method_options: { card: { installments: null, mandate_options: null, network: null, request_three_d_secure: "automatic" } },
      payment_method_types: list(params, "payment_method_types").length ? list(params, "payment_method_types") : ["card"],
      processing: null,
      receipt_email: str(params, "receipt_email") ?? null,
      review: null,
      setup_future_usage: sfu ?? null,
      shipping: null,
      source: null,
      statement_descriptor: str(params, "statement_descriptor") ?? null,
      statement_descriptor_suffix: str(params, "statement_descriptor_suffix") ?? null,
      status: "requires_payment_method",
      transfer_data: null,
      transfer_group: null,
    });
    const pmParam = str(params, "payment_method");
    if (pmParam) {
      pi.payment_method = this.resolvePaymentMethod(pmParam).id;
      pi.status = "requires_confirmation";
    }
    if (bool(params, "error_on_requires_action")) pi._error_on_requires_action = true;
    this.event("payment_intent.created", pi, ctx);
    if (confirm) return this.confirmPaymentIntent(pi.id, { ...(offSession !== undefined ? { off_session: String(offSession) } : {}), ...pick(params, ["return_url", "mandate_data", "use_stripe_sdk"]) }, ctx);
    return pi;
  }

  updatePaymentIntent(id: string, params: Params, ctx: CallContext): Obj {
    const pi = this.get(id, "payment_intent");
    // Once the payment is done (or canceled) only descriptive fields change (metadata, description,
    // receipt_email, shipping); anything about the payment itself is refused.
    if (pi.status === "succeeded" || pi.status === "canceled" || pi.status === "processing") {
      const fixed = Object.keys(params).filter((k) => !["metadata", "description", "receipt_email", "shipping", "expand"].includes(k));
      if (fixed.length) {
        throw unexpectedState(
          "payment_intent",
          `You cannot update this PaymentIntent's ${fixed[0] as string} because it has a status of ${pi.status as string}. Only metadata, description, receipt_email and shipping can be updated now.`,
          pi,
        );
      }
    }
    const previous: Record<string, unknown> = {};
    for (const k of Object.keys(params)) if (k !== "expand") previous[k] = structuredClone(pi[k]);
    const amount = int(params, "amount");
    if (amount !== undefined) pi.amount = amount;
    for (const f of ["description", "receipt_email", "setup_future_usage", "customer", "statement_descriptor"]) if (params[f] !== undefined) pi[f] = str(params, f) ?? null;
    if (params.metadata !== undefined) pi.metadata = metadata(pi.metadata as Record<string, string>, params);
    const pmParam = str(params, "payment_method");
    if (pmParam) {
      pi.payment_method = this.resolvePaymentMethod(pmParam).id;
      pi.status = "requires_confirmation";
    }
    this.event("payment_intent.updated", pi, ctx, previous);
    return pi;
  }

  confirmPaymentIntent(id: string, params: Params, ctx: CallContext): Obj {
    const pi = this.get(id, "payment_intent");
    if (!["requires_payment_method", "requires_confirmation", "requires_action"].includes(pi.status as string)) {
      throw unexpectedState(
        "payment_intent",
        `This PaymentIntent's payment_method could not be updated because it has a status of ${pi.status as string}. You may only update the payment_method of a PaymentIntent with one of the following statuses: requires_payment_method, requires_confirmation, requires_action.`,
        pi,
      );
    }
    const pmParam = str(params, "payment_method");
    const pmData = sub(params, "payment_method_data");
    if (pmParam) pi.payment_method = this.resolvePaymentMethod(pmParam).id;
    else if (pmData) pi.payment_method = this.createPaymentMethod(pmData, ctx).id;
    if (!pi.payment_method) {
      throw unexpectedState(
        "payment_intent",
        "You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the PaymentIntent with cus_xxx, specify a payment method attached to this customer along with the customer ID.".replace("cus_xxx", String(pi.customer ?? "a customer")),
        pi,
      );
    }
    if (params.setup_future_usage !== undefined) pi.setup_future_usage = str(params, "setup_future_usage") ?? null;
    if (params.receipt_email !== undefined) pi.receipt_email = str(params, "receipt_email") ?? null;
    const returnUrl = str(params, "return_url");
    const offSession = bool(params, "off_session") ?? false;
    const pm = this.get(pi.payment_method as string, "payment_method", "payment_method");
    const card = this.cardOf(pm);
    if (pm.customer && pm.customer !== pi.customer) {
      throw invalid(
        `The provided PaymentMethod belongs to a Customer, but you did not provide the Customer's ID. Please include the Customer ID in the \`customer\` parameter on the PaymentIntent.`.replace(
          "belongs to a Customer",
          pi.customer ? `belongs to a different Customer than the one on this PaymentIntent` : "belongs to a Customer",
        ),
        { param: "payment_method" },
      );
    }
    if (card.consumed) {
      throw invalid(
        "The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer. It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.",
        { param: "payment_method" },
      );
    }
    if (offSession && !pi.customer) throw invalid("When `off_session` is true, a `customer` must be provided.", { param: "customer" }, false);
    (pi as Record<string, unknown>)._off_session = offSession;
    pi.last_payment_error = null;
    pi.next_action = null;
    const behaviour = behaviourOf(card.number);
    // 4000002500003155: on-session payments always authenticate; off-session ones only until the card is set up.
    const errorOnAction = bool(params, "error_on_requires_action") ?? pi._error_on_requires_action === true;
    const needsAuth = behaviour.auth === "always" || (behaviour.auth === "setup" && (!offSession || !(card.setUp && pm.customer)));
    if (needsAuth) {
      if (offSession || errorOnAction) return this.failPayment(pi, pm, AUTHENTICATION_REQUIRED, ctx, true);
      pi.status = "requires_action";
      pi.next_action = this.nextAction(pi, returnUrl, bool(params, "use_stripe_sdk") ?? false);
      this.event("payment_intent.requires_action", pi, ctx);
      return pi;
    }
    return this.charge(pi, pm, ctx);
  }

  /**
   * A server-side confirm with a return_url gets `redirect_to_url` (the challenge page, then back to
   * return_url); Stripe.js (which sends `use_stripe_sdk=true`) and a confirm without return_url get
   * `use_stripe_sdk`, whose challenge Stripe.js shows in a modal.
   */
  private nextAction(intent: Obj, returnUrl: string | undefined, sdk: boolean) {
    const url = `${this.origin}/3ds/${intent.id}?client_secret=${encodeURIComponent(intent.client_secret as string)}${returnUrl && !sdk ? `&return_url=${encodeURIComponent(returnUrl)}` : ""}`;
    if (returnUrl && !sdk) return { type: "redirect_to_url", redirect_to_url: { return_url: returnUrl, url } };
    return { type: "use_stripe_sdk", use_stripe_sdk: { type: "three_d_secure_redirect", stripe_js: url, source: randomId("src") } };
  }

  private newCharge(pi: Obj, pm: Obj, outcome: { paid: boolean; decline?: Decline }): Obj {
    const card = pm.card as Record<string, unknown>;
    return this.newObject("charge", {
      amount: pi.amount,
      amount_captured: outcome.paid ? pi.amount : 0,
      amount_refunded: 0,
      balance_transaction: outcome.paid ? randomId("txn") : null,
      billing_details: pm.billing_details,
      captured: outcome.paid,
      currency: pi.currency,
      customer: pi.customer,
      description: pi.description,
      disputed: false,
      failure_code: outcome.decline?.code ?? null,
      failure_message: outcome.decline?.message ?? null,
      metadata: structuredClone(pi.metadata),
      outcome: outcome.paid
        ? { network_status: "approved_by_network", reason: null, risk_level: "normal", seller_message: "Payment complete.", type: "authorized" }
        : { network_status: "declined_by_network", reason: outcome.decline?.decline_code ?? outcome.decline?.code ?? null, risk_level: "normal", seller_message: "The bank did not return any further details with this decline.", type: "issuer_declined" },
      paid: outcome.paid,
      payment_intent: pi.id,
      payment_method: pm.id,
      payment_method_details: { card: { brand: card.brand, exp_month: card.exp_month, exp_year: card.exp_year, last4: card.last4, network: card.brand, three_d_secure: null }, type: "card" },
      receipt_email: pi.receipt_email,
      refunded: false,
      status: outcome.paid ? "succeeded" : "failed",
    });
  }

  private failPayment(pi: Obj, pm: Obj, decline: Decline, ctx: CallContext | undefined, raise: boolean): Obj {
    const charge = decline.code === "authentication_required" || decline.code === "payment_intent_authentication_failure" ? null : this.newCharge(pi, pm, { paid: false, decline });
    pi.status = "requires_payment_method";
    pi.next_action = null;
    pi.last_payment_error = { type: "card_error", ...decline, ...(charge ? { charge: charge.id } : {}), doc_url: `https://stripe.com/docs/error-codes/${decline.code.replace(/_/g, "-")}`, payment_method: structuredClone(pm) };
    if (charge) {
      pi.latest_charge = charge.id;
      this.event("charge.failed", charge, ctx);
    }
    this.event("payment_intent.payment_failed", pi, ctx);
    if (!raise) return pi;
    throw cardError(decline, { ...(charge ? { charge: charge.id } : {}), payment_intent: structuredClone(pi), payment_method: structuredClone(pm) });
  }

  private charge(pi: Obj, pm: Obj, ctx: CallContext | undefined, raise = true): Obj {
    const card = this.cardOf(pm);
    const decline = behaviourOf(card.number).charge;
    if (decline) return this.failPayment(pi, pm, decline, ctx, raise);
    const charge = this.newCharge(pi, pm, { paid: true });
    pi.status = "succeeded";
    pi.amount_received = pi.amount;
    pi.latest_charge = charge.id;
    pi.next_action = null;
    if (pi.setup_future_usage && pi.customer && !pm.customer) {
      pm.customer = pi.customer;
      card.setUp = true;
      this.event("payment_method.attached", pm, ctx);
    } else if (pi.setup_future_usage && pm.customer) {
      card.setUp = true;
    } else if (!pm.customer) {
      card.consumed = true;
    }
    this.event("charge.succeeded", charge, ctx);
    this.event("payment_intent.succeeded", pi, ctx);
    return pi;
  }

  cancelPaymentIntent(id: string, params: Params, ctx: CallContext): Obj {
    const pi = this.get(id, "payment_intent");
    if (pi.status === "succeeded" || pi.status === "canceled") {
      throw unexpectedState(
        "payment_intent",
        `You cannot cancel this PaymentIntent because it has a status of ${pi.status as string}. Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action, processing.`,
        pi,
      );
    }
    pi.status = "canceled";
    pi.canceled_at = now();
    pi.cancellation_reason = str(params, "cancellation_reason") ?? null;
    pi.next_action = null;
    this.event("payment_intent.canceled", pi, ctx);
    return pi;
  }

  /** The outcome of the 3DS challenge (the fake's /3ds page, or a test control). */
  authenticate(id: string, outcome: "complete" | "fail"): Obj {
    const intent = this.objects.get(id);
    if (!intent || (intent.object !== "payment_intent" && intent.object !== "setup_intent")) throw resourceMissing("intent", id);
    if (intent.status !== "requires_action") throw unexpectedState(intent.object as "payment_intent", `This ${intent.object as string} does not require authentication (status ${intent.status as string}).`, intent);
    const pm = this.get(intent.payment_method as string, "payment_method");
    const card = this.cardOf(pm);
    if (intent.object === "setup_intent") {
      if (outcome === "fail") return this.failSetup(intent, pm, SETUP_AUTHENTICATION_FAILED, undefined, false);
      return this.completeSetup(intent, pm, undefined);
    }
    if (outcome === "fail") return this.failPayment(intent, pm, AUTHENTICATION_FAILED, undefined, false);
    if (intent.setup_future_usage && intent.customer) card.setUp = true;
    return this.charge(intent, pm, undefined, false);
  }

  // ------------------------------------------------------------- setup intents

  createSetupIntent(params: Params, ctx: CallContext): Obj {
    const customer = str(params, "customer");
    if (customer) this.get(customer, "customer", "customer");
    const usage = str(params, "usage") ?? "off_session";
    const id = randomId("seti");
    const si: Obj = this.put({
      id,
      object: "setup_intent",
      application: null,
      automatic_payment_methods: null,
      cancellation_reason: null,
      client_secret: `${id}_secret_${randomBytes(12).toString("base64url")}`,
      created: now(),
      customer: customer ?? null,
      description: str(params, "description") ?? null,
      flow_directions: null,
      last_setup_error: null,
      latest_attempt: null,
      livemode: false,
      mandate: null,
      metadata: metadata({}, params),
      next_action: null,
      on_behalf_of: null,
      payment_method: null,
      payment_method_options: { card: { mandate_options: null, network: null, request_three_d_secure: "automatic" } },
      payment_method_types: list(params, "payment_method_types").length ? list(params, "payment_method_types") : ["card"],
      single_use_mandate: null,
      status: "requires_payment_method",
      usage,
    });
    const pmParam = str(params, "payment_method");
    if (pmParam) {
      si.payment_method = this.resolvePaymentMethod(pmParam).id;
      si.status = "requires_confirmation";
    }
    this.event("setup_intent.created", si, ctx);
    if (bool(params, "confirm")) return this.confirmSetupIntent(id, pick(params, ["return_url", "use_stripe_sdk"]), ctx);
    return si;
  }

  confirmSetupIntent(id: string, params: Params, ctx: CallContext): Obj {
    const si = this.get(id, "setup_intent");
    if (!["requires_payment_method", "requires_confirmation", "requires_action"].includes(si.status as string)) {
      throw unexpectedState("setup_intent", `You cannot confirm this SetupIntent because it has already succeeded or been canceled (status ${si.status as string}).`, si);
    }
    const pmParam = str(params, "payment_method");
    const pmData = sub(params, "payment_method_data");
    if (pmParam) si.payment_method = this.resolvePaymentMethod(pmParam).id;
    else if (pmData) si.payment_method = this.createPaymentMethod(pmData, ctx).id;
    if (!si.payment_method) throw unexpectedState("setup_intent", "You cannot confirm this SetupIntent because it's missing a payment method.", si);
    const pm = this.get(si.payment_method as string, "payment_method", "payment_method");
    const card = this.cardOf(pm);
    if (pm.customer && si.customer && pm.customer !== si.customer) throw invalid("The provided PaymentMethod is attached to another Customer.", { param: "payment_method" });
    si.last_setup_error = null;
    const b = behaviourOf(card.number);
    if (b.attachDeclines && b.charge) return this.failSetup(si, pm, b.charge, ctx, true);
    if (b.auth) {
      si.status = "requires_action";
      si.next_action = this.nextAction(si, str(params, "return_url"), bool(params, "use_stripe_sdk") ?? false);
      this.event("setup_intent.requires_action", si, ctx);
      return si;
    }
    return this.completeSetup(si, pm, ctx);
  }

  private completeSetup(si: Obj, pm: Obj, ctx: CallContext | undefined): Obj {
    const card = this.cardOf(pm);
    si.status = "succeeded";
    si.next_action = null;
    card.setUp = true;
    if (si.customer && !pm.customer) {
      pm.customer = si.customer;
      this.event("payment_method.attached", pm, ctx);
    }
    this.event("setup_intent.succeeded", si, ctx);
    return si;
  }

  private failSetup(si: Obj, pm: Obj, decline: Decline, ctx: CallContext | undefined, raise: boolean): Obj {
    si.status = "requires_payment_method";
    si.next_action = null;
    si.last_setup_error = { type: "card_error", ...decline, payment_method: structuredClone(pm) };
    this.event("setup_intent.setup_failed", si, ctx);
    if (!raise) return si;
    throw cardError(decline, { setup_intent: structuredClone(si), payment_method: structuredClone(pm) });
  }

  cancelSetupIntent(id: string, params: Params, ctx: CallContext): Obj {
    const si = this.get(id, "setup_intent");
    if (si.status === "succeeded" || si.status === "canceled") throw unexpectedState("setup_intent", `You cannot cancel this SetupIntent because it has a status of ${si.status as string}.`, si);
    si.status = "canceled";
    si.cancellation_reason = str(params, "cancellation_reason") ?? null;
    si.next_action = null;
    this.event("setup_intent.canceled", si, ctx);
    return si;
  }

  // ------------------------------------------------------------------ refunds

  createRefund(params: Params, ctx: CallContext): Obj {
    const piId = str(params, "payment_intent");
    const chargeId = str(params, "charge");
    if (!piId && !chargeId) throw invalid("One of the following params should be provided for this request: payment_intent or charge.", {}, false);
    let charge: Obj;
    if (piId) {
      const pi = this.get(piId, "payment_intent", "payment_intent");
      if (pi.status !== "succeeded" || !pi.latest_charge) {
        throw invalid(`This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, { code: "charge_not_refundable", param: "payment_intent" });
      }
      charge = this.get(pi.latest_charge as string, "charge");
    } else {
      charge = this.get(chargeId as string, "charge", "charge");
    }
    const remaining = (charge.amount as number) - (charge.amount_refunded as number);
    if (remaining <= 0) throw invalid(`Charge ${charge.id} has already been refunded.`, { code: "charge_already_refunded" });
    const amount = int(params, "amount") ?? remaining;
    if (amount > remaining) {
      throw invalid(`Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(remaining / 100).toFixed(2)})`, { code: "amount_too_large", param: "amount" });
    }
    const refund = this.newObject("refund", {
      amount,
      balance_transaction: randomId("txn"),
      charge: charge.id,
      currency: charge.currency,
      destination_details: { card: { reference_status: "pending", reference_type: "acquirer_reference_number", type: "refund" }, type: "card" },
      metadata: metadata({}, params),
      payment_intent: charge.payment_intent,
      reason: str(params, "reason") ?? null,
      receipt_number: null,
      source_transfer_reversal: null,
      status: "succeeded",
      transfer_reversal: null,
    });
    const previous = { amount_refunded: charge.amount_refunded, refunded: charge.refunded };
    charge.amount_refunded = (charge.amount_refunded as number) + amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    this.event("refund.created", refund, ctx);
    this.event("charge.refunded", charge, ctx, previous);
    return refund;
  }

  // ----------------------------------------------------------------- checkout

  createCheckoutSession(params: Params, ctx: CallContext): Obj {
    const mode = str(params, "mode");
    if (!mode) throw missingParam("mode");
    if (mode !== "payment" && mode !== "setup") throw invalid(`The fake supports mode=payment and mode=setup only.`, { param: "mode" }, false);
    const successUrl = str(params, "success_url");
    const uiMode = str(params, "ui_mode") ?? "hosted";
    if (uiMode === "hosted" && !successUrl) throw missingParam("success_url");
    const customer = str(params, "customer");
    if (customer) this.get(customer, "customer", "customer");
    let amount = 0;
    let currency = str(params, "currency")?.toLowerCase() ?? null;
    const lineItems = Array.isArray(params.line_items) ? params.line_items : [];
    if (mode === "payment") {
      if (!lineItems.length) throw missingParam("line_items");
      lineItems.forEach((li, i) => {
        if (typeof li === "string" || Array.isArray(li)) throw invalid("Invalid line_items", { param: `line_items[${i}]` }, false);
        const pd = sub(li, "price_data");
        if (!pd) throw invalid("The fake supports line_items with price_data only.", { param: `line_items[${i}][price_data]` }, false);
        const unit = int(pd, "unit_amount");
        if (unit === undefined) throw missingParam(`line_items[${i}][price_data][unit_amount]`);
        const c = str(pd, "currency");
        if (!c) throw missingParam(`line_items[${i}][price_data][currency]`);
        currency = c.toLowerCase();
        amount += unit * (int(li, "quantity") ?? 1);
      });
    } else if (!currency && !list(params, "payment_method_types").length) {
      throw invalid("You must provide one of `currency` or `payment_method_types` in setup mode.", { param: "currency" }, false);
    }
    const pid = sub(params, "payment_intent_data") ?? {};
    const sid = sub(params, "setup_intent_data") ?? {};
    const id = randomId("cs_test", 58);
    const session = this.put({
      id,
      object: "checkout.session",
      amount_subtotal: mode === "payment" ? amount : null,
      amount_total: mode === "payment" ? amount : null,
      cancel_url: str(params, "cancel_url") ?? null,
      client_reference_id: str(params, "client_reference_id") ?? null,
      client_secret: null,
      created: now(),
      currency,
      customer: customer ?? null,
      customer_creation: str(params, "customer_creation") ?? null,
      customer_details: null,
      customer_email: str(params, "customer_email") ?? null,
      expires_at: now() + 24 * 3600,
      livemode: false,
      locale: str(params, "locale") ?? null,
      metadata: metadata({}, params),
      mode,
      payment_intent: null,
      payment_method_types: list(params, "payment_method_types").length ? list(params, "payment_method_types") : ["card"],
      payment_status: mode === "setup" ? "no_payment_required" : "unpaid",
      setup_intent: null,
      status: "open",
      submit_type: str(params, "submit_type") ?? null,
      success_url: successUrl ?? null,
      ui_mode: uiMode,
      url: `${this.origin}/c/pay/${id}`,
      _payment_intent_data: { metadata: metadata({}, pid), description: str(pid, "description") ?? null, setup_future_usage: str(pid, "setup_future_usage") ?? null, receipt_email: str(pid, "receipt_email") ?? null },
      _setup_intent_data: { metadata: metadata({}, sid), description: str(sid, "description") ?? null },
      _line_items: lineItems,
    });
    void ctx;
    return session;
  }

  expireCheckoutSession(id: string, ctx: CallContext): Obj {
    const s = this.get(id, "checkout.session");
    if (s.status !== "open") throw invalid(`Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${s.status as string}".`, { code: "checkout_session_unexpected_state" });
    s.status = "expired";
    s.url = null;
    this.event("checkout.session.expired", s, ctx);
    return s;
  }

  /**
   * The hosted page's submit: a PaymentMethod from the card typed there, then the session's
   * PaymentIntent (or SetupIntent) confirmed with the page's return URL. Returns where the browser goes next.
   */
  submitCheckout(id: string, card: { number: string; exp_month: string; exp_year: string; cvc: string; name?: string; email?: string }): { redirect: string } | { error: string } {
    const s = this.get(id, "checkout.session");
    if (s.status !== "open") return { error: "This Checkout Session is no longer open." };
    const ctx: CallContext = { keyKind: "publishable", requestId: randomId("req", 14), apiVersion: DEFAULT_API_VERSION };
    let pm: Obj;
    try {
      pm = this.createPaymentMethod({ type: "card", card: { number: card.number, exp_month: card.exp_month, exp_year: card.exp_year, cvc: card.cvc }, billing_details: { name: card.name ?? "", email: card.email ?? "" } }, ctx);
    } catch (e) {
      if (e instanceof StripeFakeError) return { error: e.body.message };
      throw e;
    }
    const returnUrl = `${this.origin}/c/pay/${id}/return`;
    const email = card.email || (s.customer_email as string | null) || null;
    s.customer_details = { address: null, email, name: card.name || null, phone: null, tax_exempt: "none", tax_ids: [] };
    let customer = s.customer as string | null;
    if (!customer && (s.customer_creation === "always" || s.mode === "setup" || (s._payment_intent_data as Params).setup_future_usage)) {
      customer = this.createCustomer({ ...(email ? { email } : {}), ...(card.name ? { name: card.name } : {}) }, ctx).id;
      s.customer = customer;
    }
    try {
      let intent: Obj;
      if (s.mode === "payment") {
        const pid = s._payment_intent_data as { metadata: Record<string, string>; description: string | null; setup_future_usage: string | null; receipt_email: string | null };
        intent = s.payment_intent
          ? this.get(s.payment_intent as string, "payment_intent")
          : this.createPaymentIntent(
              {
                amount: String(s.amount_total),
                currency: s.currency as string,
                ...(customer ? { customer } : {}),
                metadata: pid.metadata,
                ...(pid.description ? { description: pid.description } : {}),
                ...(pid.setup_future_usage ? { setup_future_usage: pid.setup_future_usage } : {}),
                ...(pid.receipt_email || email ? { receipt_email: (pid.receipt_email ?? email) as string } : {}),
              },
              ctx,
            );
        s.payment_intent = intent.id;
        intent = this.confirmPaymentIntent(intent.id, { payment_method: pm.id, return_url: returnUrl }, ctx);
      } else {
        const sid = s._setup_intent_data as { metadata: Record<string, string>; description: string | null };
        intent = s.setup_intent
          ? this.get(s.setup_intent as string, "setup_intent")
          : this.createSetupIntent({ ...(customer ? { customer } : {}), metadata: sid.metadata, ...(sid.description ? { description: sid.description } : {}) }, ctx);
        s.setup_intent = intent.id;
        intent = this.confirmSetupIntent(intent.id, { payment_method: pm.id, return_url: returnUrl }, ctx);
      }
      if (intent.status === "requires_action") return { redirect: (intent.next_action as { redirect_to_url: { url: string } }).redirect_to_url.url };
      return this.finishCheckout(s);
    } catch (e) {
      if (e instanceof StripeFakeError) return { error: e.body.message };
      throw e;
    }
  }

  /** After the payment's 3DS step, or straight after a payment that needed none. */
  finishCheckout(s: Obj): { redirect: string } | { error: string } {
    const intentId = (s.mode === "payment" ? s.payment_intent : s.setup_intent) as string | null;
    const intent = intentId ? this.objects.get(intentId) : undefined;
    if (!intent || intent.status !== "succeeded") {
      const err = (intent?.last_payment_error ?? intent?.last_setup_error) as { message?: string } | null | undefined;
      return { error: err?.message ?? "Your payment was not completed." };
    }
    if (s.status === "open") {
      s.status = "complete";
      if (s.mode === "payment") s.payment_status = "paid";
      s.url = null;
      this.event("checkout.session.completed", s, undefined);
    }
    return { redirect: String(s.success_url).replaceAll("{CHECKOUT_SESSION_ID}", s.id) };
  }

  // ------------------------------------------------------------------ webhooks

  createWebhookEndpoint(params: Params, ctx: CallContext): Obj {
    const url = str(params, "url");
    if (!url) throw missingParam("url");
    const events = list(params, "enabled_events");
    if (!events.length) throw missingParam("enabled_events");
    const we = this.newObject("webhook_endpoint", {
      api_version: str(params, "api_version") ?? null,
      application: null,
      description: str(params, "description") ?? null,
      enabled_events: events,
      metadata: metadata({}, params),
      secret: newWebhookSecret(),
      status: "enabled",
      url,
    });
    this.options.webhooks.addEndpoint({ id: we.id, url, secret: we.secret as string, enabled_events: events });
    void ctx;
    return we;
  }
}

function pick(params: Params, names: string[]): Params {
  const out: Params = {};
  for (const n of names) if (params[n] !== undefined) out[n] = params[n] as FormValue;
  return out;
}

/** The object as the API shows it: internal fields (`_…`) left out. */
export function publicView(o: unknown): unknown {
  if (Array.isArray(o)) return o.map(publicView);
  if (o && typeof o === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o)) if (!k.startsWith("_")) out[k] = publicView(v);
    return out;
  }
  return o;
}
