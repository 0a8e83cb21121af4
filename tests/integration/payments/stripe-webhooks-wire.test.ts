/**
 * Issue 35 (decisions 431, 433): every path where money moves, through the wire both ways, on the
 * BUILT server (server/app.ts with its guards, headers and cookie settings) running with
 * NODE_ENV=production and PAYMENT_GATEWAY=stripe, and the Stripe fake delivering its signed webhooks
 * over HTTP to it. Each form is posted over HTTP; the hosted page (Stripe Checkout) is completed at
 * the fake (what a browser would post there); the visitor then closes the tab: the webhook alone
 * records the payment once, with its ledger line and one receipt, and every delivery is answered
 * 2xx. A duplicate delivery changes nothing; the return coming after the webhook changes nothing;
 * a forged, replayed, stale or future-dated event is refused and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { and, count, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { emailOutbox, gatewayEvents, leases, ledgerEntries, payments, rentals, savedCards, units } from "~/db/schema";
import { runBilling } from "~/services/payments/billing-run.server";
import { readOutboxMail } from "~/services/mail/outbox.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { sendPayLink } from "~/services/payments/pay-links.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { createTenantSession } from "~/services/web/session.server";
import { rentalCookieHeader } from "~/services/rental/record.server";
import { accountStorage, portalLocations } from "~/services/portal/context.server";
import { addMonthsIso, localDate } from "~/domain/shared/calendar";
import { createTestGateway, setPaymentGatewayForTests, setPaymentGatewayNameForTests } from "~/platform/payments/gateway.server";
import { freePort, startBuiltServer, type BuiltServer } from "../support/built-server";
import { signPayload, startStripeFake, type Delivery, type RunningStripeFake } from "../../../stripe-fake";
import { createTestDatabase } from "../support/db";
import { lumbertonUnitType, signedRental } from "../support/rental-fixtures";

// Production before anything is imported: React and its server renderer pick their builds by NODE_ENV
// when first loaded, and the built server and this file's own copy of the app must load the same.
const savedNodeEnv = vi.hoisted(() => {
  const was = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  // One secret for the built server and this file's copy (which may read the environment on import):
  // production keeps the first reading for good.
  process.env.SESSION_SECRET ??= `wire-test-${Math.random().toString(36).slice(2)}-${Date.now()}-0123456789abcdef`;
  return was;
});

const SECRET = "whsec_gatehouse_wire_test_secret";
const TZ = "America/New_York";
const CARD = { number: "4242424242424242", exp_month: "12", exp_year: "2034", cvc: "123", name: "Quinn Zebulon" };
/** What this file sets for the built server (and restores after). */
const SET = ["NODE_ENV", "PAYMENT_GATEWAY", "STRIPE_SECRET_KEY", "STRIPE_PUBLISHABLE_KEY", "STRIPE_WEBHOOK_SECRET", "STRIPE_API_BASE", "PUBLIC_URL", "BILLING_SCHEDULE", "HOUSEKEEPING", "PUBLISH_SCHEDULE", "SITELINK_SYNC", "EMAIL_RETRY", "FAKE_NOW"];
const before = { ...Object.fromEntries(SET.map((k) => [k, process.env[k]])), NODE_ENV: savedNodeEnv };

let handle: DatabaseHandle;
let fake: RunningStripeFake;
let server: BuiltServer;
let origin: string;
let n = 0;

beforeAll(async () => {
  fake = await startStripeFake({ port: 0 });
  const port = await freePort();
  origin = `http://localhost:${port}`;
  // A live site's configuration, before anything reads the environment: production, Stripe (the fake
  // through its test keys), HTTPS cookies (Secure, __Host-), the configured origin; the background
  // jobs off (they would act on their own clock).
  Object.assign(process.env, {
    NODE_ENV: "production",
    PAYMENT_GATEWAY: "stripe",
    STRIPE_SECRET_KEY: fake.secretKey,
    STRIPE_PUBLISHABLE_KEY: fake.publishableKey,
    STRIPE_WEBHOOK_SECRET: SECRET,
    STRIPE_API_BASE: fake.url,
    PUBLIC_URL: origin,
    BILLING_SCHEDULE: "off",
    HOUSEKEEPING: "off",
    PUBLISH_SCHEDULE: "off",
    SITELINK_SYNC: "off",
    EMAIL_RETRY: "off",
  });
  delete process.env.FAKE_NOW;
  handle = await createTestDatabase();
  server = await startBuiltServer(handle, { port });
  fake.control.addWebhookEndpoint(`${origin}/webhooks/stripe`, { secret: SECRET });
});
afterAll(async () => {
  await server?.close();
  await fake?.close();
  await handle?.close();
  for (const [k, v] of Object.entries(before)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

// ---------------------------------------------------------------------------------------------- HTTP

/** A browser's cookie jar for one visitor, over plain HTTP to the built server. */
class Visitor {
  cookies = new Map<string, string>();
  constructor(initial: string[] = []) {
    for (const c of initial) this.keep(c);
  }
  keep(setCookie: string) {
    const [pair] = setCookie.split(";");
    const at = pair!.indexOf("=");
    this.cookies.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const r = await fetch(`${origin}${path}`, { ...init, redirect: "manual", headers: { ...(init.headers as Record<string, string>), Cookie: this.header() } });
    for (const c of r.headers.getSetCookie()) this.keep(c);
    return r;
  }
  get(path: string) {
    return this.request(path);
  }
  post(path: string, body: Record<string, string>) {
    return this.request(path, { method: "POST", body: new URLSearchParams(body), headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: origin } });
  }
}

/** A form's answer sending the visitor to the fake's Checkout page: its session id. */
async function toCheckout(r: Response): Promise<string> {
  expect(r.status, await r.clone().text()).toBe(303);
  const to = new URL(r.headers.get("Location")!);
  expect(to.origin).toBe(fake.origin);
  return to.pathname.split("/").pop()!;
}

/** Pays on the fake's hosted page (what the browser posts there); answers the return path on our site, not followed: the tab is closed. */
function payOnCheckout(sessionId: string, card = CARD): string {
  const done = fake.control.submitCheckout(sessionId, card);
  if (!("redirect" in done)) throw new Error(done.error);
  const back = new URL(done.redirect);
  expect(back.origin).toBe(origin);
  return `${back.pathname}${back.search}`;
}

/** A hidden field's value in a page. */
function field(html: string, name: string): string {
  const m = new RegExp(`name="${name}"[^>]*value="([^"]*)"|value="([^"]*)"[^>]*name="${name}"`).exec(html);
  if (!m) throw new Error(`no field ${name} in the page`);
  return (m[1] ?? m[2]!).replace(/&amp;/g, "&");
}

// ------------------------------------------------------------------------------------------- records

const paymentsOf = (key: string) => handle.db.select().from(payments).where(eq(payments.idempotencyKey, key));
const paymentLines = (paymentId: number) => handle.db.select().from(ledgerEntries).where(and(eq(ledgerEntries.paymentId, paymentId), eq(ledgerEntries.kind, "payment")));
const mailTo = async (email: string, subject: string) => (await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, email))).filter((m) => m.subject.startsWith(subject));
const sessionOf = (id: string) => fake.control.get(id) as { metadata: Record<string, string>; payment_intent: string | null; customer: string | null; setup_intent: string | null };

/** Everything money and mail: counted before and after something that must change nothing. */
async function snapshot() {
  const [p] = await handle.db.select({ n: count() }).from(payments);
  const [l] = await handle.db.select({ n: count() }).from(ledgerEntries);
  const [m] = await handle.db.select({ n: count() }).from(emailOutbox);
  const [e] = await handle.db.select({ n: count() }).from(gatewayEvents);
  const [c] = await handle.db.select({ n: count() }).from(savedCards);
  const [r] = await handle.db.select({ n: count() }).from(leases);
  return { payments: p!.n, ledger: l!.n, mail: m!.n, events: e!.n, cards: c!.n, leases: r!.n, refunds: fake.control.objects("refund").length, intents: fake.control.objects("payment_intent").length };
}

/** The fake's deliveries since `from` (an index into its log), after every one in flight has finished. */
async function deliveriesSince(from: number): Promise<Delivery[]> {
  await fake.control.webhooksSettled();
  return fake.control.deliveries().slice(from);
}

/** Every event the fake delivered since `from` delivered again (Stripe's duplicate), and answered 2xx. */
async function redeliverAll(from: number) {
  const ids = [...new Set((await deliveriesSince(from)).map((d) => d.eventId))];
  const mark = fake.control.deliveries().length;
  for (const id of ids) fake.control.redeliver(id);
  const again = await deliveriesSince(mark);
  expect(again.map((d) => d.eventId).sort()).toEqual([...ids].sort());
  expectAll2xx(again);
}

function expectAll2xx(deliveries: Delivery[]) {
  expect(deliveries.length).toBeGreaterThan(0);
  expect(deliveries.filter((d) => d.status < 200 || d.status > 299), "deliveries not answered 2xx").toEqual([]);
}

// ------------------------------------------------------------------------------------------- tenants

/** A tenant signed in to the portal whose lease owes a month's rent (moved in a month ago, billed). */
async function tenantOwing() {
  const now = new Date();
  const email = `wire-${++n}-${Date.now()}@example.com`;
  // The move-in as if made at the office earlier (the test gateway, in this test's own copy of the
  // app only); from then on the built server takes the cards, through Stripe.
  setPaymentGatewayForTests(createTestGateway());
  const t = await createTenantWithLease(handle.db, { email, password: "secret1", firstName: "Quinn", lastName: "Zebulon", now, moveInDate: addMonthsIso(localDate(now, TZ), -1), withInsurance: false }).finally(() =>
    setPaymentGatewayForTests(null),
  );
  await runBilling(handle.db, { runDate: localDate(now, TZ), now, force: true, tenantId: t.tenantId });
  const session = (await createTenantSession(handle.db, { tenantId: String(t.tenantId), now })).split(";")[0]!;
  const csrf = (await getCsrfToken(new Request(origin, { headers: { Cookie: session } }))).token;
  const visitor = new Visitor([session]);
  const lease = async () => (await handle.db.query.leases.findFirst({ where: eq(leases.id, t.leaseId) }))!;
  const [account] = await handle.db.query.accounts.findMany({ limit: 1 });
  const storage = accountStorage(handle.db, await portalLocations(handle.db, account!.id)).storage;
  const balance = async () => (await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!.balance;
  return { tenantId: t.tenantId, leaseId: String(t.leaseId), email, visitor, csrf, lease, balance };
}

/** A payment recorded once, approved, on its lease, with its ledger line for the amount and one receipt. */
async function expectRecordedOnce(key: string, input: { leaseId: string | number; amount: number; email: string; receipt: string }) {
  const rows = await paymentsOf(key);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ status: "approved", amount: input.amount, leaseId: Number(input.leaseId) });
  const lines = await paymentLines(rows[0]!.id);
  expect(lines.reduce((sum, l) => sum + l.amount, 0)).toBe(input.amount);
  expect(await mailTo(input.email, input.receipt)).toHaveLength(1);
  return rows[0]!;
}

// ------------------------------------------------------------------------------------------- the door

describe("the webhook endpoint of the production build", () => {
  it("takes Stripe's JSON (a valid delivery 200); a form, a bad signature, a stale or a future-dated one are refused", async () => {
    const event = JSON.stringify({ id: `evt_wire_${Date.now()}`, object: "event", type: "customer.created", data: { object: { id: "cus_x", object: "customer" } } }, null, 2);
    const post = (body: string, headers: Record<string, string>) => fetch(`${origin}/webhooks/stripe`, { method: "POST", body, headers });
    const json = { "Content-Type": "application/json; charset=utf-8" };
    const nowS = Math.floor(Date.now() / 1000);
    const taken = await post(event, { ...json, "Stripe-Signature": signPayload(event, SECRET, nowS) });
    expect(taken.status).toBe(200);
    expect(taken.headers.get("cache-control")).toBe("no-store");
    const seen = await snapshot();
    expect((await post(event, { "Content-Type": "application/x-www-form-urlencoded", "Stripe-Signature": signPayload(event, SECRET) })).status).toBe(415);
    const other = event.replace("evt_wire_", "evt_other_");
    expect((await post(other, json)).status).toBe(400);
    expect((await post(other, { ...json, "Stripe-Signature": signPayload(other, "whsec_someone_else", nowS) })).status).toBe(400);
    expect((await post(other, { ...json, "Stripe-Signature": signPayload(other, SECRET, nowS - 301) })).status).toBe(400);
    expect((await post(other, { ...json, "Stripe-Signature": signPayload(other, SECRET, nowS + 600) })).status).toBe(400);
    expect((await post(other, { ...json, "Stripe-Signature": signPayload(other, SECRET, nowS + 120) })).status).toBe(400);
    expect(await snapshot()).toEqual(seen);
    // Any other JSON post is still refused: the webhook path is the one door.
    expect((await fetch(`${origin}/customer-portal/login`, { method: "POST", body: "{}", headers: json })).status).toBe(415);
  });
});

// ------------------------------------------------------------------------------------------- portal

describe("portal payments through Checkout, the tab closed before the return (production build, Stripe fake over HTTP)", () => {
  it("pay the balance: the webhook alone records it once, with its ledger line and one receipt; a duplicate and the late return change nothing", async () => {
    const t = await tenantOwing();
    const owed = (await t.balance());
    expect(owed).toBeGreaterThan(0);
    const from = fake.control.deliveries().length;
    const key = `wire-pay-${Date.now()}`;
    const id = await toCheckout(
      await t.visitor.post(`/customer-portal/units/${t.leaseId}/pay`, { csrf: t.csrf, idempotency_key: key, amount_choice: "balance", payment_method: "new", hosted_fields: "1", payment_token: "" }),
    );
    const back = payOnCheckout(id);
    expectAll2xx(await deliveriesSince(from));
    const row = await expectRecordedOnce(key, { leaseId: t.leaseId, amount: owed, email: t.email, receipt: "Payment receipt" });
    expect(row.authReference).toBe(sessionOf(id).payment_intent);
    expect((await t.balance())).toBe(0);
    const [event] = await handle.db.select().from(gatewayEvents).where(and(eq(gatewayEvents.idempotencyKey, key), eq(gatewayEvents.type, "checkout.session.completed")));
    expect(event?.outcome).toMatch(/^recorded/);

    const seen = await snapshot();
    await redeliverAll(from);
    expect(await snapshot()).toEqual(seen);
    // The tenant comes back after all: the receipt, nothing more.
    const returned = await t.visitor.get(back);
    expect(returned.status).toBe(302);
    expect(returned.headers.get("Location")).toBe(`/customer-portal/receipts/${row.id}?new=1`);
    expect(await snapshot()).toEqual(seen);
  });

  it("prepay: the webhook records the months once (paid-through moved on), one receipt; the late return changes nothing", async () => {
    const t = await tenantOwing();
    const page = await (await t.visitor.get(`/customer-portal/units/${t.leaseId}/prepay`)).text();
    const months = field(page, "months");
    const total = Number(field(page, `expected_total_${months}`));
    const before = await t.lease();
    const from = fake.control.deliveries().length;
    const key = `wire-prepay-${Date.now()}`;
    const id = await toCheckout(
      await t.visitor.post(`/customer-portal/units/${t.leaseId}/prepay`, { csrf: t.csrf, idempotency_key: key, months, [`expected_total_${months}`]: String(total), payment_method: "new", hosted_fields: "1", payment_token: "" }),
    );
    const back = payOnCheckout(id);
    expectAll2xx(await deliveriesSince(from));
    const row = await expectRecordedOnce(key, { leaseId: t.leaseId, amount: total, email: t.email, receipt: "Payment receipt" });
    expect(row.source).toBe("prepay");
    const after = await t.lease();
    expect(after.paidThroughDate! > before.paidThroughDate!).toBe(true);

    const seen = await snapshot();
    await redeliverAll(from);
    const returned = await t.visitor.get(back);
    expect(returned.headers.get("Location")).toBe(`/customer-portal/receipts/${row.id}?new=1`);
    expect(await snapshot()).toEqual(seen);
    expect((await t.lease()).paidThroughDate).toBe(after.paidThroughDate);
  });

  it("autopay set-up: the webhook saves the card and turns autopay on, once; the late return changes nothing", async () => {
    const t = await tenantOwing();
    const from = fake.control.deliveries().length;
    const id = await toCheckout(await t.visitor.post(`/customer-portal/units/${t.leaseId}/autopay`, { csrf: t.csrf, intent: "enrol", agree_terms: "on", payment_method: "new", hosted_fields: "1", payment_token: "" }));
    const back = payOnCheckout(id, { ...CARD, number: "5555555555554444" });
    expectAll2xx(await deliveriesSince(from));
    const lease = await t.lease();
    expect(lease.autopayEnabled).toBe(true);
    const card = await handle.db.query.savedCards.findFirst({ where: eq(savedCards.id, lease.autopayCardId!) });
    const si = fake.control.get(sessionOf(id).setup_intent!) as { payment_method: string };
    expect(card).toMatchObject({ brand: "mastercard", last4: "4444", gatewayToken: `${sessionOf(id).customer}:${si.payment_method}` });

    const seen = await snapshot();
    await redeliverAll(from);
    const returned = await t.visitor.get(back);
    expect(returned.headers.get("Location")).toBe("/customer-portal?done=autopay-on");
    expect(await snapshot()).toEqual(seen);
  });

  it("the e-mailed pay link: the webhook records it once and uses the link; a duplicate and the late return change nothing", async () => {
    const t = await tenantOwing();
    const owed = (await t.balance());
    // The office's "send a pay link", from this file's copy of the app (read its environment before
    // the Stripe settings were made): the location's cards go through Stripe, as on the server.
    setPaymentGatewayNameForTests("stripe");
    const sent = await sendPayLink(handle.db, { tenantId: t.tenantId, leaseId: Number(t.leaseId), staffId: 7, now: new Date() }).finally(() => setPaymentGatewayNameForTests(null));
    expect(sent).toMatchObject({ ok: true });
    const mail = (await mailTo(t.email, "")).at(-1)!;
    // (The link's origin is this file's copy's configured one; the path is what the tenant opens here.)
    const link = new URL(/https?:\/\/\S+\/pay\/[A-Za-z0-9_.-]+/.exec(readOutboxMail(mail).text)![0]);
    const visitor = new Visitor();
    const page = await (await visitor.get(link.pathname)).text();
    const key = field(page, "idempotency_key");
    const from = fake.control.deliveries().length;
    const id = await toCheckout(
      await visitor.post(link.pathname, { csrf: field(page, "csrf"), idempotency_key: key, expected_amount: field(page, "expected_amount"), payment_method: "new", hosted_fields: "1", payment_token: "" }),
    );
    const back = payOnCheckout(id);
    expectAll2xx(await deliveriesSince(from));
    await expectRecordedOnce(key, { leaseId: t.leaseId, amount: owed, email: t.email, receipt: "Payment receipt" });
    expect((await t.balance())).toBe(0);

    const seen = await snapshot();
    await redeliverAll(from);
    const returned = await visitor.get(back);
    expect(returned.status).toBe(302);
    expect(returned.headers.get("Location")).toBe(link.pathname);
    expect(await (await visitor.get(link.pathname)).text()).toContain("paid");
    expect(await snapshot()).toEqual(seen);
  });
});

// ------------------------------------------------------------------------------------------- rental

describe("a rental through Checkout, the tab closed before the return", () => {
  it("the webhook alone finishes the rental: one lease, its payment and ledger line, one welcome e-mail with the charges; a duplicate and the late return change nothing", async () => {
    const { unitTypeId } = await lumbertonUnitType(handle.db);
    await handle.db.update(units).set({ heldUntil: null, holdToken: null }).where(eq(units.unitTypeId, Number(unitTypeId)));
    const { id: rentalId, quote } = await signedRental(handle.db, unitTypeId, { now: new Date() });
    const rental = (await handle.db.query.rentals.findFirst({ where: eq(rentals.id, rentalId) }))!;
    const email = (rental.tenantDetails as { email: string }).email;
    const csrf = await getCsrfToken(new Request(`${origin}/rent`));
    const visitor = new Visitor([csrf.setCookie!, await rentalCookieHeader(rentalId)]);
    const from = fake.control.deliveries().length;
    const [lastPayment] = await handle.db.select({ id: payments.id }).from(payments).orderBy(payments.id).limit(1);
    const id = await toCheckout(await visitor.post(`/rent/${unitTypeId}?step=pay`, { csrf: csrf.token, intent: "pay", autopay: "on", payment_token: "" }));
    const back = payOnCheckout(id);
    expectAll2xx(await deliveriesSince(from));

    const done = (await handle.db.query.rentals.findFirst({ where: eq(rentals.id, rentalId) }))!;
    expect(done.status).toBe("completed");
    expect(done.completedLeaseId).not.toBeNull();
    const row = await expectRecordedOnce(rental.idempotencyKey, { leaseId: done.completedLeaseId!, amount: quote.total, email, receipt: "Your rental at" });
    expect(row.authReference).toBe(sessionOf(id).payment_intent);
    expect(row.id).toBeGreaterThan(lastPayment?.id ?? 0);
    const lease = await handle.db.query.leases.findFirst({ where: eq(leases.id, done.completedLeaseId!) });
    expect(lease?.autopayEnabled).toBe(true);
    const [event] = await handle.db.select().from(gatewayEvents).where(and(eq(gatewayEvents.idempotencyKey, rental.idempotencyKey), eq(gatewayEvents.type, "checkout.session.completed")));
    expect(event?.outcome).toBe("recorded: the rental finished from the processor's page");

    const seen = await snapshot();
    await redeliverAll(from);
    expect(await snapshot()).toEqual(seen);
    const returned = await visitor.get(back);
    expect(returned.status).toBe(302);
    expect(returned.headers.get("Location")).toBe(`/rent/${unitTypeId}/confirmation`);
    expect(await snapshot()).toEqual(seen);
    expect(fake.control.objects("payment_intent").filter((pi) => (pi.metadata as Record<string, string>)?.gatehouse_key === rental.idempotencyKey)).toHaveLength(1);
  });
});

// ------------------------------------------------------------------------------------------- forged

describe("a delivery that is not Stripe's, now", () => {
  it("a real event replayed (its id again, signed now), re-signed with another secret, stale or future-dated: refused or not acted on, nothing changes", async () => {
    const t = await tenantOwing();
    const owed = (await t.balance());
    const key = `wire-replay-${Date.now()}`;
    const id = await toCheckout(
      await t.visitor.post(`/customer-portal/units/${t.leaseId}/pay`, { csrf: t.csrf, idempotency_key: key, amount_choice: "balance", payment_method: "new", hosted_fields: "1", payment_token: "" }),
    );
    payOnCheckout(id);
    await fake.control.webhooksSettled();
    await expectRecordedOnce(key, { leaseId: t.leaseId, amount: owed, email: t.email, receipt: "Payment receipt" });
    const completed = fake.control.events("checkout.session.completed").find((e) => (e.data.object as { id: string }).id === id)!;
    const body = JSON.stringify(completed, null, 2);
    const post = (payload: string, signature: string) => fetch(`${origin}/webhooks/stripe`, { method: "POST", body: payload, headers: { "Content-Type": "application/json; charset=utf-8", "Stripe-Signature": signature } });
    const nowS = Math.floor(Date.now() / 1000);
    const seen = await snapshot();
    // Replayed with a fresh valid signature (as Stripe's own retry): taken once already, not acted on again.
    const replay = await post(body, signPayload(body, SECRET, nowS));
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ message: "Already taken." });
    // The same event as a new id (someone who knows the format but not the secret): refused.
    const forged = body.replace(completed.id, `${completed.id}x`);
    expect((await post(forged, signPayload(forged, "whsec_not_ours", nowS))).status).toBe(400);
    // A captured delivery sent again later, and one dated ahead: refused by their time.
    expect((await post(forged, signPayload(forged, SECRET, nowS - 600))).status).toBe(400);
    expect((await post(forged, signPayload(forged, SECRET, nowS + 600))).status).toBe(400);
    expect(await snapshot()).toEqual(seen);
    expect(await handle.db.select().from(gatewayEvents).where(eq(gatewayEvents.id, `${completed.id}x`))).toEqual([]);
    expect(await paymentsOf(key)).toHaveLength(1);
  });
});
