/**
 * Refunds at the back office (issue 23, decision 280), on a real database (PGlite, and PostgreSQL with
 * TEST_DATABASE_URL): a real online rental at Lumberton paid by card through the test gateway; staff of
 * each role; the tenant page's refund form through the route module with the signed-in member in the
 * request context (what the console's layout middleware sets).
 */
import { and, desc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { auditEvents, ledgerEntries, leases, locations, payments } from "~/db/schema";
import type { StaffRole } from "~/domain/staff/roles";
import { createTestGateway, setPaymentGatewayForTests, type PaymentGateway } from "~/platform/payments/gateway.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { deskPaymentTotals, listDeskPayments } from "~/services/desk/payments.server";
import { readDeskQuery } from "~/services/desk/scope.server";
import { DESK_PAYMENT_STATUSES } from "~/domain/desk/lists";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import type { SignedInStaff } from "~/services/staff/context.server";
import { leaseBalance } from "~/storage-software/shared/ledger";
import { action as tenantAction, loader as tenantLoader } from "~/routes/desk/tenant";
import { createTestDatabase } from "../support/db";
import { card, ctxFor, lumbertonUnitType, NOW, signedRental, tenantDetails } from "../support/rental-fixtures";
import { answer, deskMember, staffContext } from "../support/staff-fixtures";

let handle: DatabaseHandle;
let accountId: number;
let lumberton: number;
let jacksonville: number;
const staff: Record<"owner" | "manager" | "frontDesk" | "readOnly" | "jacksonvilleManager", SignedInStaff> = {} as never;
/** Refunds the gateway really made (a second refund of the same charge answers refunded: false). */
const gatewayRefunds: string[] = [];

function countingGateway(): PaymentGateway {
  const inner = createTestGateway();
  return {
    ...inner,
    async refund(key) {
      const r = await inner.refund(key);
      if (r.refunded) gatewayRefunds.push(key);
      return r;
    },
  };
}

const member = (email: string, role: StaffRole, locationIds: number[]) => deskMember(handle.db, { accountId, email, role, locationIds, ip: "198.51.100.7" });
const contextFor = (who: SignedInStaff) => staffContext(handle.db, who, "198.51.100.7");

async function refund(who: SignedInStaff, tenantId: number, paymentId: number, fields: Record<string, string> = { confirm: "yes" }) {
  const { token, setCookie } = await getCsrfToken(new Request("http://localhost/"));
  const body = new URLSearchParams({ intent: "refund-payment", paymentId: String(paymentId), ...fields, csrf: token });
  const request = new Request(`http://localhost/admin/tenants/${tenantId}`, {
    method: "POST",
    body,
    headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded", Referer: `http://localhost/admin/tenants/${tenantId}` },
  });
  return answer(() => tenantAction({ request, params: { tenantId: String(tenantId) }, context: contextFor(who) } as never));
}

/** A fresh online rental at Lumberton paid by card: its tenant, lease and move-in payment. */
async function rentAndPay(first: string) {
  const db = handle.db;
  const { unitTypeId } = await lumbertonUnitType(db);
  const details = tenantDetails({ first_name: first, last_name: "Refundable", email: `${first.toLowerCase()}.${Date.now()}@example.com` });
  const { id } = await signedRental(db, unitTypeId, { details });
  const ctx = await ctxFor(db, unitTypeId);
  const placed = await placeMoveIn(db, ctx, (await getRental(db, id, unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: "http://localhost" });
  expect(placed.status).toBe("completed");
  const lease = (await db.query.leases.findFirst({ where: eq(leases.id, Number((placed as { leaseId: string }).leaseId)) }))!;
  const [payment] = await db.select().from(payments).where(eq(payments.leaseId, lease.id));
  return { tenantId: lease.tenantId, lease, payment: payment! };
}

const refundLines = (paymentId: number) => handle.db.select().from(ledgerEntries).where(eq(ledgerEntries.postingKey, `refund:${paymentId}`));
const refundAudits = (paymentId: number) =>
  handle.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, "payment.refunded"), eq(auditEvents.entityId, String(paymentId))))
    .orderBy(desc(auditEvents.id));

beforeAll(async () => {
  handle = await createTestDatabase();
  setPaymentGatewayForTests(countingGateway());
  const locs = await handle.db.select().from(locations);
  lumberton = locs.find((l) => l.name === "Lumberton")!.id;
  jacksonville = locs.find((l) => l.name === "Jacksonville")!.id;
  accountId = locs[0]!.accountId;
  staff.owner = await member("owner@example.com", "owner", []);
  staff.manager = await member("manager@example.com", "manager", [lumberton]);
  staff.frontDesk = await member("desk@example.com", "front_desk", [lumberton]);
  staff.readOnly = await member("reader@example.com", "read_only", [lumberton]);
  staff.jacksonvilleManager = await member("jax@example.com", "manager", [jacksonville]);
});
afterAll(async () => {
  setPaymentGatewayForTests(null);
  await handle?.close();
});

describe("refunding a card payment from the tenant's page", () => {
  it("is refused to the front desk and read-only (403), outside the manager's locations (404), and without a fresh second factor", async () => {
    const { tenantId, payment } = await rentAndPay("Ada");
    expect((await refund(staff.frontDesk, tenantId, payment.id)).status).toBe(403);
    expect((await refund(staff.readOnly, tenantId, payment.id)).status).toBe(403);
    expect((await refund(staff.jacksonvilleManager, tenantId, payment.id)).status).toBe(404);
    const stale = { ...staff.manager, factorAt: new Date(Date.now() - 60 * 60 * 1000) };
    const r = await refund(stale, tenantId, payment.id);
    expect(r.status).toBe(303);
    // The refund is held for after the code (decision 643): the link names it.
    expect(r.headers.get("Location")).toMatch(new RegExp(`^/admin/reauth\\?next=${encodeURIComponent(`/admin/tenants/${tenantId}`)}&heldAction=[\\w-]{20,}$`));
    // Without the confirmation box: the message beside the form, nothing refunded.
    const unconfirmed = await refund(staff.manager, tenantId, payment.id, {});
    expect(unconfirmed.status).toBe(400);
    expect((unconfirmed.data as { message: string }).message).toMatch(/Tick the box/);
    expect((await handle.db.query.payments.findFirst({ where: eq(payments.id, payment.id) }))!.status).toBe("approved");
    expect(gatewayRefunds).not.toContain(payment.idempotencyKey);
    expect(await refundLines(payment.id)).toHaveLength(0);
    expect(await refundAudits(payment.id)).toHaveLength(0);
  });

  it("refunds once through the gateway, marks the payment refunded, reverses it in the ledger and audits it; a second submit refunds nothing", async () => {
    const { tenantId, lease, payment } = await rentAndPay("Barbara");
    const balanceBefore = await leaseBalance(handle.db, lease.id);
    const r = await refund(staff.manager, tenantId, payment.id);
    expect(r.status).toBe(303);
    expect(r.headers.get("Location")).toBe(`/admin/tenants/${tenantId}?done=refund`);
    expect(gatewayRefunds.filter((k) => k === payment.idempotencyKey)).toHaveLength(1);
    expect((await handle.db.query.payments.findFirst({ where: eq(payments.id, payment.id) }))!.status).toBe("refunded");
    const [line] = await refundLines(payment.id);
    expect(line).toMatchObject({ kind: "payment", amount: -payment.amount, leaseId: lease.id });
    expect(await leaseBalance(handle.db, lease.id)).toBe(balanceBefore + payment.amount);
    const [audit] = await refundAudits(payment.id);
    expect(audit).toMatchObject({ staffId: staff.manager.staffId, locationId: lumberton, entity: "payment" });
    expect(audit!.changes).toMatchObject({ status: { before: "approved", after: "refunded" }, leaseBalance: { before: balanceBefore, after: balanceBefore + payment.amount } });
    expect(JSON.stringify(audit)).not.toContain(payment.idempotencyKey);

    // The same form sent again (a double submit): no second refund, no second line, no second audit row.
    const again = await refund(staff.manager, tenantId, payment.id);
    expect(again.headers.get("Location")).toBe(`/admin/tenants/${tenantId}?done=refunded`);
    expect(gatewayRefunds.filter((k) => k === payment.idempotencyKey)).toHaveLength(1);
    expect(await refundLines(payment.id)).toHaveLength(1);
    expect(await refundAudits(payment.id)).toHaveLength(1);

    // The tenant's page shows it refunded, with no refund form left for it.
    const page = await answer(() => tenantLoader({ request: new Request(`http://localhost/admin/tenants/${tenantId}`), params: { tenantId: String(tenantId) }, context: contextFor(staff.manager) } as never));
    const desk = (page.data as { desk: { payments: Array<{ id: number; status: string }> }; canRefund: boolean });
    expect(desk.canRefund).toBe(true);
    expect(desk.desk.payments.find((p) => p.id === payment.id)!.status).toBe("refunded");
  });

  it("two submits at once refund once", async () => {
    const { tenantId, payment } = await rentAndPay("Claude");
    const [a, b] = await Promise.all([refund(staff.owner, tenantId, payment.id), refund(staff.owner, tenantId, payment.id)]);
    expect([a.status, b.status]).toEqual([303, 303]);
    expect(gatewayRefunds.filter((k) => k === payment.idempotencyKey)).toHaveLength(1);
    expect(await refundLines(payment.id)).toHaveLength(1);
    expect(await refundAudits(payment.id)).toHaveLength(1);
  });

  it("the payments list shows it under \"refunded\", and each day's net still equals the ledger's", async () => {
    const { payment } = await rentAndPay("Dennis");
    await refund(staff.owner, payment.tenantId!, payment.id);
    const viewer = { accountId, scope: staff.owner.scope };
    const query = (search: string) => readDeskQuery(handle.db, viewer, new URL(`http://localhost/admin/payments${search}`), DESK_PAYMENT_STATUSES);
    const refunded = await listDeskPayments(handle.db, viewer, await query("?status=refunded"));
    expect(refunded.map((r) => r.id)).toContain(payment.id);
    const row = refunded.find((r) => r.id === payment.id)!;
    expect(row.refundDay).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await listDeskPayments(handle.db, viewer, await query("?status=approved"))).map((r) => r.id)).not.toContain(payment.id);

    const q = await query("");
    const rows = await listDeskPayments(handle.db, viewer, q);
    const totals = await deskPaymentTotals(handle.db, viewer, q, rows);
    expect(totals.some((t) => t.refundedCount > 0 && t.day === row.refundDay)).toBe(true);
    for (const t of totals) {
      const [ledger] = await handle.db
        .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)` })
        .from(ledgerEntries)
        .innerJoin(leases, eq(leases.id, ledgerEntries.leaseId))
        .where(and(eq(leases.locationId, t.locationId), eq(ledgerEntries.kind, "payment"), sql`${ledgerEntries.entryDate} = ${t.day}`));
      expect(t.net).toBe(Number(ledger!.sum));
      expect(t.ledger).toBe(t.net);
      // The day's columns add up: a refunded payment is still under Approved on the day it was taken (decision 502).
      expect(t.approved - t.refunded).toBe(t.net);
    }
    // A date filter of the refund's day alone still finds it (given back that day).
    const sameDay = await listDeskPayments(handle.db, viewer, await query(`?from=${row.refundDay}&to=${row.refundDay}&status=refunded`));
    expect(sameDay.map((r) => r.id)).toContain(payment.id);
  });

  it("a declined payment is not refunded", async () => {
    const { tenantId, lease } = await rentAndPay("Edsger");
    const [declined] = await handle.db
      .insert(payments)
      .values({ tenantId, leaseId: lease.id, amount: 1234, status: "declined", source: "portal", cardBrand: "visa", cardLast4: "0002", declineReason: "Your card was declined.", idempotencyKey: `declined-${Date.now()}` })
      .returning();
    const r = await refund(staff.manager, tenantId, declined!.id);
    expect(r.status).toBe(400);
    expect((r.data as { message: string }).message).toMatch(/declined payment took no money/);
    expect(await refundAudits(declined!.id)).toHaveLength(0);
  });
});
