/**
 * The daily billing run at SiteLink locations (decision 170), against the simulator over real SOAP:
 * under option B (Jacksonville, no SiteLink processor) our gateway charges the saved card when rent
 * falls due and the payment is recorded in SiteLink as a check payment with the gateway reference,
 * once (rerun, two processes at once, no answer from SiteLink); a decline is one declined payment,
 * the email and the dashboard notice, never retried that period. Under option A (Lumberton) SiteLink's
 * own autopay charges and our run does nothing.
 */
import { and, eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, emailOutbox, leases, locations, payments, sitelinkWrites } from "~/db/schema";
import { refundDeskPayment } from "~/services/desk/tenants.server";
import { SITELINK_REFUND_REFUSAL } from "~/storage-software/sitelink/tenants";
import { runBilling } from "~/services/payments/billing-run.server";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import {
  createTestGateway,
  setPaymentGatewayForTests,
  type PaymentGateway,
} from "~/platform/payments/gateway.server";
import { storageFor, type LocationRef } from "~/storage-software/index.server";
import { addDaysIso } from "~/domain/shared/calendar";
import { card, ctxFor, NOW, signedRental } from "../support/rental-fixtures";
import {
  roomiestSyncedUnitType,
  startSyncedSiteLinkTestbed,
  type SiteLinkTestbed,
} from "../support/sitelink-testbed";

let bed: SiteLinkTestbed;
/** Every charge request the gateway received (repeats of a key included). */
let charges: string[] = [];

function countingGateway(): PaymentGateway {
  const inner = createTestGateway();
  return {
    ...inner,
    async charge(input) {
      charges.push(input.idempotencyKey);
      return inner.charge(input);
    },
  };
}

async function freeType(location: LocationRef): Promise<string> {
  return (await roomiestSyncedUnitType(bed, location)).id;
}

/** A rental made online with autopay on (card charged at move-in; our saved card for autopay under B). */
async function rentWithAutopay(location: LocationRef) {
  const unitTypeId = await freeType(location);
  const { id } = await signedRental(bed.handle.db, unitTypeId);
  const ctx = await ctxFor(bed.handle.db, unitTypeId);
  const outcome = await placeMoveIn(
    bed.handle.db,
    ctx,
    (await getRental(bed.handle.db, id, unitTypeId))!,
    {
      payment: { kind: "card", card: card() },
      autopay: true,
      now: NOW,
      origin: "https://www.example.com",
    },
  );
  expect(outcome).toMatchObject({ status: "completed" });
  const lease = (await bed.handle.db.query.leases.findFirst({
    where: eq(leases.id, Number((outcome as { leaseId: string }).leaseId)),
  }))!;
  expect(lease.autopayEnabled).toBe(true);
  dueOf(location.id === bed.lumberton.id ? "L001" : "L002", lease.externalId!);
  return lease;
}

/** The next due date of the lease's ledger: the day after what the move-in paid for (SiteLink's own billing rules). */
let DUE = "";
let DUE_NOW = new Date(0);
function dueOf(code: string, ledgerId: string) {
  DUE = addDaysIso(ledgerOf(code, ledgerId).paidThru, 1);
  DUE_NOW = new Date(`${DUE}T15:00:00Z`);
}

/** SiteLink's nightly run on the due date (posts the period's charges; its own autopay where it has one). */
function siteLinkPostsCharges(code: string) {
  bed.sim.control.setClock({ to: DUE_NOW.toISOString() });
  return bed.sim.control.runBilling({ date: DUE, location: code });
}

const checkPayments = (code: string) =>
  bed.sim.control.calls({
    operation: "PaymentSimpleCheckWithSource",
    location: code,
  });
const ledgerOf = (code: string, ledgerId: string) =>
  bed.sim.control
    .inspectSite(code)
    .ledgers.find((l) => l.LedgerID === Number(ledgerId))!;
const paymentsOf = (code: string, ledgerId: string) =>
  bed.sim.control
    .inspectSite(code)
    .payments.filter((p) => p.LedgerID === Number(ledgerId));
const bill = (tenantId: number, now = DUE_NOW) =>
  runBilling(bed.handle.db, { runDate: DUE, now, force: true, tenantId });

/** A Jacksonville rental with autopay, SiteLink's charges posted on the due date, and one fault on the next check payment. */
async function dueWithPaymentFault(kind: "commit_then_hang" | "drop_before") {
  setPaymentGatewayForTests(countingGateway());
  const lease = await rentWithAutopay(bed.jacksonville);
  charges = [];
  siteLinkPostsCharges("L002");
  const before = paymentsOf("L002", lease.externalId!).length;
  const sends = checkPayments("L002").length;
  bed.sim.control.addFault({
    operation: "PaymentSimpleCheckWithSource",
    kind,
    times: 1,
  });
  return { lease, before, sends };
}

beforeAll(async () => {
  bed = await startSyncedSiteLinkTestbed(NOW);
});
afterAll(() => bed?.close());
afterEach(() => {
  bed.sim.control.clearFaults();
  bed.sim.control.setClock({ to: NOW.toISOString() });
  setPaymentGatewayForTests(null);
});

describe("autopay where our gateway charges (option B)", () => {
  it("charges the saved card once when rent falls due and records it in SiteLink, even run twice at once and again", async () => {
    setPaymentGatewayForTests(countingGateway());
    const lease = await rentWithAutopay(bed.jacksonville);
    charges = [];
    siteLinkPostsCharges("L002");
    // Owed but not due yet (the day before): nothing.
    expect(
      (
        await runBilling(bed.handle.db, {
          runDate: addDaysIso(DUE, -1),
          now: DUE_NOW,
          force: true,
          tenantId: lease.tenantId,
        })
      ).autopayCharged,
    ).toBe(0);
    expect(charges).toEqual([]);
    const before = paymentsOf("L002", lease.externalId!).length;
    const sends = checkPayments("L002").length;

    // Two processes at once, then a rerun the same day.
    const [a, b] = await Promise.all([
      bill(lease.tenantId),
      bill(lease.tenantId),
    ]);
    expect(a.autopayCharged + b.autopayCharged).toBe(1);
    expect((await bill(lease.tenantId)).autopayCharged).toBe(0);

    expect(charges).toEqual([`autopay:${lease.id}:${DUE}`]);
    expect(checkPayments("L002").length).toBe(sends + 1);
    const posted = paymentsOf("L002", lease.externalId!).slice(before);
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({ payMethod: 1 });
    const ours = (await bed.handle.db.query.payments.findFirst({
      where: eq(payments.idempotencyKey, `autopay:${lease.id}:${DUE}`),
    }))!;
    expect(ours).toMatchObject({
      status: "approved",
      source: "autopay",
      amount: posted[0]!.amount,
    });
    expect(posted[0]!.checkNumber).toBe(ours.authReference);
    expect(ledgerOf("L002", lease.externalId!).paidThru > DUE).toBe(true);
    const seen = (await storageFor(
      bed.handle.db,
      bed.jacksonville,
    ).getTenantLease(String(lease.tenantId), String(lease.id)))!;
    expect(seen.balance).toBe(0);
    expect(seen.autopayDecline).toBeNull();
  });

  it("the console refuses to refund a payment booked in SiteLink (decision 280): nothing refunded, nothing written", async () => {
    const refunds: string[] = [];
    const inner = countingGateway();
    setPaymentGatewayForTests({ ...inner, async refund(key) { refunds.push(key); return inner.refund(key); } });
    const lease = await rentWithAutopay(bed.jacksonville);
    siteLinkPostsCharges("L002");
    await bill(lease.tenantId);
    const paid = (await bed.handle.db.query.payments.findFirst({ where: eq(payments.idempotencyKey, `autopay:${lease.id}:${DUE}`) }))!;
    expect(paid.status).toBe("approved");
    const owner = { staffId: 0, accountId: (await bed.handle.db.query.locations.findFirst({ where: eq(locations.id, bed.jacksonville.id) }))!.accountId, email: "owner@example.com", name: "Owner", role: "owner" as const, scope: { all: true as const }, factorAt: new Date(), sessionHash: "x", ip: null };
    const outcome = await refundDeskPayment(bed.handle.db, owner, { paymentId: paid.id, now: DUE_NOW });
    expect(outcome).toEqual({ ok: false, message: SITELINK_REFUND_REFUSAL, field: "paymentId" });
    expect(refunds).toEqual([]);
    expect((await bed.handle.db.query.payments.findFirst({ where: eq(payments.id, paid.id) }))!.status).toBe("approved");
    expect(await bed.handle.db.select().from(auditEvents).where(eq(auditEvents.action, "payment.refunded"))).toHaveLength(0);
  });

  it("SiteLink does not answer the payment: read back, never sent blindly again; found -> recorded once", async () => {
    const { lease, before, sends } =
      await dueWithPaymentFault("commit_then_hang");
    expect((await bill(lease.tenantId)).autopayCharged).toBe(1);
    expect((await bill(lease.tenantId)).autopayCharged).toBe(0);
    expect(checkPayments("L002").length).toBe(sends + 1);
    expect(paymentsOf("L002", lease.externalId!).length).toBe(before + 1);
    expect(charges).toHaveLength(1);
    const [journal] = await bed.handle.db
      .select()
      .from(sitelinkWrites)
      .where(
        eq(sitelinkWrites.idempotencyKey, `payment:autopay:${lease.id}:${DUE}`),
      );
    expect(journal!.state).toBe("done");
  });

  it("another run reconciling the attempt while its sender still waits for SiteLink's answer: recorded and reported once", async () => {
    // SiteLink commits the payment, then keeps the sender waiting (until its 1.5 s write timeout).
    const { lease, sends } = await dueWithPaymentFault("commit_then_hang");
    const first = bill(lease.tenantId);
    const deadline = Date.now() + 5000;
    const committed = () =>
      checkPayments("L002")
        .slice(sends)
        .some((c) => c.processed);
    while (!committed() && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(committed()).toBe(true);
    // The second run finds the attempt pending and SiteLink's receipt, and (in all but a very slow
    // moment) records it before the sender's timeout; either way the charge is reported once.
    const second = await bill(lease.tenantId);
    expect(second.autopayCharged + (await first).autopayCharged).toBe(1);
    expect(charges).toEqual([`autopay:${lease.id}:${DUE}`]);
    expect(checkPayments("L002").length).toBe(sends + 1);
    const ours = await bed.handle.db
      .select()
      .from(payments)
      .where(eq(payments.idempotencyKey, `autopay:${lease.id}:${DUE}`));
    expect(ours).toHaveLength(1);
  });

  it("SiteLink dropped the payment: unknown until the settle time, then sent once more; the card is charged once", async () => {
    const { lease, before, sends } = await dueWithPaymentFault("drop_before");
    await bill(lease.tenantId);
    const key = `payment:autopay:${lease.id}:${DUE}`;
    expect(
      (
        await bed.handle.db
          .select()
          .from(sitelinkWrites)
          .where(eq(sitelinkWrites.idempotencyKey, key))
      )[0]!.state,
    ).toBe("unknown");
    // A rerun a minute later: still within the settle time, nothing sent (the dropped call never reached SiteLink's log).
    await bill(lease.tenantId, new Date(DUE_NOW.getTime() + 60_000));
    expect(checkPayments("L002").length).toBe(sends);
    // The next run after the settle time: no receipt, so the approved charge is recorded by a second send.
    await bill(lease.tenantId, new Date(DUE_NOW.getTime() + 10 * 60_000));
    await bill(lease.tenantId, new Date(DUE_NOW.getTime() + 20 * 60_000));
    expect(checkPayments("L002").length).toBe(sends + 1);
    expect(paymentsOf("L002", lease.externalId!).length).toBe(before + 1);
    expect(charges).toEqual([`autopay:${lease.id}:${DUE}`]);
    expect(ledgerOf("L002", lease.externalId!).paidThru > DUE).toBe(true);
    const rows = await bed.handle.db
      .select()
      .from(sitelinkWrites)
      .where(sql`${sitelinkWrites.idempotencyKey} like ${`${key}%`}`);
    expect(rows.map((r) => [r.idempotencyKey, r.state]).sort()).toEqual([
      [key, "failed"],
      [`${key}:2`, "done"],
    ]);
  });

  it("a declined card: one declined payment, the email and the dashboard notice, nothing sent to SiteLink, no retry", async () => {
    setPaymentGatewayForTests(countingGateway());
    const lease = await rentWithAutopay(bed.jacksonville);
    // The tenant switches autopay to a card that can be saved but declines every charge.
    const storage = storageFor(bed.handle.db, bed.jacksonville);
    await storage.enrolAutopay({
      tenantId: String(lease.tenantId),
      leaseId: String(lease.id),
      method: { kind: "card", card: card("4000000000000341"), saveCard: true },
      now: NOW,
    });
    charges = [];
    siteLinkPostsCharges("L002");
    const sends = checkPayments("L002").length;
    const result = await bill(lease.tenantId);
    expect(result).toMatchObject({ autopayCharged: 0, autopayDeclined: 1 });
    expect((await bill(lease.tenantId)).autopayDeclined).toBe(0);
    expect(charges).toHaveLength(1);
    expect(checkPayments("L002").length).toBe(sends);
    const declined = await bed.handle.db
      .select()
      .from(payments)
      .where(
        and(eq(payments.leaseId, lease.id), eq(payments.status, "declined")),
      );
    expect(declined).toHaveLength(1);
    const seen = (await storage.getTenantLease(
      String(lease.tenantId),
      String(lease.id),
    ))!;
    expect(seen.balance).toBeGreaterThan(0);
    expect(seen.autopayDecline).toMatchObject({ amount: seen.balance });
    const tenant = (await storage.getTenant(String(lease.tenantId)))!;
    const mails = await bed.handle.db
      .select()
      .from(emailOutbox)
      .where(
        and(
          eq(emailOutbox.to, tenant.email),
          eq(emailOutbox.subject, "Your autopay payment was declined"),
        ),
      );
    expect(mails).toHaveLength(1);
  });
});

describe("autopay where SiteLink charges (option A)", () => {
  it("our run charges nothing and sends nothing: SiteLink's own autopay takes the payment", async () => {
    setPaymentGatewayForTests(countingGateway());
    const lease = await rentWithAutopay(bed.lumberton);
    charges = [];
    const billed = siteLinkPostsCharges("L001");
    expect(billed.autopayments).toBeGreaterThanOrEqual(1);
    const payCalls = () =>
      bed.sim.control
        .calls({ location: "L001" })
        .filter((c) => c.operation?.startsWith("Payment")).length;
    const calls = payCalls();
    const result = await bill(lease.tenantId);
    expect(result).toMatchObject({
      leases: 0,
      autopayCharged: 0,
      autopayDeclined: 0,
    });
    expect(charges).toEqual([]);
    expect(payCalls()).toBe(calls);
    expect(ledgerOf("L001", lease.externalId!).paidThru > DUE).toBe(true);
  });
});
