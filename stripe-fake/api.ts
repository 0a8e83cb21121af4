/**
 * The /v1 routes: which fake method answers each request, the list and search envelopes, `expand`,
 * and which calls a publishable key may make (those Stripe.js makes: create a PaymentMethod; retrieve
 * and confirm an intent with its client secret).
 */
import { invalid, invalidInteger, resourceMissing, StripeFakeError, unknownParam } from "./errors";
import type { Params } from "./form";
import { publicView, type CallContext, type StripeFake } from "./fake";
import { allowedParams } from "./params";

type Obj = Record<string, unknown> & { id: string; object: string };

interface Route {
  method: "GET" | "POST" | "DELETE";
  pattern: RegExp;
  /** A publishable key may call it (Stripe.js); intent routes then need the intent's client_secret. */
  publishable?: "any" | "client_secret";
  /** The `stripe` package's params interface for it: [file under esm/resources, interface]. */
  types: [string, string];
  run(fake: StripeFake, m: string[], params: Params, ctx: CallContext): unknown;
}

const ID = "([A-Za-z0-9_]+)";

function listOf(url: string, items: Obj[], params: Params) {
  const limit = Math.min(Math.max(Number(params.limit ?? 10) || 10, 1), 100);
  let start = 0;
  const after = typeof params.starting_after === "string" ? params.starting_after : undefined;
  if (after) start = items.findIndex((o) => o.id === after) + 1;
  const page = items.slice(start, start + limit);
  return { object: "list", data: page, has_more: start + limit < items.length, url };
}

function all(fake: StripeFake, object: string, filter: (o: Obj) => boolean = () => true): Obj[] {
  return [...fake.objects.values()].filter((o) => o.object === object && filter(o)).sort((a, b) => (b.created as number) - (a.created as number) || 0) as Obj[];
}

/**
 * Stripe's search query language, the part we use: clauses `field:'value'` or
 * `metadata['key']:'value'` joined by AND (https://docs.stripe.com/search#search-query-language).
 * Unlike Stripe, whose index lags writes by up to a minute, the fake's search sees every write at once.
 */
function searchFilter(query: string): (o: Obj) => boolean {
  const clause = /^\s*(?:metadata\[(['"])((?:\\.|(?!\1).)*)\1\]|([a-z_]+))\s*:\s*(['"])((?:\\.|(?!\4).)*)\4\s*/;
  const unescape = (v: string) => v.replace(/\\(.)/g, "$1");
  const tests: Array<(o: Obj) => boolean> = [];
  let rest = query.trim();
  if (!rest) throw invalid("Missing required param: query.", { code: "parameter_missing", param: "query" }, false);
  while (rest) {
    const m = clause.exec(rest);
    if (!m) throw invalid(`The fake cannot parse the search query at: ${rest}`, { param: "query" }, false);
    const metaKey = m[2] === undefined ? undefined : unescape(m[2]);
    const field = m[3];
    const value = unescape(m[5] ?? "");
    tests.push((o) => (metaKey !== undefined ? (o.metadata as Record<string, string>)[metaKey] === value : String(o[field as string]) === value));
    rest = rest.slice(m[0].length);
    if (rest) {
      const and = /^AND\s+/i.exec(rest);
      if (!and) throw invalid(`The fake supports clauses joined by AND only: ${rest}`, { param: "query" }, false);
      rest = rest.slice(and[0].length);
    }
  }
  return (o) => tests.every((t) => t(o));
}

/**
 * The list endpoints' filters: equality on the fields given, and `created` as Stripe takes it (a Unix
 * time, or `created[gt]`, `[gte]`, `[lt]`, `[lte]`), as GET /v1/charges, /v1/refunds and
 * /v1/payment_intents do (https://docs.stripe.com/api/charges/list).
 */
function filterBy(params: Params, fields: string[]): (o: Obj) => boolean {
  const created = createdFilter(params.created);
  return (o) => fields.every((f) => params[f] === undefined || o[f] === params[f]) && created(o.created as number);
}

function createdFilter(value: Params[string] | undefined): (created: number) => boolean {
  if (value === undefined) return () => true;
  const num = (v: unknown, name: string) => {
    const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isFinite(n)) throw invalidInteger(name, String(v));
    return n;
  };
  if (typeof value === "string") {
    const at = num(value, "created");
    return (c) => c === at;
  }
  if (Array.isArray(value)) throw invalid("Invalid created: must be an integer or a hash with gt, gte, lt or lte.", { param: "created" }, false);
  const tests: Array<(c: number) => boolean> = [];
  for (const [op, v] of Object.entries(value)) {
    const n = num(v, `created[${op}]`);
    if (op === "gt") tests.push((c) => c > n);
    else if (op === "gte") tests.push((c) => c >= n);
    else if (op === "lt") tests.push((c) => c < n);
    else if (op === "lte") tests.push((c) => c <= n);
    else throw unknownParam(`created[${op}]`);
  }
  return (c) => tests.every((t) => t(c));
}

const routes: Route[] = [
  { method: "POST", pattern: /^\/v1\/customers$/, types: ["Customers.d.ts", "CustomerCreateParams"], run: (f, _m, p, c) => f.createCustomer(p, c) },
  { method: "GET", pattern: new RegExp(`^/v1/customers/${ID}$`), types: ["Customers.d.ts", "CustomerRetrieveParams"], run: (f, m) => f.get(m[1] as string, "customer") },
  { method: "POST", pattern: new RegExp(`^/v1/customers/${ID}$`), types: ["Customers.d.ts", "CustomerUpdateParams"], run: (f, m, p, c) => f.updateCustomer(m[1] as string, p, c) },
  {
    method: "GET",
    pattern: new RegExp(`^/v1/customers/${ID}/payment_methods$`), types: ["Customers.d.ts", "CustomerListPaymentMethodsParams"],
    run: (f, m, p) => listOf(`/v1/customers/${m[1]}/payment_methods`, f.listPaymentMethods(m[1], p.type as string | undefined) as Obj[], p),
  },
  { method: "POST", pattern: /^\/v1\/payment_methods$/, types: ["PaymentMethods.d.ts", "PaymentMethodCreateParams"], publishable: "any", run: (f, _m, p, c) => f.createPaymentMethod(p, c) },
  { method: "GET", pattern: /^\/v1\/payment_methods$/, types: ["PaymentMethods.d.ts", "PaymentMethodListParams"], run: (f, _m, p) => listOf("/v1/payment_methods", f.listPaymentMethods(p.customer as string | undefined, p.type as string | undefined) as Obj[], p) },
  { method: "GET", pattern: new RegExp(`^/v1/payment_methods/${ID}$`), types: ["PaymentMethods.d.ts", "PaymentMethodRetrieveParams"], run: (f, m) => f.get(m[1] as string, "payment_method") },
  {
    method: "POST",
    pattern: new RegExp(`^/v1/payment_methods/${ID}/attach$`), types: ["PaymentMethods.d.ts", "PaymentMethodAttachParams"],
    run: (f, m, p, c) => {
      if (typeof p.customer !== "string" || !p.customer) throw invalid("Missing required param: customer.", { code: "parameter_missing", param: "customer" }, false);
      return f.attach(m[1] as string, p.customer, c);
    },
  },
  { method: "POST", pattern: new RegExp(`^/v1/payment_methods/${ID}/detach$`), types: ["PaymentMethods.d.ts", "PaymentMethodDetachParams"], run: (f, m, _p, c) => f.detach(m[1] as string, c) },
  { method: "POST", pattern: /^\/v1\/payment_intents$/, types: ["PaymentIntents.d.ts", "PaymentIntentCreateParams"], run: (f, _m, p, c) => f.createPaymentIntent(p, c) },
  { method: "GET", pattern: /^\/v1\/payment_intents$/, types: ["PaymentIntents.d.ts", "PaymentIntentListParams"], run: (f, _m, p) => listOf("/v1/payment_intents", all(f, "payment_intent", filterBy(p, ["customer"])), p) },
  {
    method: "GET",
    pattern: /^\/v1\/payment_intents\/search$/, types: ["PaymentIntents.d.ts", "PaymentIntentSearchParams"],
    run: (f, _m, p) => ({ ...listOf("/v1/payment_intents/search", all(f, "payment_intent", searchFilter(String(p.query ?? ""))), p), object: "search_result", next_page: null }),
  },
  { method: "GET", pattern: new RegExp(`^/v1/payment_intents/${ID}$`), types: ["PaymentIntents.d.ts", "PaymentIntentRetrieveParams"], publishable: "client_secret", run: (f, m) => f.get(m[1] as string, "payment_intent") },
  { method: "POST", pattern: new RegExp(`^/v1/payment_intents/${ID}$`), types: ["PaymentIntents.d.ts", "PaymentIntentUpdateParams"], run: (f, m, p, c) => f.updatePaymentIntent(m[1] as string, p, c) },
  { method: "POST", pattern: new RegExp(`^/v1/payment_intents/${ID}/confirm$`), types: ["PaymentIntents.d.ts", "PaymentIntentConfirmParams"], publishable: "client_secret", run: (f, m, p, c) => f.confirmPaymentIntent(m[1] as string, p, c) },
  { method: "POST", pattern: new RegExp(`^/v1/payment_intents/${ID}/cancel$`), types: ["PaymentIntents.d.ts", "PaymentIntentCancelParams"], run: (f, m, p, c) => f.cancelPaymentIntent(m[1] as string, p, c) },
  { method: "POST", pattern: /^\/v1\/setup_intents$/, types: ["SetupIntents.d.ts", "SetupIntentCreateParams"], run: (f, _m, p, c) => f.createSetupIntent(p, c) },
  { method: "GET", pattern: /^\/v1\/setup_intents$/, types: ["SetupIntents.d.ts", "SetupIntentListParams"], run: (f, _m, p) => listOf("/v1/setup_intents", all(f, "setup_intent", filterBy(p, ["customer", "payment_method"])), p) },
  { method: "GET", pattern: new RegExp(`^/v1/setup_intents/${ID}$`), types: ["SetupIntents.d.ts", "SetupIntentRetrieveParams"], publishable: "client_secret", run: (f, m) => f.get(m[1] as string, "setup_intent") },
  { method: "POST", pattern: new RegExp(`^/v1/setup_intents/${ID}/confirm$`), types: ["SetupIntents.d.ts", "SetupIntentConfirmParams"], publishable: "client_secret", run: (f, m, p, c) => f.confirmSetupIntent(m[1] as string, p, c) },
  { method: "POST", pattern: new RegExp(`^/v1/setup_intents/${ID}/cancel$`), types: ["SetupIntents.d.ts", "SetupIntentCancelParams"], run: (f, m, p, c) => f.cancelSetupIntent(m[1] as string, p, c) },
  { method: "POST", pattern: /^\/v1\/refunds$/, types: ["Refunds.d.ts", "RefundCreateParams"], run: (f, _m, p, c) => f.createRefund(p, c) },
  { method: "GET", pattern: /^\/v1\/refunds$/, types: ["Refunds.d.ts", "RefundListParams"], run: (f, _m, p) => listOf("/v1/refunds", all(f, "refund", filterBy(p, ["payment_intent", "charge"])), p) },
  { method: "GET", pattern: new RegExp(`^/v1/refunds/${ID}$`), types: ["Refunds.d.ts", "RefundRetrieveParams"], run: (f, m) => f.get(m[1] as string, "refund") },
  { method: "GET", pattern: /^\/v1\/charges$/, types: ["Charges.d.ts", "ChargeListParams"], run: (f, _m, p) => listOf("/v1/charges", all(f, "charge", filterBy(p, ["payment_intent", "customer"])), p) },
  { method: "GET", pattern: new RegExp(`^/v1/charges/${ID}$`), types: ["Charges.d.ts", "ChargeRetrieveParams"], run: (f, m) => f.get(m[1] as string, "charge") },
  { method: "POST", pattern: /^\/v1\/checkout\/sessions$/, types: ["Checkout/Sessions.d.ts", "SessionCreateParams"], run: (f, _m, p, c) => f.createCheckoutSession(p, c) },
  {
    method: "GET",
    pattern: /^\/v1\/checkout\/sessions$/, types: ["Checkout/Sessions.d.ts", "SessionListParams"],
    run: (f, _m, p) => listOf("/v1/checkout/sessions", all(f, "checkout.session", filterBy(p, ["payment_intent", "customer", "status"])), p),
  },
  { method: "GET", pattern: new RegExp(`^/v1/checkout/sessions/${ID}$`), types: ["Checkout/Sessions.d.ts", "SessionRetrieveParams"], run: (f, m) => f.get(m[1] as string, "checkout.session") },
  { method: "POST", pattern: new RegExp(`^/v1/checkout/sessions/${ID}/expire$`), types: ["Checkout/Sessions.d.ts", "SessionExpireParams"], run: (f, m, _p, c) => f.expireCheckoutSession(m[1] as string, c) },
  { method: "GET", pattern: /^\/v1\/events$/, types: ["Events.d.ts", "EventListParams"], run: (f, _m, p) => listOf("/v1/events", all(f, "event", filterBy(p, ["type"])), p) },
  { method: "GET", pattern: new RegExp(`^/v1/events/${ID}$`), types: ["Events.d.ts", "EventRetrieveParams"], run: (f, m) => f.get(m[1] as string, "event") },
  { method: "POST", pattern: /^\/v1\/webhook_endpoints$/, types: ["WebhookEndpoints.d.ts", "WebhookEndpointCreateParams"], run: (f, _m, p, c) => f.createWebhookEndpoint(p, c) },
];

export function findRoute(method: string, path: string): { route: Route; match: string[] } | undefined {
  for (const route of routes) {
    if (route.method !== method) continue;
    const m = route.pattern.exec(path);
    if (m) return { route, match: [...m] };
  }
  return undefined;
}

/** The parameters Stripe's own machinery reads, not the endpoint. */
const TRANSPORT_PARAMS = ["key", "client_secret", "_stripe_version", "expand"];
/** What Stripe.js adds on the routes a publishable key may call. */
const STRIPE_JS_PARAMS = ["key", "client_secret", "use_stripe_sdk", "_stripe_version"];

function endpointParams(params: Params): Params {
  const out: Params = { ...params };
  for (const p of TRANSPORT_PARAMS) delete out[p];
  return out;
}

function expandOne(fake: StripeFake, value: Record<string, unknown>, path: string[]): void {
  const [head, ...rest] = path;
  if (!head) return;
  if (head === "data" && Array.isArray(value.data)) {
    for (const item of value.data) expandOne(fake, item as Record<string, unknown>, rest);
    return;
  }
  let v = value[head];
  if (typeof v === "string") {
    const target = fake.objects.get(v);
    if (!target) return;
    v = publicView(target);
    value[head] = v;
  }
  if (v && typeof v === "object" && rest.length) expandOne(fake, v as Record<string, unknown>, rest);
}

/** The response body: internal fields dropped, `expand[]` paths replaced by their objects. */
function view(fake: StripeFake, result: unknown, expand: unknown): unknown {
  const out = publicView(result) as Record<string, unknown>;
  const paths = Array.isArray(expand) ? expand : typeof expand === "string" ? [expand] : [];
  for (const p of paths) if (typeof p === "string") expandOne(fake, out, p.split("."));
  return out;
}

function checkClientSecret(fake: StripeFake, match: string[], params: Params): void {
  const id = match[1] as string;
  const intent = fake.objects.get(id);
  if (!intent) throw resourceMissing(id.startsWith("seti_") ? "setupintent" : "payment_intent", id);
  if (params.client_secret !== intent.client_secret) {
    throw invalid(`The client_secret provided does not match any associated ${intent.object === "setup_intent" ? "SetupIntent" : "PaymentIntent"} on this account.`, { param: "client_secret" }, false);
  }
}

export function runRoute(fake: StripeFake, route: Route, match: string[], params: Params, ctx: CallContext): unknown {
  if (ctx.keyKind === "publishable") {
    if (!route.publishable) {
      throw new StripeFakeError(
        401,
        { type: "invalid_request_error", message: "This API call cannot be made with a publishable API key. Please use a secret API key. You can find a list of your API keys at https://dashboard.stripe.com/account/apikeys." },
        false,
      );
    }
    if (route.publishable === "client_secret") checkClientSecret(fake, match, params);
  }
  const allowed = allowedParams(...route.types);
  for (const name of Object.keys(params)) {
    if (allowed.has(name) || (route.publishable && STRIPE_JS_PARAMS.includes(name)) || (name === "key" && ctx.keyKind === "publishable")) continue;
    throw unknownParam(name);
  }
  return view(fake, route.run(fake, match, endpointParams(params), ctx), params.expand);
}
