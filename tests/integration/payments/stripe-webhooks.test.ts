/**
 * Issue 25 (decision 382): Stripe's webhooks, delivered by the Stripe fake over real HTTP to the app's
 * /webhooks/stripe, signed as Stripe signs them. Verified (a bad or missing signature: 400, nothing
 * stored), taken once per event id (a duplicate delivery is not acted on again), and a payment that
 * succeeds after its rental was closed is refunded, so the money and the lease agree.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { gatewayEvents, rentals } from "~/db/schema";
import { setPaymentGatewayForTests } from "~/platform/payments/gateway.server";
import { recheckWaitingWebhooks, WAITING_MS, WAITING_OUTCOME } from "~/services/payments/waiting-webhooks.server";
import { signPayload, type RunningStripeFake } from "../../../stripe-fake";
import type { AppServer } from "../support/app-server";
import { startStripeTestbed, type StripeTestbed } from "../support/stripe-fixtures";
import { lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";

let bed: StripeTestbed;
let handle: DatabaseHandle;
let app: AppServer;
let fake: RunningStripeFake;

beforeAll(async () => {
  bed = await startStripeTestbed({ webhooks: true, secret: "whsec_gatehouse_webhook_test_secret", now: NOW });
  ({ handle, fake } = bed);
  app = bed.app!;
});
afterAll(async () => {
  await bed?.close();
});

const gateway = () => bed.gateway();
const eventsFor = (key: string) => handle.db.select().from(gatewayEvents).where(eq(gatewayEvents.idempotencyKey, key));

describe("POST /webhooks/stripe", () => {
  it("refuses a delivery without a valid signature (400) and stores nothing", async () => {
    const body = JSON.stringify({ id: "evt_forged", object: "event", type: "payment_intent.succeeded", data: { object: { metadata: { gatehouse_key: "forged" } } } });
    const unsigned = await fetch(`${app.origin}/webhooks/stripe`, { method: "POST", body, headers: { "Content-Type": "application/json" } });
    expect(unsigned.status).toBe(400);
    const wrong = await fetch(`${app.origin}/webhooks/stripe`, {
      method: "POST",
      body,
      headers: { "Content-Type": "application/json", "Stripe-Signature": signPayload(body, "whsec_someone_else") },
    });
    expect(wrong.status).toBe(400);
    expect(await eventsFor("forged")).toEqual([]);
  });

  it("takes a signed event once: a duplicate delivery is answered 200 and not acted on again", async () => {
    const key = `webhook-unknown-${Date.now()}`;
    const r = await gateway().charge({ amount: 1200, idempotencyKey: key, method: { kind: "token", token: "pm_card_visa" } });
    expect(r.status).toBe("approved");
    await fake.control.webhooksSettled();
    const first = await eventsFor(key);
    const succeeded = first.filter((e) => e.type === "payment_intent.succeeded");
    expect(succeeded).toHaveLength(1);
    // No record yet: waiting (the page's request may still be recording it), not flagged (decision 411).
    expect(succeeded[0]!.outcome).toBe(WAITING_OUTCOME);
    fake.control.redeliver(succeeded[0]!.id);
    await fake.control.webhooksSettled();
    expect((await eventsFor(key)).filter((e) => e.type === "payment_intent.succeeded")).toHaveLength(1);
    // Still nothing recorded once any request has settled: a real problem for the office.
    expect(await recheckWaitingWebhooks(handle.db, new Date(NOW.getTime() + WAITING_MS - 1000))).toBe(0);
    expect(await recheckWaitingWebhooks(handle.db, new Date(NOW.getTime() + WAITING_MS + 1000))).toBeGreaterThanOrEqual(1);
    const [flagged] = (await eventsFor(key)).filter((e) => e.type === "payment_intent.succeeded");
    expect(flagged!.outcome).toBe("needs attention: a payment we have no record of");
    const deliveries = fake.control.deliveries().filter((d) => d.eventId === succeeded[0]!.id);
    expect(deliveries.length).toBe(2);
    expect(deliveries.every((d) => d.status === 200)).toBe(true);
  });

  it("a payment that succeeds after its rental was closed (abandoned) is refunded in full: no lease, no money", async () => {
    const { unitTypeId } = await lumbertonUnitType(handle.db);
    const { id } = await signedRental(handle.db, unitTypeId);
    const key = `webhook-late-${Date.now()}`;
    await handle.db.update(rentals).set({ status: "abandoned", idempotencyKey: key }).where(eq(rentals.id, id));
    const g = gateway();
    setPaymentGatewayForTests(g);
    const r = await g.charge({ amount: 5000, idempotencyKey: key, method: { kind: "token", token: "pm_card_visa" } });
    if (r.status !== "approved") throw new Error("declined");
    await fake.control.webhooksSettled();
    const [taken] = (await eventsFor(key)).filter((e) => e.type === "payment_intent.succeeded");
    expect(taken?.outcome).toBe("refunded: paid after the rental was closed");
    const refunds = fake.control.objects("refund").filter((x) => x.payment_intent === r.authReference);
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: 5000, status: "succeeded" });
  });
});
