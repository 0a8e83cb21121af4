/**
 * The fake's HTTP server: Stripe's API under /v1 (form-encoded requests, Bearer keys, JSON answers,
 * Stripe's error bodies, Idempotency-Key, Stripe-Version), the browser pages (Stripe.js stand-in at
 * /v3/, the Element iframe, 3DS challenge, hosted Checkout) and the test controls under /__fake/.
 *
 *   const stripe = await startStripeFake({ port: 0 });
 *   new Stripe(stripe.secretKey, stripe.clientConfig);   // { host, port, protocol: "http" }
 *   stripe.control.addWebhookEndpoint(url)               // → { secret }
 *   await stripe.close();
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import ts from "typescript";
import { findRoute, runRoute } from "./api";
import { invalid, resourceMissing, StripeFakeError } from "./errors";
import { DEFAULT_API_VERSION, publicView, randomId, StripeFake, type CallContext } from "./fake";
import { canonical, parseForm, type Params } from "./form";
import { challengeDone, challengePage, checkoutPage, elementFrame, formatAmount } from "./pages";
import { newWebhookSecret, WebhookDispatcher, type Delivery, type StripeEvent, type WebhookEndpoint } from "./webhooks";

export const DEFAULT_PORT = 12111;
const DEFAULT_SECRET_KEY = "sk_test_gatehouse_fake_0000000000000000";
const DEFAULT_PUBLISHABLE_KEY = "pk_test_gatehouse_fake_0000000000000000";

interface StripeFakeOptions {
  /** 0 = an ephemeral port (tests). Default DEFAULT_PORT. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Secret keys the API accepts (Bearer). Default [DEFAULT_SECRET_KEY]. */
  secretKeys?: string[];
  /** Publishable keys Stripe.js may use. Default [DEFAULT_PUBLISHABLE_KEY]. */
  publishableKeys?: string[];
  /** Webhook endpoints configured at start; a missing secret is generated (see `webhookEndpoints`). */
  webhooks?: Array<{ url: string; secret?: string; enabled_events?: string[] }>;
  log?: (line: string) => void;
}

/** A test-only fault on the next request that matches (method and path prefix). */
interface Fault {
  method?: string;
  /** A path prefix, e.g. "/v1/payment_intents". */
  path: string;
  /**
   * - "timeout": the request is carried out (the charge is made, the idempotent result saved), then
   *   no answer is sent until the client gives up (its timeout) or the fake closes;
   * - "reset": carried out, then the connection is destroyed without an answer;
   * - "api_error": not carried out, HTTP 500 api_error (Stripe's "something went wrong on our end").
   */
  mode: "timeout" | "reset" | "api_error";
  /** How many matching requests it hits (default 1). */
  times?: number;
}

interface LoggedRequest {
  method: string;
  path: string;
  params: Params;
  status: number;
  idempotencyKey: string | null;
  replayed: boolean;
  requestId: string;
}

interface SavedResponse {
  method: string;
  path: string;
  params: string;
  status: number;
  body: string;
  requestId: string;
}

export interface RunningStripeFake {
  /** http://host:port — the API base and the pages' origin. */
  url: string;
  origin: string;
  host: string;
  port: number;
  secretKey: string;
  publishableKey: string;
  /** The fake account's default API version (the `stripe` package's pinned one). */
  apiVersion: string;
  /** Options for `new Stripe(secretKey, { ...clientConfig })`: the real package pointed at the fake. */
  clientConfig: { host: string; port: number; protocol: "http" };
  /** The Stripe.js stand-in's script URL (load it where the page would load https://js.stripe.com/v3/). */
  jsUrl: string;
  control: StripeFakeControl;
  close(): Promise<void>;
}

export interface StripeFakeControl {
  reset(): void;
  /** Stored objects as the API shows them, optionally of one type ("payment_intent", "charge", ...). */
  objects(type?: string): Array<Record<string, unknown>>;
  get(id: string): Record<string, unknown> | undefined;
  requests(): LoggedRequest[];
  addFault(fault: Fault): void;
  clearFaults(): void;
  /** Answer the 3DS challenge of a PaymentIntent or SetupIntent in requires_action. */
  authenticate(intentId: string, outcome: "complete" | "fail"): Record<string, unknown>;
  addWebhookEndpoint(url: string, options?: { secret?: string; enabled_events?: string[] }): WebhookEndpoint;
  webhookEndpoints(): WebhookEndpoint[];
  /** Hold webhook deliveries (a webhook that arrives late), all or of these event types, until resumeWebhooks(). */
  pauseWebhooks(types?: string[]): void;
  resumeWebhooks(): void;
  heldEvents(): StripeEvent[];
  /** Send an event again, same id and body, freshly signed (a duplicate delivery). */
  redeliver(eventId: string): void;
  deliveries(): Delivery[];
  /** Resolves when every delivery started so far has been answered. */
  webhooksSettled(): Promise<void>;
  events(type?: string): StripeEvent[];
  /** The hosted Checkout page's submit, without a browser: the card typed, and the URL the browser goes to next. */
  submitCheckout(sessionId: string, card: { number: string; exp_month: string; exp_year: string; cvc: string; name?: string; email?: string }): { redirect: string } | { error: string };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, Content-Type, Stripe-Version, Idempotency-Key, Stripe-Account",
  "Access-Control-Max-Age": "300",
};

let stripeJsSource: string | undefined;
/** stripe-js.ts, compiled for the browser once (a classic script, as js.stripe.com/v3/ is). */
function stripeJs(): string {
  if (!stripeJsSource) {
    const source = readFileSync(new URL("./stripe-js.ts", import.meta.url), "utf8");
    const out = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.ESNext, removeComments: false } }).outputText;
    // In a function of its own, as Stripe.js is: its top-level names never meet the page's.
    stripeJsSource = `(() => {\n"use strict";\n${out.replace(/^export \{\};?\s*$/m, "")}\n})();\n`;
  }
  return stripeJsSource;
}

function redact(params: Params): Params {
  const copy = structuredClone(params);
  const hide = (o: Params | undefined) => {
    if (!o || typeof o !== "object") return;
    const card = o.card as Params | undefined;
    if (card && typeof card === "object" && !Array.isArray(card)) {
      if (typeof card.number === "string") card.number = `************${card.number.slice(-4)}`;
      if (typeof card.cvc === "string") card.cvc = "***";
    }
  };
  hide(copy);
  hide(copy.payment_method_data as Params | undefined);
  return copy;
}

function maskKey(key: string): string {
  return `${key.slice(0, 8)}${"*".repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`;
}

export async function startStripeFake(options: StripeFakeOptions = {}): Promise<RunningStripeFake> {
  const host = options.host ?? "127.0.0.1";
  const secretKeys = options.secretKeys ?? [DEFAULT_SECRET_KEY];
  const publishableKeys = options.publishableKeys ?? [DEFAULT_PUBLISHABLE_KEY];
  const log = options.log;
  const webhooks = new WebhookDispatcher(log);
  let origin = "";
  const fake = new StripeFake({
    get origin() {
      return origin;
    },
    webhooks,
  } as { origin: string; webhooks: WebhookDispatcher });
  const idempotency = new Map<string, SavedResponse>();
  let faults: Array<Fault & { left: number }> = [];
  let requestLog: LoggedRequest[] = [];
  const hung = new Set<ServerResponse>();
  const sockets = new Set<Socket>();

  const addWebhookEndpoint = (url: string, o: { secret?: string; enabled_events?: string[] } = {}) =>
    webhooks.addEndpoint({ id: randomId("we"), url, secret: o.secret ?? newWebhookSecret(), enabled_events: o.enabled_events ?? ["*"] });
  for (const w of options.webhooks ?? []) addWebhookEndpoint(w.url, w);

  const takeFault = (method: string, path: string): Fault | undefined => {
    const f = faults.find((x) => x.left > 0 && (!x.method || x.method.toUpperCase() === method) && path.startsWith(x.path));
    if (f) f.left--;
    faults = faults.filter((x) => x.left > 0);
    return f;
  };

  const emitAll = (events: StripeEvent[]) => {
    for (const e of events) webhooks.emit(e);
  };

  function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) {
    res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), "Cache-Control": "no-cache, no-store", ...CORS, ...headers });
    res.end(body);
  }

  function sendHtml(res: ServerResponse, status: number, html: string) {
    res.writeHead(status, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
    res.end(html);
  }

  function redirect(res: ServerResponse, location: string) {
    res.writeHead(303, { Location: location });
    res.end();
  }

  function errorBody(e: StripeFakeError, requestId: string): string {
    return JSON.stringify({ error: { ...(publicView(e.body) as object), request_log_url: `https://dashboard.stripe.com/test/logs/${requestId}` } }, null, 2);
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = (req.method ?? "GET").toUpperCase();
    const requestId = randomId("req", 14);
    const raw = method === "POST" ? await readBody(req) : url.search.slice(1);
    const params = parseForm(raw);
    const path = url.pathname.replace(/\/+$/, "");
    const idemKey = method === "POST" ? (req.headers["idempotency-key"] as string | undefined) : undefined;
    const requestedVersion = req.headers["stripe-version"] as string | undefined;
    const apiVersion = requestedVersion ?? DEFAULT_API_VERSION;
    const headers: Record<string, string> = { "Request-Id": requestId, "Stripe-Version": apiVersion };
    if (idemKey) headers["Idempotency-Key"] = idemKey;
    const entry: LoggedRequest = { method, path, params: redact(params), status: 0, idempotencyKey: idemKey ?? null, replayed: false, requestId };
    requestLog.push(entry);
    const fail = (e: StripeFakeError) => {
      entry.status = e.status;
      sendJson(res, e.status, errorBody(e, requestId), headers);
    };

    // Authentication: Bearer (or Basic with the key as user name), or `key=` in the body (Stripe.js).
    const auth = req.headers.authorization ?? "";
    let key: string | undefined;
    if (/^Bearer /i.test(auth)) key = auth.slice(7).trim();
    else if (/^Basic /i.test(auth)) key = Buffer.from(auth.slice(6), "base64").toString("utf8").split(":")[0];
    else if (typeof params.key === "string") key = params.key;
    if (!key) {
      return fail(
        new StripeFakeError(401, {
          type: "invalid_request_error",
          message:
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
        }),
      );
    }
    const keyKind = secretKeys.includes(key) ? "secret" : publishableKeys.includes(key) ? "publishable" : undefined;
    if (!keyKind) return fail(new StripeFakeError(401, { type: "invalid_request_error", message: `Invalid API Key provided: ${maskKey(key)}` }));
    if (requestedVersion !== undefined && !/^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/.test(requestedVersion)) {
      return fail(invalid(`Invalid Stripe API version: ${requestedVersion}`, {}, false));
    }
    const found = findRoute(method, path);
    if (!found) {
      return fail(
        new StripeFakeError(404, {
          type: "invalid_request_error",
          message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
        }),
      );
    }

    // Idempotency (https://docs.stripe.com/api/idempotent_requests): keys are scoped to the API key.
    const scope = idemKey ? `${key}\u0000${idemKey}` : undefined;
    if (idemKey && idemKey.length > 255) return fail(invalid("Idempotency-Key is too long: it must be at most 255 characters.", {}, false));
    const paramText = canonical(params);
    const saved = scope ? idempotency.get(scope) : undefined;
    if (saved) {
      if (saved.method !== method || saved.path !== path) {
        return fail(
          new StripeFakeError(400, {
            type: "idempotency_error",
            message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${saved.method} ${saved.path}' vs '${method} ${path}'). Try using a key other than '${idemKey}' if you meant to execute a different request.`,
          }),
        );
      }
      if (saved.params !== paramText) {
        return fail(
          new StripeFakeError(400, {
            type: "idempotency_error",
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`,
          }),
        );
      }
      entry.status = saved.status;
      entry.replayed = true;
      log?.(`${method} ${path} ${saved.status} (idempotent replay of ${saved.requestId})`);
      const fault = takeFault(method, path);
      if (fault?.mode === "timeout") return void hung.add(res);
      if (fault?.mode === "reset") return void req.socket.destroy();
      return sendJson(res, saved.status, saved.body, { ...headers, "Idempotent-Replayed": "true", "Original-Request": saved.requestId });
    }

    const fault = takeFault(method, path);
    if (fault?.mode === "api_error") {
      return fail(new StripeFakeError(500, { type: "api_error", message: "An unknown error occurred" }, false));
    }
    const ctx: CallContext = { keyKind, requestId, apiVersion, ...(idemKey ? { idempotencyKey: idemKey } : {}) };
    let status = 200;
    let body: string;
    let save = true;
    try {
      const result = runRoute(fake, found.route, found.match, params, ctx);
      body = JSON.stringify(result, null, 2);
    } catch (e) {
      if (!(e instanceof StripeFakeError)) {
        log?.(`${method} ${path} crashed: ${(e as Error).stack ?? String(e)}`);
        fake.takeEvents();
        return fail(new StripeFakeError(500, { type: "api_error", message: "An unknown error occurred" }, false));
      }
      status = e.status;
      body = errorBody(e, requestId);
      save = e.saved;
    }
    const events = fake.takeEvents();
    entry.status = status;
    if (scope && save) idempotency.set(scope, { method, path, params: paramText, status, body, requestId });
    log?.(`${method} ${path} ${status}${idemKey ? ` [${idemKey}]` : ""}`);
    if (fault?.mode === "timeout") {
      hung.add(res);
      res.on("close", () => hung.delete(res));
      emitAll(events);
      return;
    }
    if (fault?.mode === "reset") {
      req.socket.destroy();
      emitAll(events);
      return;
    }
    sendJson(res, status, body, headers);
    emitAll(events);
  }

  async function handleControl(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? "GET";
    const body = method === "POST" ? await readBody(req) : "";
    const json = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    const path = url.pathname.slice("/__fake".length);
    const ok = (value: unknown) => sendJson(res, 200, JSON.stringify(value ?? { ok: true }, null, 2));
    let m: RegExpExecArray | null;
    try {
      if (method === "POST" && path === "/reset") return ok(control.reset());
      if (method === "GET" && path === "/objects") return ok(control.objects(url.searchParams.get("type") ?? undefined));
      if (method === "GET" && (m = /^\/objects\/([\w]+)$/.exec(path))) {
        const o = control.get(m[1] as string);
        return o ? ok(o) : sendJson(res, 404, JSON.stringify({ error: "not found" }));
      }
      if (method === "GET" && path === "/requests") return ok(control.requests());
      if (method === "POST" && path === "/faults") return ok(control.addFault(json as unknown as Fault));
      if (method === "DELETE" && path === "/faults") return ok(control.clearFaults());
      if (method === "POST" && (m = /^\/intents\/([\w]+)\/authenticate$/.exec(path))) return ok(control.authenticate(m[1] as string, json.outcome === "fail" ? "fail" : "complete"));
      if (method === "POST" && path === "/webhooks") return ok(control.addWebhookEndpoint(String(json.url), json as { secret?: string; enabled_events?: string[] }));
      if (method === "GET" && path === "/webhooks") return ok(control.webhookEndpoints());
      if (method === "POST" && path === "/webhooks/pause") return ok(control.pauseWebhooks(Array.isArray(json.types) ? json.types.map(String) : undefined));
      if (method === "POST" && path === "/webhooks/resume") return ok(control.resumeWebhooks());
      if (method === "GET" && path === "/webhooks/deliveries") return ok(control.deliveries());
      if (method === "POST" && (m = /^\/events\/([\w]+)\/redeliver$/.exec(path))) return ok(control.redeliver(m[1] as string));
      if (method === "GET" && path === "/events") return ok(control.events(url.searchParams.get("type") ?? undefined));
      if (method === "POST" && (m = /^\/checkout\/sessions\/([\w]+)\/submit$/.exec(path))) return ok(control.submitCheckout(m[1] as string, json as never));
      sendJson(res, 404, JSON.stringify({ error: `no control ${method} ${path}` }));
    } catch (e) {
      const status = e instanceof StripeFakeError ? e.status : 400;
      sendJson(res, status, JSON.stringify({ error: (e as Error).message }));
    }
  }

  async function handlePages(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const method = req.method ?? "GET";
    const path = url.pathname;
    let m: RegExpExecArray | null;
    if (method === "GET" && (path === "/v3" || path === "/v3/" || path === "/v3/stripe.js")) {
      res.writeHead(200, { "Content-Type": "application/javascript; charset=utf-8", "Cache-Control": "no-store", "Access-Control-Allow-Origin": "*" });
      res.end(stripeJs());
      return true;
    }
    if (method === "GET" && path === "/elements/frame") {
      const key = url.searchParams.get("key") ?? "";
      const parentOrigin = url.searchParams.get("origin") ?? "";
      if (!publishableKeys.includes(key) || !/^https?:\/\/[^/]+$/.test(parentOrigin)) {
        sendHtml(res, 400, "<!doctype html><title>Bad request</title><p>Invalid key or origin.</p>");
        return true;
      }
      sendHtml(res, 200, elementFrame({ key, parentOrigin, elementId: url.searchParams.get("element") ?? "", type: url.searchParams.get("type") ?? "card" }));
      return true;
    }
    if ((m = /^\/3ds\/([\w]+)$/.exec(path))) {
      const id = m[1] as string;
      const intent = fake.objects.get(id);
      const params = method === "POST" ? parseForm(await readBody(req)) : parseForm(url.search.slice(1));
      const secret = String(params.client_secret ?? "");
      if (!intent || intent.client_secret !== secret) {
        sendHtml(res, 404, "<!doctype html><title>Not found</title><p>No such authentication.</p>");
        return true;
      }
      const returnUrl = typeof params.return_url === "string" ? params.return_url : null;
      if (method === "GET") {
        sendHtml(res, 200, challengePage({ intentId: id, clientSecret: secret, returnUrl, amount: formatAmount(intent.amount, intent.currency) }));
        return true;
      }
      if (intent.status === "requires_action") {
        fake.authenticate(id, params.outcome === "fail" ? "fail" : "complete");
        emitAll(fake.takeEvents());
      }
      if (returnUrl) {
        const back = new URL(returnUrl);
        const kind = intent.object === "setup_intent" ? "setup_intent" : "payment_intent";
        back.searchParams.set(kind, id);
        back.searchParams.set(`${kind}_client_secret`, secret);
        back.searchParams.set("redirect_status", intent.status === "succeeded" ? "succeeded" : "failed");
        redirect(res, back.toString());
      } else {
        sendHtml(res, 200, challengeDone(id));
      }
      return true;
    }
    if ((m = /^\/c\/pay\/([\w]+)(\/return)?$/.exec(path))) {
      const session = fake.objects.get(m[1] as string);
      if (!session || session.object !== "checkout.session") {
        sendHtml(res, 404, "<!doctype html><title>Not found</title><p>No such Checkout Session.</p>");
        return true;
      }
      if (m[2]) {
        const outcome = fake.finishCheckout(session);
        emitAll(fake.takeEvents());
        if ("redirect" in outcome) redirect(res, outcome.redirect);
        else sendHtml(res, 200, checkoutPage(session, outcome.error));
        return true;
      }
      if (method === "GET") {
        sendHtml(res, 200, checkoutPage(session));
        return true;
      }
      const form = Object.fromEntries(new URLSearchParams(await readBody(req))) as Record<string, string>;
      const exp = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(form.exp ?? "");
      const outcome = exp
        ? fake.submitCheckout(session.id as string, {
            number: (form.number ?? "").replace(/\D+/g, ""),
            exp_month: exp[1] as string,
            exp_year: exp[2] as string,
            cvc: (form.cvc ?? "").trim(),
            ...(form.name ? { name: form.name } : {}),
            ...(form.email ? { email: form.email } : {}),
          })
        : { error: "Your card's expiration date is incomplete." };
      emitAll(fake.takeEvents());
      if ("redirect" in outcome) redirect(res, outcome.redirect);
      else sendHtml(res, 200, checkoutPage(session, outcome.error, { email: form.email ?? "", name: form.name ?? "" }));
      return true;
    }
    return false;
  }

  const control: StripeFakeControl = {
    reset() {
      const fromApi = new Set([...fake.objects.values()].filter((o) => o.object === "webhook_endpoint").map((o) => o.id));
      idempotency.clear();
      faults = [];
      requestLog = [];
      // Endpoints from the options or the controls stay (a test suite configures its receiver once);
      // those created through the API go with the other objects, as do deliveries and held events.
      const endpoints = webhooks.endpoints.filter((e) => !fromApi.has(e.id));
      fake.reset();
      webhooks.reset();
      webhooks.endpoints = endpoints;
    },
    objects: (type) => [...fake.objects.values()].filter((o) => !type || o.object === type).map((o) => publicView(o) as Record<string, unknown>),
    get: (id) => {
      const o = fake.objects.get(id);
      return o ? (publicView(o) as Record<string, unknown>) : undefined;
    },
    requests: () => requestLog.map((r) => ({ ...r })),
    addFault: (f) => void faults.push({ ...f, left: f.times ?? 1 }),
    clearFaults: () => void (faults = []),
    authenticate(id, outcome) {
      const intent = fake.authenticate(id, outcome);
      emitAll(fake.takeEvents());
      return publicView(intent) as Record<string, unknown>;
    },
    addWebhookEndpoint,
    webhookEndpoints: () => [...webhooks.endpoints],
    pauseWebhooks: (types) => webhooks.pause(types),
    resumeWebhooks: () => webhooks.resume(),
    heldEvents: () => webhooks.heldEvents(),
    redeliver(eventId) {
      const ev = fake.objects.get(eventId);
      if (!ev || ev.object !== "event") throw resourceMissing("event", eventId);
      webhooks.emit(ev as unknown as StripeEvent, true);
    },
    deliveries: () => [...webhooks.deliveries],
    webhooksSettled: () => webhooks.settled(),
    events: (type) => [...fake.objects.values()].filter((o) => o.object === "event" && (!type || o.type === type)) as unknown as StripeEvent[],
    submitCheckout(id, card) {
      const outcome = fake.submitCheckout(id, card);
      emitAll(fake.takeEvents());
      return outcome;
    },
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const run = async () => {
      if (req.method === "OPTIONS") {
        res.writeHead(204, CORS);
        res.end();
        return;
      }
      if (url.pathname.startsWith("/v1/")) return handleApi(req, res, url);
      if (url.pathname.startsWith("/__fake/")) return handleControl(req, res, url);
      if (await handlePages(req, res, url)) return;
      res.writeHead(404, { "Content-Type": "text/plain" });
      res.end("Not found");
    };
    run().catch((e: unknown) => {
      log?.(`crash: ${(e as Error).stack ?? String(e)}`);
      if (!res.headersSent) sendJson(res, 500, JSON.stringify({ error: { type: "api_error", message: "An unknown error occurred" } }));
      else res.end();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? DEFAULT_PORT, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://${host}:${port}`;
  return {
    url: origin,
    origin,
    host,
    port,
    secretKey: secretKeys[0] as string,
    publishableKey: publishableKeys[0] as string,
    apiVersion: DEFAULT_API_VERSION,
    clientConfig: { host, port, protocol: "http" },
    jsUrl: `${origin}/v3/`,
    control,
    async close() {
      await webhooks.settled();
      for (const r of hung) r.destroy();
      hung.clear();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

