import Stripe from "stripe";
import type { CardBrand } from "~/domain/payments/cards";
import type {
  AuthenticationStep,
  ChargeResult,
  HostedPaymentInput,
  HostedSession,
  HostedSetupInput,
  InPageAuthentication,
  PaymentGateway,
  ProcessorActivity,
  ProcessorCharge,
  ProcessorRefund,
  TokenizeResult,
} from "./gateway-types";

/**
 * The Stripe gateway (issue 25, docs/decisions/380-stripe-gateway.md): the `PaymentGateway` on the
 * official `stripe` package. The card never reaches our server: the card pages post back a Stripe id
 * (`payment_token`): a PaymentMethod (`pm_…`), a PaymentIntent the browser confirmed (`pi_…`) or a
 * SetupIntent (`seti_…`). A saved card is the processor's PaymentMethod on a Customer, kept by id as
 * `cus_…:pm_…` (portable: a processor's card-data migration maps both ids, docs/payments.md).
 *
 * - charge: one PaymentIntent per our idempotency key, created with that key as Stripe's
 *   `Idempotency-Key` (a repeat answers the first result; a key reused with other parameters, which
 *   Stripe refuses with an `idempotency_error`, answers the first charge's result from `lookup`) and
 *   kept in the PaymentIntent's metadata (`gatehouse_key`) for `lookup`.
 * - lookup: this process's map of key → PaymentIntent, else Stripe's search on the metadata (what the
 *   sweep uses after a restart; Stripe's search may lag a minute, the sweep waits five).
 * - refund: a full refund of the key's PaymentIntent, once; or a part of it, once per part's key (decision 509).
 * - tokenize: a SetupIntent on a new Customer (off-session use: autopay and the billing run).
 *   A card that needs authentication answers `declined` with `authentication` set: the caller
 *   e-mails the tenant a link to complete it.
 */
export interface StripeGatewayConfig {
  secretKey: string;
  /** The API's address (the fake in tests: http://127.0.0.1:PORT); unset: api.stripe.com. */
  apiBase?: string;
  currency?: string;
  /** Per request, ms (default 20 s). */
  timeoutMs?: number;
  /** The stripe package's own retries; they resend the same Idempotency-Key. */
  maxNetworkRetries?: number;
}


export const AUTHENTICATION_REASON = "Your bank asks you to confirm this payment. We have e-mailed you a link to confirm it.";
const HOSTED_ONLY_REASON = "Enter your card in the secure card form: card numbers are not taken here.";
const UNKNOWN_TOKEN_REASON = "This card could not be used. Please enter it again.";
const PI_OF_ANOTHER_FORM = "This payment belongs to another form. Nothing more was charged; please reload the page.";
const PI_OTHER_AMOUNT = "This payment was for a different amount. Nothing more was charged; please try again.";
/** PaymentIntent states in which nothing was charged and the intent can still be completed: cancelled when the payment is given up. */
const CANCELABLE = new Set<Stripe.PaymentIntent.Status>(["requires_action", "requires_payment_method", "requires_confirmation"]);
const PI_NOT_CONFIRMED = "Your bank has not confirmed this payment. Nothing was charged; please try again.";

/** Options for `new Stripe(...)` from our configuration: the API base by `host`/`port`/`protocol`, never by patching. */
export function stripeClientOptions(config: Pick<StripeGatewayConfig, "apiBase" | "timeoutMs" | "maxNetworkRetries">): ConstructorParameters<typeof Stripe>[1] {
  const options: NonNullable<ConstructorParameters<typeof Stripe>[1]> = {
    maxNetworkRetries: config.maxNetworkRetries ?? 2,
    timeout: config.timeoutMs ?? 20_000,
    appInfo: { name: "Gatehouse" },
    telemetry: false,
  };
  if (config.apiBase) {
    const url = new URL(config.apiBase);
    options.host = url.hostname;
    options.protocol = url.protocol === "http:" ? "http" : "https";
    options.port = url.port || (url.protocol === "http:" ? 80 : 443);
  }
  return options;
}

export function createStripeClient(config: StripeGatewayConfig): Stripe {
  return new Stripe(config.secretKey, stripeClientOptions(config));
}

export interface StripeGateway extends PaymentGateway {
  readonly fields: "hosted";
  readonly stripe: Stripe;
}

const BRANDS: Record<string, CardBrand> = { visa: "visa", mastercard: "mastercard", discover: "discover" };

function cardOf(pm: Stripe.PaymentMethod | string | null | undefined) {
  const card = pm && typeof pm !== "string" ? pm.card : null;
  return {
    brand: card ? (BRANDS[card.brand] ?? null) : null,
    last4: card?.last4 ?? "",
    expMonth: card?.exp_month,
    expYear: card?.exp_year,
  };
}

/** `cus_…:pm_…` (a saved card) or a bare id. */
function splitToken(token: string): { customer?: string; id: string } {
  const i = token.indexOf(":");
  return i > 0 ? { customer: token.slice(0, i), id: token.slice(i + 1) } : { id: token };
}

function declineReason(err: Stripe.errors.StripeError | { message?: string } | null | undefined): string {
  const message = err?.message?.trim();
  return message || "Your card was declined.";
}

function isStripeError(e: unknown): e is Stripe.errors.StripeError {
  return e instanceof Stripe.errors.StripeError;
}

export function createStripeGateway(config: StripeGatewayConfig, client: Stripe = createStripeClient(config)): StripeGateway {
  const stripe = client;
  const currency = config.currency ?? "usd";
  /** key → PaymentIntent id, for this process (lookup's fast path). */
  const intents = new Map<string, string>();

  async function paymentMethodOf(pi: Stripe.PaymentIntent): Promise<Stripe.PaymentMethod | null> {
    if (!pi.payment_method) return null;
    if (typeof pi.payment_method !== "string") return pi.payment_method;
    return stripe.paymentMethods.retrieve(pi.payment_method).catch(() => null);
  }

  async function resultOf(pi: Stripe.PaymentIntent, saved?: string): Promise<ChargeResult> {
    const pm = await paymentMethodOf(pi);
    const card = cardOf(pm);
    if (pi.status === "succeeded") {
      const customer = typeof pi.customer === "string" ? pi.customer : (pi.customer?.id ?? null);
      const cardToken = saved ?? (customer && pm ? `${customer}:${pm.id}` : (pm?.id ?? pi.id));
      return { status: "approved", authReference: pi.id, brand: card.brand ?? "visa", last4: card.last4, cardToken, expMonth: card.expMonth, expYear: card.expYear };
    }
    if (pi.status === "requires_action") {
      return { status: "declined", reason: AUTHENTICATION_REASON, brand: card.brand, last4: card.last4, authentication: { intentId: pi.id, clientSecret: pi.client_secret, inPage: true } };
    }
    if (pi.status === "requires_payment_method" && pi.last_payment_error?.code === "authentication_required") {
      // Charged off session and held for the cardholder (a saved card): completed from the e-mailed link.
      return { status: "declined", reason: AUTHENTICATION_REASON, brand: card.brand, last4: card.last4, authentication: { intentId: pi.id, clientSecret: pi.client_secret, inPage: false } };
    }
    if (pi.status === "processing" || pi.status === "requires_capture") {
      return { status: "declined", reason: "This payment is still being processed. Please check again shortly.", brand: card.brand, last4: card.last4 };
    }
    return { status: "declined", reason: declineReason(pi.last_payment_error), brand: card.brand, last4: card.last4 };
  }

  async function findIntent(idempotencyKey: string): Promise<Stripe.PaymentIntent | null> {
    const known = intents.get(idempotencyKey);
    if (known) return stripe.paymentIntents.retrieve(known);
    const quoted = idempotencyKey.replace(/\\/g, "\\\\").replace(/'/g, "\\'");
    const found = await stripe.paymentIntents.search({ query: `metadata['gatehouse_key']:'${quoted}'`, limit: 10 });
    // The first (oldest) PaymentIntent made with this key is the charge; there is only ever one.
    const pi = [...found.data].sort((a, b) => a.created - b.created)[0] ?? null;
    if (pi) intents.set(idempotencyKey, pi.id);
    return pi;
  }

  /** Why a PaymentIntent posted back by the browser is not this payment (null: it is, and it succeeded). */
  function intentRefusal(pi: Stripe.PaymentIntent, input: { amount: number; idempotencyKey: string }): string | null {
    if (pi.metadata?.gatehouse_key !== input.idempotencyKey) return PI_OF_ANOTHER_FORM;
    if (pi.amount !== input.amount || pi.currency !== currency) return PI_OTHER_AMOUNT;
    if (pi.status !== "succeeded") return PI_NOT_CONFIRMED;
    return null;
  }

  async function chargeWith(input: { amount: number; idempotencyKey: string; token: string; saveCard?: boolean }): Promise<ChargeResult> {
    const { customer, id } = splitToken(input.token);
    const metadata = { gatehouse_key: input.idempotencyKey };
    if (id.startsWith("pi_")) {
      // A PaymentIntent made under this key and completed in the browser (the card page's 3-D Secure,
      // decision 405), or paid on Stripe's Checkout page (decision 383): retrieved here, it is ours
      // only if it carries this payment's key, for this amount and currency, and has succeeded.
      // Anything else is refused and nothing is recorded (never a PaymentIntent of another form).
      const pi = await stripe.paymentIntents.retrieve(id, { expand: ["payment_method"] }).catch((e: unknown) => {
        if (isStripeError(e) && e.type === "StripeInvalidRequestError") return null;
        throw e;
      });
      if (!pi) return { status: "declined", reason: UNKNOWN_TOKEN_REASON, brand: null, last4: "" };
      const refusal = intentRefusal(pi, input);
      if (refusal) return { status: "declined", reason: refusal, brand: null, last4: "" };
      intents.set(input.idempotencyKey, pi.id);
      return resultOf(pi);
    }
    if (!id.startsWith("pm_")) return { status: "declined", reason: UNKNOWN_TOKEN_REASON, brand: null, last4: "" };
    const saving = !customer && input.saveCard === true;
    const onCustomer =
      customer ??
      (saving
        ? (await stripe.customers.create({ metadata }, { idempotencyKey: `gatehouse-customer-${input.idempotencyKey}` })).id
        : undefined);
    const params: Stripe.PaymentIntentCreateParams = {
      amount: input.amount,
      currency,
      payment_method: id,
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      confirm: true,
      metadata,
      expand: ["payment_method"],
      ...(onCustomer ? { customer: onCustomer } : {}),
      // A saved card is charged with the tenant away (autopay, the billing run); a new card saved now may be.
      ...(customer ? { off_session: true } : saving ? { setup_future_usage: "off_session" as const } : {}),
    };
    try {
      const pi = await stripe.paymentIntents.create(params, { idempotencyKey: `gatehouse-${input.idempotencyKey}` });
      intents.set(input.idempotencyKey, pi.id);
      return await resultOf(pi, customer ? input.token : undefined);
    } catch (e) {
      if (!isStripeError(e)) throw e;
      if (e.type === "StripeIdempotencyError") {
        // The key was used before with other parameters: the first charge stands, never a second.
        const first = await findIntent(input.idempotencyKey);
        if (first) return resultOf(first);
        return { status: "declined", reason: "This form was already used. Please reload the page.", brand: null, last4: "" };
      }
      if (e.type === "StripeCardError") {
        const pi = e.payment_intent;
        if (pi) intents.set(input.idempotencyKey, pi.id);
        if (e.code === "authentication_required" && pi) {
          const card = cardOf(await paymentMethodOf(pi));
          return { status: "declined", reason: AUTHENTICATION_REASON, brand: card.brand, last4: card.last4, authentication: { intentId: pi.id, clientSecret: pi.client_secret, inPage: false } };
        }
        const card = pi ? cardOf(await paymentMethodOf(pi)) : { brand: null, last4: "" };
        return { status: "declined", reason: declineReason(e), brand: card.brand, last4: card.last4 };
      }
      if (e.type === "StripeInvalidRequestError" && (e.code === "resource_missing" || e.param === "payment_method")) {
        return { status: "declined", reason: UNKNOWN_TOKEN_REASON, brand: null, last4: "" };
      }
      if (e.type === "StripeConnectionError" || e.type === "StripeAPIError") {
        // No answer (a timeout after the charge, a dropped connection, retries spent): the charge may
        // exist. It is looked up by our key once; found, it is the answer; else the caller does not
        // know (never "declined"), and the sweep or the webhook settles it (decision 395).
        const made = await findIntent(input.idempotencyKey).catch(() => null);
        if (made) return resultOf(made, customer ? input.token : undefined);
      }
      throw e;
    }
  }

  return {
    fields: "hosted",
    stripe,
    async charge(request) {
      if ("card" in request) return { status: "declined", reason: HOSTED_ONLY_REASON, brand: null, last4: "" };
      if ("cardToken" in request) return chargeWith({ amount: request.amount, idempotencyKey: request.idempotencyKey, token: request.cardToken });
      if (request.method.kind === "card") return { status: "declined", reason: HOSTED_ONLY_REASON, brand: null, last4: "" };
      return chargeWith({ amount: request.amount, idempotencyKey: request.idempotencyKey, token: request.method.token, saveCard: request.saveCard });
    },

    async lookup(idempotencyKey) {
      const pi = await findIntent(idempotencyKey);
      return pi ? resultOf(pi) : null;
    },

    async refund(idempotencyKey, part) {
      const pi = await findIntent(idempotencyKey);
      if (!pi || pi.status !== "succeeded") return { refunded: false };
      const charge = typeof pi.latest_charge === "string" ? await stripe.charges.retrieve(pi.latest_charge) : pi.latest_charge;
      // A partial refund sent again with its key is Stripe's replay of the first (refunded: true).
      if (charge?.refunded && !part) return { refunded: false };
      try {
        if (part) {
          await stripe.refunds.create({ payment_intent: pi.id, amount: part.amount, metadata: { gatehouse_key: idempotencyKey } }, { idempotencyKey: `gatehouse-refund-${part.key}` });
        } else {
          await stripe.refunds.create({ payment_intent: pi.id, metadata: { gatehouse_key: idempotencyKey } }, { idempotencyKey: `gatehouse-refund-${idempotencyKey}` });
        }
        return { refunded: true };
      } catch (e) {
        if (isStripeError(e) && (e.code === "charge_already_refunded" || e.code === "amount_too_large")) return { refunded: false };
        throw e;
      }
    },

    async startHostedPayment(input: HostedPaymentInput) {
      const metadata = { ...input.metadata, gatehouse_key: input.idempotencyKey };
      const session = await stripe.checkout.sessions.create(
        {
          mode: "payment",
          line_items: [{ quantity: 1, price_data: { currency, unit_amount: input.amount, product_data: { name: input.description } } }],
          metadata,
          payment_intent_data: { metadata, ...(input.saveCard ? { setup_future_usage: "off_session" as const } : {}) },
          ...(input.saveCard ? { customer_creation: "always" as const } : {}),
          ...(input.email ? { customer_email: input.email } : {}),
          success_url: input.returnUrl.replace("{SESSION}", "{CHECKOUT_SESSION_ID}"),
          cancel_url: input.cancelUrl,
        },
        // One session per key and amount: a double click opens the same page.
        { idempotencyKey: `gatehouse-checkout-${input.idempotencyKey}-${input.amount}-${input.saveCard ? "save" : "once"}` },
      );
      if (!session.url) throw new Error("Stripe returned a Checkout Session without a URL");
      return { url: session.url, sessionId: session.id };
    },

    async startHostedSetup(input: HostedSetupInput) {
      const metadata = { ...input.metadata, gatehouse_key: input.idempotencyKey };
      const known = input.customer ? splitToken(input.customer) : null;
      const customer = known?.customer ?? (known?.id.startsWith("cus_") ? known.id : null);
      const onCustomer =
        customer ??
        (await stripe.customers.create({ metadata, ...(input.email ? { email: input.email } : {}) }, { idempotencyKey: `gatehouse-customer-${input.idempotencyKey}` })).id;
      const session = await stripe.checkout.sessions.create(
        {
          mode: "setup",
          currency,
          // Cards only: what the ledger and the billing run know.
          allowed_payment_method_types: ["card"],
          customer: onCustomer,
          metadata,
          setup_intent_data: { metadata: input.owner ? { ...metadata, gatehouse_key: input.owner } : metadata },
          success_url: input.returnUrl.replace("{SESSION}", "{CHECKOUT_SESSION_ID}"),
          cancel_url: input.cancelUrl,
        },
        { idempotencyKey: `gatehouse-setup-${input.idempotencyKey}` },
      );
      if (!session.url) throw new Error("Stripe returned a Checkout Session without a URL");
      return { url: session.url, sessionId: session.id };
    },

    async expireHostedSession(sessionId: string) {
      if (!/^cs_[A-Za-z0-9_]+$/.test(sessionId)) return { expired: false };
      try {
        await stripe.checkout.sessions.expire(sessionId);
        return { expired: true };
      } catch (e) {
        // Not open any more (completed or expired meanwhile): nothing to expire.
        if (isStripeError(e) && e.type === "StripeInvalidRequestError") return { expired: false };
        throw e;
      }
    },

    async hostedSession(sessionId: string): Promise<HostedSession | null> {
      if (!/^cs_[A-Za-z0-9_]+$/.test(sessionId)) return null;
      const session = await stripe.checkout.sessions.retrieve(sessionId).catch((e: unknown) => {
        if (isStripeError(e) && e.type === "StripeInvalidRequestError") return null;
        throw e;
      });
      if (!session) return null;
      if (session.mode !== "payment" && session.mode !== "setup") return null;
      const mode: "payment" | "setup" = session.mode === "payment" ? "payment" : "setup";
      const idOf = (v: string | { id: string } | null) => (typeof v === "string" ? v : (v?.id ?? null));
      const intentId = mode === "payment" ? idOf(session.payment_intent) : idOf(session.setup_intent);
      const metadata = { ...(session.metadata ?? {}) };
      const status: HostedSession["status"] = session.status === "complete" ? "complete" : session.status === "expired" ? "expired" : "open";
      const done = mode === "payment" ? session.payment_status === "paid" : status === "complete";
      if (done && mode === "payment" && intentId && metadata.gatehouse_key) intents.set(metadata.gatehouse_key, intentId);
      return { id: session.id, mode, status, done, amount: session.amount_total, metadata, intentId };
    },

    async hostedPaymentToken(sessionId: string, idempotencyKey: string) {
      if (!/^cs_[A-Za-z0-9_]+$/.test(sessionId)) return null;
      const session = await stripe.checkout.sessions.retrieve(sessionId).catch((e: unknown) => {
        if (isStripeError(e) && e.type === "StripeInvalidRequestError") return null;
        throw e;
      });
      if (!session || session.metadata?.gatehouse_key !== idempotencyKey || session.payment_status !== "paid") return null;
      const pi = typeof session.payment_intent === "string" ? session.payment_intent : (session.payment_intent?.id ?? null);
      return pi;
    },

    async continueAuthentication(intentId: string, returnUrl: string): Promise<AuthenticationStep> {
      if (!/^pi_[A-Za-z0-9_]+$/.test(intentId)) return { kind: "failed", reason: UNKNOWN_TOKEN_REASON };
      let pi = await stripe.paymentIntents.retrieve(intentId);
      const now = stepOf(pi);
      if (now.kind === "succeeded" || now.kind === "pending") return now;
      const redirect = pi.next_action?.redirect_to_url?.url;
      if (pi.status === "requires_action" && redirect) return { kind: "redirect", url: redirect };
      if (pi.status === "canceled") return now;
      // Held off session (requires_payment_method, authentication_required) or waiting for Stripe.js
      // (use_stripe_sdk): confirmed again on session, with a page to come back to.
      const pm = pi.payment_method ?? pi.last_payment_error?.payment_method ?? null;
      const pmId = typeof pm === "string" ? pm : (pm?.id ?? null);
      if (!pmId) return { kind: "failed", reason: "This payment can no longer be completed. Please pay again from the customer portal." };
      try {
        pi = await stripe.paymentIntents.confirm(pi.id, { payment_method: pmId, return_url: returnUrl });
      } catch (e) {
        if (isStripeError(e) && (e.type === "StripeCardError" || e.type === "StripeInvalidRequestError")) return { kind: "failed", reason: declineReason(e) };
        throw e;
      }
      const url = pi.next_action?.redirect_to_url?.url;
      if (pi.status === "requires_action" && url) return { kind: "redirect", url };
      return stepOf(pi);
    },

    async authenticationOutcome(intentId: string): Promise<AuthenticationStep> {
      if (!/^pi_[A-Za-z0-9_]+$/.test(intentId)) return { kind: "failed", reason: UNKNOWN_TOKEN_REASON };
      const pi = await stripe.paymentIntents.retrieve(intentId).catch((e: unknown) => {
        if (isStripeError(e) && e.type === "StripeInvalidRequestError") return null;
        throw e;
      });
      if (!pi) return { kind: "failed", reason: UNKNOWN_TOKEN_REASON };
      if (pi.currency !== currency) return { kind: "failed", reason: PI_OTHER_AMOUNT };
      return stepOf(pi);
    },

    async inPageAuthentication(intentId: string): Promise<InPageAuthentication | null> {
      if (!/^pi_[A-Za-z0-9_]+$/.test(intentId)) return null;
      const pi = await stripe.paymentIntents.retrieve(intentId).catch((e: unknown) => {
        if (isStripeError(e) && e.type === "StripeInvalidRequestError") return null;
        throw e;
      });
      if (!pi?.client_secret) return null;
      if (pi.status === "requires_action") return { clientSecret: pi.client_secret, paymentMethod: null };
      if (pi.status !== "requires_payment_method" && pi.status !== "requires_confirmation") return null;
      // Held off session (a saved card): Stripe.js confirms it again on session with its card, then authenticates.
      const pm = pi.payment_method ?? pi.last_payment_error?.payment_method ?? null;
      const pmId = typeof pm === "string" ? pm : (pm?.id ?? null);
      return pmId ? { clientSecret: pi.client_secret, paymentMethod: pmId } : null;
    },

    async cancelPending(idempotencyKey: string): Promise<{ canceled: boolean }> {
      const pi = await findIntent(idempotencyKey);
      if (!pi || !CANCELABLE.has(pi.status)) return { canceled: false };
      try {
        await stripe.paymentIntents.cancel(pi.id, {}, { idempotencyKey: `gatehouse-cancel-${idempotencyKey}` });
        return { canceled: true };
      } catch (e) {
        // Completed (or cancelled) a moment ago: the caller looks it up again.
        if (isStripeError(e) && e.type === "StripeInvalidRequestError") return { canceled: false };
        throw e;
      }
    },

    async listActivity({ from, to }): Promise<ProcessorActivity> {
      // Stripe's own lists (GET /v1/charges and /v1/refunds, `created[gte]`/`[lt]`, every page by
      // `starting_after`): every charge on the account, ours or not.
      const created = { gte: Math.floor(from.getTime() / 1000), lt: Math.ceil(to.getTime() / 1000) };
      const charges: ProcessorCharge[] = [];
      for await (const c of stripe.charges.list({ created, limit: 100 })) {
        if (c.status !== "succeeded" || !c.paid || c.currency !== currency) continue;
        const pi = typeof c.payment_intent === "string" ? c.payment_intent : (c.payment_intent?.id ?? null);
        const card = c.payment_method_details?.card;
        charges.push({
          id: pi ?? c.id,
          key: c.metadata?.gatehouse_key ?? null,
          amount: c.amount_captured,
          refunded: c.amount_refunded,
          created: new Date(c.created * 1000),
          card: card ? `${card.brand} ${card.last4}` : "",
        });
      }
      const refunds: ProcessorRefund[] = [];
      for await (const r of stripe.refunds.list({ created, limit: 100 })) {
        if (r.status !== "succeeded" && r.status !== "pending") continue;
        if (r.currency !== currency) continue;
        const pi = typeof r.payment_intent === "string" ? r.payment_intent : (r.payment_intent?.id ?? null);
        const charge = typeof r.charge === "string" ? r.charge : (r.charge?.id ?? "");
        refunds.push({ id: r.id, chargeId: pi ?? charge, amount: r.amount, created: new Date(r.created * 1000) });
      }
      return { charges, refunds };
    },

    async tokenize(input, options): Promise<TokenizeResult> {
      if (!("kind" in input) || input.kind !== "token") return { status: "declined", reason: HOSTED_ONLY_REASON };
      const { customer, id } = splitToken(input.token);
      const owner = options?.owner;
      try {
        if (id.startsWith("seti_")) {
          // A SetupIntent completed in the browser (the card page's 3-D Secure, decision 405): only one
          // made for this owner (its metadata), succeeded, is saved; never another tenant's.
          const si = await stripe.setupIntents.retrieve(id, { expand: ["payment_method"] });
          if (owner !== undefined && si.metadata?.gatehouse_key !== owner) return { status: "declined", reason: PI_OF_ANOTHER_FORM };
          if (owner !== undefined && si.status !== "succeeded") return { status: "declined", reason: si.status === "requires_action" ? PI_NOT_CONFIRMED : declineReason(si.last_setup_error) };
          return setupResult(si);
        }
        if (!id.startsWith("pm_")) return { status: "declined", reason: UNKNOWN_TOKEN_REASON };
        if (customer) {
          const pm = await stripe.paymentMethods.retrieve(id);
          const card = cardOf(pm);
          if (!card.brand) return { status: "declined", reason: "This card could not be saved." };
          return { status: "ok", brand: card.brand, last4: card.last4, cardToken: input.token, expMonth: card.expMonth, expYear: card.expYear };
        }
        const metadata = owner !== undefined ? { gatehouse_key: owner } : undefined;
        const made = await stripe.customers.create(metadata ? { metadata } : {});
        const si = await stripe.setupIntents.create({
          customer: made.id,
          payment_method: id,
          automatic_payment_methods: { enabled: true, allow_redirects: "never" },
          confirm: true,
          usage: "off_session",
          expand: ["payment_method"],
          ...(metadata ? { metadata } : {}),
        });
        return setupResult(si);
      } catch (e) {
        if (isStripeError(e) && (e.type === "StripeCardError" || e.type === "StripeInvalidRequestError")) {
          const si = e.setup_intent;
          if (e.code === "authentication_required" && si) return { status: "declined", reason: AUTHENTICATION_REASON, authentication: { intentId: si.id, clientSecret: si.client_secret, inPage: false } };
          return { status: "declined", reason: e.type === "StripeCardError" ? declineReason(e) : UNKNOWN_TOKEN_REASON };
        }
        throw e;
      }
    },
  };

  async function setupResult(si: Stripe.SetupIntent): Promise<TokenizeResult> {
    if (si.status === "requires_action") return { status: "declined", reason: AUTHENTICATION_REASON, authentication: { intentId: si.id, clientSecret: si.client_secret, inPage: true } };
    if (si.status !== "succeeded") return { status: "declined", reason: declineReason(si.last_setup_error) };
    const pm = typeof si.payment_method === "string" ? await stripe.paymentMethods.retrieve(si.payment_method) : si.payment_method;
    const card = cardOf(pm);
    const customer = typeof si.customer === "string" ? si.customer : (si.customer?.id ?? null);
    if (!pm || !card.brand || !customer) return { status: "declined", reason: "This card could not be saved." };
    return { status: "ok", brand: card.brand, last4: card.last4, cardToken: `${customer}:${pm.id}`, expMonth: card.expMonth, expYear: card.expYear };
  }
}

function stepOf(pi: Stripe.PaymentIntent): AuthenticationStep {
  if (pi.status === "succeeded") return { kind: "succeeded", intentId: pi.id, amount: pi.amount_received || pi.amount, key: pi.metadata?.gatehouse_key ?? null };
  if (pi.status === "processing") return { kind: "pending" };
  if (pi.status === "canceled") return { kind: "failed", reason: "This payment was cancelled. Nothing was charged." };
  if (pi.status === "requires_action") return { kind: "failed", reason: "Your bank has not confirmed this payment yet. Nothing was charged." };
  return { kind: "failed", reason: pi.last_payment_error ? `${declineReason(pi.last_payment_error)} Nothing was charged.` : "Your bank did not confirm this payment. Nothing was charged." };
}

/**
 * How far a webhook's signed time (`t=` of Stripe-Signature) may be from this server's clock (decision
 * 431): up to five minutes old (Stripe's own default, so a delivery replayed later is refused) and at
 * most one minute ahead (clock drift between two NTP-synchronised hosts is well under a second; the
 * library alone accepts any time in the future).
 */
export const WEBHOOK_TOLERANCE_PAST_S = 300;
export const WEBHOOK_TOLERANCE_FUTURE_S = 60;

/**
 * A webhook event Stripe signed with this endpoint's secret (throws when the signature does not hold,
 * or its signed time is too old or too far ahead). `nowMs`: the real clock (Stripe signs with its own
 * real clock, so a test's fake clock has no say here).
 */
export function verifyStripeEvent(body: string, signature: string, secret: string, nowMs: number = Date.now()): Stripe.Event {
  const timestamps = signature
    .split(",")
    .map((part) => part.trim().split("="))
    .filter(([k]) => k === "t")
    .map(([, v]) => (/^\d{1,12}$/.test(v ?? "") ? Number(v) : NaN));
  if (timestamps.length !== 1 || !Number.isSafeInteger(timestamps[0])) throw new Error("The signature has no single valid timestamp.");
  if (timestamps[0]! > Math.floor(nowMs / 1000) + WEBHOOK_TOLERANCE_FUTURE_S) throw new Error("The signature's timestamp is in the future.");
  return Stripe.webhooks.constructEvent(body, signature, secret, WEBHOOK_TOLERANCE_PAST_S, undefined, nowMs);
}
