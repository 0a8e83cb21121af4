/**
 * Issue 25 (decision 383): the portal's card pages on the Stripe gateway (the Stripe fake). A new card
 * comes as the token Stripe's fields post back (`payment_token`), never a card number; a hosted form
 * posted without one goes on to Stripe Checkout (stripe-portal-checkout.test.ts), nothing charged here. Pay (saving the card) and
 * autopay enrolment go through Stripe; the saved card is a Stripe customer's payment method.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { desc, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { emailOutbox, leases, payments, savedCards } from "~/db/schema";
import { addMonthsIso, localDate } from "~/domain/shared/calendar";
import { now as clockNow } from "~/platform/clock.server";
import { runBilling } from "~/services/payments/billing-run.server";
import { readOutboxMail } from "~/services/mail/outbox.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { sendPayLink } from "~/services/payments/pay-links.server";
import { action as payLinkAction, loader as payLinkLoader } from "~/routes/payments/pay";
import { action as payAction, loader as payLoader } from "~/routes/portal/pay";
import { action as autopayAction, loader as autopayLoader } from "~/routes/portal/autopay";
import { loader as prepayLoader } from "~/routes/portal/prepay";
import type { RunningStripeFake } from "../../../stripe-fake";
import { portalTenant, startStripeTestbed, type StripeTestbed } from "../support/stripe-fixtures";
import { callRoute } from "../support/route-helpers";

let bed: StripeTestbed;
let handle: DatabaseHandle;
let fake: RunningStripeFake;

beforeAll(async () => {
  bed = await startStripeTestbed();
  ({ handle, fake } = bed);
});
afterAll(async () => {
  await bed?.close();
});

const tenant = () => portalTenant(bed);

describe("the portal on Stripe", () => {
  it("pay, prepay and autopay offer Stripe's hosted fields, not a demonstration", async () => {
    const t = await tenant();
    for (const [name, loader] of [["pay", payLoader], ["prepay", prepayLoader], ["autopay", autopayLoader]] as const) {
      const r = await callRoute<{ payment: { kind: string; demonstration?: boolean; hosted?: boolean } }>(loader, handle.db, `/customer-portal/units/${t.leaseId}/${name}`, {
        init: { headers: { Cookie: t.session } },
      });
      expect(r.data.payment, name).toMatchObject({ kind: "cards", demonstration: false, hosted: true });
    }
  });

  it("a hosted form posted without a token goes on to Stripe Checkout (decision 400); nothing is charged, no card number is sent on", async () => {
    const t = await tenant();
    const before = fake.control.objects("payment_intent").length;
    const r = await callRoute(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, {
      init: t.form({ idempotency_key: `stripe-portal-none-${Date.now()}`, amount_choice: "other", other_amount: "10.00", payment_method: "new", hosted_fields: "1", payment_token: "", card_number: "4242424242424242" }),
    });
    expect(r.status).toBe(303);
    expect(new URL(r.headers.get("Location")!).origin).toBe(fake.origin);
    expect(fake.control.objects("payment_intent").length).toBe(before);
    expect(fake.control.requests().some((q) => JSON.stringify(q.params).includes("4242424242424242"))).toBe(false);
  });

  it("pays with a token, saving the card as a Stripe customer's payment method; a declined token records nothing paid", async () => {
    const t = await tenant();
    const declined = await callRoute(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, {
      init: t.form({ idempotency_key: `stripe-portal-decl-${Date.now()}`, amount_choice: "other", other_amount: "10.00", payment_method: "new", hosted_fields: "1", payment_token: "pm_card_chargeDeclined" }),
    });
    expect(declined.status).toBe(400);
    const key = `stripe-portal-pay-${Date.now()}`;
    const ok = await callRoute(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, {
      init: t.form({ idempotency_key: key, amount_choice: "other", other_amount: "12.34", payment_method: "new", hosted_fields: "1", payment_token: "pm_card_visa", save_card: "on" }),
    });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("Location")).toMatch(/^\/customer-portal\/receipts\/\d+\?new=1$/);
    const payment = await handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, key) });
    expect(payment).toMatchObject({ status: "approved", amount: 1234, cardLast4: "4242" });
    expect(fake.control.get(payment!.authReference!)).toMatchObject({ amount: 1234, status: "succeeded" });
    const cards = await handle.db.select().from(savedCards).where(eq(savedCards.tenantId, Number(t.tenantId)));
    expect(cards.filter((c) => c.gatewayToken.startsWith("cus_")).map((c) => c.gatewayToken)).toEqual([expect.stringMatching(/^cus_\w+:pm_\w+$/)]);
  });

  it("enrols autopay with a token: the card is set up with Stripe (SetupIntent) and saved by id", async () => {
    const t = await tenant();
    const r = await callRoute(autopayAction, handle.db, `/customer-portal/units/${t.leaseId}/autopay`, {
      init: t.form({ intent: "enrol", agree_terms: "on", payment_method: "new", hosted_fields: "1", payment_token: "pm_card_mastercard" }),
    });
    expect(r.status).toBe(303);
    const lease = await handle.db.query.leases.findFirst({ where: eq(leases.id, Number(t.leaseId)) });
    expect(lease?.autopayEnabled).toBe(true);
    const card = await handle.db.query.savedCards.findFirst({ where: eq(savedCards.id, lease!.autopayCardId!) });
    expect(card).toMatchObject({ brand: "mastercard", last4: "4444" });
    expect(card!.gatewayToken).toMatch(/^cus_\w+:pm_\w+$/);
    expect(fake.control.objects("setup_intent").some((s) => s.status === "succeeded" && s.customer === card!.gatewayToken.split(":")[0])).toBe(true);
  });
});

describe("the pay link on Stripe", () => {
  it("pays the balance due with a token from Stripe's fields (a pay link takes a new card only)", async () => {
    const t = await autopayLessTenantOwing();
    const sent = await sendPayLink(handle.db, { tenantId: t.tenantId, leaseId: Number(t.leaseId), staffId: null, now: clockNow() });
    expect(sent.ok).toBe(true);
    const [mail] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, t.email)).orderBy(desc(emailOutbox.id)).limit(1);
    const token = /\/pay\/([A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43})/.exec(readOutboxMail(mail!).text)![1]!;
    const { setCookie } = await getCsrfToken(new Request("http://localhost/pay"));
    const cookie = setCookie!.split(";")[0]!;
    const page = await callRoute<{ state: string; due: number; csrfToken: string; idempotencyKey: string }>(payLinkLoader, handle.db, `/pay/${token}`, { init: { headers: { Cookie: cookie } } });
    expect(page.data).toMatchObject({ state: "valid" });
    const body = new URLSearchParams({
      csrf: page.data.csrfToken,
      idempotency_key: page.data.idempotencyKey,
      expected_amount: String(page.data.due),
      payment_method: "new",
      hosted_fields: "1",
      payment_token: "pm_card_visa",
    });
    const r = await callRoute(payLinkAction, handle.db, `/pay/${token}`, { init: { method: "POST", body, headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } } });
    expect(r.status).toBe(303);
    const payment = await handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, page.data.idempotencyKey) });
    expect(payment).toMatchObject({ status: "approved", amount: page.data.due });
    expect(fake.control.get(payment!.authReference!)).toMatchObject({ amount: page.data.due, status: "succeeded" });
  });
});

/** A tenant who moved in a month ago and owes this month's rent (the billing run posted it; no autopay). */
async function autopayLessTenantOwing() {
  const now = clockNow();
  const t = await portalTenant(bed, { prefix: "stripe-paylink", moveInDate: addMonthsIso(localDate(now, "America/New_York"), -1) });
  await runBilling(handle.db, { runDate: localDate(now, "America/New_York"), now, force: true, tenantId: t.tenantId });
  return t;
}
