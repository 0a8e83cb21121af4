/**
 * The pages the fake serves to a browser, on its own origin (so card data never reaches the app):
 * - `/elements/frame` — the card fields inside the Payment/Card Element's iframe (stripe-js.ts mounts it);
 * - `/3ds/:intent` — the 3D Secure challenge (Complete / Fail), in Stripe.js's modal or as a redirect;
 * - `/c/pay/:session` — the hosted Checkout page (a plain HTML form: works with JavaScript off).
 */
const esc = (s: unknown) =>
  String(s ?? "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");

function page(title: string, body: string, extraHead = ""): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; padding: 1rem; color: #1a1a1a; background: #fff; }
  main { max-width: 28rem; margin: 0 auto; }
  label { display: block; font-weight: 600; margin-top: .75rem; }
  input { display: block; width: 100%; box-sizing: border-box; font-size: 1rem; padding: .5rem; border: 1px solid #595959; border-radius: 4px; margin-top: .25rem; }
  .row { display: flex; gap: .75rem; } .row > div { flex: 1; }
  button { margin-top: 1rem; font-size: 1rem; padding: .6rem 1.2rem; border-radius: 4px; border: 1px solid #0a2540; background: #0a2540; color: #fff; cursor: pointer; }
  button.secondary { background: #fff; color: #0a2540; }
  .error { color: #b00020; margin-top: .5rem; }
  .note { color: #4a4a4a; font-size: .875rem; }
</style>
${extraHead}
</head>
<body>
${body}
</body>
</html>`;
}

/** The card fields of an Element. Talks to the embedding page (stripe-js.ts) by postMessage only. */
export function elementFrame(opts: { key: string; parentOrigin: string; elementId: string; type: string }): string {
  const script = `
(() => {
  const KEY = ${JSON.stringify(opts.key)};
  const PARENT = ${JSON.stringify(opts.parentOrigin)};
  const ELEMENT = ${JSON.stringify(opts.elementId)};
  const $ = (id) => document.getElementById(id);
  const number = $("number"), exp = $("exp"), cvc = $("cvc"), err = $("error");
  const digits = (s) => s.replace(/\\D+/g, "");
  const luhn = (n) => { let sum = 0; for (let i = 0; i < n.length; i++) { let d = Number(n[n.length - 1 - i]); if (i % 2) { d *= 2; if (d > 9) d -= 9; } sum += d; } return n.length >= 12 && sum % 10 === 0; };
  const brand = (n) => /^4/.test(n) ? "visa" : /^(5[1-5]|2[2-7])/.test(n) ? "mastercard" : /^3[47]/.test(n) ? "amex" : /^6(011|5)/.test(n) ? "discover" : "unknown";
  function parseExp() { const m = /^\\s*(\\d{1,2})\\s*\\/?\\s*(\\d{2}|\\d{4})\\s*$/.exec(exp.value); return m ? { month: Number(m[1]), year: Number(m[2]) < 100 ? 2000 + Number(m[2]) : Number(m[2]) } : null; }
  function check() {
    const n = digits(number.value);
    if (!n) return { code: "incomplete_number", message: "Your card number is incomplete.", field: number };
    if (!luhn(n)) return { code: n.length < 15 ? "incomplete_number" : "invalid_number", message: n.length < 15 ? "Your card number is incomplete." : "Your card number is invalid.", field: number };
    const e = parseExp();
    if (!exp.value.trim()) return { code: "incomplete_expiry", message: "Your card's expiration date is incomplete.", field: exp };
    const now = new Date();
    if (!e || e.month < 1 || e.month > 12) return { code: "invalid_expiry_month", message: "Your card's expiration date is incomplete.", field: exp };
    if (e.year < now.getFullYear() || (e.year === now.getFullYear() && e.month < now.getMonth() + 1)) return { code: "invalid_expiry_year_past", message: "Your card's expiration year is in the past.", field: exp };
    if (!/^\\d{3,4}$/.test(cvc.value.trim())) return { code: "incomplete_cvc", message: "Your card's security code is incomplete.", field: cvc };
    return null;
  }
  function post(msg) { window.parent.postMessage({ source: "gh-stripe-fake", element: ELEMENT, ...msg }, PARENT); }
  function showError(e) {
    for (const f of [number, exp, cvc]) f.removeAttribute("aria-invalid");
    err.textContent = e ? e.message : "";
    if (e) e.field.setAttribute("aria-invalid", "true");
  }
  function change() {
    const e = check();
    const n = digits(number.value);
    post({ type: "change", complete: !e, empty: !n && !exp.value && !cvc.value, brand: brand(n), error: undefined });
  }
  for (const f of [number, exp, cvc]) {
    f.addEventListener("input", change);
    f.addEventListener("focus", () => post({ type: "focus" }));
    f.addEventListener("blur", () => post({ type: "blur" }));
  }
  async function createPaymentMethod(billing) {
    const e = check();
    if (e) { showError(e); return { error: { type: "validation_error", code: e.code, message: e.message } }; }
    showError(null);
    const ex = parseExp();
    const body = new URLSearchParams({ type: "card", "card[number]": digits(number.value), "card[exp_month]": String(ex.month), "card[exp_year]": String(ex.year), "card[cvc]": cvc.value.trim(), key: KEY });
    for (const [k, v] of Object.entries(billing || {})) {
      if (v && typeof v === "object") { for (const [k2, v2] of Object.entries(v)) if (v2 != null) body.append("billing_details[" + k + "][" + k2 + "]", String(v2)); }
      else if (v != null) body.append("billing_details[" + k + "]", String(v));
    }
    const res = await fetch("/v1/payment_methods", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });
    const json = await res.json();
    if (!res.ok) { err.textContent = json.error.message; return { error: json.error }; }
    return { paymentMethod: json };
  }
  window.addEventListener("message", async (event) => {
    if (event.origin !== PARENT || !event.data || event.data.source !== "gh-stripe-fake") return;
    const { type, requestId } = event.data;
    if (type === "validate") { const e = check(); showError(e); post({ type: "result", requestId, result: e ? { error: { type: "validation_error", code: e.code, message: e.message } } : {} }); }
    if (type === "createPaymentMethod") post({ type: "result", requestId, result: await createPaymentMethod(event.data.billing_details) });
    if (type === "clear") { number.value = exp.value = cvc.value = ""; showError(null); change(); }
    if (type === "focus") number.focus();
  });
  post({ type: "ready" });
})();`;
  return page(
    "Card details",
    `<form id="card" novalidate autocomplete="on" style="margin:0">
  <label for="number">Card number</label>
  <input id="number" name="number" inputmode="numeric" autocomplete="cc-number" placeholder="1234 1234 1234 1234">
  <div class="row">
    <div><label for="exp">Expiry date (MM / YY)</label><input id="exp" name="exp" inputmode="numeric" autocomplete="cc-exp" placeholder="MM / YY"></div>
    <div><label for="cvc">Security code</label><input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="CVC"></div>
  </div>
  <div id="error" class="error" role="alert"></div>
</form>
<script>${script}</script>`,
    `<style>body{padding:.25rem}</style><meta name="x-element-type" content="${esc(opts.type)}">`,
  );
}

/** The 3D Secure challenge: in a redirect (with return_url) or in Stripe.js's modal (without). */
export function challengePage(opts: { intentId: string; clientSecret: string; returnUrl: string | null; amount: string | null; error?: string }): string {
  return page(
    "Authenticate your payment (Stripe test)",
    `<main>
  <h1>3D Secure test authentication</h1>
  <p>${opts.amount ? `Amount: ${esc(opts.amount)}. ` : ""}This is the Stripe fake's stand-in for the bank's challenge.</p>
  ${opts.error ? `<p class="error" role="alert">${esc(opts.error)}</p>` : ""}
  <form method="post" action="/3ds/${esc(opts.intentId)}">
    <input type="hidden" name="client_secret" value="${esc(opts.clientSecret)}">
    ${opts.returnUrl ? `<input type="hidden" name="return_url" value="${esc(opts.returnUrl)}">` : ""}
    <button type="submit" name="outcome" value="complete">Complete authentication</button>
    <button type="submit" name="outcome" value="fail" class="secondary">Fail authentication</button>
  </form>
</main>`,
  );
}

/** After the challenge inside Stripe.js's modal: tell the embedding page. */
export function challengeDone(intentId: string): string {
  return page(
    "Authentication finished",
    `<main><p>Authentication finished.</p></main>
<script>window.parent.postMessage({ source: "gh-stripe-fake", type: "3ds-complete", intent: ${JSON.stringify(intentId)} }, "*");</script>`,
  );
}

function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(amount / 100);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}

export function formatAmount(amount: unknown, currency: unknown): string | null {
  return typeof amount === "number" && typeof currency === "string" ? money(amount, currency) : null;
}

/** Stripe Checkout's hosted page, as a plain form (no JavaScript needed). */
export function checkoutPage(session: Record<string, unknown>, error?: string, values: Record<string, string> = {}): string {
  const id = String(session.id);
  const lineItems = (Array.isArray(session._line_items) ? session._line_items : []) as Array<Record<string, Record<string, Record<string, string>> | string>>;
  const items = lineItems
    .map((li) => {
      const pd = li.price_data as Record<string, Record<string, string> | string> | undefined;
      const name = (pd?.product_data as Record<string, string> | undefined)?.name ?? "Item";
      return `<li>${esc(name)} × ${esc(li.quantity ?? "1")}: ${esc(formatAmount(Number(pd?.unit_amount), String(pd?.currency)))}</li>`;
    })
    .join("");
  const title = session.mode === "setup" ? "Save your card" : `Pay ${formatAmount(session.amount_total, session.currency) ?? ""}`;
  if (session.status !== "open") {
    return page("Checkout", `<main><h1>Checkout</h1><p>This Checkout Session is ${esc(session.status)}.</p></main>`);
  }
  const field = (name: string, label: string, autocomplete: string, extra = "") =>
    `<label for="${name}">${label}</label><input id="${name}" name="${name}" autocomplete="${autocomplete}" value="${esc(values[name])}" ${extra}>`;
  return page(
    `${title} (Stripe test checkout)`,
    `<main>
  <h1>${esc(title)}</h1>
  <p class="note">Test mode: the Stripe fake's hosted checkout page.</p>
  ${items ? `<ul>${items}</ul>` : ""}
  ${error ? `<p class="error" role="alert" id="checkout-error">${esc(error)}</p>` : ""}
  <form method="post" action="/c/pay/${esc(id)}">
    ${field("email", "Email", "email", `type="email" ${session.customer_email ? `readonly` : ""}`).replace(`value=""`, `value="${esc(values.email ?? session.customer_email ?? "")}"`)}
    ${field("number", "Card number", "cc-number", `inputmode="numeric" required`)}
    <div class="row">
      <div>${field("exp", "Expiry date (MM / YY)", "cc-exp", `inputmode="numeric" required`)}</div>
      <div>${field("cvc", "Security code", "cc-csc", `inputmode="numeric" required`)}</div>
    </div>
    ${field("name", "Name on card", "cc-name")}
    <button type="submit">${session.mode === "setup" ? "Save card" : "Pay"}</button>
  </form>
  ${session.cancel_url ? `<p><a href="${esc(session.cancel_url)}">Cancel and go back</a></p>` : ""}
</main>`,
  );
}
