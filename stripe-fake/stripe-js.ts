/**
 * A stand-in for Stripe.js (https://js.stripe.com/v3/), for the browser tests only: the real script
 * cannot load here. Served by the fake at `/v3/` (compiled from this file); load it with a script tag
 * where the page would load Stripe.js. It implements the subset Gatehouse's pages use, with Stripe.js's
 * names and result shapes (https://docs.stripe.com/js):
 *   const stripe = Stripe(publishableKey);
 *   const elements = stripe.elements({ clientSecret } | { mode: "payment" | "setup", amount, currency });
 *   const card = elements.create("payment" | "card"); card.mount("#card"); card.on("change", fn);
 *   await elements.submit();                                    // { error? }
 *   await stripe.createPaymentMethod({ elements, params: { billing_details } });   // { paymentMethod } | { error }
 *   await stripe.confirmPayment({ elements, clientSecret?, confirmParams: { return_url }, redirect: "if_required" });
 *   await stripe.confirmSetup({ ... same ... });
 *   await stripe.confirmCardPayment(clientSecret, { payment_method: { card, billing_details } | "pm_…" });
 *   await stripe.confirmCardSetup(clientSecret, { payment_method: ... });
 *   await stripe.handleNextAction({ clientSecret });            // { paymentIntent } | { setupIntent } | { error }
 *   await stripe.retrievePaymentIntent(clientSecret); await stripe.retrieveSetupIntent(clientSecret);
 * The card fields live in an iframe on the fake's origin: card data goes from that frame to the fake's
 * /v1/payment_methods and never through the embedding page or its server. The page only sees `pm_…` ids.
 */
export {};

type Json = Record<string, unknown>;
type StripeError = { type: string; code?: string; decline_code?: string; message: string; payment_intent?: Json; setup_intent?: Json; param?: string };
type Result = { error?: StripeError; paymentIntent?: Json; setupIntent?: Json; paymentMethod?: Json };
type Handler = (event: Json) => void;

interface FakeElement {
  mount(target: string | HTMLElement): void;
  unmount(): void;
  destroy(): void;
  on(event: string, handler: Handler): FakeElement;
  off(event: string, handler?: Handler): FakeElement;
  focus(): void;
  clear(): void;
  update(options: Json): void;
}

/** No global declaration (the app may declare its own `window.Stripe` type). */
const host = window as unknown as { Stripe?: (key: string, options?: Json) => unknown; __STRIPE_FAKE_ORIGIN__?: string };

const scriptSrc = (document.currentScript as HTMLScriptElement | null)?.src;
/** The fake's origin: `window.__STRIPE_FAKE_ORIGIN__` if set before the script loads, else the script's own origin. */
const API_ORIGIN = host.__STRIPE_FAKE_ORIGIN__ ?? (scriptSrc ? new URL(scriptSrc).origin : window.location.origin);
const SOURCE = "gh-stripe-fake";

let counter = 0;
const nextId = (p: string) => `${p}-${Date.now().toString(36)}-${++counter}`;

function encode(params: Json, prefix = "", out = new URLSearchParams()): URLSearchParams {
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    const key = prefix ? `${prefix}[${k}]` : k;
    if (Array.isArray(v)) v.forEach((item, i) => (typeof item === "object" && item !== null ? encode(item as Json, `${key}[${i}]`, out) : out.append(`${key}[${i}]`, String(item))));
    else if (typeof v === "object") encode(v as Json, key, out);
    else out.append(key, String(v));
  }
  return out;
}

function intentKind(clientSecret: string): "payment_intents" | "setup_intents" {
  return clientSecret.startsWith("seti_") ? "setup_intents" : "payment_intents";
}
const intentId = (clientSecret: string) => clientSecret.split("_secret_")[0] as string;

function createStripe(key: string): unknown {
  if (typeof key !== "string" || !key.startsWith("pk_")) throw new Error("Stripe(): a publishable key (pk_…) is required.");

  async function api(method: "GET" | "POST", path: string, params: Json): Promise<{ ok: boolean; body: Json }> {
    const body = encode({ ...params, key });
    const res =
      method === "GET"
        ? await fetch(`${API_ORIGIN}${path}?${body.toString()}`)
        : await fetch(`${API_ORIGIN}${path}`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });
    return { ok: res.ok, body: (await res.json()) as Json };
  }

  // ------------------------------------------------------------------ elements
  const frames = new Map<string, { iframe: HTMLIFrameElement; handlers: Map<string, Set<Handler>>; ready: Promise<void>; markReady: () => void }>();
  const pending = new Map<string, (r: Result) => void>();
  window.addEventListener("message", (event) => {
    if (event.origin !== API_ORIGIN) return;
    const data = event.data as Json | null;
    if (!data || data.source !== SOURCE) return;
    const frame = frames.get(String(data.element));
    if (data.type === "result") {
      const resolve = pending.get(String(data.requestId));
      pending.delete(String(data.requestId));
      resolve?.(data.result as Result);
      return;
    }
    if (!frame) return;
    if (data.type === "ready") frame.markReady();
    const handlers = frame.handlers.get(String(data.type));
    if (handlers) for (const h of handlers) h({ elementType: "card", ...data });
  });

  function ask(elementId: string, message: Json): Promise<Result> {
    const frame = frames.get(elementId);
    if (!frame) return Promise.resolve({ error: { type: "validation_error", message: "The Element is not mounted." } });
    const requestId = nextId("req");
    return frame.ready.then(
      () =>
        new Promise<Result>((resolve) => {
          pending.set(requestId, resolve);
          frame.iframe.contentWindow?.postMessage({ source: SOURCE, requestId, ...message }, API_ORIGIN);
        }),
    );
  }

  interface Elements {
    _clientSecret?: string;
    _element?: string;
    create(type: string, options?: Json): FakeElement;
    getElement(type: string): FakeElement | null;
    submit(): Promise<Result>;
    update(options: Json): void;
    fetchUpdates(): Promise<Result>;
  }

  function elements(options: Json = {}): Elements {
    const created = new Map<string, FakeElement>();
    const group: Elements = {
      ...(typeof options.clientSecret === "string" ? { _clientSecret: options.clientSecret } : {}),
      create(type: string, elementOptions: Json = {}) {
        if (type !== "payment" && type !== "card") throw new Error(`The Stripe fake's elements support "payment" and "card", not "${type}".`);
        const id = nextId("el");
        group._element = id;
        const iframe = document.createElement("iframe");
        const url = new URL(`${API_ORIGIN}/elements/frame`);
        url.searchParams.set("key", key);
        url.searchParams.set("origin", window.location.origin);
        url.searchParams.set("element", id);
        url.searchParams.set("type", type);
        iframe.src = url.toString();
        iframe.title = "Secure card payment input frame";
        iframe.name = `__privateStripeFrame${id}`;
        iframe.setAttribute("allow", "payment *");
        iframe.style.cssText = "border:0;width:100%;height:190px;display:block;";
        let markReady = () => {};
        const ready = new Promise<void>((r) => (markReady = r));
        frames.set(id, { iframe, handlers: new Map(), ready, markReady });
        void elementOptions;
        const element: FakeElement = {
          mount(target) {
            const el = typeof target === "string" ? document.querySelector(target) : target;
            if (!el) throw new Error(`mount(): no element matches ${String(target)}`);
            el.appendChild(iframe);
          },
          unmount() {
            iframe.remove();
          },
          destroy() {
            iframe.remove();
            frames.delete(id);
            created.delete(type);
          },
          on(event, handler) {
            const f = frames.get(id);
            if (!f) return element;
            if (!f.handlers.has(event)) f.handlers.set(event, new Set());
            f.handlers.get(event)?.add(handler);
            if (event === "ready") void f.ready.then(() => handler({ elementType: type }));
            return element;
          },
          off(event, handler) {
            const set = frames.get(id)?.handlers.get(event);
            if (set) {
              if (handler) set.delete(handler);
              else set.clear();
            }
            return element;
          },
          focus() {
            void ask(id, { type: "focus" });
          },
          clear() {
            void ask(id, { type: "clear" });
          },
          update() {},
        };
        (element as unknown as { _id: string })._id = id;
        created.set(type, element);
        return element;
      },
      getElement: (type) => created.get(type) ?? null,
      async submit() {
        if (!group._element) return { error: { type: "validation_error", message: "No Element was created." } };
        return ask(group._element, { type: "validate" });
      },
      update(o: Json) {
        if (typeof o.clientSecret === "string") group._clientSecret = o.clientSecret;
      },
      async fetchUpdates() {
        return {};
      },
    };
    return group;
  }

  async function paymentMethodFrom(elementId: string, billing: Json | undefined): Promise<Result> {
    return ask(elementId, { type: "createPaymentMethod", billing_details: billing ?? {} });
  }

  // ----------------------------------------------------------------- actions
  function challenge(url: string): Promise<void> {
    return new Promise((resolve) => {
      const overlay = document.createElement("div");
      overlay.setAttribute("role", "dialog");
      overlay.setAttribute("aria-modal", "true");
      overlay.setAttribute("aria-label", "Authenticate your payment");
      overlay.style.cssText = "position:fixed;inset:0;background:rgba(0,0,0,.5);display:flex;align-items:center;justify-content:center;z-index:2147483647;";
      const iframe = document.createElement("iframe");
      iframe.title = "3D Secure authentication";
      iframe.name = "stripe-fake-challenge";
      iframe.src = url;
      iframe.style.cssText = "width:min(500px,95vw);height:min(480px,90vh);border:0;background:#fff;border-radius:8px;";
      overlay.appendChild(iframe);
      document.body.appendChild(overlay);
      const onMessage = (event: MessageEvent) => {
        const data = event.data as Json | null;
        if (event.origin !== API_ORIGIN || !data || data.source !== SOURCE || data.type !== "3ds-complete") return;
        window.removeEventListener("message", onMessage);
        overlay.remove();
        resolve();
      };
      window.addEventListener("message", onMessage);
    });
  }

  async function retrieve(clientSecret: string): Promise<Result> {
    const kind = intentKind(clientSecret);
    const r = await api("GET", `/v1/${kind}/${intentId(clientSecret)}`, { client_secret: clientSecret });
    if (!r.ok) return { error: (r.body.error ?? { type: "api_error", message: "Unknown error" }) as StripeError };
    return kind === "setup_intents" ? { setupIntent: r.body } : { paymentIntent: r.body };
  }

  /** The intent after its action: an error when authentication failed, as Stripe.js reports it. */
  function outcome(intent: Json): Result {
    const isSetup = intent.object === "setup_intent";
    const key = isSetup ? "setupIntent" : "paymentIntent";
    const lastError = (isSetup ? intent.last_setup_error : intent.last_payment_error) as StripeError | null;
    if (intent.status === "requires_payment_method" && lastError) {
      return { error: { ...lastError, type: lastError.type ?? "card_error", [isSetup ? "setup_intent" : "payment_intent"]: intent } };
    }
    return { [key]: intent };
  }

  async function handleNextAction({ clientSecret }: { clientSecret: string }): Promise<Result> {
    const current = await retrieve(clientSecret);
    if (current.error) return current;
    const intent = (current.paymentIntent ?? current.setupIntent) as Json;
    const next = intent.next_action as { type: string; use_stripe_sdk?: { stripe_js: string }; redirect_to_url?: { url: string } } | null;
    if (intent.status !== "requires_action" || !next) return outcome(intent);
    const url = new URL(next.use_stripe_sdk?.stripe_js ?? next.redirect_to_url?.url ?? `${API_ORIGIN}/3ds/${String(intent.id)}`);
    url.searchParams.delete("return_url");
    url.searchParams.set("client_secret", clientSecret);
    await challenge(url.toString());
    const after = await retrieve(clientSecret);
    if (after.error) return after;
    return outcome((after.paymentIntent ?? after.setupIntent) as Json);
  }

  async function confirm(
    kind: "payment_intents" | "setup_intents",
    clientSecret: string,
    paymentMethod: string | undefined,
    extra: Json,
    options: { returnUrl?: string; redirect: "always" | "if_required" },
  ): Promise<Result> {
    const r = await api("POST", `/v1/${kind}/${intentId(clientSecret)}/confirm`, {
      client_secret: clientSecret,
      use_stripe_sdk: "true",
      ...(paymentMethod ? { payment_method: paymentMethod } : {}),
      ...(options.returnUrl ? { return_url: options.returnUrl } : {}),
      ...extra,
    });
    if (!r.ok) return { error: r.body.error as StripeError };
    let result: Result = r.body.status === "requires_action" ? await handleNextAction({ clientSecret }) : outcome(r.body);
    if (result.error) return result;
    const intent = (result.paymentIntent ?? result.setupIntent) as Json;
    if (options.redirect === "always" && options.returnUrl) {
      const back = new URL(options.returnUrl, window.location.href);
      const name = kind === "setup_intents" ? "setup_intent" : "payment_intent";
      back.searchParams.set(name, String(intent.id));
      back.searchParams.set(`${name}_client_secret`, clientSecret);
      back.searchParams.set("redirect_status", intent.status === "succeeded" ? "succeeded" : "failed");
      window.location.assign(back.toString());
      result = await new Promise<Result>(() => {}); // the page is going away, as with Stripe.js
    }
    return result;
  }

  interface ConfirmArgs {
    elements?: Elements;
    clientSecret?: string;
    confirmParams?: { return_url?: string; payment_method?: string; payment_method_data?: { billing_details?: Json }; receipt_email?: string; setup_future_usage?: string };
    redirect?: "always" | "if_required";
  }

  async function confirmWithElements(kind: "payment_intents" | "setup_intents", args: ConfirmArgs): Promise<Result> {
    const clientSecret = args.clientSecret ?? args.elements?._clientSecret;
    if (!clientSecret) return { error: { type: "invalid_request_error", message: "A clientSecret is required (in elements() or in this call)." } };
    const redirect = args.redirect ?? "always";
    const returnUrl = args.confirmParams?.return_url;
    if (redirect === "always" && !returnUrl) return { error: { type: "invalid_request_error", message: "confirmParams.return_url is required when redirect is \"always\"." } };
    let pm = args.confirmParams?.payment_method;
    if (!pm) {
      if (!args.elements?._element) return { error: { type: "invalid_request_error", message: "Pass elements with a mounted Payment Element, or confirmParams.payment_method." } };
      const created = await paymentMethodFrom(args.elements._element, args.confirmParams?.payment_method_data?.billing_details);
      if (created.error) return created;
      pm = String(created.paymentMethod?.id);
    }
    const extra: Json = {};
    if (args.confirmParams?.receipt_email) extra.receipt_email = args.confirmParams.receipt_email;
    if (args.confirmParams?.setup_future_usage) extra.setup_future_usage = args.confirmParams.setup_future_usage;
    return confirm(kind, clientSecret, pm, extra, { ...(returnUrl ? { returnUrl } : {}), redirect });
  }

  type CardData = { payment_method?: string | { card?: FakeElement; billing_details?: Json }; return_url?: string; setup_future_usage?: string };

  async function confirmCard(kind: "payment_intents" | "setup_intents", clientSecret: string, data: CardData = {}): Promise<Result> {
    let pm: string | undefined;
    if (typeof data.payment_method === "string") pm = data.payment_method;
    else if (data.payment_method?.card) {
      const created = await paymentMethodFrom((data.payment_method.card as unknown as { _id: string })._id, data.payment_method.billing_details);
      if (created.error) return created;
      pm = String(created.paymentMethod?.id);
    }
    const extra: Json = data.setup_future_usage ? { setup_future_usage: data.setup_future_usage } : {};
    return confirm(kind, clientSecret, pm, extra, { redirect: "if_required", ...(data.return_url ? { returnUrl: data.return_url } : {}) });
  }

  return {
    elements,
    async createPaymentMethod(args: { elements?: Elements; params?: { billing_details?: Json }; type?: string; card?: FakeElement; billing_details?: Json }): Promise<Result> {
      const elementId = args.elements?._element ?? (args.card as unknown as { _id?: string } | undefined)?._id;
      if (!elementId) return { error: { type: "invalid_request_error", message: "Pass elements or a card Element." } };
      return paymentMethodFrom(elementId, args.params?.billing_details ?? args.billing_details);
    },
    confirmPayment: (args: ConfirmArgs) => confirmWithElements("payment_intents", args),
    confirmSetup: (args: ConfirmArgs) => confirmWithElements("setup_intents", args),
    confirmCardPayment: (clientSecret: string, data?: CardData) => confirmCard("payment_intents", clientSecret, data),
    confirmCardSetup: (clientSecret: string, data?: CardData) => confirmCard("setup_intents", clientSecret, data),
    handleNextAction,
    handleCardAction: (clientSecret: string) => handleNextAction({ clientSecret }),
    handleCardSetup: (clientSecret: string) => handleNextAction({ clientSecret }),
    retrievePaymentIntent: (clientSecret: string) => retrieve(clientSecret),
    retrieveSetupIntent: (clientSecret: string) => retrieve(clientSecret),
  };
}

host.Stripe = createStripe;
