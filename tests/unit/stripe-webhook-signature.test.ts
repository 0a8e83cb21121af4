import { describe, expect, it } from "vitest";
import { verifyStripeEvent, WEBHOOK_TOLERANCE_FUTURE_S, WEBHOOK_TOLERANCE_PAST_S } from "~/platform/payments/stripe.server";
import { signPayload } from "../../stripe-fake";

/**
 * Decision 431: a webhook's signed time may be at most five minutes old and one minute ahead of our
 * clock (the stripe library alone takes any time ahead). The signature is the only gate.
 */
const SECRET = "whsec_unit_signature_test";
const body = JSON.stringify({ id: "evt_unit", object: "event", type: "payment_intent.succeeded", data: { object: {} } }, null, 2);
const NOW_MS = 1_790_000_000_000;
const nowS = Math.floor(NOW_MS / 1000);

describe("verifyStripeEvent", () => {
  it("takes an event signed now, or a little before or after", () => {
    expect(verifyStripeEvent(body, signPayload(body, SECRET, nowS), SECRET, NOW_MS).id).toBe("evt_unit");
    expect(verifyStripeEvent(body, signPayload(body, SECRET, nowS - WEBHOOK_TOLERANCE_PAST_S), SECRET, NOW_MS).id).toBe("evt_unit");
    expect(verifyStripeEvent(body, signPayload(body, SECRET, nowS + WEBHOOK_TOLERANCE_FUTURE_S), SECRET, NOW_MS).id).toBe("evt_unit");
  });

  it("refuses a stale one, a future-dated one (the library alone takes t+600 s), a forged one and a tampered body", () => {
    expect(() => verifyStripeEvent(body, signPayload(body, SECRET, nowS - WEBHOOK_TOLERANCE_PAST_S - 1), SECRET, NOW_MS)).toThrow();
    expect(() => verifyStripeEvent(body, signPayload(body, SECRET, nowS + WEBHOOK_TOLERANCE_FUTURE_S + 1), SECRET, NOW_MS)).toThrow(/future/);
    expect(() => verifyStripeEvent(body, signPayload(body, SECRET, nowS + 600), SECRET, NOW_MS)).toThrow(/future/);
    expect(() => verifyStripeEvent(body, signPayload(body, "whsec_someone_else", nowS), SECRET, NOW_MS)).toThrow();
    expect(() => verifyStripeEvent(body.replace("evt_unit", "evt_other"), signPayload(body, SECRET, nowS), SECRET, NOW_MS)).toThrow();
  });

  it("refuses a header with no timestamp, two timestamps or a timestamp that is not a number", () => {
    const good = signPayload(body, SECRET, nowS);
    const v1 = good.split(",")[1]!;
    expect(() => verifyStripeEvent(body, v1, SECRET, NOW_MS)).toThrow();
    expect(() => verifyStripeEvent(body, `t=${nowS + 10_000},${good}`, SECRET, NOW_MS)).toThrow();
    expect(() => verifyStripeEvent(body, `t=1e9,${v1}`, SECRET, NOW_MS)).toThrow();
  });
});
