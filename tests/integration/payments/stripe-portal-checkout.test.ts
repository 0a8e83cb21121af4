/**
 * Issue 25, decision 400: the portal's card pages with JavaScript off at a Stripe location (the Stripe
 * fake over real HTTP, its webhooks delivered over real HTTP to the app). A new card without a
 * `payment_token` goes to Stripe Checkout for exactly the amount; the return (the page's loader)
 * reads the session from Stripe and records the payment once through the port (ledger, paid-through,
 * receipt e-mail), or saves the card and turns autopay on; an unpaid or another payment's session
 * records nothing; a second return shows the receipt; the webhook records a session whose tenant
 * never came back, once; a payment no longer owed is refunded at once.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq, like, sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { emailOutbox, gatewayEvents, hostedSessions, leases, ledgerEntries, payments, savedCards } from "~/db/schema";
import { accountStorage, portalLocations } from "~/services/portal/context.server";
import { runBilling } from "~/services/payments/billing-run.server";
import { readOutboxMail } from "~/services/mail/outbox.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { sendPayLink } from "~/services/payments/pay-links.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { createTenantSession } from "~/services/web/session.server";
import { HOSTED_PAGE_CANCELLED, HOSTED_PAGE_OTHER, HOSTED_PAGE_UNPAID } from "~/services/portal/hosted-payment.server";
import { now as clockNow } from "~/platform/clock.server";
import { setPaymentGatewayForTests } from "~/platform/payments/gateway.server";
import { createStripeGateway } from "~/platform/payments/stripe.server";
import { addMonthsIso, localDate } from "~/domain/shared/calendar";
import type { StorageSoftware } from "~/storage-software/port";
import { action as payAction, loader as payLoader } from "~/routes/portal/pay";
import { action as prepayAction, loader as prepayLoader } from "~/routes/portal/prepay";
import { action as autopayAction, loader as autopayLoader } from "~/routes/portal/autopay";
import { action as linkAction, loader as linkLoader } from "~/routes/payments/pay";
import { startStripeFake, type RunningStripeFake } from "../../../stripe-fake";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { callRoute } from "../support/route-helpers";

let handle: DatabaseHandle;
let app: AppServer;
let fake: RunningStripeFake;
let storage: StorageSoftware;
const SECRET = "whsec_gatehouse_portal_checkout_test";
const TZ = "America/New_York";
const CARD = { number: "4242424242424242", exp_month: "12", exp_year: "2034", cvc: "123", name: "Quinn Zebulon" };
let n = 0;

beforeAll(async () => {
  handle = await createTestDatabase();
  app = await startAppServer(handle.db);
  fake = await startStripeFake({ port: 0 });
  fake.control.addWebhookEndpoint(`${app.origin}/webhooks/stripe`, { secret: SECRET });
  process.env.STRIPE_WEBHOOK_SECRET = SECRET;
  const [account] = await handle.db.query.accounts.findMany({ limit: 1 });
  storage = accountStorage(handle.db, await portalLocations(handle.db, account!.id)).storage;
});
beforeEach(async () => {
  fake.control.resumeWebhooks();
  await fake.control.webhooksSettled();
});
afterAll(async () => {
  delete process.env.STRIPE_WEBHOOK_SECRET;
  setPaymentGatewayForTests(null);
  await fake?.close();
  await app?.close();
  await handle?.close();
});

/** A signed-in tenant whose lease owes a month's rent (moved in a month ago, billed), at a location whose cards Stripe now takes. */
async function tenantOwing() {
  const now = clockNow();
  setPaymentGatewayForTests(null);
  const email = `checkout-${++n}-${Date.now()}@example.com`;
  const t = await createTenantWithLease(handle.db, { email, password: "secret1", firstName: "Quinn", lastName: "Zebulon", now, moveInDate: addMonthsIso(localDate(now, TZ), -1), withInsurance: false });
  await runBilling(handle.db, { runDate: localDate(now, TZ), now, force: true, tenantId: t.tenantId });
  setPaymentGatewayForTests(createStripeGateway({ secretKey: fake.secretKey, apiBase: fake.url }));
  const session = (await createTenantSession(handle.db, { tenantId: String(t.tenantId), now })).split(";")[0]!;
  const csrf = (await getCsrfToken(new Request("http://localhost/", { headers: { Cookie: session } }))).token;
  const form = (body: Record<string, string>): RequestInit => ({
    method: "POST",
    body: new URLSearchParams({ csrf, ...body }),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: session },
  });
  const balance = async () => (await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!.balance;
  const owed = await balance();
  expect(owed).toBeGreaterThan(0);
  return { tenantId: t.tenantId, leaseId: String(t.leaseId), email, session, form, owed, balance };
}
type Tenant = Awaited<ReturnType<typeof tenantOwing>>;

const get = <T = unknown>(t: Tenant, loader: (args: never) => unknown, url: string) => callRoute<T>(loader, handle.db, url, { init: { headers: { Cookie: t.session } } });

/** The hosted form sent as a browser without JavaScript sends it: `payment_token` empty. */
const noToken = { payment_method: "new", hosted_fields: "1", payment_token: "" };

/** Posts a form, expects the 303 to the fake's Checkout page; answers the session's id. */
async function outToCheckout(action: (args: never) => unknown, url: string, init: RequestInit): Promise<string> {
  const r = await callRoute(action, handle.db, url, { init });
  expect(r.status, JSON.stringify(r.data)).toBe(303);
  const to = new URL(r.headers.get("Location")!);
  expect(to.origin).toBe(fake.origin);
  return to.pathname.split("/").pop()!;
}

/** Pays on the fake's hosted page; answers the return address (path and query on our site). */
function payOnCheckout(sessionId: string, card = CARD): string {
  const done = fake.control.submitCheckout(sessionId, card);
  if (!("redirect" in done)) throw new Error(done.error);
  const back = new URL(done.redirect);
  return `${back.pathname}${back.search}`;
}

const session = (id: string) => fake.control.get(id) as { id: string; mode: string; amount_total: number | null; metadata: Record<string, string>; payment_intent: string | null; setup_intent: string | null; customer: string | null; success_url: string; cancel_url: string };
const paymentsOf = (key: string) => handle.db.select().from(payments).where(eq(payments.idempotencyKey, key));
const intentsOf = (key: string) => fake.control.objects("payment_intent").filter((pi) => (pi.metadata as Record<string, string> | undefined)?.gatehouse_key === key);
const receiptsTo = async (email: string) => (await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, email))).filter((m) => m.subject.startsWith("Payment receipt"));
const paymentLines = (paymentId: number) => handle.db.select().from(ledgerEntries).where(and(eq(ledgerEntries.paymentId, paymentId), eq(ledgerEntries.kind, "payment")));
const checkoutEvents = (key: string) => handle.db.select().from(gatewayEvents).where(and(eq(gatewayEvents.idempotencyKey, key), eq(gatewayEvents.type, "checkout.session.completed")));

describe("portal pay without JavaScript (Stripe Checkout)", () => {
  it("the page offers Stripe's secure page; the button and the note say so", async () => {
    const t = await tenantOwing();
    const page = await get<{ payment: { hosted: boolean }; checkoutResult: unknown }>(t, payLoader, `/customer-portal/units/${t.leaseId}/pay`);
    expect(page.data.payment.hosted).toBe(true);
    expect(page.data.checkoutResult).toBeNull();
  });

  it("out to Checkout for the balance, back: recorded once with its ledger line and receipt; an early (unpaid) return and a second return record nothing more; the late webhook is 'already recorded'", async () => {
    const t = await tenantOwing();
    const key = `co-pay-${Date.now()}`;
    fake.control.pauseWebhooks();
    const id = await outToCheckout(payAction, `/customer-portal/units/${t.leaseId}/pay`, t.form({ idempotency_key: key, amount_choice: "balance", ...noToken }));
    const s = session(id);
    expect(s).toMatchObject({ mode: "payment", amount_total: t.owed });
    expect(s.metadata).toMatchObject({ gatehouse_key: key, gatehouse_flow: "portal_pay", gatehouse_tenant: String(t.tenantId), gatehouse_lease: t.leaseId, gatehouse_choice: "balance" });
    expect(s.success_url).toContain(`/customer-portal/units/${t.leaseId}/pay?checkout_session={CHECKOUT_SESSION_ID}&payment=${key}`);
    expect(await paymentsOf(key)).toEqual([]);

    // Back before paying (a hand-made return): the form, with the message; nothing recorded.
    const early = await get<{ checkoutResult: { error: Record<string, string[]> } }>(t, payLoader, `/customer-portal/units/${t.leaseId}/pay?checkout_session=${id}&payment=${key}`);
    expect(early.status).toBe(200);
    expect(early.data.checkoutResult.error[""]).toEqual([HOSTED_PAGE_UNPAID]);
    expect(await paymentsOf(key)).toEqual([]);

    const back = payOnCheckout(id);
    const returned = await get(t, payLoader, back);
    expect(returned.status).toBe(302);
    const [row] = await paymentsOf(key);
    expect(row).toMatchObject({ status: "approved", amount: t.owed, cardLast4: "4242", authReference: s.payment_intent ?? session(id).payment_intent });
    expect(returned.headers.get("Location")).toBe(`/customer-portal/receipts/${row!.id}?new=1`);
    expect((await paymentLines(row!.id)).map((l) => l.amount)).toEqual([t.owed]);
    expect(await t.balance()).toBe(0);
    expect(await receiptsTo(t.email)).toHaveLength(1);
    expect(intentsOf(key)).toHaveLength(1);

    // The same return again (refresh, back button): the receipt, nothing more.
    const again = await get(t, payLoader, back);
    expect(again.headers.get("Location")).toBe(`/customer-portal/receipts/${row!.id}?new=1`);
    expect(await paymentsOf(key)).toHaveLength(1);
    expect(await receiptsTo(t.email)).toHaveLength(1);

    // Stripe's webhooks arrive after: nothing recorded again, a duplicate delivery is not taken.
    fake.control.resumeWebhooks();
    await fake.control.webhooksSettled();
    const [event] = await checkoutEvents(key);
    expect(event?.outcome).toBe("already recorded");
    fake.control.redeliver(event!.id);
    await fake.control.webhooksSettled();
    expect(await paymentsOf(key)).toHaveLength(1);
    expect((await paymentLines(row!.id)).map((l) => l.amount)).toEqual([t.owed]);
    expect(await t.balance()).toBe(0);
    expect(await receiptsTo(t.email)).toHaveLength(1);
  });

  it("another amount with 'save this card': the card is saved as the Stripe customer's payment method", async () => {
    const t = await tenantOwing();
    const key = `co-save-${Date.now()}`;
    fake.control.pauseWebhooks();
    const id = await outToCheckout(payAction, `/customer-portal/units/${t.leaseId}/pay`, t.form({ idempotency_key: key, amount_choice: "other", other_amount: "12.34", save_card: "on", ...noToken }));
    expect(session(id)).toMatchObject({ amount_total: 1234 });
    const returned = await get(t, payLoader, payOnCheckout(id, { ...CARD, number: "5555555555554444" }));
    expect(returned.headers.get("Location")).toMatch(/^\/customer-portal\/receipts\/\d+\?new=1$/);
    expect(await paymentsOf(key)).toMatchObject([{ status: "approved", amount: 1234, cardLast4: "4444" }]);
    const cards = await handle.db.select().from(savedCards).where(and(eq(savedCards.tenantId, t.tenantId), like(savedCards.gatewayToken, "cus_%")));
    expect(cards).toMatchObject([{ brand: "mastercard", last4: "4444", expMonth: 12, expYear: 2034 }]);
    expect(cards[0]!.gatewayToken).toBe(`${session(id).customer}:${(fake.control.get(session(id).payment_intent!) as { payment_method: string }).payment_method}`);
    expect(await t.balance()).toBe(t.owed - 1234);
  });

  it("cancel on Checkout: back to the form with the values kept, nothing charged", async () => {
    const t = await tenantOwing();
    const id = await outToCheckout(payAction, `/customer-portal/units/${t.leaseId}/pay`, t.form({ idempotency_key: `co-cancel-${Date.now()}`, amount_choice: "other", other_amount: "20.00", ...noToken }));
    const cancel = new URL(session(id).cancel_url);
    const page = await get<{ checkoutResult: { initialValue: Record<string, string>; error: Record<string, string[]> } }>(t, payLoader, `${cancel.pathname}${cancel.search}`);
    expect(page.status).toBe(200);
    expect(page.data.checkoutResult.error[""]).toEqual([HOSTED_PAGE_CANCELLED]);
    expect(page.data.checkoutResult.initialValue).toMatchObject({ amount_choice: "other", other_amount: "20.00", payment_method: "new" });
    // Expired at once through the API (decision 442): nothing can be paid on it afterwards.
    expect((fake.control.get(id) as { status: string }).status).toBe("expired");
    expect(fake.control.submitCheckout(id, CARD)).toEqual({ error: "This Checkout Session is no longer open." });
    expect(fake.control.requests().some((q) => q.method === "POST" && q.path === `/v1/checkout/sessions/${id}/expire`)).toBe(true);
    const [recorded] = await handle.db.select().from(hostedSessions).where(eq(hostedSessions.id, id));
    expect(recorded!.expiredAt).not.toBeNull();
  });

  it("a cancel after the page was paid meanwhile (another tab) is taken as the return: the receipt, never 'nothing was charged'", async () => {
    const t = await tenantOwing();
    const key = `co-cancel-paid-${Date.now()}`;
    const id = await outToCheckout(payAction, `/customer-portal/units/${t.leaseId}/pay`, t.form({ idempotency_key: key, amount_choice: "other", other_amount: "21.00", ...noToken }));
    payOnCheckout(id);
    const cancel = new URL(session(id).cancel_url);
    const page = await get(t, payLoader, `${cancel.pathname}${cancel.search}`);
    const [paid] = await paymentsOf(key);
    expect(paid).toMatchObject({ status: "approved", amount: 2100 });
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toBe(`/customer-portal/receipts/${paid!.id}?new=1`);
  });

  it("another payment's session (another tenant's, or another key) records nothing here", async () => {
    const a = await tenantOwing();
    const b = await tenantOwing();
    fake.control.pauseWebhooks();
    const key = `co-other-${Date.now()}`;
    const id = await outToCheckout(payAction, `/customer-portal/units/${a.leaseId}/pay`, a.form({ idempotency_key: key, amount_choice: "balance", ...noToken }));
    payOnCheckout(id);
    const onB = await get<{ checkoutResult: { error: Record<string, string[]> } }>(b, payLoader, `/customer-portal/units/${b.leaseId}/pay?checkout_session=${id}&payment=${key}`);
    expect(onB.data.checkoutResult.error[""]).toEqual([HOSTED_PAGE_OTHER]);
    const otherKey = await get<{ checkoutResult: { error: Record<string, string[]> } }>(a, payLoader, `/customer-portal/units/${a.leaseId}/pay?checkout_session=${id}&payment=another-key-123456`);
    expect(otherKey.data.checkoutResult.error[""]).toEqual([HOSTED_PAGE_OTHER]);
    const onPrepay = await get<{ checkoutResult: { error: Record<string, string[]> } }>(a, prepayLoader, `/customer-portal/units/${a.leaseId}/prepay?checkout_session=${id}&payment=${key}`);
    expect(onPrepay.data.checkoutResult?.error[""]).toEqual([HOSTED_PAGE_OTHER]);
    expect(await paymentsOf(key)).toEqual([]);
    expect(await b.balance()).toBe(b.owed);
  });

  it("paid on Checkout but no longer owed (the balance was paid another way meanwhile): refunded at once, with a message; nothing recorded", async () => {
    const t = await tenantOwing();
    fake.control.pauseWebhooks();
    const key = `co-late-${Date.now()}`;
    const id = await outToCheckout(payAction, `/customer-portal/units/${t.leaseId}/pay`, t.form({ idempotency_key: key, amount_choice: "balance", ...noToken }));
    // Meanwhile, in another tab with Stripe's fields: the balance is paid.
    const other = await callRoute(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, {
      init: t.form({ idempotency_key: `co-late-token-${Date.now()}`, amount_choice: "balance", payment_method: "new", hosted_fields: "1", payment_token: "pm_card_visa" }),
    });
    expect(other.status).toBe(303);
    expect(await t.balance()).toBe(0);
    const back = await get<{ checkoutResult: { error: Record<string, string[]> } }>(t, payLoader, payOnCheckout(id));
    expect(back.status).toBe(200);
    expect(back.data.checkoutResult.error[""]![0]).toMatch(/balance due changed.*refunded in full/s);
    expect(await paymentsOf(key)).toEqual([]);
    const pi = fake.control.get(session(id).payment_intent!) as { latest_charge: string };
    expect(fake.control.get(pi.latest_charge)).toMatchObject({ refunded: true });
    expect(await t.balance()).toBe(0);
    // The second return says the same; the webhook finds it taken.
    const again = await get<{ checkoutResult: { error: Record<string, string[]> } }>(t, payLoader, `/customer-portal/units/${t.leaseId}/pay?checkout_session=${id}&payment=${key}`);
    expect(again.data.checkoutResult.error[""]![0]).toMatch(/refunded in full/);
    fake.control.resumeWebhooks();
    await fake.control.webhooksSettled();
    expect((await checkoutEvents(key))[0]?.outcome).toBe("already refunded");
    expect(fake.control.objects("refund").filter((r) => r.payment_intent === session(id).payment_intent)).toHaveLength(1);
  });

  it("the tenant never comes back: the webhook records the payment once (receipt e-mailed); a duplicate webhook does nothing; a late return shows the receipt", async () => {
    const t = await tenantOwing();
    const key = `co-hook-${Date.now()}`;
    const id = await outToCheckout(payAction, `/customer-portal/units/${t.leaseId}/pay`, t.form({ idempotency_key: key, amount_choice: "balance", ...noToken }));
    const back = payOnCheckout(id);
    await fake.control.webhooksSettled();
    const [row] = await paymentsOf(key);
    expect(row).toMatchObject({ status: "approved", amount: t.owed });
    expect(await t.balance()).toBe(0);
    expect(await receiptsTo(t.email)).toHaveLength(1);
    const [event] = await checkoutEvents(key);
    expect(event?.outcome).toBe(`recorded: Checkout payment ${row!.id}`);
    fake.control.redeliver(event!.id);
    await fake.control.webhooksSettled();
    expect(await paymentsOf(key)).toHaveLength(1);
    expect((await paymentLines(row!.id)).map((l) => l.amount)).toEqual([t.owed]);
    const late = await get(t, payLoader, back);
    expect(late.headers.get("Location")).toBe(`/customer-portal/receipts/${row!.id}?new=1`);
    expect(await receiptsTo(t.email)).toHaveLength(1);
    expect(intentsOf(key)).toHaveLength(1);
  });

  it("the return and the webhook at the same moment: one payment, one ledger line, one receipt", async () => {
    const t = await tenantOwing();
    const key = `co-race-${Date.now()}`;
    fake.control.pauseWebhooks(["checkout.session.completed"]);
    const id = await outToCheckout(payAction, `/customer-portal/units/${t.leaseId}/pay`, t.form({ idempotency_key: key, amount_choice: "balance", ...noToken }));
    const back = payOnCheckout(id);
    fake.control.resumeWebhooks();
    const [returned] = await Promise.all([get(t, payLoader, back), fake.control.webhooksSettled()]);
    const rows = await paymentsOf(key);
    expect(rows).toHaveLength(1);
    expect(returned.headers.get("Location")).toBe(`/customer-portal/receipts/${rows[0]!.id}?new=1`);
    expect((await paymentLines(rows[0]!.id)).map((l) => l.amount)).toEqual([t.owed]);
    expect(await receiptsTo(t.email)).toHaveLength(1);
    expect(await t.balance()).toBe(0);
  });
});

describe("prepay without JavaScript", () => {
  it("Checkout for the months' total; back: the prepayment recorded once, paid-through moved on", async () => {
    const t = await tenantOwing();
    const page = await get<{ offers: Array<{ months: number; total: number; newPaidThroughDate: string }> }>(t, prepayLoader, `/customer-portal/units/${t.leaseId}/prepay`);
    const offer = page.data.offers[0]!;
    const key = `co-prepay-${Date.now()}`;
    fake.control.pauseWebhooks();
    const id = await outToCheckout(
      prepayAction,
      `/customer-portal/units/${t.leaseId}/prepay`,
      t.form({ idempotency_key: key, months: String(offer.months), [`expected_total_${offer.months}`]: String(offer.total), ...noToken }),
    );
    expect(session(id)).toMatchObject({ amount_total: offer.total });
    expect(session(id).metadata).toMatchObject({ gatehouse_flow: "portal_prepay", gatehouse_months: String(offer.months) });
    const back = payOnCheckout(id);
    const returned = await get(t, prepayLoader, back);
    const [row] = await paymentsOf(key);
    expect(row).toMatchObject({ status: "approved", amount: offer.total, source: "prepay" });
    expect(returned.headers.get("Location")).toBe(`/customer-portal/receipts/${row!.id}?new=1`);
    const lease = await handle.db.query.leases.findFirst({ where: eq(leases.id, Number(t.leaseId)) });
    expect(lease?.paidThroughDate).toBe(offer.newPaidThroughDate);
    expect((await get(t, prepayLoader, back)).headers.get("Location")).toBe(`/customer-portal/receipts/${row!.id}?new=1`);
    fake.control.resumeWebhooks();
    await fake.control.webhooksSettled();
    expect(await paymentsOf(key)).toHaveLength(1);
    expect(await receiptsTo(t.email)).toHaveLength(1);
    expect(intentsOf(key)).toHaveLength(1);
  });
});

describe("the pay link without JavaScript", () => {
  async function linkOf(t: Tenant) {
    const r = await sendPayLink(handle.db, { tenantId: t.tenantId, leaseId: Number(t.leaseId), staffId: 7, now: clockNow() });
    expect(r.ok).toBe(true);
    const [mail] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, t.email)).orderBy(sql`${emailOutbox.id} desc`).limit(1);
    return /\/pay\/([A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43})/.exec(readOutboxMail(mail!).text)![1]!;
  }

  it("Checkout for the balance due; back: paid once, the link used, the confirmation shown to this browser; the webhook finds it recorded", async () => {
    const t = await tenantOwing();
    const token = await linkOf(t);
    const { setCookie } = await getCsrfToken(new Request("http://localhost/pay"));
    const cookies = [setCookie!.split(";")[0]!];
    const page = await callRoute<{ state: string; csrfToken: string; idempotencyKey: string; due: number }>(linkLoader, handle.db, `/pay/${token}`, { init: { headers: { Cookie: cookies.join("; ") } } });
    expect(page.data).toMatchObject({ state: "valid", due: t.owed });
    fake.control.pauseWebhooks();
    const id = await outToCheckout(linkAction, `/pay/${token}`, {
      method: "POST",
      body: new URLSearchParams({ csrf: page.data.csrfToken, idempotency_key: page.data.idempotencyKey, expected_amount: String(page.data.due), ...noToken }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookies.join("; ") },
    });
    expect(session(id)).toMatchObject({ amount_total: t.owed });
    expect(session(id).metadata).toMatchObject({ gatehouse_flow: "pay_link", gatehouse_key: page.data.idempotencyKey });
    const back = payOnCheckout(id);
    const returned = await callRoute(linkLoader, handle.db, back, { init: { headers: { Cookie: cookies.join("; ") } } });
    expect(returned.status).toBe(302);
    expect(returned.headers.get("Location")).toBe(`/pay/${token}`);
    for (const c of returned.headers.getSetCookie()) cookies.push(c.split(";")[0]!);
    const paid = await callRoute<{ state: string; receipt: { amount: number } }>(linkLoader, handle.db, `/pay/${token}`, { init: { headers: { Cookie: cookies.join("; ") } } });
    expect(paid.data).toMatchObject({ state: "paid", receipt: { amount: t.owed } });
    expect(await paymentsOf(page.data.idempotencyKey)).toMatchObject([{ status: "approved", amount: t.owed }]);
    expect(await t.balance()).toBe(0);
    // A second return: the confirmation again, nothing more.
    const again = await callRoute(linkLoader, handle.db, back, { init: { headers: { Cookie: cookies.join("; ") } } });
    expect(again.headers.get("Location")).toBe(`/pay/${token}`);
    fake.control.resumeWebhooks();
    await fake.control.webhooksSettled();
    expect(await paymentsOf(page.data.idempotencyKey)).toHaveLength(1);
    expect(await receiptsTo(t.email)).toHaveLength(1);
  });

  it("the tenant never comes back: the webhook records it and uses the link", async () => {
    const t = await tenantOwing();
    const token = await linkOf(t);
    const { setCookie } = await getCsrfToken(new Request("http://localhost/pay"));
    const cookie = setCookie!.split(";")[0]!;
    const page = await callRoute<{ csrfToken: string; idempotencyKey: string; due: number }>(linkLoader, handle.db, `/pay/${token}`, { init: { headers: { Cookie: cookie } } });
    const id = await outToCheckout(linkAction, `/pay/${token}`, {
      method: "POST",
      body: new URLSearchParams({ csrf: page.data.csrfToken, idempotency_key: page.data.idempotencyKey, expected_amount: String(page.data.due), ...noToken }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
    });
    payOnCheckout(id);
    await fake.control.webhooksSettled();
    expect(await paymentsOf(page.data.idempotencyKey)).toMatchObject([{ status: "approved", amount: t.owed }]);
    const used = await callRoute<{ state: string }>(linkLoader, handle.db, `/pay/${token}`);
    expect(used.data.state).toBe("used");
  });
});

describe("autopay enrolment without JavaScript (Checkout in setup mode)", () => {
  it("out to Stripe's card page on the tenant's customer; back: the card saved (cus_…:pm_…) and autopay on, once", async () => {
    const t = await tenantOwing();
    fake.control.pauseWebhooks();
    const id = await outToCheckout(autopayAction, `/customer-portal/units/${t.leaseId}/autopay`, t.form({ intent: "enrol", agree_terms: "on", ...noToken }));
    const s = session(id);
    expect(s).toMatchObject({ mode: "setup", amount_total: null });
    expect(s.customer).toMatch(/^cus_/);
    expect(s.metadata).toMatchObject({ gatehouse_flow: "portal_autopay", gatehouse_lease: t.leaseId });
    // Not yet saved: back early, nothing changes.
    const early = await get<{ checkoutResult: { error: Record<string, string[]> } }>(t, autopayLoader, `/customer-portal/units/${t.leaseId}/autopay?checkout_session=${id}&payment=${s.metadata.gatehouse_key}`);
    expect(early.data.checkoutResult.error[""]![0]).toContain("not saved");
    const back = payOnCheckout(id, { ...CARD, number: "5555555555554444" });
    const returned = await get(t, autopayLoader, back);
    expect(returned.headers.get("Location")).toBe("/customer-portal?done=autopay-on");
    const lease = await handle.db.query.leases.findFirst({ where: eq(leases.id, Number(t.leaseId)) });
    expect(lease?.autopayEnabled).toBe(true);
    const card = await handle.db.query.savedCards.findFirst({ where: eq(savedCards.id, lease!.autopayCardId!) });
    const si = fake.control.get(session(id).setup_intent!) as { status: string; payment_method: string; customer: string };
    expect(si.status).toBe("succeeded");
    expect(card).toMatchObject({ brand: "mastercard", last4: "4444", expMonth: 12, expYear: 2034, gatewayToken: `${s.customer}:${si.payment_method}` });
    // Again (refresh): the same, one card.
    expect((await get(t, autopayLoader, back)).headers.get("Location")).toBe("/customer-portal?done=autopay-on");
    fake.control.resumeWebhooks();
    await fake.control.webhooksSettled();
    const cards = await handle.db.select().from(savedCards).where(and(eq(savedCards.tenantId, t.tenantId), like(savedCards.gatewayToken, "cus_%")));
    expect(cards).toHaveLength(1);
    expect(fake.control.objects("setup_intent").filter((x) => x.customer === s.customer)).toHaveLength(1);
  });

  it("the tenant never comes back: the webhook saves the card and turns autopay on", async () => {
    const t = await tenantOwing();
    const id = await outToCheckout(autopayAction, `/customer-portal/units/${t.leaseId}/autopay`, t.form({ intent: "enrol", agree_terms: "on", ...noToken }));
    payOnCheckout(id);
    await fake.control.webhooksSettled();
    const lease = await handle.db.query.leases.findFirst({ where: eq(leases.id, Number(t.leaseId)) });
    expect(lease?.autopayEnabled).toBe(true);
    const card = await handle.db.query.savedCards.findFirst({ where: eq(savedCards.id, lease!.autopayCardId!) });
    expect(card).toMatchObject({ brand: "visa", last4: "4242" });
    const [event] = await handle.db.select().from(gatewayEvents).where(and(eq(gatewayEvents.idempotencyKey, session(id).metadata.gatehouse_key!), eq(gatewayEvents.type, "checkout.session.completed")));
    expect(event?.outcome).toBe("recorded: autopay enrolled from Checkout");
  });
});
