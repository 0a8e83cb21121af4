/**
 * Partial refunds at the desk, and cancelling the rental with a move-in payment's refund (issue 39,
 * decision 509), over real HTTP against the app's routes, with Stripe's fake over the wire as the
 * location's gateway (the real `stripe` package): online rentals at Lumberton paid with Stripe's
 * test card, refunded from the tenant's page by a manager.
 */
import { and, desc, eq, like, or } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, ledgerEntries, leases, locations, payments, units } from "~/db/schema";
import { setPaymentGatewayForTests } from "~/platform/payments/gateway.server";
import { formatCents } from "~/domain/shared/money";
import { leaseBalance } from "~/storage-software/shared/ledger";
import { startAppServer, type AppServer } from "../support/app-server";
import { lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";
import { intentOf, rentalPayStep, startStripeTestbed, type StripeTestbed } from "../support/stripe-fixtures";
import { signedInStaffMember, STALE_FACTOR_MS, type TestStaffMember } from "../support/staff-fixtures";
import { getPage, postForm, textOf } from "./over-http";

let bed: StripeTestbed;
let app: AppServer;
let manager: TestStaffMember;
let unitTypeId: string;
let accountId: number;
let lumberton: number;

beforeAll(async () => {
  bed = await startStripeTestbed({ now: NOW });
  setPaymentGatewayForTests(bed.gateway());
  const db = bed.handle.db;
  const [loc] = await db.select().from(locations).where(eq(locations.name, "Lumberton"));
  lumberton = loc!.id;
  accountId = loc!.accountId;
  unitTypeId = (await lumbertonUnitType(db)).unitTypeId;
  manager = await signedInStaffMember(db, { accountId, role: "manager", locationIds: [lumberton] });
  app = await startAppServer(db);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await bed?.close();
});

/** A fresh online rental paid with Stripe's test card: its tenant, lease and move-in payment. */
async function rentAndPay() {
  const db = bed.handle.db;
  // Earlier rentals hold units; let them go so each finds one free.
  await db.update(units).set({ heldUntil: null, holdToken: null }).where(eq(units.unitTypeId, Number(unitTypeId)));
  const { id } = await signedRental(db, unitTypeId);
  const steps = rentalPayStep(db, unitTypeId);
  await steps.pay(id, { payment_token: "pm_card_visa" });
  const leaseId = await steps.leaseOf(id);
  expect(leaseId).not.toBeNull();
  const lease = (await db.query.leases.findFirst({ where: eq(leases.id, Number(leaseId)) }))!;
  const [payment] = await db.select().from(payments).where(and(eq(payments.leaseId, lease.id), eq(payments.status, "approved")));
  expect(payment).toMatchObject({ source: "move_in" });
  return { tenantId: lease.tenantId, lease, payment: payment! };
}

const refund = (who: TestStaffMember, tenantId: number, fields: Record<string, string>) => postForm(app, `/admin/tenants/${tenantId}`, who, { intent: "refund-payment", confirm: "yes", ...fields });
const paymentNow = async (id: number) => (await bed.handle.db.query.payments.findFirst({ where: eq(payments.id, id) }))!;
const refundsAtStripe = (key: string) => {
  const pi = intentOf(bed.fake, key)!;
  return (bed.fake.control.objects("refund") as Array<{ payment_intent: string; amount: number }>).filter((r) => r.payment_intent === pi.id).map((r) => r.amount);
};
const refundLines = (paymentId: number) =>
  bed.handle.db
    .select()
    .from(ledgerEntries)
    .where(or(eq(ledgerEntries.postingKey, `refund:${paymentId}`), like(ledgerEntries.postingKey, `refund:${paymentId}:%`)))
    .orderBy(ledgerEntries.id);
const audits = (action: string, entityId: number) =>
  bed.handle.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), eq(auditEvents.entityId, String(entityId))))
    .orderBy(desc(auditEvents.id));

describe("partial refunds at the desk", () => {
  it("offers the whole refundable amount, and refuses an amount that is not more than zero, more than is left, or not money, keeping what was typed", async () => {
    const { tenantId, payment } = await rentAndPay();
    const page = await getPage(app, `/admin/tenants/${tenantId}`, manager);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`value="${(payment.amount / 100).toFixed(2)}"`);
    expect(textOf(page.body).replace(/\s+\)/g, ")")).toContain(`Amount to refund (at most ${formatCents(payment.amount)})`);
    for (const [amount, message] of [
      ["0", "Enter an amount more than $0.00"],
      [((payment.amount + 1) / 100).toFixed(2), `Enter at most ${formatCents(payment.amount)}: that is what is left to refund of this payment.`],
      ["12.345", "Enter the amount in dollars and cents"],
      ["ten", "Enter the amount in dollars and cents"],
    ] as const) {
      const r = await refund(manager, tenantId, { paymentId: String(payment.id), amount, refunded: "0" });
      expect(r.status, amount).toBe(400);
      expect(textOf(r.body), amount).toContain(message);
      expect(r.body, amount).toContain(`value="${amount}"`);
    }
    expect(refundsAtStripe(payment.idempotencyKey)).toEqual([]);
    expect(await paymentNow(payment.id)).toMatchObject({ status: "approved", refundedAmount: 0 });
  });

  it("refunds part through Stripe, then the rest: the ledger, the payment, the audit and the payments list follow; the same form twice refunds once", async () => {
    const { tenantId, lease, payment } = await rentAndPay();
    const balance0 = await leaseBalance(bed.handle.db, lease.id);
    const first = await refund(manager, tenantId, { paymentId: String(payment.id), amount: "$10.00", refunded: "0" });
    expect(first.status).toBe(303);
    expect(first.location).toBe(`/admin/tenants/${tenantId}?done=refundpart`);
    expect(refundsAtStripe(payment.idempotencyKey)).toEqual([1000]);
    expect(await paymentNow(payment.id)).toMatchObject({ status: "approved", refundedAmount: 1000 });
    expect((await refundLines(payment.id)).map((l) => l.amount)).toEqual([-1000]);
    expect(await leaseBalance(bed.handle.db, lease.id)).toBe(balance0 + 1000);
    const [part] = await audits("payment.refunded_in_part", payment.id);
    expect(part).toMatchObject({ staffId: manager.staffId, locationId: lumberton });
    expect(part!.changes).toMatchObject({ refunded: { before: 0, after: 1000 }, leaseBalance: { before: balance0, after: balance0 + 1000 } });
    const shown = textOf((await getPage(app, first.location!, manager)).body);
    expect(shown).toContain("That part of the payment is refunded to the card");
    expect(shown).toMatch(/Approved\s*, \$10\.00 refunded/);

    // The same form sent again: nothing more at Stripe, in the ledger or the audit.
    const again = await refund(manager, tenantId, { paymentId: String(payment.id), amount: "10.00", refunded: "0" });
    expect(again.location).toBe(`/admin/tenants/${tenantId}?done=refundchanged`);
    expect(refundsAtStripe(payment.idempotencyKey)).toEqual([1000]);
    expect(await refundLines(payment.id)).toHaveLength(1);
    expect(await audits("payment.refunded_in_part", payment.id)).toHaveLength(1);

    // The rest (the field's default: all that is left).
    const rest = payment.amount - 1000;
    const second = await refund(manager, tenantId, { paymentId: String(payment.id), amount: (rest / 100).toFixed(2), refunded: "1000" });
    expect(second.location).toBe(`/admin/tenants/${tenantId}?done=refund`);
    expect(refundsAtStripe(payment.idempotencyKey)).toEqual([1000, rest]);
    expect(await paymentNow(payment.id)).toMatchObject({ status: "refunded", refundedAmount: payment.amount });
    expect((await refundLines(payment.id)).map((l) => l.amount)).toEqual([-1000, -rest]);
    expect(await leaseBalance(bed.handle.db, lease.id)).toBe(balance0 + payment.amount);
    expect((await audits("payment.refunded", payment.id))[0]!.changes).toMatchObject({ status: { before: "approved", after: "refunded" }, refunded: { before: 1000, after: payment.amount } });
    // Nothing is left to refund: a further refund is answered "refunded already".
    const more = await refund(manager, tenantId, { paymentId: String(payment.id), amount: "1.00", refunded: String(payment.amount) });
    expect(more.location).toBe(`/admin/tenants/${tenantId}?done=refunded`);
    expect(refundsAtStripe(payment.idempotencyKey)).toHaveLength(2);

    // The payments list's CSV: refunded in all, and the day's totals add up (both refunds today).
    const csv = await getPage(app, `/admin/payments.csv?status=refunded`, manager);
    const [header, ...rows] = csv.body.trim().split(/\r?\n/).map((l) => l.split(","));
    const at = (name: string) => header!.indexOf(name);
    const row = rows.find((r) => r[at("Amount (cents)")] === String(payment.amount) && r[at("Reference")] === (payment.authReference ?? ""))!;
    expect(row).toBeDefined();
    expect(row[at("Status")]).toBe("Refunded");
    expect(row[at("Refunded")]).toBe(formatCents(payment.amount));
    const list = textOf((await getPage(app, `/admin/payments`, manager)).body);
    expect(list).not.toContain("does not match");
  });

  it("a refund still asks a stale sign-in to confirm it's you first", async () => {
    const { tenantId, payment } = await rentAndPay();
    const stale = await signedInStaffMember(bed.handle.db, { accountId, role: "manager", locationIds: [lumberton], factorAgeMs: STALE_FACTOR_MS });
    const r = await refund(stale, tenantId, { paymentId: String(payment.id), amount: "5.00", refunded: "0" });
    expect(r.status).toBe(303);
    expect(r.location).toMatch(/^\/admin\/reauth\?next=/);
    expect(refundsAtStripe(payment.idempotencyKey)).toEqual([]);
  });
});

describe("a move-in payment's refund cancels the rental when asked", () => {
  it("offers the box for a move-in payment; ticked, the lease ends today, the unit is free, the rest owed is written off, all audited", async () => {
    const { tenantId, lease, payment } = await rentAndPay();
    const page = await getPage(app, `/admin/tenants/${tenantId}`, manager);
    expect(textOf(page.body)).toContain("Also cancel the rental: end the lease and free the unit");
    // Keep a $20.00 fee, give back the rest, and cancel.
    const given = payment.amount - 2000;
    const r = await refund(manager, tenantId, { paymentId: String(payment.id), amount: (given / 100).toFixed(2), refunded: "0", cancelRental: "yes" });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/admin/tenants/${tenantId}?done=refundcancelled`);
    expect(textOf((await getPage(app, r.location!, manager)).body)).toContain("the rental is cancelled");
    expect(refundsAtStripe(payment.idempotencyKey)).toEqual([given]);
    const ended = (await bed.handle.db.query.leases.findFirst({ where: eq(leases.id, lease.id) }))!;
    expect(ended.status).toBe("moved_out");
    expect(ended.moveOutDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(ended.autopayEnabled).toBe(false);
    expect((await bed.handle.db.query.units.findFirst({ where: eq(units.id, lease.unitId) }))!.status).toBe("available");
    expect(await leaseBalance(bed.handle.db, lease.id)).toBe(0);
    const [cancelled] = await audits("lease.cancelled", lease.id);
    expect(cancelled).toMatchObject({ staffId: manager.staffId, entity: "lease", locationId: lumberton });
    expect(cancelled!.changes).toMatchObject({ status: { before: "active", after: "moved_out" } });
    expect(cancelled!.detail).toMatchObject({ refundOfPayment: payment.id, writtenOff: given });
    // Its page now shows the lease moved out, with no box to cancel it again.
    expect(textOf((await getPage(app, `/admin/tenants/${tenantId}`, manager)).body)).not.toContain("Also cancel the rental");
  });

  it("without the box, the lease stays active and owes what was refunded", async () => {
    const { tenantId, lease, payment } = await rentAndPay();
    const r = await refund(manager, tenantId, { paymentId: String(payment.id), amount: "15.00", refunded: "0" });
    expect(r.location).toBe(`/admin/tenants/${tenantId}?done=refundpart`);
    expect((await bed.handle.db.query.leases.findFirst({ where: eq(leases.id, lease.id) }))!.status).toBe("active");
    expect(await leaseBalance(bed.handle.db, lease.id)).toBe(1500);
    expect(await audits("lease.cancelled", lease.id)).toHaveLength(0);
  });
});
