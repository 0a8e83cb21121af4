/**
 * The Stripe fake driven by the real `stripe` package, pointed at it by configuration
 * (`host`/`port`/`protocol`), over real HTTP; webhooks received by a real HTTP server and verified
 * with `stripe.webhooks.constructEvent`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startStripeFake, type RunningStripeFake } from "./index";

let fake: RunningStripeFake;
let stripe: Stripe;
let receiver: Server;
let received: Array<{ body: string; signature: string }> = [];
let webhookSecret: string;

beforeAll(async () => {
  fake = await startStripeFake({ port: 0 });
  stripe = new Stripe(fake.secretKey, { ...fake.clientConfig, maxNetworkRetries: 0 });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ body: Buffer.concat(chunks).toString("utf8"), signature: String(req.headers["stripe-signature"]) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  webhookSecret = fake.control.addWebhookEndpoint(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/stripe`).secret;
});

afterAll(async () => {
  await fake.close();
  await new Promise((r) => receiver.close(r));
});

beforeEach(async () => {
  await fake.control.webhooksSettled();
  fake.control.reset();
  received = [];
});

async function catchError(p: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await p;
  } catch (e) {
    return e as Stripe.errors.StripeError;
  }
  throw new Error("expected the call to fail");
}

describe("API basics", () => {
  it("creates and retrieves a customer, answering with Stripe's shapes and headers", async () => {
    const created = await stripe.customers.create({ email: "t@example.com", name: "Tess Tenant", metadata: { tenant: "42" } });
    expect(created).toMatchObject({ object: "customer", email: "t@example.com", metadata: { tenant: "42" }, livemode: false });
    expect(created.id).toMatch(/^cus_/);
    expect(created.lastResponse.headers["stripe-version"]).toBe(fake.apiVersion);
    expect(created.lastResponse.requestId).toMatch(/^req_/);
    const again = await stripe.customers.retrieve(created.id);
    expect(again.id).toBe(created.id);
  });

  it("answers 401 to a wrong key and 404 resource_missing to an unknown id", async () => {
    const wrong = new Stripe("sk_test_wrong_key_123456", { ...fake.clientConfig, maxNetworkRetries: 0 });
    const auth = await catchError(wrong.customers.create({}));
    expect(auth).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(auth.statusCode).toBe(401);
    const missing = await catchError(stripe.paymentIntents.retrieve("pi_doesnotexist"));
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 404, code: "resource_missing", param: "id", message: "No such payment_intent: 'pi_doesnotexist'" });
  });

  it("answers 400 parameter_missing for a PaymentIntent without an amount", async () => {
    const e = await catchError(stripe.paymentIntents.create({ currency: "usd" } as Stripe.PaymentIntentCreateParams));
    expect(e).toMatchObject({ type: "StripeInvalidRequestError", statusCode: 400, code: "parameter_missing", param: "amount" });
  });

  it("refuses a parameter the endpoint does not take (from the stripe package's types) with parameter_unknown", async () => {
    const res = await fetch(`${fake.url}/v1/payment_intents`, {
      method: "POST",
      headers: { Authorization: `Bearer ${fake.secretKey}` },
      body: new URLSearchParams({ amount: "1000", currency: "usd", amont: "5" }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", code: "parameter_unknown", param: "amont", message: "Received unknown parameter: amont" } });
    expect(fake.control.objects("payment_intent")).toHaveLength(0);
  });

  it("refuses raw card numbers with the secret key, and lets the publishable key (Stripe.js) create a card PaymentMethod", async () => {
    const withSecret = await catchError(stripe.paymentMethods.create({ type: "card", card: { number: "4242424242424242", exp_month: 12, exp_year: 2040, cvc: "123" } }));
    expect(withSecret.statusCode).toBe(400);
    const res = await fetch(`${fake.url}/v1/payment_methods`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ type: "card", "card[number]": "4242424242424242", "card[exp_month]": "12", "card[exp_year]": "2040", "card[cvc]": "123", key: fake.publishableKey }),
    });
    expect(res.status).toBe(200);
    const pm = (await res.json()) as Stripe.PaymentMethod;
    expect(pm).toMatchObject({ object: "payment_method", type: "card", card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2040 } });
    expect(JSON.stringify(fake.control.requests())).not.toContain("4242424242424242");
    const piWithPk = await fetch(`${fake.url}/v1/payment_intents`, { method: "POST", body: new URLSearchParams({ amount: "1000", currency: "usd", key: fake.publishableKey }) });
    expect(piWithPk.status).toBe(401);
  });
});

describe("payments", () => {
  it("charges pm_card_visa once, with metadata searchable", async () => {
    const pi = await stripe.paymentIntents.create({ amount: 12_345, currency: "usd", payment_method: "pm_card_visa", confirm: true, metadata: { gatehouse_key: "rent-1" } });
    expect(pi).toMatchObject({ status: "succeeded", amount_received: 12_345, currency: "usd", last_payment_error: null });
    expect(pi.payment_method).toMatch(/^pm_/);
    expect(pi.payment_method).not.toBe("pm_card_visa");
    const charge = await stripe.charges.retrieve(pi.latest_charge as string);
    expect(charge).toMatchObject({ paid: true, amount: 12_345, status: "succeeded", payment_intent: pi.id });
    const found = await stripe.paymentIntents.search({ query: "metadata['gatehouse_key']:'rent-1'" });
    expect(found.data.map((p) => p.id)).toEqual([pi.id]);
    expect(found.object).toBe("search_result");
    const quoted = await stripe.paymentIntents.create({ amount: 500, currency: "usd", metadata: { gatehouse_key: "it's AND 1" } });
    const both = await stripe.paymentIntents.search({ query: "metadata['gatehouse_key']:'it\\'s AND 1' AND status:'requires_payment_method'" });
    expect(both.data.map((p) => p.id)).toEqual([quoted.id]);
    const tagged = await stripe.paymentIntents.update(pi.id, { metadata: { lease: "L9" } });
    expect(tagged.metadata).toEqual({ gatehouse_key: "rent-1", lease: "L9" });
    const amountChange = await catchError(stripe.paymentIntents.update(pi.id, { amount: 1 }));
    expect(amountChange).toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
    const expanded = await stripe.paymentIntents.retrieve(pi.id, { expand: ["latest_charge", "payment_method"] });
    expect((expanded.latest_charge as Stripe.Charge).id).toBe(charge.id);
    expect((expanded.payment_method as Stripe.PaymentMethod).card?.last4).toBe("4242");
  });

  it("replays a repeated Idempotency-Key and refuses the key with other parameters", async () => {
    const params = { amount: 5000, currency: "usd", payment_method: "pm_card_visa", confirm: true };
    const first = await stripe.paymentIntents.create(params, { idempotencyKey: "rent-7" });
    const second = await stripe.paymentIntents.create(params, { idempotencyKey: "rent-7" });
    expect(second.id).toBe(first.id);
    expect(second.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(first.lastResponse.headers["idempotent-replayed"]).toBeUndefined();
    expect(fake.control.objects("charge")).toHaveLength(1);
    const mismatch = await catchError(stripe.paymentIntents.create({ ...params, amount: 6000 }, { idempotencyKey: "rent-7" }));
    expect(mismatch).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(mismatch).toMatchObject({ statusCode: 400, type: "StripeIdempotencyError" });
    expect(mismatch.message).toContain("same parameters");
    expect(fake.control.objects("charge")).toHaveLength(1);
  });

  it("declines with Stripe's card_error shape (402), and a replay declines the same way without a second attempt", async () => {
    const params = { amount: 5000, currency: "usd", payment_method: "pm_card_chargeDeclined", confirm: true };
    const e = await catchError(stripe.paymentIntents.create(params, { idempotencyKey: "decl-1" }));
    expect(e).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(e).toMatchObject({ statusCode: 402, code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." });
    expect(e.payment_intent).toMatchObject({ status: "requires_payment_method", last_payment_error: { code: "card_declined", decline_code: "generic_decline" } });
    const again = await catchError(stripe.paymentIntents.create(params, { idempotencyKey: "decl-1" }));
    expect(again.payment_intent?.id).toBe(e.payment_intent?.id);
    expect(again.headers?.["idempotent-replayed"]).toBe("true");
    expect(fake.control.objects("charge")).toHaveLength(1);
    const funds = await catchError(stripe.paymentIntents.create({ ...params, payment_method: "pm_card_chargeDeclinedInsufficientFunds" }));
    expect(funds).toMatchObject({ code: "card_declined", decline_code: "insufficient_funds", message: "Your card has insufficient funds." });
  });

  it("asks for authentication on session (requires_action) and declines off session (authentication_required)", async () => {
    const customer = await stripe.customers.create({});
    const pi = await stripe.paymentIntents.create({ amount: 2000, currency: "usd", customer: customer.id, payment_method: "pm_card_authenticationRequired", confirm: true });
    expect(pi.status).toBe("requires_action");
    expect(pi.next_action?.type).toBe("use_stripe_sdk");
    const done = fake.control.authenticate(pi.id, "complete");
    expect(done.status).toBe("succeeded");
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe("succeeded");

    const off = await catchError(stripe.paymentIntents.create({ amount: 2000, currency: "usd", customer: customer.id, payment_method: "pm_card_authenticationRequired", confirm: true, off_session: true }));
    expect(off).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(off).toMatchObject({ code: "authentication_required", decline_code: "authentication_required" });
    expect(off.payment_intent?.status).toBe("requires_payment_method");
  });

  it("sends the customer through the 3DS page and back to return_url", async () => {
    const pi = await stripe.paymentIntents.create({ amount: 2000, currency: "usd", payment_method: "pm_card_threeDSecure2Required", confirm: true, return_url: "http://shop.test/pay/return" });
    expect(pi.next_action?.type).toBe("redirect_to_url");
    const url = pi.next_action?.redirect_to_url?.url as string;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Complete authentication");
    const u = new URL(url);
    const res = await fetch(`${u.origin}${u.pathname}`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ client_secret: u.searchParams.get("client_secret") as string, return_url: "http://shop.test/pay/return", outcome: "fail" }),
    });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get("location") as string);
    expect(back.origin + back.pathname).toBe("http://shop.test/pay/return");
    expect(back.searchParams.get("payment_intent")).toBe(pi.id);
    expect(back.searchParams.get("redirect_status")).toBe("failed");
    const failed = await stripe.paymentIntents.retrieve(pi.id);
    expect(failed).toMatchObject({ status: "requires_payment_method", last_payment_error: { code: "payment_intent_authentication_failure" } });
  });

  it("sets up 4000002500003155 with authentication, then charges it off session without", async () => {
    const customer = await stripe.customers.create({});
    const si = await stripe.setupIntents.create({ customer: customer.id, payment_method: "pm_card_authenticationRequiredOnSetup", confirm: true, usage: "off_session" });
    expect(si.status).toBe("requires_action");
    fake.control.authenticate(si.id, "complete");
    const set = await stripe.setupIntents.retrieve(si.id);
    expect(set.status).toBe("succeeded");
    const methods = await stripe.customers.listPaymentMethods(customer.id);
    expect(methods.data.map((m) => m.id)).toEqual([set.payment_method]);
    const pi = await stripe.paymentIntents.create({ amount: 3000, currency: "usd", customer: customer.id, payment_method: set.payment_method as string, confirm: true, off_session: true });
    expect(pi.status).toBe("succeeded");
    const onSession = await stripe.paymentIntents.create({ amount: 3000, currency: "usd", customer: customer.id, payment_method: set.payment_method as string, confirm: true });
    expect(onSession.status).toBe("requires_action");
    const refused = await catchError(
      stripe.paymentIntents.create({ amount: 3000, currency: "usd", customer: customer.id, payment_method: set.payment_method as string, confirm: true, error_on_requires_action: true }),
    );
    expect(refused.code).toBe("authentication_required");
    // 4000002760003184 asks every time, even once set up.
    const si2 = await stripe.setupIntents.create({ customer: customer.id, payment_method: "pm_card_authenticationRequired", confirm: true });
    fake.control.authenticate(si2.id, "complete");
    const pm2 = (await stripe.setupIntents.retrieve(si2.id)).payment_method as string;
    const off = await catchError(stripe.paymentIntents.create({ amount: 3000, currency: "usd", customer: customer.id, payment_method: pm2, confirm: true, off_session: true }));
    expect(off.code).toBe("authentication_required");
  });

  it("attaches 4000000000000341 but declines its charge; refuses to attach 4000000000000002", async () => {
    const customer = await stripe.customers.create({});
    const pm = await stripe.paymentMethods.attach("pm_card_chargeCustomerFail", { customer: customer.id });
    expect(pm.customer).toBe(customer.id);
    const e = await catchError(stripe.paymentIntents.create({ amount: 1000, currency: "usd", customer: customer.id, payment_method: pm.id, confirm: true, off_session: true }));
    expect(e).toMatchObject({ code: "card_declined", statusCode: 402 });
    const refused = await catchError(stripe.paymentMethods.attach("pm_card_chargeDeclined", { customer: customer.id }));
    expect(refused).toMatchObject({ code: "card_declined", statusCode: 402 });
    const detached = await stripe.paymentMethods.detach(pm.id);
    expect(detached.customer).toBeNull();
  });

  it("refunds a payment in full, idempotently, and refuses a second refund", async () => {
    const pi = await stripe.paymentIntents.create({ amount: 4200, currency: "usd", payment_method: "pm_card_visa", confirm: true });
    const refund = await stripe.refunds.create({ payment_intent: pi.id }, { idempotencyKey: "void-1" });
    expect(refund).toMatchObject({ object: "refund", amount: 4200, status: "succeeded", payment_intent: pi.id });
    const replay = await stripe.refunds.create({ payment_intent: pi.id }, { idempotencyKey: "void-1" });
    expect(replay.id).toBe(refund.id);
    expect(fake.control.objects("refund")).toHaveLength(1);
    const charge = await stripe.charges.retrieve(pi.latest_charge as string);
    expect(charge).toMatchObject({ refunded: true, amount_refunded: 4200 });
    const again = await catchError(stripe.refunds.create({ payment_intent: pi.id }));
    expect(again).toMatchObject({ statusCode: 400, code: "charge_already_refunded" });
  });

  it("makes the charge, then lets the client time out; the retry with the same key replays the charge", async () => {
    const impatient = new Stripe(fake.secretKey, { ...fake.clientConfig, maxNetworkRetries: 0, timeout: 1500 });
    fake.control.addFault({ method: "POST", path: "/v1/payment_intents", mode: "timeout" });
    const params = { amount: 7700, currency: "usd", payment_method: "pm_card_visa", confirm: true };
    const lost = await catchError(impatient.paymentIntents.create(params, { idempotencyKey: "move-in-9" }));
    expect(lost).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(fake.control.objects("charge")).toHaveLength(1);
    const retried = await impatient.paymentIntents.create(params, { idempotencyKey: "move-in-9" });
    expect(retried.status).toBe("succeeded");
    expect(retried.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(fake.control.objects("charge")).toHaveLength(1);
  });
});

describe("lists (reconciliation, decision 440)", () => {
  it("lists charges, refunds and PaymentIntents by created[gte]/[lt], page by page with starting_after and has_more", async () => {
    const t0 = Math.floor(Date.now() / 1000);
    const made: Stripe.PaymentIntent[] = [];
    for (const amount of [100, 200, 300]) made.push(await stripe.paymentIntents.create({ amount, currency: "usd", payment_method: "pm_card_visa", confirm: true }));
    await stripe.refunds.create({ payment_intent: made[1]!.id, amount: 50 });
    const first = await stripe.charges.list({ created: { gte: t0 }, limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const second = await stripe.charges.list({ created: { gte: t0 }, limit: 2, starting_after: first.data[1]!.id });
    expect(second.has_more).toBe(false);
    const all = [...first.data, ...second.data];
    expect(all.map((c) => c.amount).sort()).toEqual([100, 200, 300]);
    expect(all.find((c) => c.payment_intent === made[1]!.id)!.amount_refunded).toBe(50);
    const paged = [];
    for await (const c of stripe.charges.list({ created: { gte: t0, lt: t0 + 3600 }, limit: 1 })) paged.push(c.id);
    expect(paged).toHaveLength(3);
    expect((await stripe.charges.list({ created: { lt: t0 } })).data).toEqual([]);
    expect((await stripe.charges.list({ created: { gt: t0 + 3600 } })).data).toEqual([]);
    const refunds = await stripe.refunds.list({ created: { gte: t0, lt: t0 + 3600 } });
    expect(refunds.data.map((r) => [r.payment_intent, r.amount])).toEqual([[made[1]!.id, 50]]);
    expect((await stripe.refunds.list({ created: { lt: t0 } })).data).toEqual([]);
    expect((await stripe.paymentIntents.list({ created: { gte: t0 } })).data).toHaveLength(3);
  });
});

describe("faults", () => {
  it("a connection dropped after the charge: the stripe package retries with its key and gets the replay", async () => {
    fake.control.addFault({ method: "POST", path: "/v1/payment_intents", mode: "reset" });
    const pi = await stripe.paymentIntents.create({ amount: 3100, currency: "usd", payment_method: "pm_card_visa", confirm: true });
    expect(pi.status).toBe("succeeded");
    expect(pi.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(fake.control.objects("charge")).toHaveLength(1);
    expect(fake.control.requests().filter((r) => r.path === "/v1/payment_intents").map((r) => r.replayed)).toEqual([false, true]);
  });

  it("api_error: a 500 before anything is done", async () => {
    fake.control.addFault({ path: "/v1/refunds", mode: "api_error" });
    const pi = await stripe.paymentIntents.create({ amount: 3100, currency: "usd", payment_method: "pm_card_visa", confirm: true });
    const e = await catchError(stripe.refunds.create({ payment_intent: pi.id }));
    expect(e).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(e.statusCode).toBe(500);
    expect(fake.control.objects("refund")).toHaveLength(0);
  });
});

describe("webhooks", () => {
  it("a webhook endpoint created through the API gets its own secret and the events", async () => {
    const endpoint = await stripe.webhookEndpoints.create({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/other`, enabled_events: ["customer.created"] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    await stripe.customers.create({ email: "w@example.com" });
    await fake.control.webhooksSettled();
    const mine = fake.control.deliveries().filter((d) => d.endpoint.endsWith("/other"));
    expect(mine.map((d) => [d.type, d.status])).toEqual([["customer.created", 200]]);
    const signed = received.filter((r) => {
      try {
        stripe.webhooks.constructEvent(r.body, r.signature, endpoint.secret as string);
        return true;
      } catch {
        return false;
      }
    });
    expect(signed).toHaveLength(1);
  });

  it("signs events as Stripe does, verifiable by constructEvent; a redelivery is the same event", async () => {
    const pi = await stripe.paymentIntents.create({ amount: 1500, currency: "usd", payment_method: "pm_card_visa", confirm: true, metadata: { lease: "L1" } });
    await fake.control.webhooksSettled();
    const events = received.map((r) => stripe.webhooks.constructEvent(r.body, r.signature, webhookSecret));
    const succeeded = events.find((e) => e.type === "payment_intent.succeeded");
    expect(succeeded?.data.object).toMatchObject({ id: pi.id, status: "succeeded", metadata: { lease: "L1" } });
    expect(() => stripe.webhooks.constructEvent(received[0]!.body, received[0]!.signature, "whsec_wrong")).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(received[0]!.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

    fake.control.redeliver(succeeded!.id);
    await fake.control.webhooksSettled();
    const again = received.map((r) => stripe.webhooks.constructEvent(r.body, r.signature, webhookSecret)).filter((e) => e.id === succeeded!.id);
    expect(again).toHaveLength(2);
    expect(fake.control.deliveries().filter((d) => d.eventId === succeeded!.id).map((d) => d.redelivery)).toEqual([false, true]);
    const listed = await stripe.events.retrieve(succeeded!.id);
    expect(listed.type).toBe("payment_intent.succeeded");
  });

  it("holds deliveries while paused and sends them on resume", async () => {
    fake.control.pauseWebhooks();
    await stripe.paymentIntents.create({ amount: 1500, currency: "usd", payment_method: "pm_card_visa", confirm: true });
    await fake.control.webhooksSettled();
    expect(received).toHaveLength(0);
    expect(fake.control.heldEvents().map((e) => e.type)).toContain("payment_intent.succeeded");
    fake.control.resumeWebhooks();
    await fake.control.webhooksSettled();
    expect(received.map((r) => (JSON.parse(r.body) as { type: string }).type)).toContain("payment_intent.succeeded");
  });

  it("holds only the event types asked for", async () => {
    fake.control.pauseWebhooks(["payment_intent.succeeded"]);
    await stripe.paymentIntents.create({ amount: 1500, currency: "usd", payment_method: "pm_card_visa", confirm: true });
    await fake.control.webhooksSettled();
    const types = () => received.map((r) => (JSON.parse(r.body) as { type: string }).type);
    expect(types()).toContain("charge.succeeded");
    expect(types()).not.toContain("payment_intent.succeeded");
    fake.control.resumeWebhooks();
    await fake.control.webhooksSettled();
    expect(types()).toContain("payment_intent.succeeded");
  });
});

describe("checkout", () => {
  it("takes a payment on the hosted page (a plain form) and returns to success_url with the session id", async () => {
    const session = await stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ price_data: { currency: "usd", unit_amount: 9900, product_data: { name: "Unit 101, first month" } }, quantity: 1 }],
      success_url: "http://shop.test/rent/done?session={CHECKOUT_SESSION_ID}",
      cancel_url: "http://shop.test/rent/pay",
      client_reference_id: "rental-5",
      metadata: { rental: "5" },
      payment_intent_data: { metadata: { rental: "5" } },
    });
    expect(session).toMatchObject({ object: "checkout.session", status: "open", payment_status: "unpaid", amount_total: 9900 });
    const page = await fetch(session.url as string);
    const html = await page.text();
    expect(html).toContain("Unit 101, first month");
    expect(html).toContain('name="number"');

    const declined = await fetch(session.url as string, { method: "POST", redirect: "manual", body: new URLSearchParams({ number: "4000 0000 0000 0002", exp: "12 / 40", cvc: "123" }) });
    expect(declined.status).toBe(200);
    expect(await declined.text()).toContain("Your card was declined.");

    const paid = await fetch(session.url as string, { method: "POST", redirect: "manual", body: new URLSearchParams({ number: "4242 4242 4242 4242", exp: "12 / 40", cvc: "123", email: "t@example.com" }) });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`http://shop.test/rent/done?session=${session.id}`);
    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent"] });
    expect(done).toMatchObject({ status: "complete", payment_status: "paid", client_reference_id: "rental-5" });
    expect(done.payment_intent).toMatchObject({ status: "succeeded", amount: 9900, metadata: { rental: "5" } });
    await fake.control.webhooksSettled();
    const completed = received.map((r) => stripe.webhooks.constructEvent(r.body, r.signature, webhookSecret)).find((e) => e.type === "checkout.session.completed");
    expect((completed?.data.object as Stripe.Checkout.Session | undefined)?.id).toBe(session.id);
  });

  it("saves a card in setup mode through the 3DS step", async () => {
    const customer = await stripe.customers.create({});
    const session = await stripe.checkout.sessions.create({ mode: "setup", currency: "usd", customer: customer.id, success_url: "http://shop.test/autopay/done?s={CHECKOUT_SESSION_ID}" });
    const submit = await fetch(session.url as string, { method: "POST", redirect: "manual", body: new URLSearchParams({ number: "4000002760003184", exp: "12/40", cvc: "123" }) });
    expect(submit.status).toBe(303);
    const challenge = new URL(submit.headers.get("location") as string);
    expect(challenge.pathname).toMatch(/^\/3ds\/seti_/);
    const back = await fetch(`${challenge.origin}${challenge.pathname}`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ client_secret: challenge.searchParams.get("client_secret") as string, return_url: challenge.searchParams.get("return_url") as string, outcome: "complete" }),
    });
    const ret = await fetch(back.headers.get("location") as string, { redirect: "manual" });
    expect(ret.headers.get("location")).toBe(`http://shop.test/autopay/done?s=${session.id}`);
    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ["setup_intent"] });
    expect(done.status).toBe("complete");
    const si = done.setup_intent as Stripe.SetupIntent;
    expect(si.status).toBe("succeeded");
    expect((await stripe.paymentMethods.retrieve(si.payment_method as string)).customer).toBe(customer.id);
  });
});

describe("test controls over HTTP (for a fake in another process)", () => {
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${fake.url}/__fake${path}`, { method, ...(body ? { body: JSON.stringify(body), headers: { "Content-Type": "application/json" } } : {}) });
    return { status: res.status, json: (await res.json()) as unknown };
  };

  it("faults, 3DS answers, objects, webhook pause/resume/redeliver and reset", async () => {
    const customer = await stripe.customers.create({});
    const pi = await stripe.paymentIntents.create({ amount: 2000, currency: "usd", customer: customer.id, payment_method: "pm_card_authenticationRequired", confirm: true });
    expect((await control("POST", `/intents/${pi.id}/authenticate`, { outcome: "complete" })).json).toMatchObject({ id: pi.id, status: "succeeded" });
    expect((await control("GET", `/objects/${pi.id}`)).json).toMatchObject({ status: "succeeded" });
    expect(((await control("GET", "/objects?type=charge")).json as unknown[]).length).toBe(1);

    await control("POST", "/faults", { path: "/v1/refunds", mode: "api_error" });
    expect((await catchError(stripe.refunds.create({ payment_intent: pi.id }))).statusCode).toBe(500);

    await fake.control.webhooksSettled();
    received = [];
    await control("POST", "/webhooks/pause");
    await stripe.refunds.create({ payment_intent: pi.id });
    await fake.control.webhooksSettled();
    expect(received).toHaveLength(0);
    await control("POST", "/webhooks/resume");
    await fake.control.webhooksSettled();
    const refunded = received.map((r) => stripe.webhooks.constructEvent(r.body, r.signature, webhookSecret)).find((e) => e.type === "charge.refunded");
    expect(refunded).toBeDefined();
    await control("POST", `/events/${refunded!.id}/redeliver`);
    await fake.control.webhooksSettled();
    expect(received.filter((r) => (JSON.parse(r.body) as { id: string }).id === refunded!.id)).toHaveLength(2);
    const deliveries = (await control("GET", "/webhooks/deliveries")).json as Array<{ eventId: string; redelivery: boolean }>;
    expect(deliveries.filter((d) => d.eventId === refunded!.id).map((d) => d.redelivery)).toEqual([false, true]);
    const requests = (await control("GET", "/requests")).json as Array<{ path: string; status: number }>;
    expect(requests.find((r) => r.path === "/v1/refunds")?.status).toBe(500);

    await control("POST", "/reset");
    expect((await control("GET", "/objects")).json).toEqual([]);
    expect((await control("GET", "/webhooks")).json).toHaveLength(1);
  });
});

describe("the Stripe.js stand-in", () => {
  it("is served at /v3/ and the Element frame only to a publishable key and an origin", async () => {
    const js = await fetch(fake.jsUrl);
    expect(js.headers.get("content-type")).toContain("javascript");
    const text = await js.text();
    expect(text).toContain("confirmPayment");
    expect(text).not.toMatch(/^export /m);
    expect(text.trimStart().startsWith("(() => {")).toBe(true);
    const frame = await fetch(`${fake.url}/elements/frame?key=${fake.publishableKey}&origin=http://shop.test&element=e1&type=payment`);
    expect(frame.status).toBe(200);
    expect(await frame.text()).toContain('autocomplete="cc-number"');
    expect((await fetch(`${fake.url}/elements/frame?key=${fake.secretKey}&origin=http://shop.test`)).status).toBe(400);
  });
});
