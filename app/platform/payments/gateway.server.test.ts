import { describe, expect, it } from "vitest";
import { createTestGateway, type CardDetails, type PaymentMethodInput } from "./gateway.server";

const card = (number: string): CardDetails => ({ number, expMonth: 12, expYear: 2030, cvv: "123", nameOnCard: "Pat", postalCode: "28358" });

describe("the gateway takes a PaymentMethodInput (own card fields or a processor's token)", () => {
  it("charges our own card fields given as a payment method, like a raw card", async () => {
    const g = createTestGateway();
    expect(g.fields).toBe("own-inputs");
    const method: PaymentMethodInput = { kind: "card", card: card("4242424242424242") };
    expect(await g.charge({ amount: 100, idempotencyKey: "a", method })).toMatchObject({ status: "approved", brand: "visa", last4: "4242" });
    expect(await g.charge({ amount: 100, idempotencyKey: "b", method: { kind: "card", card: card("4000000000000002") } })).toMatchObject({
      status: "declined",
      reason: "Your card was declined.",
    });
  });

  it("charges a token (as a processor's hosted fields would post back) without any card number", async () => {
    const g = createTestGateway();
    const t = await g.tokenize(card("5555555555554444"));
    if (t.status !== "ok") throw new Error("tokenize failed");
    const r = await g.charge({ amount: 100, idempotencyKey: "c", method: { kind: "token", token: t.cardToken } });
    expect(r).toMatchObject({ status: "approved", brand: "mastercard", last4: "4444" });
    // The same idempotency key returns the first result.
    expect(await g.charge({ amount: 100, idempotencyKey: "c", method: { kind: "token", token: "tok_visa_0000_decline_x" } })).toEqual(r);
  });
});

describe("the test gateway's tokens", () => {
  it("carry the card's expiry, and a token it did not make is declined, never approved", async () => {
    const g = createTestGateway();
    const t = await g.tokenize({ kind: "card", card: card("4242424242424242") });
    expect(t).toMatchObject({ status: "ok", brand: "visa", last4: "4242", expMonth: 12, expYear: 2030 });
    if (t.status !== "ok") return;
    expect(await g.tokenize({ kind: "token", token: t.cardToken })).toMatchObject({ status: "ok", cardToken: t.cardToken, expMonth: 12, expYear: 2030 });
    expect(await g.charge({ amount: 100, idempotencyKey: "tok-1", method: { kind: "token", token: t.cardToken } })).toMatchObject({ status: "approved", expMonth: 12, expYear: 2030 });
    expect(await g.charge({ amount: 100, idempotencyKey: "tok-2", method: { kind: "token", token: "tok_amex_1234_ok_x" } })).toMatchObject({ status: "declined" });
    expect(await g.tokenize({ kind: "token", token: "garbage" })).toMatchObject({ status: "declined" });
  });
});
