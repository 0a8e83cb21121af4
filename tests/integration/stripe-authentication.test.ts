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
import { gatewayEvents, ledgerEntries, payments } from "~/db/schema";
import { getCsrfToken } from "~/services/csrf.server";
import { createTenantWithLease } from "~/services/portal-demo.server";
import { createTenantSession } from "~/services/session.server";
import { setPaymentGatewayForTests } from "~/platform/payment-gateway.server";
import { createStripeGateway } from "~/platform/stripe-gateway.server";
import { action as payAction } from "~/routes/customer-portal.pay";
import { startStripeFake, type RunningStripeFake } from "../../stripe-fake";
import { startAppServer, type AppServer } from "./app-server";
import { createTestDatabase } from "./db";
import { callRoute } from "./route-helpers";

let handle: DatabaseHandle;
let app: AppServer;
let fake: RunningStripeFake;
const SECRET = "whsec_gatehouse_authentication_test";

beforeAll(async () => {
  handle = await createTestDatabase();
  app = await startAppServer(handle.db);
  fake = await startStripeFake({ port: 0 });
  fake.control.addWebhookEndpoint(`${app.origin}/webhooks/stripe`, { secret: SECRET });
  process.env.STRIPE_WEBHOOK_SECRET = SECRET;
});
afterAll(async () => {
  delete process.env.STRIPE_WEBHOOK_SECRET;
  setPaymentGatewayForTests(null);
  await fake?.close();
  await app?.close();
  await handle?.close();
});

async function tenant() {
  const now = new Date();
  setPaymentGatewayForTests(null);
  const t = await createTenantWithLease(handle.db, { email: `auth-${Date.now()}-${Math.random()}@example.com`, password: "secret1", now, withInsurance: false });
  const session = (await createTenantSession(handle.db, { tenantId: String(t.tenantId), now })).split(";")[0]!;
  setPaymentGatewayForTests(createStripeGateway({ secretKey: fake.secretKey, apiBase: fake.url }));
  const csrf = (await getCsrfToken(new Request("http://localhost/", { headers: { Cookie: session } }))).token;
  const form = (body: Record<string, string>): RequestInit => ({
    method: "POST",
    body: new URLSearchParams({ csrf, ...body }),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: session },
  });
  return { tenantId: t.tenantId, leaseId: String(t.leaseId), session, form };
}

const intentOf = (key: string) => fake.control.objects("payment_intent").find((pi) => (pi.metadata as Record<string, string> | undefined)?.gatehouse_key === key) as { id: string; status: string } | undefined;
const paymentLines = (paymentId: number) => handle.db.select().from(ledgerEntries).where(and(eq(ledgerEntries.paymentId, paymentId), eq(ledgerEntries.kind, "payment")));

describe("a card that needs authentication (Stripe)", () => {
  it("held for authentication: recorded as declined; completed later, the webhook records it as the payment once, a duplicate delivery changes nothing", async () => {
    const t = await tenant();
    const key = `auth-portal-${Date.now()}`;
    const r = await callRoute(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, {
      init: t.form({ idempotency_key: key, amount_choice: "other", other_amount: "25.00", payment_method: "new", hosted_fields: "1", payment_token: "pm_card_authenticationRequired" }),
    });
    expect(r.status).toBe(400);
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
