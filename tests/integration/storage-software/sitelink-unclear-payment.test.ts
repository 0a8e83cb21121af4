/**
 * Issue 37 points 6 and 7 (decision 481): a portal payment SiteLink did not answer, whose receipt was
 * not on the ledger when we looked, is settled by reading SiteLink back on a schedule (the server's
 * housekeeping), and a new payment of the same balance waits until it is settled: never a second
 * charge while SiteLink may book the first late. And a payment is dated in the location's time zone.
 * Against the SiteLink simulator over SOAP/HTTP, its own faults (a late commit, a dropped request)
 * and its own payment records.
 */
import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ledgerEntries, payments, sitelinkWrites } from "~/db/schema";
import { createTestGateway, setPaymentGatewayForTests, type PaymentGateway } from "~/platform/payments/gateway.server";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { runHousekeeping } from "~/services/jobs/housekeeping.server";
import { getRental } from "~/services/rental/record.server";
import { OutcomeUnknownError } from "~/storage-software/errors";
import { checkJournalWrite, storageFor } from "~/storage-software/index.server";
import { card, ctxFor, NOW, signedRental } from "../support/rental-fixtures";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

const ORIGIN = "https://www.example.com";
/** SiteLink's settle time here (decision 215: at least two minutes). */
const AFTER_SETTLE = new Date(NOW.getTime() + 3 * 60_000);

let bed: SiteLinkTestbed;
const refunds: string[] = [];
const gateway: PaymentGateway = {
  ...createTestGateway(),
  async refund(key) {
    refunds.push(key);
    return { refunded: true };
  },
};

beforeAll(async () => {
  setPaymentGatewayForTests(gateway);
  bed = await startSyncedSiteLinkTestbed(NOW, { writeTimeoutMs: 1500 });
});
afterAll(async () => {
  setPaymentGatewayForTests(null);
  await bed?.close();
});
beforeEach(() => bed.sim.control.clearFaults());

/** A tenant of ours renting at `code`'s location online; their tenant and lease ids. */
async function renter(location: "lumberton" | "jacksonville") {
  const unitTypeId = (await roomiestSyncedUnitType(bed, bed[location])).id;
  const { id } = await signedRental(bed.handle.db, unitTypeId, { plan: "none" });
  const ctx = await ctxFor(bed.handle.db, unitTypeId);
  const outcome = await placeMoveIn(bed.handle.db, ctx, (await getRental(bed.handle.db, id, unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: ORIGIN });
  expect(outcome).toMatchObject({ status: "completed" });
  const leaseId = (outcome as { leaseId: string }).leaseId;
  const lease = await bed.handle.db.query.leases.findFirst({ where: (l, { eq }) => eq(l.id, Number(leaseId)) });
  return { storage: storageFor(bed.handle.db, bed[location]), tenantId: String(lease!.tenantId), leaseId };
}

const sent = (operation: string, code: string) => bed.sim.control.calls({ operation, location: code }).length;
const booked = (code: string) => bed.sim.control.inspectSite(code).payments.length;
const paymentRow = (key: string) => bed.handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, key) });
const journalRow = async (key: string) => (await bed.handle.db.select().from(sitelinkWrites).where(eq(sitelinkWrites.idempotencyKey, `payment:${key}`)))[0];

/** Waits (polling, not timing) until SiteLink's records show `count` payments at the site. */
async function untilBooked(code: string, count: number) {
  for (let i = 0; i < 300 && booked(code) < count; i++) await new Promise((r) => setTimeout(r, 100));
  expect(booked(code)).toBe(count);
}

describe("a portal payment SiteLink answered unclearly", () => {
  it("booked late by SiteLink: a new payment of the balance waits; the schedule finds the receipt and records the first once", async () => {
    const r = await renter("lumberton");
    const pay = (key: string) => r.storage.makePayment({ tenantId: r.tenantId, leaseId: r.leaseId, amount: 2500, method: { kind: "card", card: card(), saveCard: false }, idempotencyKey: key, now: NOW });
    const bookedBefore = booked("L001");
    const sentBefore = sent("PaymentSimpleWithSource", "L001");
    // SiteLink takes the payment after our 1.5 s write timeout: no answer, and no receipt when we look.
    bed.sim.control.addFault({ operation: "PaymentSimpleWithSource", kind: "latency", ms: 6000, times: 1 });
    await expect(pay("late-1")).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect((await journalRow("late-1"))!.state).toBe("unknown");
    expect(await paymentRow("late-1")).toBeUndefined();

    // A fresh form for the same balance: not sent, the tenant is told the first is being confirmed.
    await expect(pay("late-2")).rejects.toThrow(/earlier payment of this balance is still being confirmed/);

    // SiteLink books the first one late (its call log shows one payment sent); the next scheduled round reads it back.
    await untilBooked("L001", bookedBefore + 1);
    expect(sent("PaymentSimpleWithSource", "L001")).toBe(sentBefore + 1);
    expect((await runHousekeeping(bed.handle.db, new Date(NOW.getTime() + 5 * 60_000))).settledPayments).toBe(1);
    const row = await journalRow("late-1");
    expect(row!.state).toBe("done");
    expect(row!.externalIds).toMatchObject({ receipt: String(bed.sim.control.inspectSite("L001").payments.at(-1)!.Receipt) });
    const recorded = await paymentRow("late-1");
    expect(recorded).toMatchObject({ amount: 2500, status: "approved", source: "portal", cardLast4: "4242" });
    const lines = await bed.handle.db.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, recorded!.id));
    expect(lines).toHaveLength(1);
    // Dated the day the tenant paid, in Lumberton.
    expect(lines[0]!.entryDate).toBe("2026-11-22");
    // The same form again: its payment, nothing sent; a second round changes nothing.
    expect((await pay("late-1")).id).toBe(String(recorded!.id));
    expect((await runHousekeeping(bed.handle.db, new Date(NOW.getTime() + 10 * 60_000))).settledPayments).toBe(0);
    expect(await bed.handle.db.select().from(payments).where(eq(payments.idempotencyKey, "late-1"))).toHaveLength(1);

    // Settled: a new payment goes through, once.
    const next = await pay("late-3");
    expect(next.status).toBe("approved");
    expect(sent("PaymentSimpleWithSource", "L001")).toBe(sentBefore + 2);
    expect(booked("L001")).toBe(bookedBefore + 2);
  });

  it("booked late, found by the back office's 'check SiteLink again': the tenant's payment is recorded there too, once", async () => {
    const r = await renter("lumberton");
    const bookedBefore = booked("L001");
    bed.sim.control.addFault({ operation: "PaymentSimpleWithSource", kind: "latency", ms: 6000, times: 1 });
    await expect(
      r.storage.makePayment({ tenantId: r.tenantId, leaseId: r.leaseId, amount: 3100, method: { kind: "card", card: card(), saveCard: false }, idempotencyKey: "desk-1", now: NOW }),
    ).rejects.toBeInstanceOf(OutcomeUnknownError);
    await untilBooked("L001", bookedBefore + 1);
    expect((await checkJournalWrite(bed.handle.db, { key: "payment:desk-1", now: new Date(NOW.getTime() + 60_000) })).kind).toBe("applied");
    expect((await journalRow("desk-1"))!.state).toBe("done");
    expect(await paymentRow("desk-1")).toMatchObject({ amount: 3100, status: "approved", source: "portal" });
    expect(await bed.handle.db.select().from(payments).where(eq(payments.idempotencyKey, "desk-1"))).toHaveLength(1);
  });

  it("never booked: after SiteLink's settle time the schedule settles it failed, nothing recorded, and the tenant can pay", async () => {
    const r = await renter("lumberton");
    const pay = (key: string, now = NOW) => r.storage.makePayment({ tenantId: r.tenantId, leaseId: r.leaseId, amount: 1800, method: { kind: "card", card: card(), saveCard: false }, idempotencyKey: key, now });
    const bookedBefore = booked("L001");
    bed.sim.control.addFault({ operation: "PaymentSimpleWithSource", kind: "drop_before", times: 1 });
    await expect(pay("lost-1")).rejects.toBeInstanceOf(OutcomeUnknownError);
    // Before the settle time the schedule leaves it open, and a new payment still waits.
    expect((await runHousekeeping(bed.handle.db, new Date(NOW.getTime() + 30_000))).settledPayments).toBe(0);
    await expect(pay("lost-2", new Date(NOW.getTime() + 30_000))).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect((await runHousekeeping(bed.handle.db, AFTER_SETTLE)).settledPayments).toBe(1);
    expect((await journalRow("lost-1"))!.state).toBe("failed");
    expect(await paymentRow("lost-1")).toBeUndefined();
    expect(booked("L001")).toBe(bookedBefore);
    expect(refunds).toEqual([]);
    expect((await pay("lost-3", AFTER_SETTLE)).status).toBe("approved");
    expect(booked("L001")).toBe(bookedBefore + 1);
  });

  it("option B, never booked: our gateway's charge is refunded once the schedule settles it failed", async () => {
    const r = await renter("jacksonville");
    bed.sim.control.addFault({ operation: "PaymentSimpleCheckWithSource", kind: "drop_before", times: 1 });
    await expect(
      r.storage.makePayment({ tenantId: r.tenantId, leaseId: r.leaseId, amount: 1200, method: { kind: "card", card: card(), saveCard: false }, idempotencyKey: "lost-b-1", now: NOW }),
    ).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(refunds).toEqual([]);
    await runHousekeeping(bed.handle.db, AFTER_SETTLE);
    expect((await journalRow("lost-b-1"))!.state).toBe("failed");
    expect(refunds).toEqual(["lost-b-1"]);
  });
});

it("a payment at 22:30 in Lumberton is dated that day, not the UTC date (the next day)", async () => {
  const r = await renter("lumberton");
  const late = new Date("2026-11-23T03:30:00Z"); // 22:30 on 22 November in North Carolina (EST)
  const p = await r.storage.makePayment({ tenantId: r.tenantId, leaseId: r.leaseId, amount: 700, method: { kind: "card", card: card(), saveCard: false }, idempotencyKey: "late-evening", now: late });
  const [line] = await bed.handle.db
    .select({ entryDate: ledgerEntries.entryDate })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.paymentId, Number(p.id)), like(ledgerEntries.kind, "payment")));
  expect(line!.entryDate).toBe("2026-11-22");
});
