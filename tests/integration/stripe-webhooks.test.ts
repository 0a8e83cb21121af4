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
import { createStripeGateway } from "~/platform/stripe-gateway.server";
import { setPaymentGatewayForTests } from "~/platform/payment-gateway.server";
import { startStripeFake, signPayload, type RunningStripeFake } from "../../stripe-fake";
import { startAppServer, type AppServer } from "./app-server";
import { createTestDatabase } from "./db";
import { lumbertonUnitType, NOW, signedRental } from "./rental-fixtures";

let handle: DatabaseHandle;
let app: AppServer;
let fake: RunningStripeFake;
const SECRET = "whsec_gatehouse_webhook_test_secret";

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  handle = await createTestDatabase();
  app = await startAppServer(handle.db);
  fake = await startStripeFake({ port: 0 });
  fake.control.addWebhookEndpoint(`${app.origin}/webhooks/stripe`, { secret: SECRET });
  process.env.STRIPE_WEBHOOK_SECRET = SECRET;
});
afterAll(async () => {
  delete process.env.FAKE_NOW;
  delete process.env.STRIPE_WEBHOOK_SECRET;
  setPaymentGatewayForTests(null);
  await fake?.close();
  await app?.close();
  await handle?.close();
});

const gateway = () => createStripeGateway({ secretKey: fake.secretKey, apiBase: fake.url });
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
    expect(succeeded[0]!.outcome).toBe("needs attention: a payment we have no record of");
    fake.control.redeliver(succeeded[0]!.id);
    await fake.control.webhooksSettled();
    expect((await eventsFor(key)).filter((e) => e.type === "payment_intent.succeeded")).toHaveLength(1);
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
