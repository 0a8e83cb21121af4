/** The comparison of the processor's list with our payments (issue 35, decision 440): each kind of difference, and none when they agree. */
import { describe, expect, it } from "vitest";
import { reconcileDay, whatToDo, type ListedCharge, type OurPayment } from "~/domain/payments/reconciliation";

const from = new Date("2026-11-28T05:00:00Z");
const to = new Date("2026-11-29T05:00:00Z");
const at = (h: number) => new Date(from.getTime() + h * 3_600_000);
const charge = (id: string, amount: number, o: Partial<ListedCharge> = {}): ListedCharge => ({ id, key: null, amount, refunded: 0, created: at(10), card: "visa 4242", ...o });
const ours = (id: number, o: Partial<OurPayment> = {}): OurPayment => ({ id, locationId: 1, day: "2026-11-28", refundDay: null, status: "approved", amount: 1000, reference: `pi_${id}`, key: `k${id}`, tenant: "Ann Lee", card: "visa 4242", ...o });
const run = (charges: ListedCharge[], payments: OurPayment[], refunds = [] as Parameters<typeof reconcileDay>[0]["refunds"]) => reconcileDay({ locationId: 1, day: "2026-11-28", from, to, charges, refunds, ours: payments });

describe("reconcileDay", () => {
  it("agrees: the same payments, a refund on both sides, a payment recorded just after midnight of a charge just before", () => {
    const r = run(
      [charge("pi_1", 1000), charge("pi_2", 500, { refunded: 500 }), charge("pi_3", 700, { created: at(23.99) })],
      [ours(1), ours(2, { amount: 500, status: "refunded", refundDay: "2026-11-28" }), ours(3, { amount: 700 })],
      [{ id: "re_1", chargeId: "pi_2", amount: 500, created: at(12) }],
    );
    expect(r.differences).toEqual([]);
    expect(r.processor).toEqual({ charged: 2200, refunded: 500, net: 1700, count: 3 });
    expect(r.recorded).toEqual({ charged: 2200, refunded: 500, net: 1700, count: 3 });
  });

  it("money at the processor with no payment here: no location; fully refunded: nothing", () => {
    const r = run([charge("pi_x", 777), charge("pi_y", 300, { refunded: 300 })], []);
    expect(r.differences).toEqual([expect.objectContaining({ kind: "not_recorded", locationId: null, reference: "pi_x", processorAmount: 777 })]);
    expect(whatToDo(r.differences[0]!)).toMatch(/dashboard/);
  });

  it("money taken for a payment we recorded as declined: at that payment's location", () => {
    const r = run([charge("pi_9", 1000, { key: "rent-9" })], [ours(9, { status: "declined", reference: null, key: "rent-9:declined" })]);
    expect(r.differences).toEqual([expect.objectContaining({ kind: "not_recorded", locationId: 1, paymentId: 9, processorAmount: 1000, recordedAmount: 0 })]);
  });

  it("a payment here the processor does not know, and amounts that differ (a refund made only at the processor)", () => {
    const r = run([charge("pi_2", 1000, { refunded: 400 })], [ours(1), ours(2)]);
    expect(r.differences).toEqual([
      expect.objectContaining({ kind: "unknown_to_processor", reference: "payment:1", recordedAmount: 1000, processorAmount: null }),
      expect.objectContaining({ kind: "amount_differs", reference: "pi_2", processorAmount: 600, recordedAmount: 1000 }),
    ]);
  });

  it("another location's payment and charge are not this location's business", () => {
    const r = run([charge("pi_5", 1000)], [ours(5, { locationId: 2 })]);
    expect(r.differences).toEqual([]);
    expect(r.processor.count).toBe(0);
  });

  it("matches by key when the reference is not the charge's id (the test gateway's, a charge found again by key)", () => {
    const r = run([charge("AUTH-1", 1000, { key: "k1" })], [ours(1, { reference: "AUTH-OTHER" })]);
    expect(r.differences).toEqual([]);
  });
});
