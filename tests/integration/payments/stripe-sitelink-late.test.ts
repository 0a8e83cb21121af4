/**
 * Issue 35 (what issue 25 left, decision 441): a portal payment at a SiteLink location whose cards our
 * gateway charges (option B, Jacksonville on the SiteLink simulator), held for the bank's check on
 * the Stripe fake, then completed by the cardholder at the fake: Stripe's webhook, delivered over
 * HTTP to the app, refunds it in full at once (it cannot be booked in SiteLink afterwards) instead of
 * leaving it "needs attention" (it was "a payment we have no record of": SiteLink's adapter keeps the
 * attempt as KEY:declined); a redelivery refunds nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { gatewayEvents, payments } from "~/db/schema";
import { getCsrfToken } from "~/services/web/csrf.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { createTenantSession } from "~/services/web/session.server";
import { LATE_SITELINK_REFUND_REASON } from "~/services/payments/late-payments.server";
import { setPaymentGatewayForTests } from "~/platform/payments/gateway.server";
import { createStripeGateway } from "~/platform/payments/stripe.server";
import { action as payAction } from "~/routes/portal/pay";
import { startStripeFake, type RunningStripeFake } from "../../../stripe-fake";
import { startAppServer, type AppServer } from "../support/app-server";
import { callRoute } from "../support/route-helpers";
import { startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

let bed: SiteLinkTestbed;
let app: AppServer;
let fake: RunningStripeFake;
const SECRET = "whsec_gatehouse_sitelink_late";

beforeAll(async () => {
  bed = await startSyncedSiteLinkTestbed(new Date());
  app = await startAppServer(bed.handle.db);
  fake = await startStripeFake({ port: 0 });
  fake.control.addWebhookEndpoint(`${app.origin}/webhooks/stripe`, { secret: SECRET });
  process.env.STRIPE_WEBHOOK_SECRET = SECRET;
}, 600_000);
afterAll(async () => {
  delete process.env.STRIPE_WEBHOOK_SECRET;
  setPaymentGatewayForTests(null);
  await fake?.close();
  await app?.close();
  await bed?.close();
});

describe("a late success at a SiteLink option-B location", () => {
  it("is refunded in full by the webhook delivered over HTTP, once; nothing needs attention", async () => {
    const db = bed.handle.db;
    const now = new Date();
    // Moved in through the test gateway, as if before Stripe; from now on Stripe on the fake.
    setPaymentGatewayForTests(null);
    const t = await createTenantWithLease(db, { email: `late-b-${Date.now()}@example.com`, password: "secret1", now, withInsurance: false, locationId: bed.jacksonville.id });
    const session = (await createTenantSession(db, { tenantId: String(t.tenantId), now })).split(";")[0]!;
    setPaymentGatewayForTests(createStripeGateway({ secretKey: fake.secretKey, apiBase: fake.url }));
    const csrf = (await getCsrfToken(new Request("http://localhost/", { headers: { Cookie: session } }))).token;
    const key = `late-b-${Date.now()}`;
    const post = (token: string) =>
      callRoute(payAction, db, `/customer-portal/units/${t.leaseId}/pay`, {
        init: {
          method: "POST",
          body: new URLSearchParams({ csrf, idempotency_key: key, amount_choice: "other", other_amount: "25.00", payment_method: "new", hosted_fields: "1", payment_token: token }),
          headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: session },
        },
      });

    // Held: SiteLink's adapter answers it as held for the bank (the e-mailed link), nothing booked.
    await post("pm_card_authenticationRequired");
    // SiteLink's adapter keeps the declined attempt as KEY:declined; nothing is booked.
    const attempt = `${key}:declined`;
    expect(await db.query.payments.findFirst({ where: eq(payments.idempotencyKey, attempt) })).toMatchObject({ status: "declined", amount: 2500 });
    const pi = fake.control.objects("payment_intent").find((o) => (o.metadata as Record<string, string>).gatehouse_key === key)!;

    // The cardholder completes the bank's check at Stripe (the tab closed before the page sent it back).
    fake.control.authenticate(pi.id as string, "complete");
    await fake.control.webhooksSettled();
    const [event] = await db.select().from(gatewayEvents).where(and(eq(gatewayEvents.idempotencyKey, key), eq(gatewayEvents.type, "payment_intent.succeeded")));
    expect(event!.outcome).toMatch(/^refunded: paid after authentication at a SiteLink location/);
    const refunds = () => fake.control.objects("refund").filter((r) => r.payment_intent === pi.id);
    expect(refunds().map((r) => r.amount)).toEqual([2500]);
    expect(await db.query.payments.findFirst({ where: eq(payments.idempotencyKey, attempt) })).toMatchObject({ status: "declined", declineReason: LATE_SITELINK_REFUND_REASON });
    expect(await db.query.payments.findFirst({ where: eq(payments.idempotencyKey, key) })).toBeUndefined();

    // A redelivery refunds nothing more.
    fake.control.redeliver(event!.id);
    await fake.control.webhooksSettled();
    expect(refunds()).toHaveLength(1);
    const attention = (await db.select().from(gatewayEvents)).filter((e) => e.outcome.startsWith("needs attention"));
    expect(attention).toEqual([]);
  });
});
