import { describe, expect, it } from "vitest";
import type { PaymentGateway, PaymentMethodInput } from "~/platform/payments/gateway.server";

/**
 * The `PaymentGateway` contract (issue 25): what every gateway does, run against the built-in test
 * gateway and the Stripe gateway (on the Stripe fake) alike. A gateway names its own test methods:
 * the test gateway our card fields' numbers, Stripe its documented test PaymentMethods.
 */
interface GatewayUnderTest {
  gateway: PaymentGateway;
  methods: {
    /** Approves; can be saved. */
    good: () => PaymentMethodInput;
    /** Another good card of another brand. */
    other: () => PaymentMethodInput;
    /** Declined ("Your card was declined."). */
    declined: () => PaymentMethodInput;
    /** Can be saved, but every later charge declines. */
    savesButDeclines: () => PaymentMethodInput;
  };
}

let n = 0;
const key = (what: string) => `contract-${what}-${process.pid}-${Date.now()}-${++n}`;

export function paymentGatewayContract(name: string, setup: () => Promise<GatewayUnderTest>) {
  describe(`PaymentGateway contract: ${name}`, () => {
    it("approves a good card, and a repeated key returns the first result without charging again", async () => {
      const { gateway, methods } = await setup();
      const k = key("repeat");
      const first = await gateway.charge({ amount: 1234, idempotencyKey: k, method: methods.good() });
      expect(first).toMatchObject({ status: "approved" });
      if (first.status !== "approved") return;
      expect(first.last4).toMatch(/^\d{4}$/);
      const again = await gateway.charge({ amount: 1234, idempotencyKey: k, method: methods.good() });
      expect(again.status === "approved" && again.authReference).toBe(first.authReference);
      expect((await gateway.lookup(k))?.status === "approved").toBe(true);
    });

    it("a key reused with other parameters (another amount, another card) still answers the first charge, never a second", async () => {
      const { gateway, methods } = await setup();
      const k = key("reused");
      const first = await gateway.charge({ amount: 5000, idempotencyKey: k, method: methods.good() });
      if (first.status !== "approved") throw new Error("first charge not approved");
      const other = await gateway.charge({ amount: 9999, idempotencyKey: k, method: methods.other() });
      expect(other).toMatchObject({ status: "approved", authReference: first.authReference, last4: first.last4 });
    });

    it("declines a declined card with a reason, and lookup then says declined (never approved)", async () => {
      const { gateway, methods } = await setup();
      const k = key("decline");
      const r = await gateway.charge({ amount: 1000, idempotencyKey: k, method: methods.declined() });
      expect(r).toMatchObject({ status: "declined", reason: "Your card was declined." });
      expect((await gateway.lookup(k))?.status ?? "declined").toBe("declined");
      expect(await gateway.refund(k)).toEqual({ refunded: false });
    });

    it("lookup of a key never charged is null; refund of it refunds nothing", async () => {
      const { gateway } = await setup();
      const k = key("never");
      expect(await gateway.lookup(k)).toBeNull();
      expect(await gateway.refund(k)).toEqual({ refunded: false });
    });

    it("refunds an approved charge in full, once", async () => {
      const { gateway, methods } = await setup();
      const k = key("refund");
      expect((await gateway.charge({ amount: 2500, idempotencyKey: k, method: methods.good() })).status).toBe("approved");
      expect(await gateway.refund(k)).toEqual({ refunded: true });
      expect(await gateway.refund(k)).toEqual({ refunded: false });
    });

    it("lists what it charged and refunded in a time range (reconciliation, decision 440): this charge with its key and amount, its refund; nothing before", async () => {
      const { gateway, methods } = await setup();
      expect(gateway.listActivity).toBeDefined();
      const from = new Date(Math.floor(Date.now() / 1000) * 1000);
      const k = key("listed");
      const charged = await gateway.charge({ amount: 4321, idempotencyKey: k, method: methods.good() });
      if (charged.status !== "approved") throw new Error("not approved");
      expect(await gateway.refund(k)).toEqual({ refunded: true });
      const to = new Date(Date.now() + 60_000);
      const listed = await gateway.listActivity!({ from, to });
      const mine = listed.charges.find((c) => c.id === charged.authReference);
      expect(mine).toMatchObject({ key: k, amount: 4321, refunded: 4321 });
      expect(listed.refunds.filter((r) => r.chargeId === charged.authReference).map((r) => r.amount)).toEqual([4321]);
      const before = await gateway.listActivity!({ from: new Date(from.getTime() - 3_600_000), to: from });
      expect(before.charges.some((c) => c.id === charged.authReference)).toBe(false);
    });

    it("saves a card (tokenize) whose token charges later; a card that saves but declines declines then", async () => {
      const { gateway, methods } = await setup();
      const saved = await gateway.tokenize(methods.good());
      if (saved.status !== "ok") throw new Error(`tokenize: ${saved.reason}`);
      expect(saved.last4).toMatch(/^\d{4}$/);
      const later = await gateway.charge({ amount: 4200, idempotencyKey: key("saved"), cardToken: saved.cardToken });
      expect(later).toMatchObject({ status: "approved", last4: saved.last4 });
      const bad = await gateway.tokenize(methods.savesButDeclines());
      if (bad.status !== "ok") throw new Error(`tokenize: ${bad.reason}`);
      expect(await gateway.charge({ amount: 4200, idempotencyKey: key("saved-decl"), cardToken: bad.cardToken })).toMatchObject({ status: "declined" });
    });

    it("a card saved from a charge (saveCard) charges again by its token", async () => {
      const { gateway, methods } = await setup();
      const first = await gateway.charge({ amount: 700, idempotencyKey: key("save-on-charge"), method: methods.good(), saveCard: true });
      if (first.status !== "approved") throw new Error("not approved");
      const again = await gateway.charge({ amount: 800, idempotencyKey: key("save-on-charge-2"), cardToken: first.cardToken });
      expect(again).toMatchObject({ status: "approved", last4: first.last4 });
    });

    it("declines to save a declined card", async () => {
      const { gateway, methods } = await setup();
      expect(await gateway.tokenize(methods.declined())).toMatchObject({ status: "declined" });
    });
  });
}
