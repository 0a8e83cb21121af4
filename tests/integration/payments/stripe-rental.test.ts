/**
 * Issue 25 (decision 383): a rental paid through the Stripe gateway on the Stripe fake. With
 * JavaScript off the pay step sends the visitor to Stripe Checkout and the return confirms the
 * payment server-side before anything is rented; with a token from Stripe's fields the move-in charges
 * it. A declined card rents nothing; no request we receive carries a card number.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { leases, payments, savedCards, units } from "~/db/schema";
import { setPaymentGatewayForTests } from "~/platform/payments/gateway.server";
import { runBilling } from "~/services/payments/billing-run.server";
import type { RunningStripeFake } from "../../../stripe-fake";
import { lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";
import { rentalPayStep, startStripeTestbed, type StripeTestbed } from "../support/stripe-fixtures";

let bed: StripeTestbed;
let handle: DatabaseHandle;
let unitTypeId: string;
let fake: RunningStripeFake;

beforeAll(async () => {
  bed = await startStripeTestbed({ now: NOW });
  ({ handle, fake } = bed);
  unitTypeId = (await lumbertonUnitType(handle.db)).unitTypeId;
});
beforeEach(async () => {
  setPaymentGatewayForTests(bed.gateway());
  // Earlier tests' rentals hold units; let them go so each test finds one free.
  await handle.db.update(units).set({ heldUntil: null, holdToken: null }).where(eq(units.unitTypeId, Number(unitTypeId)));
});
afterAll(async () => {
  await bed?.close();
});

const steps = () => rentalPayStep(handle.db, unitTypeId);
const payPost = (rentalId: string, fields: Record<string, string>) => steps().pay(rentalId, fields);
const get = (rentalId: string, url: string) => steps().get(rentalId, url);
const leaseOf = (rentalId: string) => steps().leaseOf(rentalId);
const leaseCount = async () => (await handle.db.select({ n: count() }).from(leases))[0]!.n;
const CARD = { number: "4242424242424242", exp_month: "12", exp_year: "2030", cvc: "123", name: "Ada Lovelace" };

describe("a rental through Stripe", () => {
  it("the pay step shows the hosted fields (no demonstration notice)", async () => {
    const { id } = await signedRental(handle.db, unitTypeId);
    const page = await get(id, `/rent/${unitTypeId}?step=pay`);
    expect(page.data.view).toMatchObject({ step: "pay", hosted: true, demonstration: false });
  });

  it("JavaScript off: the pay button goes to Stripe Checkout; nothing is rented until the return confirms the payment, then the lease and the money agree", async () => {
    const { id, quote } = await signedRental(handle.db, unitTypeId);
    const leasesBefore = await leaseCount();
    const go = await payPost(id, { autopay: "on" });
    expect(go.status).toBe(303);
    const checkoutUrl = new URL(go.headers.get("Location")!);
    expect(checkoutUrl.origin).toBe(fake.origin);
    const sessionId = checkoutUrl.pathname.split("/").pop()!;
    expect(await leaseOf(id)).toBeNull();

    // Coming back without paying (a forged or unpaid session): still nothing rented.
    const early = await get(id, `/rent/${unitTypeId}?step=pay&checkout_session=${sessionId}`);
    expect(early.headers.get("Location")).toBe(`/rent/${unitTypeId}?step=pay`);
    expect(await leaseCount()).toBe(leasesBefore);

    const paid = fake.control.submitCheckout(sessionId, CARD);
    if (!("redirect" in paid)) throw new Error(paid.error);
    const back = new URL(paid.redirect);
    const returned = await get(id, `${back.pathname}${back.search}`);
    expect(returned.headers.get("Location")).toBe(`/rent/${unitTypeId}/confirmation`);
    const leaseId = await leaseOf(id);
    expect(leaseId).not.toBeNull();
    const [payment] = await handle.db.select().from(payments).where(eq(payments.leaseId, leaseId!));
    expect(payment).toMatchObject({ status: "approved", amount: quote.total, cardLast4: "4242" });
    const pi = fake.control.get(payment!.authReference!) as { amount: number; status: string };
    expect(pi).toMatchObject({ amount: quote.total, status: "succeeded" });
    // Autopay was chosen: the card is saved as Stripe's customer and payment method.
    const lease = await handle.db.query.leases.findFirst({ where: eq(leases.id, leaseId!) });
    expect(lease?.autopayEnabled).toBe(true);

    // Coming back again (refresh, back button): the confirmation, no second lease or charge.
    const again = await get(id, `${back.pathname}${back.search}`);
    expect(again.headers.get("Location")).toBe(`/rent/${unitTypeId}/confirmation`);
    expect(await leaseCount()).toBe(leasesBefore + 1);
    expect(fake.control.objects("payment_intent").filter((p) => p.id === payment!.authReference)).toHaveLength(1);
  });

  it("a card declined on Stripe's page rents nothing and the pay step stays", async () => {
    const { id } = await signedRental(handle.db, unitTypeId);
    const go = await payPost(id, {});
    const sessionId = new URL(go.headers.get("Location")!).pathname.split("/").pop()!;
    const r = fake.control.submitCheckout(sessionId, { ...CARD, number: "4000000000000002" });
    expect("error" in r).toBe(true);
    const back = await get(id, `/rent/${unitTypeId}?step=pay&checkout_session=${sessionId}`);
    expect(back.headers.get("Location")).toBe(`/rent/${unitTypeId}?step=pay`);
    expect(await leaseOf(id)).toBeNull();
  });

  it("with Stripe's fields (a PaymentMethod token posted back): approved rents, declined rents nothing and says why", async () => {
    const { id } = await signedRental(handle.db, unitTypeId);
    const declined = await payPost(id, { payment_token: "pm_card_chargeDeclined" });
    expect(declined.status).toBe(402);
    expect(declined.data.formError).toContain("declined");
    expect(await leaseOf(id)).toBeNull();
    const ok = await payPost(id, { payment_token: "pm_card_visa" });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("Location")).toBe(`/rent/${unitTypeId}/confirmation`);
    expect(await leaseOf(id)).not.toBeNull();
  });

  it("a card number posted to a hosted location is never used: no charge carries it", async () => {
    const { id } = await signedRental(handle.db, unitTypeId);
    const r = await payPost(id, { card_number: "4242424242424242", exp_month: "12", exp_year: "2030", cvv: "123", payment_token: "" });
    // Without a token the form goes to Stripe's page; the number we were sent goes nowhere.
    expect(r.status).toBe(303);
    expect(fake.control.requests().some((q) => JSON.stringify(q.params).includes("4242424242424242"))).toBe(false);
    expect(await leaseOf(id)).toBeNull();
  });
});

describe("autopay and the billing run through Stripe", () => {
  async function rentWithAutopay(number: string) {
    const { id } = await signedRental(handle.db, unitTypeId);
    const go = await payPost(id, { autopay: "on" });
    const sessionId = new URL(go.headers.get("Location")!).pathname.split("/").pop()!;
    const paid = fake.control.submitCheckout(sessionId, { ...CARD, number });
    if (!("redirect" in paid)) throw new Error(paid.error);
    let back = new URL(paid.redirect);
    if (back.pathname.startsWith("/3ds/")) {
      // Stripe's page asks the bank: the cardholder completes the challenge, Stripe returns to us.
      fake.control.authenticate(back.pathname.split("/").pop()!, "complete");
      const done = await fetch(back.searchParams.get("return_url")!, { redirect: "manual" });
      back = new URL(done.headers.get("Location")!);
    }
    await get(id, `${back.pathname}${back.search}`);
    const leaseId = (await leaseOf(id))!;
    return (await handle.db.query.leases.findFirst({ where: eq(leases.id, leaseId) }))!;
  }

  it("the card saved at the rental (a Stripe customer's payment method) is charged off-session by the billing run", async () => {
    const lease = await rentWithAutopay("4242424242424242");
    expect(lease.autopayEnabled).toBe(true);
    const card = await handle.db.query.savedCards.findFirst({ where: eq(savedCards.id, lease.autopayCardId!) });
    expect(card?.gatewayToken).toMatch(/^cus_[A-Za-z0-9]+:pm_[A-Za-z0-9]+$/);
    const run = await runBilling(handle.db, { runDate: "2026-12-22", now: NOW, force: true, tenantId: lease.tenantId });
    expect(run.autopayCharged).toBe(1);
    const charged = (await handle.db.select().from(payments).where(eq(payments.leaseId, lease.id))).filter((p) => p.idempotencyKey.startsWith("autopay:"));
    expect(charged).toHaveLength(1);
    expect(charged[0]).toMatchObject({ status: "approved" });
    const pi = fake.control.get(charged[0]!.authReference!) as { amount: number; off_session?: boolean; customer: string; status: string };
    expect(pi).toMatchObject({ amount: charged[0]!.amount, status: "succeeded", customer: card!.gatewayToken.split(":")[0] });
  });

  it("a saved card whose bank asks for authentication declines in the billing run with that reason; the ledger keeps the balance", async () => {
    // 4000 0027 6000 3184: authentication on every payment, off-session too.
    const lease = await rentWithAutopay("4000002760003184");
    expect(lease.autopayEnabled).toBe(true);
    const run = await runBilling(handle.db, { runDate: "2026-12-22", now: NOW, force: true, tenantId: lease.tenantId });
    expect(run.autopayDeclined).toBe(1);
    const declined = (await handle.db.select().from(payments).where(eq(payments.leaseId, lease.id))).filter((p) => p.idempotencyKey.startsWith("autopay:"));
    expect(declined[0]).toMatchObject({ status: "declined" });
    expect(declined[0]!.declineReason ?? "").toContain("confirm this payment");
  });
});
