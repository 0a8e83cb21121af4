/**
 * Issue 25 (decision 395): a card that needs the cardholder's authentication (3-D Secure) on the
 * Stripe gateway (the Stripe fake). The payment is recorded as declined while it waits; when the
 * tenant completes the authentication later, Stripe's payment_intent.succeeded webhook (delivered
 * over real HTTP, signed) records it as the payment: once, with its ledger line, so the money and
 * the lease agree, even when the webhook is delivered twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { emailOutbox, gatewayEvents, payments } from "~/db/schema";
import { runBilling } from "~/services/payments/billing-run.server";
import { readOutboxMail } from "~/services/mail/outbox.server";
import { now as clockNow } from "~/platform/clock.server";
import { localDate } from "~/domain/shared/calendar";
import { action as authenticateAction, loader as authenticateLoader } from "~/routes/payments/pay.authenticate";
import { setPaymentGatewayForTests } from "~/platform/payments/gateway.server";
import { action as payAction } from "~/routes/portal/pay";
import type { RunningStripeFake } from "../../../stripe-fake";
import { autopayTenant as autopayTenantOf, intentOf as intentOfKey, paymentLines as linesOf, portalTenant, startStripeTestbed, type StripeTestbed } from "../support/stripe-fixtures";
import { callRoute } from "../support/route-helpers";

let bed: StripeTestbed;
let handle: DatabaseHandle;
let fake: RunningStripeFake;

beforeAll(async () => {
  bed = await startStripeTestbed({ webhooks: true, secret: "whsec_gatehouse_authentication_test" });
  ({ handle, fake } = bed);
});
afterAll(async () => {
  await bed?.close();
});

const tenant = () => portalTenant(bed, { prefix: "auth" });
const intentOf = (key: string) => intentOfKey(fake, key);
const paymentLines = (paymentId: number) => linesOf(bed, paymentId);

describe("a card that needs authentication (Stripe)", () => {
  it("held for authentication: recorded as declined; completed later, the webhook records it as the payment once, a duplicate delivery changes nothing", async () => {
    const t = await tenant();
    const key = `auth-portal-${Date.now()}`;
    const r = await callRoute(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, {
      init: t.form({ idempotency_key: key, amount_choice: "other", other_amount: "25.00", payment_method: "new", hosted_fields: "1", payment_token: "pm_card_authenticationRequired" }),
    });
    // A new card sent from the page's script: the page runs the bank's check itself (decision 405),
    // no e-mail; the tenant who leaves after completing it is recorded by the webhook.
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.data)).toContain('"clientSecret"');
    expect(await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, t.email))).toEqual([]);
    const held = await handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, key) });
    expect(held).toMatchObject({ status: "declined", amount: 2500 });
    expect(await paymentLines(held!.id)).toEqual([]);
    const pi = intentOf(key);
    expect(pi?.status).toBe("requires_action");

    fake.control.authenticate(pi!.id, "complete");
    await fake.control.webhooksSettled();
    const paid = await handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, key) });
    expect(paid).toMatchObject({ status: "approved", amount: 2500, authReference: pi!.id, declineReason: null });
    expect((await paymentLines(paid!.id)).map((l) => l.amount)).toEqual([2500]);
    const [event] = await handle.db.select().from(gatewayEvents).where(and(eq(gatewayEvents.idempotencyKey, key), eq(gatewayEvents.type, "payment_intent.succeeded")));
    expect(event?.outcome).toBe("recorded: paid after authentication");

    fake.control.redeliver(event!.id);
    await fake.control.webhooksSettled();
    expect((await paymentLines(paid!.id)).map((l) => l.amount)).toEqual([2500]);
    expect(await handle.db.select().from(payments).where(eq(payments.idempotencyKey, key))).toHaveLength(1);
  });

  it("an authentication that fails records nothing paid", async () => {
    const t = await tenant();
    const key = `auth-portal-fail-${Date.now()}`;
    await callRoute(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, {
      init: t.form({ idempotency_key: key, amount_choice: "other", other_amount: "11.00", payment_method: "new", hosted_fields: "1", payment_token: "pm_card_authenticationRequired" }),
    });
    fake.control.authenticate(intentOf(key)!.id, "fail");
    await fake.control.webhooksSettled();
    const row = await handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, key) });
    expect(row?.status).toBe("declined");
    expect(await paymentLines(row!.id)).toEqual([]);
  });
});

describe("the billing run's autopay charge that needs authentication", () => {
  const TZ = "America/New_York";

  async function autopayTenant() {
    // A card saved earlier (a Stripe customer's payment method) that needs authentication off session.
    const t = await autopayTenantOf(bed, "pm_card_authenticationRequired", { prefix: "auth-autopay", timeZone: TZ });
    const now = clockNow();
    await runBilling(handle.db, { runDate: localDate(now, TZ), now, force: true, tenantId: t.tenantId });
    return t;
  }

  async function linkMailedTo(email: string) {
    const [mail] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
    expect(mail?.subject).toBe("Please confirm your storage payment with your bank");
    const text = readOutboxMail(mail!).text;
    const url = /https?:\/\/\S+\/pay\/authenticate\/(\S+)/.exec(text);
    expect(url, text).not.toBeNull();
    return { text, path: `/pay/authenticate/${url![1]}` };
  }

  it("e-mails a link; the page shows location, unit and amount, sends the tenant to the bank's page without JavaScript, and records the payment once on return", async () => {
    const t = await autopayTenant();
    const held = await handle.db.query.payments.findFirst({ where: and(eq(payments.leaseId, Number(t.leaseId)), eq(payments.source, "autopay")) });
    expect(held).toMatchObject({ status: "declined" });
    const owed = await t.balance();
    expect(owed).toBe(held!.amount);
    const { text, path } = await linkMailedTo(t.email);
    expect(text).toContain("Nothing has been charged yet");

    const page = await callRoute<{ page: { state: string; amount: number; unitName: string; locationName: string }; csrfToken: string }>(authenticateLoader, handle.db, path);
    expect(page.status).toBe(200);
    expect(page.data.page).toMatchObject({ state: "open", amount: held!.amount });
    expect(page.data.page.unitName).toBeTruthy();
    expect(page.data.page.locationName).toBeTruthy();

    const cookie = page.headers.get("Set-Cookie")?.split(";")[0] ?? "";
    const post = await callRoute(authenticateAction, handle.db, path, {
      init: { method: "POST", body: new URLSearchParams({ csrf: page.data.csrfToken }), headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie } },
    });
    expect(post.status).toBe(303);
    const bank = new URL(post.headers.get("Location")!);
    expect(bank.origin).toBe(new URL(fake.url).origin);
    const pi = intentOf(held!.idempotencyKey)!;
    expect(pi.status).toBe("requires_action");

    // The tenant completes it on the bank's page, which sends them back to our page.
    fake.control.pauseWebhooks();
    fake.control.authenticate(pi.id, "complete");
    const back = await callRoute<{ page: { state: string } }>(authenticateLoader, handle.db, `${path}?payment_intent=${pi.id}&redirect_status=succeeded`);
    expect(back.data.page.state).toBe("paid");
    const paid = await handle.db.query.payments.findFirst({ where: eq(payments.id, held!.id) });
    expect(paid).toMatchObject({ status: "approved", authReference: pi.id });
    expect((await paymentLines(held!.id)).map((l) => l.amount)).toEqual([held!.amount]);
    expect(await t.balance()).toBe(0);

    // Stripe's webhook comes after, twice: nothing is recorded again.
    fake.control.resumeWebhooks();
    await fake.control.webhooksSettled();
    const [event] = await handle.db.select().from(gatewayEvents).where(and(eq(gatewayEvents.idempotencyKey, held!.idempotencyKey), eq(gatewayEvents.type, "payment_intent.succeeded")));
    expect(event?.outcome).toBe("already recorded");
    fake.control.redeliver(event!.id);
    await fake.control.webhooksSettled();
    expect((await paymentLines(held!.id)).map((l) => l.amount)).toEqual([held!.amount]);
    expect(await t.balance()).toBe(0);

    // The link is spent: it says the payment was received, and its button does nothing more.
    const again = await callRoute<{ page: { state: string } }>(authenticateLoader, handle.db, path);
    expect(again.data.page.state).toBe("paid");
  });

  it("a tampered link is not found", async () => {
    const t = await autopayTenant();
    const { path } = await linkMailedTo(t.email);
    const tampered = path.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    expect((await callRoute(authenticateLoader, handle.db, tampered)).status).toBe(404);
  });
});

describe("a timeout after the charge (Stripe)", () => {
  it("the portal payment is found by its key and recorded once; the same form again charges nothing more", async () => {
    const t = await tenant();
    // A client that gives up quickly and does not retry by itself; the fake makes the charge, then does not answer.
    setPaymentGatewayForTests(bed.gateway({ timeoutMs: 1500, maxNetworkRetries: 0 }));
    fake.control.addFault({ method: "POST", path: "/v1/payment_intents", mode: "timeout", times: 1 });
    const key = `auth-timeout-${Date.now()}`;
    const body = { idempotency_key: key, amount_choice: "other", other_amount: "17.00", payment_method: "new", hosted_fields: "1", payment_token: "pm_card_visa" };
    const r = await callRoute(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, { init: t.form(body) });
    fake.control.clearFaults();
    expect(r.status).toBe(303);
    const paid = await handle.db.select().from(payments).where(eq(payments.idempotencyKey, key));
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ status: "approved", amount: 1700 });
    expect((await paymentLines(paid[0]!.id)).map((l) => l.amount)).toEqual([1700]);
    const again = await callRoute(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, { init: t.form(body) });
    expect(again.status).toBe(303);
    const intents = fake.control.objects("payment_intent").filter((pi) => (pi.metadata as Record<string, string> | undefined)?.gatehouse_key === key);
    expect(intents).toHaveLength(1);
    expect(await handle.db.select().from(payments).where(eq(payments.idempotencyKey, key))).toHaveLength(1);
  });
});
