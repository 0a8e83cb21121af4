import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeFake, type RunningStripeFake } from "../../stripe-fake";
import { createStripeGateway, type StripeGateway } from "~/platform/payments/stripe.server";
import { paymentGatewayContract } from "./payment-gateway-contract";

/**
 * The Stripe gateway on the Stripe fake (issue 25): the `stripe` package pointed at the fake by its
 * host/port/protocol options (STRIPE_API_BASE), never patched. The contract first, then what only a
 * processor does: authentication, a key reused after a restart, a timeout after the charge.
 */
let fake: RunningStripeFake;
beforeAll(async () => {
  fake = await startStripeFake({ port: 0 });
});
afterAll(() => fake?.close());

const gateway = (options: { timeoutMs?: number; maxNetworkRetries?: number } = {}): StripeGateway =>
  createStripeGateway({ secretKey: fake.secretKey, apiBase: fake.url, ...options });
const pm = (token: string) => ({ kind: "token" as const, token });

paymentGatewayContract("the Stripe gateway on the Stripe fake", async () => ({
  gateway: gateway(),
  methods: {
    good: () => pm("pm_card_visa"),
    other: () => pm("pm_card_mastercard"),
    declined: () => pm("pm_card_chargeDeclined"),
    savesButDeclines: () => pm("pm_card_chargeCustomerFail"),
  },
}));

describe("the Stripe gateway, beyond the contract", () => {
  it("shows hosted fields and refuses a card number: the card never reaches our server", async () => {
    const g = gateway();
    expect(g.fields).toBe("hosted");
    const r = await g.charge({ amount: 100, idempotencyKey: `raw-${Date.now()}`, method: { kind: "card", card: { number: "4242424242424242", expMonth: 12, expYear: 2030, cvv: "123", nameOnCard: "Pat", postalCode: "28358" } } });
    expect(r.status).toBe("declined");
    expect(fake.control.requests().filter((q) => JSON.stringify(q.params).includes("4242424242424242"))).toEqual([]);
  });

  it("every charge is one PaymentIntent tagged with our key and sent with it as Stripe's Idempotency-Key", async () => {
    const g = gateway();
    const key = `tagged-${Date.now()}`;
    const r = await g.charge({ amount: 2599, idempotencyKey: key, method: pm("pm_card_visa") });
    if (r.status !== "approved") throw new Error("declined");
    const pi = fake.control.get(r.authReference) as { amount: number; status: string; metadata: Record<string, string> };
    expect(pi).toMatchObject({ amount: 2599, status: "succeeded", metadata: { gatehouse_key: key } });
    const creates = fake.control.requests().filter((q) => q.method === "POST" && q.path === "/v1/payment_intents" && q.idempotencyKey === `gatehouse-${key}`);
    expect(creates.length).toBeGreaterThan(0);
  });

  it("lookup finds a charge from another process (a restart) by its key, through Stripe's search; refund then works there too", async () => {
    const key = `restart-${Date.now()}`;
    const first = await gateway().charge({ amount: 1500, idempotencyKey: key, method: pm("pm_card_visa") });
    if (first.status !== "approved") throw new Error("declined");
    const fresh = gateway();
    expect(await fresh.lookup(key)).toMatchObject({ status: "approved", authReference: first.authReference });
    expect(await fresh.refund(key)).toEqual({ refunded: true });
    expect(await gateway().refund(key)).toEqual({ refunded: false });
    // After a restart, the same key with another amount (Stripe: idempotency_error) still answers the first charge.
    expect(await gateway().charge({ amount: 9900, idempotencyKey: key, method: pm("pm_card_visa") })).toMatchObject({ authReference: first.authReference });
  });

  it("a timeout after the charge: the retry (same Idempotency-Key) answers the charge made, never a second", async () => {
    const key = `timeout-${Date.now()}`;
    fake.control.addFault({ method: "POST", path: "/v1/payment_intents", mode: "timeout" });
    const r = await gateway({ timeoutMs: 1500, maxNetworkRetries: 2 }).charge({ amount: 3100, idempotencyKey: key, method: pm("pm_card_visa") });
    expect(r.status).toBe("approved");
    const made = fake.control.objects("payment_intent").filter((p) => (p.metadata as Record<string, string>).gatehouse_key === key);
    expect(made).toHaveLength(1);
  });

  it("a timeout with no retry left: the charge is looked up by our key and answered (decision 395): one charge", async () => {
    const key = `timeout-noretry-${Date.now()}`;
    fake.control.addFault({ method: "POST", path: "/v1/payment_intents", mode: "timeout" });
    expect(await gateway({ maxNetworkRetries: 0, timeoutMs: 1000 }).charge({ amount: 3200, idempotencyKey: key, method: pm("pm_card_visa") })).toMatchObject({ status: "approved" });
    expect(fake.control.objects("payment_intent").filter((pi) => (pi.metadata as Record<string, string> | undefined)?.gatehouse_key === key)).toHaveLength(1);
  });

  it("a timeout when the lookup fails too throws (the caller says it is being confirmed; the sweep finds it later): one charge, found", async () => {
    const key = `timeout-nolookup-${Date.now()}`;
    fake.control.addFault({ method: "POST", path: "/v1/payment_intents", mode: "timeout" });
    fake.control.addFault({ method: "GET", path: "/v1/payment_intents/search", mode: "api_error" });
    await expect(gateway({ maxNetworkRetries: 0, timeoutMs: 1000 }).charge({ amount: 3300, idempotencyKey: key, method: pm("pm_card_visa") })).rejects.toThrow();
    fake.control.clearFaults();
    expect(await gateway().lookup(key)).toMatchObject({ status: "approved" });
  });

  it("a saved card that needs authentication off-session: declined with the intent to complete, and the money is taken once it is authenticated", async () => {
    const g = gateway();
    const saved = await g.tokenize(pm("pm_card_authenticationRequiredOnSetup"));
    // 4000 0025 0000 3155: setting it up asks for authentication.
    if (saved.status !== "declined" || !saved.authentication) throw new Error(`expected authentication on setup: ${JSON.stringify(saved)}`);
    fake.control.authenticate(saved.authentication.intentId, "complete");
    const done = await g.tokenize({ kind: "token", token: saved.authentication.intentId });
    if (done.status !== "ok") throw new Error(`setup not completed: ${JSON.stringify(done)}`);
    expect(await g.charge({ amount: 4100, idempotencyKey: `after-setup-${Date.now()}`, cardToken: done.cardToken })).toMatchObject({ status: "approved" });

    // 4000 0027 6000 3184: every payment asks for authentication, off-session too.
    const always = await g.tokenize(pm("pm_card_authenticationRequired"));
    const token = always.status === "ok" ? always.cardToken : null;
    if (always.status === "declined" && always.authentication) {
      fake.control.authenticate(always.authentication.intentId, "complete");
      const ok = await g.tokenize({ kind: "token", token: always.authentication.intentId });
      if (ok.status !== "ok") throw new Error("setup");
      return checkOffSession(g, ok.cardToken);
    }
    if (!token) throw new Error("tokenize failed");
    return checkOffSession(g, token);
  });
});

async function checkOffSession(g: StripeGateway, cardToken: string) {
  const key = `auth-${Date.now()}`;
  const r = await g.charge({ amount: 5100, idempotencyKey: key, cardToken });
  if (r.status !== "declined" || !r.authentication) throw new Error(`expected authentication: ${JSON.stringify(r)}`);
  expect(r.reason).toContain("confirm this payment");
  expect(await g.lookup(key)).toMatchObject({ status: "declined" });
  // The e-mailed link's page: the tenant confirms the same PaymentIntent on session (Stripe.js), then authenticates.
  const pmId = cardToken.split(":")[1]!;
  const confirmed = await g.stripe.paymentIntents.confirm(r.authentication.intentId, { payment_method: pmId, return_url: "http://localhost/portal/pay/confirmed" });
  expect(confirmed.status).toBe("requires_action");
  fake.control.authenticate(r.authentication.intentId, "complete");
  expect(await g.lookup(key)).toMatchObject({ status: "approved", authReference: r.authentication.intentId });
}

describe("a PaymentIntent sent back by the page (decision 405)", () => {
  it("is taken only when it succeeded under this key, for this amount and currency: untagged, another key, another amount or not confirmed are refused", async () => {
    const g = gateway();
    const key = `pi-back-${Date.now()}`;
    const made = (metadata: Record<string, string>, amount = 2100, pm = "pm_card_visa") =>
      g.stripe.paymentIntents.create({ amount, currency: "usd", payment_method: pm, confirm: true, automatic_payment_methods: { enabled: true, allow_redirects: "never" }, metadata });
    const back = (id: string) => g.charge({ amount: 2100, idempotencyKey: key, method: pm(id) });
    expect(await back((await made({})).id)).toMatchObject({ status: "declined", reason: expect.stringContaining("another form") });
    expect(await back((await made({ gatehouse_key: "other" })).id)).toMatchObject({ status: "declined", reason: expect.stringContaining("another form") });
    expect(await back((await made({ gatehouse_key: key }, 2200)).id)).toMatchObject({ status: "declined", reason: expect.stringContaining("different amount") });
    expect(await back((await made({ gatehouse_key: key }, 2100, "pm_card_authenticationRequired")).id)).toMatchObject({ status: "declined", reason: expect.stringContaining("not confirmed") });
    expect(await back("pi_doesnotexist")).toMatchObject({ status: "declined" });
  });

  it("a charge held for the check on the page says so (inPage, with the client secret); cancelPending then ends it, once", async () => {
    const g = gateway();
    const key = `held-${Date.now()}`;
    const r = await g.charge({ amount: 2300, idempotencyKey: key, method: pm("pm_card_authenticationRequired") });
    if (r.status !== "declined" || !r.authentication) throw new Error(JSON.stringify(r));
    expect(r.authentication).toMatchObject({ inPage: true, clientSecret: expect.stringMatching(/^pi_\w+_secret_/) });
    expect(await g.inPageAuthentication!(r.authentication.intentId)).toEqual({ clientSecret: r.authentication.clientSecret, paymentMethod: null });
    expect(await g.cancelPending!(key)).toEqual({ canceled: true });
    expect((fake.control.get(r.authentication.intentId) as { status: string }).status).toBe("canceled");
    expect(await g.cancelPending!(key)).toEqual({ canceled: false });
    expect(await g.inPageAuthentication!(r.authentication.intentId)).toBeNull();
  });
});

describe("Stripe Checkout (the card form with JavaScript off)", () => {
  it("the visitor pays on Stripe's page; on return the session's PaymentIntent is charged under our key (once), and a saved card charges again", async () => {
    const g = gateway();
    const key = `checkout-${Date.now()}`;
    const { url } = await g.startHostedPayment!({
      amount: 6400,
      idempotencyKey: key,
      description: "Unit 101, first month",
      saveCard: true,
      returnUrl: "http://localhost:4600/rent/1?step=pay&checkout_session={SESSION}",
      cancelUrl: "http://localhost:4600/rent/1?step=pay",
    });
    const sessionId = new URL(url).pathname.split("/").pop()!;
    expect(sessionId).toMatch(/^cs_/);
    // Not paid yet: nothing to charge.
    expect(await g.hostedPaymentToken!(sessionId, key)).toBeNull();
    const done = fake.control.submitCheckout(sessionId, { number: "4242424242424242", exp_month: "12", exp_year: "2030", cvc: "123", name: "Pat Doe" });
    if (!("redirect" in done)) throw new Error(done.error);
    const back = new URL(done.redirect);
    expect(back.searchParams.get("checkout_session")).toBe(sessionId);
    // Another form's key: refused.
    expect(await g.hostedPaymentToken!(sessionId, "someone-else")).toBeNull();
    const token = await g.hostedPaymentToken!(sessionId, key);
    expect(token).toMatch(/^pi_/);
    const charged = await g.charge({ amount: 6400, idempotencyKey: key, method: { kind: "token", token: token! } });
    if (charged.status !== "approved") throw new Error(JSON.stringify(charged));
    expect(charged).toMatchObject({ authReference: token, last4: "4242" });
    // The wrong amount for that PaymentIntent is never accepted.
    expect(await g.charge({ amount: 100, idempotencyKey: `${key}-x`, method: { kind: "token", token: token! } })).toMatchObject({ status: "declined" });
    expect(await g.charge({ amount: 3300, idempotencyKey: `${key}-later`, cardToken: charged.cardToken })).toMatchObject({ status: "approved", last4: "4242" });
  });

  it("a declined card on Stripe's page leaves nothing to charge", async () => {
    const g = gateway();
    const key = `checkout-decl-${Date.now()}`;
    const { url } = await g.startHostedPayment!({ amount: 6400, idempotencyKey: key, description: "x", saveCard: false, returnUrl: "http://localhost/r?s={SESSION}", cancelUrl: "http://localhost/c" });
    const sessionId = new URL(url).pathname.split("/").pop()!;
    const r = fake.control.submitCheckout(sessionId, { number: "4000000000000002", exp_month: "12", exp_year: "2030", cvc: "123" });
    expect("error" in r).toBe(true);
    expect(await g.hostedPaymentToken!(sessionId, key)).toBeNull();
  });
});
