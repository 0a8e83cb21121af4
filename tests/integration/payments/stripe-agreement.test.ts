/**
 * Issue 25, "Done when": through the Stripe gateway on the Stripe fake, a rental (move-in), a portal
 * payment, autopay enrolment and a billing-run charge each meet a declined card, a card that needs
 * authentication (left unauthenticated, then completed), a timeout after the charge and a duplicate
 * webhook; each ends with the money and the lease in agreement: the money at Stripe (succeeded
 * PaymentIntents minus refunds) equals what our payments and ledger record, and a unit is rented iff
 * it is paid. Webhooks are delivered over real HTTP to the app (signed, as Stripe sends them); the
 * mail goes through a real SMTP exchange.
 *
 * Authentication is completed the ways main has today: Stripe's page (Checkout, JavaScript off) for
 * the rental, the e-mailed link for portal and billing-run payments; the in-page confirmation with
 * JavaScript on (stripe.handleNextAction) is another branch's (h25-3ds).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { gatewayEvents, leases, payments, rentals, savedCards, units } from "~/db/schema";
import { ledgerEntries } from "~/db/schema/billing";
import { now as clockNow } from "~/platform/clock.server";
import { localDate } from "~/domain/shared/calendar";
import { setPaymentGatewayForTests } from "~/platform/payments/gateway.server";
import { runBilling } from "~/services/payments/billing-run.server";
import { sweepUnrecordedCharges } from "~/services/rental/record.server";
import { recheckWaitingWebhooks, WAITING_MS } from "~/services/payments/waiting-webhooks.server";
import { AUTOPAY_NOT_ANSWERED } from "~/services/portal/payments.server";
import { action as payAction } from "~/routes/portal/pay";
import { action as prepayAction, loader as prepayLoader } from "~/routes/portal/prepay";
import { action as autopayAction } from "~/routes/portal/autopay";
import { action as authenticateAction, loader as authenticateLoader } from "~/routes/payments/pay.authenticate";
import type { RunningStripeFake } from "../../../stripe-fake";
import { lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";
import { callRoute } from "../support/route-helpers";
import {
  autopayTenant,
  intentOf as intentOfKey,
  markMoney,
  moneySince,
  portalTenant,
  rentalPayStep,
  startStripeTestbed,
  type MoneyMark,
  type PortalTenant,
  type StripeTestbed,
} from "../support/stripe-fixtures";

let bed: StripeTestbed;
let handle: DatabaseHandle;
let fake: RunningStripeFake;
let unitTypeId: string;
const TZ = "America/New_York";
const CARD = { number: "4242424242424242", exp_month: "12", exp_year: "2030", cvc: "123", name: "Ada Lovelace" };

beforeAll(async () => {
  bed = await startStripeTestbed({ webhooks: true, secret: "whsec_gatehouse_agreement_test", now: NOW, smtp: true });
  ({ handle, fake } = bed);
  unitTypeId = (await lumbertonUnitType(handle.db)).unitTypeId;
});
beforeEach(async () => {
  fake.control.clearFaults();
  fake.control.resumeWebhooks();
  setPaymentGatewayForTests(bed.gateway());
  // Earlier rentals hold units; let them go so each rental finds one free.
  await handle.db.update(units).set({ heldUntil: null, holdToken: null }).where(eq(units.unitTypeId, Number(unitTypeId)));
});
afterAll(async () => {
  await bed?.close();
});

const intentOf = (key: string) => intentOfKey(fake, key);
const later = () => new Date(clockNow().getTime() + WAITING_MS + 1000);
const rental = () => rentalPayStep(handle.db, unitTypeId);
const rentalKey = async (id: string) => (await handle.db.query.rentals.findFirst({ where: eq(rentals.id, id) }))!.idempotencyKey;
const successEventOf = (key: string) =>
  fake.control.events("payment_intent.succeeded").find((e) => (e.data.object.metadata as Record<string, string> | undefined)?.gatehouse_key === key);
const outcomesOf = async (key: string) =>
  (await handle.db.select().from(gatewayEvents).where(and(eq(gatewayEvents.idempotencyKey, key), eq(gatewayEvents.type, "payment_intent.succeeded")))).map((e) => e.outcome);
/** A message's text as sent (quoted-printable soft line breaks and escapes undone). */
const decodedBody = (data: string) => data.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
const receiptsTo = (email: string) => bed.smtp!.received.filter((m) => m.to.includes(`RCPT TO:<${email}>`) && m.data.includes("Subject: Payment receipt"));

/** The money at Stripe since `mark` equals what we recorded (payments and ledger lines); returns it. */
async function agreed(mark: MoneyMark): Promise<number> {
  await fake.control.webhooksSettled();
  const money = await moneySince(bed, mark);
  expect(money.recorded, "recorded = at Stripe").toBe(money.atStripe);
  expect(money.ledger, "ledger = at Stripe").toBe(money.atStripe);
  return money.atStripe;
}

/** A rented unit iff its rental was paid. */
async function rentedIffPaid(rentalId: string, paid: number) {
  const leaseId = await rental().leaseOf(rentalId);
  if (paid === 0) {
    expect(leaseId).toBeNull();
    return null;
  }
  expect(leaseId).not.toBeNull();
  const lease = await handle.db.query.leases.findFirst({ where: eq(leases.id, leaseId!) });
  expect(lease?.status).toBe("active");
  return lease!;
}

const portalPay = (t: PortalTenant, key: string, token: string, amount = "25.00") =>
  callRoute(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, {
    init: t.form({ idempotency_key: key, amount_choice: "other", other_amount: amount, payment_method: "new", hosted_fields: "1", payment_token: token }),
  });
const enrol = (t: PortalTenant, token: string) =>
  callRoute<{ result?: { error?: Record<string, string[]> } }>(autopayAction, handle.db, `/customer-portal/units/${t.leaseId}/autopay`, {
    init: t.form({ intent: "enrol", agree_terms: "on", payment_method: "new", hosted_fields: "1", payment_token: token }),
  });
const leaseRow = async (leaseId: string) => (await handle.db.query.leases.findFirst({ where: eq(leases.id, Number(leaseId)) }))!;

/** The e-mailed authentication link of a payment held for the bank: its page, the bank's page, and the return. */
async function completeFromEmailedLink(email: string, options: { raceWebhook: boolean }) {
  // Sent through SMTP (the outbox keeps the link sealed until then, and no longer).
  const mail = bed.smtp!.received.find((m) => m.to.includes(`RCPT TO:<${email}>`) && m.data.includes("Subject: Please confirm your storage payment with your bank"));
  expect(mail).toBeDefined();
  const url = /https?:\/\/\S+\/pay\/authenticate\/([A-Za-z0-9_.-]+)/.exec(decodedBody(mail!.data));
  expect(url, mail!.data).not.toBeNull();
  const path = `/pay/authenticate/${url![1]}`;
  const page = await callRoute<{ page: { state: string }; csrfToken: string }>(authenticateLoader, handle.db, path);
  expect(page.data.page.state).toBe("open");
  const cookie = page.headers.get("Set-Cookie")?.split(";")[0] ?? "";
  const post = await callRoute(authenticateAction, handle.db, path, {
    init: { method: "POST", body: new URLSearchParams({ csrf: page.data.csrfToken }), headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie } },
  });
  expect(post.status).toBe(303);
  const bank = new URL(post.headers.get("Location")!);
  expect(bank.origin).toBe(fake.origin);
  const intentId = bank.pathname.split("/").pop()!;
  // The tenant confirms on the bank's page; Stripe's webhook and the tenant's return race each other.
  if (options.raceWebhook) fake.control.pauseWebhooks();
  fake.control.authenticate(intentId, "complete");
  const [back] = await Promise.all([
    callRoute<{ page: { state: string } }>(authenticateLoader, handle.db, `${path}?payment_intent=${intentId}&redirect_status=succeeded`),
    options.raceWebhook ? Promise.resolve(fake.control.resumeWebhooks()).then(() => fake.control.webhooksSettled()) : fake.control.webhooksSettled(),
  ]);
  expect(back.data.page.state).toBe("paid");
  await fake.control.webhooksSettled();
  return intentId;
}

/**
 * The bank's check run on the page (JavaScript on, decision 405): the cardholder completes it and the
 * page sends the form again with the PaymentIntent, while Stripe's webhook races that form.
 */
async function completeInPage(intentId: string, sendAgain: () => Promise<unknown>) {
  fake.control.pauseWebhooks();
  fake.control.authenticate(intentId, "complete");
  await Promise.all([sendAgain(), Promise.resolve(fake.control.resumeWebhooks()).then(() => fake.control.webhooksSettled())]);
  await fake.control.webhooksSettled();
}

describe("a rental (move-in) through Stripe", () => {
  it("a declined card: nothing rented, nothing charged", async () => {
    const mark = await markMoney(bed);
    const { id } = await signedRental(handle.db, unitTypeId);
    const r = await rental().pay(id, { payment_token: "pm_card_chargeDeclined" });
    expect(r.status).toBe(402);
    expect(await agreed(mark)).toBe(0);
    await rentedIffPaid(id, 0);
  });

  it("a card that needs authentication on Stripe's page (JavaScript off): nothing rented while it waits; completed, rented once and paid once", async () => {
    const mark = await markMoney(bed);
    const { id, quote } = await signedRental(handle.db, unitTypeId);
    const go = await rental().pay(id, {});
    const sessionId = new URL(go.headers.get("Location")!).pathname.split("/").pop()!;
    const submitted = fake.control.submitCheckout(sessionId, { ...CARD, number: "4000002760003184" });
    if (!("redirect" in submitted)) throw new Error(submitted.error);
    const challenge = new URL(submitted.redirect);
    expect(challenge.pathname).toMatch(/^\/3ds\//);
    // Left on the bank's page; the visitor comes back to the pay step: nothing rented, nothing charged.
    const early = await rental().get(id, `/rent/${unitTypeId}?step=pay&checkout_session=${sessionId}`);
    expect(early.headers.get("Location")).toBe(`/rent/${unitTypeId}?step=pay`);
    expect(await agreed(mark)).toBe(0);
    await rentedIffPaid(id, 0);
    // Completed: Stripe returns the visitor to us; the lease and the payment are recorded together.
    fake.control.authenticate(challenge.pathname.split("/").pop()!, "complete");
    const done = await fetch(challenge.searchParams.get("return_url")!, { redirect: "manual" });
    const back = new URL(done.headers.get("Location")!);
    const returned = await rental().get(id, `${back.pathname}${back.search}`);
    expect(returned.headers.get("Location")).toBe(`/rent/${unitTypeId}/confirmation`);
    expect(await agreed(mark)).toBe(quote.total);
    await rentedIffPaid(id, quote.total);
  });

  it("a card that needs authentication through Stripe's fields, confirmed by the cardholder after the page gave up on it: refunded by the sweep once the hold has run out (no lease, no money)", async () => {
    const mark = await markMoney(bed);
    const { id, quote } = await signedRental(handle.db, unitTypeId);
    const key = await rentalKey(id);
    const r = await rental().pay(id, { payment_token: "pm_card_authenticationRequired" });
    // The page runs the bank's check (decision 405): nothing rented or charged meanwhile.
    expect(r.status).toBe(200);
    expect(await agreed(mark)).toBe(0);
    await rentedIffPaid(id, 0);
    // The cardholder completes the bank's check anyway (a page that never sent the PaymentIntent back).
    fake.control.authenticate(intentOf(key)!.id, "complete");
    await fake.control.webhooksSettled();
    expect(await outcomesOf(key)).toEqual(["pending: the rental is finished on return or by the sweep"]);
    const row = (await handle.db.query.rentals.findFirst({ where: eq(rentals.id, id) }))!;
    expect(await sweepUnrecordedCharges(handle.db, new Date(row.expiresAt!.getTime() + 6 * 60_000))).toBeGreaterThanOrEqual(1);
    expect(fake.control.objects("refund").filter((f) => f.payment_intent === intentOf(key)!.id)).toHaveLength(1);
    expect(await agreed(mark)).toBe(0);
    await rentedIffPaid(id, 0);
    expect(quote.total).toBeGreaterThan(0);
  });

  it("a timeout after the charge: found by its key, rented once and paid once; the webhook meanwhile flags nothing", async () => {
    const mark = await markMoney(bed);
    const { id, quote } = await signedRental(handle.db, unitTypeId);
    const key = await rentalKey(id);
    setPaymentGatewayForTests(bed.gateway({ timeoutMs: 1500, maxNetworkRetries: 0 }));
    fake.control.addFault({ method: "POST", path: "/v1/payment_intents", mode: "timeout", times: 1 });
    const r = await rental().pay(id, { payment_token: "pm_card_visa" });
    expect(r.headers.get("Location")).toBe(`/rent/${unitTypeId}/confirmation`);
    expect(await agreed(mark)).toBe(quote.total);
    await rentedIffPaid(id, quote.total);
    expect((await outcomesOf(key)).some((o) => o.startsWith("needs attention"))).toBe(false);
  });

  it("a duplicate webhook: taken once, one lease, one payment", async () => {
    const mark = await markMoney(bed);
    const { id, quote } = await signedRental(handle.db, unitTypeId);
    const key = await rentalKey(id);
    await rental().pay(id, { payment_token: "pm_card_visa" });
    await fake.control.webhooksSettled();
    const event = successEventOf(key)!;
    fake.control.redeliver(event.id);
    fake.control.redeliver(event.id);
    expect(await agreed(mark)).toBe(quote.total);
    await rentedIffPaid(id, quote.total);
    expect(await outcomesOf(key)).toHaveLength(1);
    expect((await outcomesOf(key)).some((o) => o.startsWith("needs attention"))).toBe(false);
    expect(fake.control.deliveries().filter((d) => d.eventId === event.id).map((d) => d.status)).toEqual([200, 200, 200]);
  });
});

describe("a portal payment through Stripe", () => {
  it("a declined card: recorded as declined, no ledger line, nothing charged", async () => {
    const t = await portalTenant(bed, { prefix: "agree-pay" });
    const mark = await markMoney(bed);
    const r = await portalPay(t, `agree-pay-decl-${Date.now()}`, "pm_card_chargeDeclined");
    expect(r.status).toBe(400);
    expect(await agreed(mark)).toBe(0);
  });

  it("a card that needs authentication: nothing paid while it waits; completed on the page while the webhook races the form sent back, recorded once with one receipt e-mail", async () => {
    const t = await portalTenant(bed, { prefix: "agree-pay-auth" });
    const mark = await markMoney(bed);
    const key = `agree-pay-auth-${Date.now()}`;
    const r = await portalPay(t, key, "pm_card_authenticationRequired", "31.00");
    // The page runs the bank's check (decision 405): answered with the intent's client secret.
    expect(r.status).toBe(200);
    expect(await agreed(mark)).toBe(0);
    expect(receiptsTo(t.email)).toHaveLength(0);
    const before = (await leaseRow(t.leaseId)).paidThroughDate;

    const pi = intentOf(key)!.id;
    await completeInPage(pi, () => portalPay(t, key, pi, "31.00"));
    expect(await agreed(mark)).toBe(3100);
    const paid = await handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, key) });
    expect(paid).toMatchObject({ status: "approved", amount: 3100 });
    // The receipt the portal sends, once, with its link from the configured origin.
    const receipts = receiptsTo(t.email);
    expect(receipts).toHaveLength(1);
    expect(decodedBody(receipts[0]!.data)).toContain("$31.00");
    expect(decodedBody(receipts[0]!.data)).toMatch(new RegExp(`https?://[^\\s/]+/customer-portal/receipts/${paid!.id}`));
    expect((await leaseRow(t.leaseId)).paidThroughDate >= before).toBe(true);
    // A duplicate delivery afterwards changes nothing and sends nothing.
    fake.control.redeliver(successEventOf(key)!.id);
    expect(await agreed(mark)).toBe(3100);
    expect(receiptsTo(t.email)).toHaveLength(1);
  });

  it("a prepayment that needs authentication: completed on the page, it posts the months it paid for (paid-through moves as quoted), once", async () => {
    const t = await portalTenant(bed, { prefix: "agree-prepay-auth" });
    const path = `/customer-portal/units/${t.leaseId}/prepay`;
    const page = await callRoute<{ offers: Array<{ months: number; total: number; newPaidThroughDate: string }> }>(prepayLoader, handle.db, path, { init: { headers: { Cookie: t.session } } });
    const offer = page.data.offers.find((o) => o.months === 2) ?? page.data.offers[0]!;
    const mark = await markMoney(bed);
    const key = `agree-prepay-auth-${Date.now()}`;
    const prepay = (token: string) =>
      callRoute(prepayAction, handle.db, path, {
        init: t.form({ idempotency_key: key, months: String(offer.months), [`expected_total_${offer.months}`]: String(offer.total), payment_method: "new", hosted_fields: "1", payment_token: token }),
      });
    const r = await prepay("pm_card_authenticationRequired");
    expect(r.status).toBe(200);
    expect(await agreed(mark)).toBe(0);
    const chargesBefore = await handle.db.select().from(ledgerEntries).where(and(eq(ledgerEntries.leaseId, Number(t.leaseId)), eq(ledgerEntries.kind, "charge")));

    const pi = intentOf(key)!.id;
    await completeInPage(pi, () => prepay(pi));
    expect(await agreed(mark)).toBe(offer.total);
    const lease = await leaseRow(t.leaseId);
    expect(lease.paidThroughDate).toBe(offer.newPaidThroughDate);
    const lines = await handle.db.select().from(ledgerEntries).where(eq(ledgerEntries.leaseId, Number(t.leaseId)));
    const charges = lines.filter((l) => l.kind === "charge");
    expect(charges.length).toBeGreaterThan(chargesBefore.length);
    const payment = lines.find((l) => l.kind === "payment" && l.amount === offer.total);
    expect(payment?.description).toMatch(new RegExp(`^Prepayment, ${offer.months} months? \\(paid through `));
    // A duplicate delivery afterwards posts nothing more.
    fake.control.redeliver(successEventOf(key)!.id);
    expect(await agreed(mark)).toBe(offer.total);
    expect(await handle.db.select().from(ledgerEntries).where(eq(ledgerEntries.leaseId, Number(t.leaseId)))).toHaveLength(lines.length);
  });

  it("a timeout after the charge: recorded once; Stripe's webhook, come while the request waited, is not flagged", async () => {
    const t = await portalTenant(bed, { prefix: "agree-pay-timeout" });
    const mark = await markMoney(bed);
    const key = `agree-pay-timeout-${Date.now()}`;
    setPaymentGatewayForTests(bed.gateway({ timeoutMs: 1500, maxNetworkRetries: 0 }));
    fake.control.addFault({ method: "POST", path: "/v1/payment_intents", mode: "timeout", times: 1 });
    const r = await portalPay(t, key, "pm_card_visa", "17.00");
    expect(r.status).toBe(303);
    expect(await agreed(mark)).toBe(1700);
    expect(await outcomesOf(key)).toEqual(["already recorded"]);
    expect(receiptsTo(t.email)).toHaveLength(1);
    // Housekeeping later finds nothing to flag either.
    await recheckWaitingWebhooks(handle.db, later());
    expect(await outcomesOf(key)).toEqual(["already recorded"]);
  });

  it("a duplicate webhook: one payment, one ledger line, one receipt", async () => {
    const t = await portalTenant(bed, { prefix: "agree-pay-dup" });
    const mark = await markMoney(bed);
    const key = `agree-pay-dup-${Date.now()}`;
    expect((await portalPay(t, key, "pm_card_visa", "12.00")).status).toBe(303);
    await fake.control.webhooksSettled();
    fake.control.redeliver(successEventOf(key)!.id);
    expect(await agreed(mark)).toBe(1200);
    // Whether it came before the request recorded the payment (waiting, then judged at once) or after.
    expect(await outcomesOf(key)).toEqual(["already recorded"]);
    expect(receiptsTo(t.email)).toHaveLength(1);
  });
});

describe("autopay enrolment through Stripe", () => {
  it("a declined card: autopay stays off, no card saved, nothing charged", async () => {
    const t = await portalTenant(bed, { prefix: "agree-enrol-decl" });
    const mark = await markMoney(bed);
    const r = await enrol(t, "pm_card_chargeDeclined");
    expect(r.status).toBe(400);
    expect((await leaseRow(t.leaseId)).autopayEnabled).toBe(false);
    expect(await agreed(mark)).toBe(0);
  });

  it("a card that needs authentication: autopay stays off while it waits and when the cardholder completes it on Stripe's side later; nothing charged", async () => {
    const t = await portalTenant(bed, { prefix: "agree-enrol-auth" });
    const mark = await markMoney(bed);
    const setups = fake.control.objects("setup_intent").length;
    const r = await enrol(t, "pm_card_authenticationRequired");
    // The page runs the bank's check (decision 405); the tenant here never sends the SetupIntent back.
    expect(r.status).toBe(200);
    expect((await leaseRow(t.leaseId)).autopayEnabled).toBe(false);
    const held = fake.control.objects("setup_intent").slice(setups).find((s) => s.status === "requires_action");
    expect(held).toBeDefined();
    fake.control.authenticate(held!.id as string, "complete");
    await fake.control.webhooksSettled();
    expect((await leaseRow(t.leaseId)).autopayEnabled).toBe(false);
    expect(await agreed(mark)).toBe(0);
  });

  it("a timeout at Stripe: the tenant is asked to try again (never a 500), autopay off; the same form again enrols once", async () => {
    const t = await portalTenant(bed, { prefix: "agree-enrol-timeout" });
    const mark = await markMoney(bed);
    setPaymentGatewayForTests(bed.gateway({ timeoutMs: 1500, maxNetworkRetries: 0 }));
    fake.control.addFault({ method: "POST", path: "/v1/setup_intents", mode: "timeout", times: 1 });
    const r = await enrol(t, "pm_card_visa");
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.data)).toContain(AUTOPAY_NOT_ANSWERED);
    expect((await leaseRow(t.leaseId)).autopayEnabled).toBe(false);
    fake.control.clearFaults();
    const again = await enrol(t, "pm_card_visa");
    expect(again.status).toBe(303);
    const lease = await leaseRow(t.leaseId);
    expect(lease.autopayEnabled).toBe(true);
    expect(await agreed(mark)).toBe(0);
  });

  it("a duplicate webhook: enrolled once, one saved card, nothing charged", async () => {
    const t = await portalTenant(bed, { prefix: "agree-enrol-dup" });
    const mark = await markMoney(bed);
    expect((await enrol(t, "pm_card_visa")).status).toBe(303);
    const lease = await leaseRow(t.leaseId);
    const card = await handle.db.query.savedCards.findFirst({ where: eq(savedCards.id, lease.autopayCardId!) });
    const customer = card!.gatewayToken.split(":")[0];
    await fake.control.webhooksSettled();
    const event = fake.control.events("setup_intent.succeeded").find((e) => e.data.object.customer === customer)!;
    fake.control.redeliver(event.id);
    expect(await agreed(mark)).toBe(0);
    expect((await leaseRow(t.leaseId)).autopayCardId).toBe(card!.id);
    expect((await handle.db.select().from(savedCards).where(eq(savedCards.tenantId, t.tenantId))).filter((c) => c.gatewayToken.startsWith("cus_"))).toHaveLength(1);
    const [taken] = await handle.db.select().from(gatewayEvents).where(eq(gatewayEvents.id, event.id));
    expect(taken?.outcome).toBe("ignored");
  });
});

describe("a billing-run charge through Stripe", () => {
  const run = (t: { tenantId: number }) => {
    const now = clockNow();
    return runBilling(handle.db, { runDate: localDate(now, TZ), now, force: true, tenantId: t.tenantId });
  };
  const autopayPayment = (leaseId: string) => handle.db.query.payments.findFirst({ where: and(eq(payments.leaseId, Number(leaseId)), eq(payments.source, "autopay")) });

  it("a declined card: recorded as declined, the balance stays owed, nothing charged", async () => {
    const t = await autopayTenant(bed, "pm_card_chargeCustomerFail", { prefix: "agree-run-decl", timeZone: TZ });
    const mark = await markMoney(bed);
    const owed = await t.balance();
    expect((await run(t)).autopayDeclined).toBe(1);
    expect(await autopayPayment(t.leaseId)).toMatchObject({ status: "declined" });
    expect(await agreed(mark)).toBe(0);
    expect(await t.balance()).toBeGreaterThanOrEqual(owed);
  });

  it("a card that needs authentication: nothing paid while it waits; completed from the e-mailed link, recorded once, the balance paid, one receipt", async () => {
    const t = await autopayTenant(bed, "pm_card_authenticationRequired", { prefix: "agree-run-auth", timeZone: TZ });
    const mark = await markMoney(bed);
    await run(t);
    const held = await autopayPayment(t.leaseId);
    expect(held).toMatchObject({ status: "declined" });
    expect(await agreed(mark)).toBe(0);
    expect(await t.balance()).toBe(held!.amount);
    await completeFromEmailedLink(t.email, { raceWebhook: false });
    expect(await agreed(mark)).toBe(held!.amount);
    expect(await t.balance()).toBe(0);
    expect(receiptsTo(t.email)).toHaveLength(1);
    fake.control.redeliver(successEventOf(held!.idempotencyKey)!.id);
    expect(await agreed(mark)).toBe(held!.amount);
    expect(receiptsTo(t.email)).toHaveLength(1);
  });

  it("a timeout after the charge: found by its key and recorded once; the webhook that came meanwhile is judged 'already recorded', never flagged", async () => {
    const t = await autopayTenant(bed, "pm_card_visa", { prefix: "agree-run-timeout", timeZone: TZ });
    const mark = await markMoney(bed);
    setPaymentGatewayForTests(bed.gateway({ timeoutMs: 1500, maxNetworkRetries: 0 }));
    fake.control.addFault({ method: "POST", path: "/v1/payment_intents", mode: "timeout", times: 1 });
    expect((await run(t)).autopayCharged).toBe(1);
    const paid = await autopayPayment(t.leaseId);
    expect(paid).toMatchObject({ status: "approved" });
    expect(await agreed(mark)).toBe(paid!.amount);
    expect(await t.balance()).toBe(0);
    expect((await outcomesOf(paid!.idempotencyKey)).some((o) => o.startsWith("needs attention"))).toBe(false);
    await recheckWaitingWebhooks(handle.db, later());
    expect(await outcomesOf(paid!.idempotencyKey)).toEqual(["already recorded"]);
  });

  it("a duplicate webhook: one payment, the balance paid once", async () => {
    const t = await autopayTenant(bed, "pm_card_visa", { prefix: "agree-run-dup", timeZone: TZ });
    const mark = await markMoney(bed);
    expect((await run(t)).autopayCharged).toBe(1);
    const paid = await autopayPayment(t.leaseId);
    await fake.control.webhooksSettled();
    fake.control.redeliver(successEventOf(paid!.idempotencyKey)!.id);
    fake.control.redeliver(successEventOf(paid!.idempotencyKey)!.id);
    expect(await agreed(mark)).toBe(paid!.amount);
    expect(await t.balance()).toBe(0);
    expect(await handle.db.select().from(payments).where(eq(payments.idempotencyKey, paid!.idempotencyKey))).toHaveLength(1);
  });
});
