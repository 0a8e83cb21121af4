/**
 * Issue 25, decision 405: a card the bank wants confirmed (3-D Secure), completed on the card page
 * with JavaScript on. The server's charge of the PaymentMethod the page sent ends `requires_action`:
 * the answer carries the intent's client secret (nothing rented or recorded as paid); the page's
 * script completes the check (here `fake.control.authenticate`) and sends the form again with the
 * PaymentIntent (or SetupIntent), which the server takes only if, retrieved from Stripe, it succeeded
 * under this payment's key, for its amount and currency, and then records once. Runs on the Stripe
 * fake; the webhooks go over real HTTP to the app.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, count, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { emailOutbox, gatewayEvents, leases, ledgerEntries, payLinks, payments, rateLimitHits, rentals, savedCards, units } from "~/db/schema";
import { getCsrfToken } from "~/services/web/csrf.server";
import { rentalCookieHeader, sweepUnrecordedCharges } from "~/services/rental/record.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { createTenantSession } from "~/services/web/session.server";
import { setPaymentGatewayForTests } from "~/platform/payments/gateway.server";
import { createStripeClient, createStripeGateway } from "~/platform/payments/stripe.server";
import { action as rentAction } from "~/routes/rental/rent";
import { action as payAction } from "~/routes/portal/pay";
import { action as autopayAction } from "~/routes/portal/autopay";
import { action as payLinkAction, loader as payLinkLoader } from "~/routes/payments/pay";
import { sendPayLink } from "~/services/payments/pay-links.server";
import { readOutboxMail } from "~/services/mail/outbox.server";
import { runBilling } from "~/services/payments/billing-run.server";
import { now as clockNow } from "~/platform/clock.server";
import { addMonthsIso, localDate } from "~/domain/shared/calendar";
import { startStripeFake, type RunningStripeFake } from "../../../stripe-fake";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";
import { callRoute } from "../support/route-helpers";

let handle: DatabaseHandle;
let app: AppServer;
let fake: RunningStripeFake;
let unitTypeId: string;
const SECRET = "whsec_gatehouse_in_page_authentication";

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  handle = await createTestDatabase();
  app = await startAppServer(handle.db);
  unitTypeId = (await lumbertonUnitType(handle.db)).unitTypeId;
  fake = await startStripeFake({ port: 0 });
  fake.control.addWebhookEndpoint(`${app.origin}/webhooks/stripe`, { secret: SECRET });
  process.env.STRIPE_WEBHOOK_SECRET = SECRET;
});
beforeEach(async () => {
  setPaymentGatewayForTests(createStripeGateway({ secretKey: fake.secretKey, apiBase: fake.url }));
  await handle.db.update(units).set({ heldUntil: null, holdToken: null }).where(eq(units.unitTypeId, Number(unitTypeId)));
  // Every test comes from one address, and a payment held for the bank's check counts as a card attempt until one is approved.
  await handle.db.delete(rateLimitHits);
});
afterAll(async () => {
  delete process.env.FAKE_NOW;
  delete process.env.STRIPE_WEBHOOK_SECRET;
  setPaymentGatewayForTests(null);
  await fake?.close();
  await app?.close();
  await handle?.close();
});

type Intent = { id: string; status: string; amount: number; client_secret: string; metadata: Record<string, string> };
const intentsOf = (key: string) => fake.control.objects("payment_intent").filter((pi) => (pi.metadata as Record<string, string> | undefined)?.gatehouse_key === key) as unknown as Intent[];
const stripe = () => createStripeClient({ secretKey: fake.secretKey, apiBase: fake.url });

// ------------------------------------------------------------------------------------ the rental

interface RentAnswer {
  formError: string | null;
  authenticate?: { clientSecret: string } | null;
}

async function payPost(rentalId: string, fields: Record<string, string>) {
  const { token, setCookie } = await getCsrfToken(new Request("http://localhost/rent"));
  const cookie = `${setCookie!.split(";")[0]!}; ${(await rentalCookieHeader(rentalId)).split(";")[0]!}`;
  return callRoute<RentAnswer>(rentAction, handle.db, `/rent/${unitTypeId}?step=pay`, {
    params: { unitTypeId },
    init: { method: "POST", body: new URLSearchParams({ csrf: token, intent: "pay", ...fields }), headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } },
  });
}

const rentalRow = async (id: string) => (await handle.db.query.rentals.findFirst({ where: eq(rentals.id, id) }))!;
const leaseCount = async () => (await handle.db.select({ n: count() }).from(leases))[0]!.n;

/** A signed rental whose card the bank wants confirmed: the first answer, and the PaymentIntent held. */
async function heldRental(token = "pm_card_authenticationRequired") {
  const { id, quote } = await signedRental(handle.db, unitTypeId);
  const key = (await rentalRow(id)).idempotencyKey;
  const held = await payPost(id, { payment_token: token, autopay: "on" });
  const [pi] = intentsOf(key);
  return { id, quote, key, held, pi: pi! };
}

describe("the rental: the bank's check on the pay step", () => {
  it("answers with the client secret, rents nothing; completed on the page, the PaymentIntent sent back rents once, and a replay changes nothing", async () => {
    const leasesBefore = await leaseCount();
    const { id, quote, key, held, pi } = await heldRental();
    expect(held.status).toBe(200);
    expect(held.data.authenticate?.clientSecret).toBe(pi.client_secret);
    expect(held.data.formError).toBe("Your bank asks you to confirm this payment. Nothing has been charged yet.");
    expect(pi).toMatchObject({ status: "requires_action", amount: quote.total });
    // Nothing rented or paid; the rental keeps its key and its unit while the visitor confirms.
    expect(await leaseCount()).toBe(leasesBefore);
    expect(await rentalRow(id)).toMatchObject({ status: "charging", idempotencyKey: key, completedLeaseId: null });
    expect(await handle.db.select().from(payments).where(eq(payments.status, "approved")).then((rows) => rows.filter((p) => p.idempotencyKey === key))).toEqual([]);

    fake.control.authenticate(pi.id, "complete");
    await fake.control.webhooksSettled();
    // The webhook racing the page: the rental is still being paid, left to the page (nothing refunded).
    const [event] = await handle.db.select().from(gatewayEvents).where(and(eq(gatewayEvents.idempotencyKey, key), eq(gatewayEvents.type, "payment_intent.succeeded")));
    expect(event?.outcome).toMatch(/^pending/);

    const done = await payPost(id, { payment_token: pi.id, autopay: "on" });
    expect(done.status).toBe(303);
    expect(done.headers.get("Location")).toBe(`/rent/${unitTypeId}/confirmation`);
    const leaseId = (await rentalRow(id)).completedLeaseId!;
    expect(leaseId).not.toBeNull();
    const recorded = await handle.db.select().from(payments).where(eq(payments.leaseId, leaseId));
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ status: "approved", amount: quote.total, authReference: pi.id });
    // Autopay was chosen: the card authenticated on the page is saved (the customer's payment method).
    const lease = await handle.db.query.leases.findFirst({ where: eq(leases.id, leaseId) });
    const card = await handle.db.query.savedCards.findFirst({ where: eq(savedCards.id, lease!.autopayCardId!) });
    expect(card?.gatewayToken).toMatch(/^cus_\w+:pm_\w+$/);

    const again = await payPost(id, { payment_token: pi.id, autopay: "on" });
    expect(again.headers.get("Location")).toBe(`/rent/${unitTypeId}/confirmation`);
    expect(await leaseCount()).toBe(leasesBefore + 1);
    expect(await handle.db.select().from(payments).where(eq(payments.leaseId, leaseId))).toHaveLength(1);
    expect(intentsOf(key).filter((p) => p.status === "succeeded")).toHaveLength(1);
  });

  it("a failed check: nothing rented or charged; another card then rents, under a new key, and the held payment is cancelled", async () => {
    const { id, key, pi } = await heldRental();
    fake.control.authenticate(pi.id, "fail");
    expect(await rentalRow(id)).toMatchObject({ completedLeaseId: null });
    const ok = await payPost(id, { payment_token: "pm_card_visa", autopay: "on" });
    expect(ok.headers.get("Location")).toBe(`/rent/${unitTypeId}/confirmation`);
    const after = await rentalRow(id);
    expect(after.idempotencyKey).not.toBe(key);
    expect((fake.control.get(pi.id) as Intent).status).toBe("canceled");
    expect(intentsOf(after.idempotencyKey).map((p) => p.status)).toEqual(["succeeded"]);
  });

  it("a PaymentIntent that is not this payment is refused beside the card, nothing rented: not confirmed, another form's key, another amount (refunded)", async () => {
    // Not confirmed yet (sent back before the check): refused, and the held payment is given up.
    const first = await heldRental();
    const early = await payPost(first.id, { payment_token: first.pi.id, autopay: "on" });
    expect(early.status).toBe(402);
    expect(await rentalRow(first.id)).toMatchObject({ completedLeaseId: null, status: "open" });
    expect((fake.control.get(first.pi.id) as Intent).status).toBe("canceled");

    // Another form's key (a payment of someone else, succeeded, for the same amount): refused, not touched.
    const { id, quote } = await signedRental(handle.db, unitTypeId);
    const key = (await rentalRow(id)).idempotencyKey;
    const foreign = await stripe().paymentIntents.create({ amount: quote.total, currency: "usd", payment_method: "pm_card_visa", confirm: true, metadata: { gatehouse_key: "someone-else" } });
    const refused = await payPost(id, { payment_token: foreign.id });
    expect(refused.status).toBe(402);
    expect(refused.data.formError).toBeTruthy();
    expect(await rentalRow(id)).toMatchObject({ completedLeaseId: null });
    expect(fake.control.objects("refund").filter((r) => r.payment_intent === foreign.id)).toEqual([]);

    // This rental's key (a refusal gives the rental a new one) but another amount: refused, and the money taken under our key goes back.
    const key2 = (await rentalRow(id)).idempotencyKey;
    const wrong = await stripe().paymentIntents.create({ amount: quote.total + 100, currency: "usd", payment_method: "pm_card_visa", confirm: true, metadata: { gatehouse_key: key2 } });
    const other = await payPost(id, { payment_token: wrong.id });
    expect(other.status).toBe(402);
    expect(await rentalRow(id)).toMatchObject({ completedLeaseId: null, status: "open" });
    expect(fake.control.objects("refund").filter((r) => r.payment_intent === wrong.id)).toHaveLength(1);
    expect((await rentalRow(id)).idempotencyKey).not.toBe(key2);
    expect(key2).not.toBe(key);
  });

  it("the visitor leaves: the sweep cancels a check never done, and refunds one done without coming back", async () => {
    const left = await heldRental();
    const completed = await heldRental();
    fake.control.authenticate(completed.pi.id, "complete");
    await fake.control.webhooksSettled();
    const later = new Date((await rentalRow(completed.id)).expiresAt!.getTime() + 6 * 60_000);
    expect(await sweepUnrecordedCharges(handle.db, later)).toBeGreaterThanOrEqual(2);
    expect(await rentalRow(left.id)).toMatchObject({ status: "abandoned", completedLeaseId: null });
    expect((fake.control.get(left.pi.id) as Intent).status).toBe("canceled");
    expect(await rentalRow(completed.id)).toMatchObject({ status: "abandoned", completedLeaseId: null });
    expect(fake.control.objects("refund").filter((r) => r.payment_intent === completed.pi.id)).toHaveLength(1);
    // Coming back afterwards with the PaymentIntent rents nothing.
    const late = await payPost(completed.id, { payment_token: completed.pi.id });
    expect(late.status).toBe(303);
    expect(await rentalRow(completed.id)).toMatchObject({ completedLeaseId: null });
  });
});

// ------------------------------------------------------------------------------------ the portal

async function tenant() {
  const now = new Date();
  setPaymentGatewayForTests(null);
  const email = `in-page-${Date.now()}-${Math.random()}@example.com`;
  const t = await createTenantWithLease(handle.db, { email, password: "secret1", now, withInsurance: false });
  const session = (await createTenantSession(handle.db, { tenantId: String(t.tenantId), now })).split(";")[0]!;
  setPaymentGatewayForTests(createStripeGateway({ secretKey: fake.secretKey, apiBase: fake.url }));
  const csrf = (await getCsrfToken(new Request("http://localhost/", { headers: { Cookie: session } }))).token;
  const form = (body: Record<string, string>): RequestInit => ({
    method: "POST",
    body: new URLSearchParams({ csrf, ...body }),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: session },
  });
  return { tenantId: t.tenantId, leaseId: String(t.leaseId), email, session, form };
}

interface PortalAnswer {
  result: { error?: Record<string, string[]> } | null;
  authenticate?: { clientSecret: string; idempotencyKey?: string };
}

const paymentLines = (paymentId: number) => handle.db.select().from(ledgerEntries).where(and(eq(ledgerEntries.paymentId, paymentId), eq(ledgerEntries.kind, "payment")));

describe("the portal: the bank's check on the pay page", () => {
  async function held(t: Awaited<ReturnType<typeof tenant>>, key: string, dollars = "25.00") {
    const body = { idempotency_key: key, amount_choice: "other", other_amount: dollars, payment_method: "new", hosted_fields: "1" };
    const first = await callRoute<PortalAnswer>(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, { init: t.form({ ...body, payment_token: "pm_card_authenticationRequired" }) });
    const again = (token: string) => callRoute<PortalAnswer>(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, { init: t.form({ ...body, payment_token: token }) });
    return { first, again, pi: intentsOf(key)[0]! };
  }

  it("answers with the client secret and the form's key, e-mails nothing; the PaymentIntent sent back is recorded once, a replay and the webhook change nothing", async () => {
    const t = await tenant();
    const key = `in-page-pay-${Date.now()}`;
    const { first, again, pi } = await held(t, key);
    expect(first.status).toBe(200);
    expect(first.data.authenticate).toEqual({ clientSecret: pi.client_secret, idempotencyKey: key });
    expect(first.data.result?.error ?? {}).toEqual({});
    expect(await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, t.email))).toEqual([]);
    expect(await handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, key) })).toMatchObject({ status: "declined", amount: 2500 });

    fake.control.authenticate(pi.id, "complete");
    await fake.control.webhooksSettled();
    const done = await again(pi.id);
    expect(done.status).toBe(303);
    const row = (await handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, key) }))!;
    expect(done.headers.get("Location")).toBe(`/customer-portal/receipts/${row.id}?new=1`);
    expect(row).toMatchObject({ status: "approved", amount: 2500, authReference: pi.id });
    expect((await paymentLines(row.id)).map((l) => l.amount)).toEqual([2500]);

    const replay = await again(pi.id);
    expect(replay.headers.get("Location")).toBe(`/customer-portal/receipts/${row.id}?new=1`);
    const [event] = await handle.db.select().from(gatewayEvents).where(and(eq(gatewayEvents.idempotencyKey, key), eq(gatewayEvents.type, "payment_intent.succeeded")));
    fake.control.redeliver(event!.id);
    await fake.control.webhooksSettled();
    expect((await paymentLines(row.id)).map((l) => l.amount)).toEqual([2500]);
    expect(await handle.db.select().from(payments).where(eq(payments.idempotencyKey, key))).toHaveLength(1);
  });

  it("'save this card' on a payment completed on the page saves the card (decision 443), whether the webhook or the page records it first; once", async () => {
    for (const webhookFirst of [true, false]) {
      const t = await tenant();
      const key = `in-page-save-${webhookFirst ? "hook" : "page"}-${Date.now()}`;
      const body = { idempotency_key: key, amount_choice: "other", other_amount: "15.00", payment_method: "new", hosted_fields: "1", save_card: "on" };
      const post = (token: string) => callRoute<PortalAnswer>(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, { init: t.form({ ...body, payment_token: token }) });
      if (!webhookFirst) fake.control.pauseWebhooks();
      const first = await post("pm_card_authenticationRequired");
      expect(first.status).toBe(200);
      const pi = intentsOf(key)[0]!;
      expect(await handle.db.select().from(savedCards).where(eq(savedCards.tenantId, t.tenantId))).toEqual([]);
      fake.control.authenticate(pi.id, "complete");
      if (webhookFirst) await fake.control.webhooksSettled();
      const done = await post(pi.id);
      expect(done.status).toBe(303);
      if (!webhookFirst) {
        fake.control.resumeWebhooks();
        await fake.control.webhooksSettled();
      }
      expect((await post(pi.id)).status).toBe(303);
      const cards = await handle.db.select().from(savedCards).where(eq(savedCards.tenantId, t.tenantId));
      expect(cards).toHaveLength(1);
      const charged = (await stripe().paymentIntents.retrieve(pi.id)) as { customer: string | null; payment_method: string | null };
      expect(cards[0]!.gatewayToken).toBe(`${charged.customer}:${charged.payment_method}`);
      expect(cards[0]!.last4).toMatch(/^\d{4}$/);
      expect(await handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, key) })).toMatchObject({ status: "approved", amount: 1500 });
    }
  });

  it("refuses a PaymentIntent not confirmed, of another form's key, or of another amount: said on the form, nothing recorded", async () => {
    const t = await tenant();
    const key = `in-page-refuse-${Date.now()}`;
    const { again, pi } = await held(t, key, "12.00");
    const notYet = await again(pi.id);
    expect(notYet.status).toBe(400);
    expect(JSON.stringify(notYet.data)).toContain("not confirmed");

    const foreign = await stripe().paymentIntents.create({ amount: 1200, currency: "usd", payment_method: "pm_card_visa", confirm: true, metadata: { gatehouse_key: "another-form-key-0000" } });
    expect((await again(foreign.id)).status).toBe(400);
    const otherAmount = await stripe().paymentIntents.create({ amount: 1300, currency: "usd", payment_method: "pm_card_visa", confirm: true, metadata: { gatehouse_key: key } });
    expect((await again(otherAmount.id)).status).toBe(400);

    const row = (await handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, key) }))!;
    expect(row.status).toBe("declined");
    expect(await paymentLines(row.id)).toEqual([]);
  });

  it("autopay: a card whose set-up the bank checks is enrolled from the SetupIntent completed on the page; another tenant's SetupIntent is refused", async () => {
    const t = await tenant();
    const body = { intent: "enrol", payment_method: "new", hosted_fields: "1", agree_terms: "on" };
    const post = (token: string) => callRoute<PortalAnswer>(autopayAction, handle.db, `/customer-portal/units/${t.leaseId}/autopay`, { init: t.form({ ...body, payment_token: token }) });
    const first = await post("pm_card_authenticationRequiredOnSetup");
    expect(first.status, JSON.stringify(first.data)).toBe(200);
    const secret = first.data.authenticate?.clientSecret ?? "";
    expect(secret).toMatch(/^seti_/);
    const setupId = secret.split("_secret_")[0]!;
    expect(await handle.db.query.leases.findFirst({ where: eq(leases.id, Number(t.leaseId)) })).toMatchObject({ autopayEnabled: false });

    // Another tenant's set-up, completed: not this tenant's card.
    const other = await tenant();
    const theirs = await callRoute<PortalAnswer>(autopayAction, handle.db, `/customer-portal/units/${other.leaseId}/autopay`, { init: other.form({ ...body, payment_token: "pm_card_authenticationRequiredOnSetup" }) });
    const theirId = theirs.data.authenticate!.clientSecret.split("_secret_")[0]!;
    fake.control.authenticate(theirId, "complete");
    expect((await post(theirId)).status).toBe(400);

    fake.control.authenticate(setupId, "complete");
    const done = await post(setupId);
    expect(done.status).toBe(303);
    expect(done.headers.get("Location")).toBe("/customer-portal?done=autopay-on");
    const lease = await handle.db.query.leases.findFirst({ where: eq(leases.id, Number(t.leaseId)) });
    expect(lease?.autopayEnabled).toBe(true);
    const card = await handle.db.query.savedCards.findFirst({ where: eq(savedCards.id, lease!.autopayCardId!) });
    expect(card?.gatewayToken).toMatch(/^cus_\w+:pm_\w+$/);
  });
});

describe("the pay link: the bank's check on the page", () => {
  /** A tenant with rent due and a pay link on Stripe; `send` posts the link's form with a payment token. */
  async function payLinkForm(label: string) {
    const now = clockNow();
    setPaymentGatewayForTests(null);
    const email = `${label}-${Date.now()}@example.com`;
    const t = await createTenantWithLease(handle.db, { email, password: "secret1", now, moveInDate: addMonthsIso(localDate(now, "America/New_York"), -1), withInsurance: false });
    await runBilling(handle.db, { runDate: localDate(now, "America/New_York"), now, force: true, tenantId: t.tenantId });
    setPaymentGatewayForTests(createStripeGateway({ secretKey: fake.secretKey, apiBase: fake.url }));
    expect(await sendPayLink(handle.db, { tenantId: t.tenantId, leaseId: t.leaseId, now })).toMatchObject({ ok: true });
    const [mail] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
    const token = /\/pay\/([A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43})/.exec(readOutboxMail(mail!).text)![1]!;
    const { setCookie } = await getCsrfToken(new Request("http://localhost/pay"));
    const cookie = setCookie!.split(";")[0]!;
    const page = await callRoute<{ state: string; csrfToken: string; idempotencyKey: string; due: number }>(payLinkLoader, handle.db, `/pay/${token}`, { init: { headers: { Cookie: cookie } } });
    const send = (paymentToken: string) =>
      callRoute<PortalAnswer>(payLinkAction, handle.db, `/pay/${token}`, {
        init: {
          method: "POST",
          headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ csrf: page.data.csrfToken, idempotency_key: page.data.idempotencyKey, expected_amount: String(page.data.due), payment_method: "new", hosted_fields: "1", payment_token: paymentToken }),
        },
      });
    const payment = async () => (await handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, page.data.idempotencyKey) }))!;
    const link = () => handle.db.query.payLinks.findFirst({ where: eq(payLinks.leaseId, t.leaseId) });
    return { page, send, payment, link };
  }

  it("a new card the bank checks: answered with the secret and the form's key; the PaymentIntent sent back pays once and uses the link", async () => {
    const { page, send, payment, link } = await payLinkForm("in-page-link");
    const first = await send("pm_card_authenticationRequired");
    expect(first.status).toBe(200);
    expect(first.data.authenticate?.idempotencyKey).toBe(page.data.idempotencyKey);
    const [pi] = intentsOf(page.data.idempotencyKey);
    expect(first.data.authenticate?.clientSecret).toBe(pi!.client_secret);
    fake.control.authenticate(pi!.id, "complete");
    const done = await send(pi!.id);
    expect(done.status).toBe(303);
    const row = await payment();
    expect(row).toMatchObject({ status: "approved", amount: page.data.due, authReference: pi!.id });
    expect((await paymentLines(row.id)).map((l) => l.amount)).toEqual([page.data.due]);
    expect((await link())?.usedAt).not.toBeNull();
  });

  it("Stripe's webhook records the completed check before the page sends the form again: the form gets the receipt, not \"nothing to pay\", and uses the link", async () => {
    const { page, send, payment, link } = await payLinkForm("in-page-link-webhook-first");
    expect((await send("pm_card_authenticationRequired")).data.authenticate?.idempotencyKey).toBe(page.data.idempotencyKey);
    const [pi] = intentsOf(page.data.idempotencyKey);
    fake.control.authenticate(pi!.id, "complete");
    // The webhook (over HTTP to the app) records the payment first: the balance due is now $0.00.
    await expect.poll(async () => (await payment()).status, { timeout: 10_000 }).toBe("approved");
    expect((await link())?.usedAt).toBeNull();
    const done = await send(pi!.id);
    expect(done.status).toBe(303);
    const row = await payment();
    expect((await paymentLines(row.id)).map((l) => l.amount)).toEqual([page.data.due]);
    expect(await link()).toMatchObject({ paymentId: String(row.id) });
    expect((await link())?.usedAt).not.toBeNull();
  });
});
