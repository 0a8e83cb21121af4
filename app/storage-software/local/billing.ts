/**
 * The local adapter's daily billing (docs/decisions/053-billing-run.md): the Billing part of the port
 * on our own ledger. app/services/payments/billing-run.server.ts claims the date and calls `billLeases` on each
 * location's adapter; the posting rules are app/domain/billing.ts.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { leases, payments, savedCards } from "~/db/schema";
import { getPaymentGateway } from "~/platform/payments/gateway.server";
import { chargesForPeriod, lastPostedPeriod, periodIndexOf, periodStart, periodsToPost } from "~/domain/payments/billing";
import type { Billing, LeaseBilling, LocationRef } from "../port";
import { leaseBalance, postCharges, chargeAutopayCard, recordApprovedPayment } from "../shared/ledger";
import { domainLedger, refreshPaidThrough, termsOf } from "./tenants";

export function localBilling(db: Database, location: LocationRef): Billing {
  return {
    async billLeases(input) {
      const tenantId = input.tenantId === undefined ? undefined : /^\d{1,9}$/.test(input.tenantId) ? Number(input.tenantId) : -1;
      const rows = await db
        .select({ id: leases.id, tenantId: leases.tenantId })
        .from(leases)
        .where(
          and(
            eq(leases.locationId, location.id),
            eq(leases.status, "active"),
            sql`${leases.moveInDate} <= ${input.runDate}`,
            tenantId === undefined ? undefined : eq(leases.tenantId, tenantId),
          ),
        )
        .orderBy(asc(leases.id));
      const billed: LeaseBilling[] = [];
      const failed: Array<{ leaseId: string; error: unknown }> = [];
      for (const row of rows) {
        try {
          const r = await billLease(db, row.id, input, location);
          billed.push({ leaseId: String(row.id), tenantId: String(row.tenantId), ...r });
        } catch (error) {
          // One lease's problem must not stop the others; the next run retries it (postings are idempotent).
          failed.push({ leaseId: String(row.id), error });
        }
      }
      return { billedBy: "us", leases: billed, failed };
    },
  };
}

type LeaseResult = Omit<LeaseBilling, "leaseId" | "tenantId">;

/**
 * Bills one lease: posts every period that has started by `runDate` and is not posted yet (idempotent
 * posting keys, under a lock on the lease), then, when autopay is on and something is owed, charges
 * the autopay card once per due date (payment idempotency key "autopay:<lease>:<due date>"). A decline
 * is recorded as a declined payment, which the portal shows until the balance is paid.
 */
async function billLease(db: Database, leaseId: number, input: { runDate: string; now: Date }, location: { id: number }): Promise<LeaseResult> {
  const posted = await db.transaction(async (tx) => {
    const [lease] = await tx.select().from(leases).where(eq(leases.id, leaseId)).for("update");
    if (!lease || lease.status !== "active") return 0;
    const terms = await termsOf(tx, lease);
    const lines = await domainLedger(tx, lease.id);
    const periods = periodsToPost(terms, { lastPostedPeriod: lastPostedPeriod(lease.moveInDate, lines), runDate: input.runDate, moveOutDate: lease.moveOutDate });
    let count = 0;
    for (const k of periods) {
      const ids = await postCharges(tx, { leaseId: lease.id, tenantId: lease.tenantId, lines: chargesForPeriod(terms, k), now: input.now });
      count += ids.length;
    }
    return count;
  });

  const none: LeaseResult = { chargesPosted: posted, autopay: "none", autopayAmount: 0, declineReason: null };
  const lease = await db.query.leases.findFirst({ where: eq(leases.id, leaseId) });
  if (!lease || lease.status !== "active" || !lease.autopayEnabled || !lease.autopayCardId) return none;
  const k = periodIndexOf(lease.moveInDate, input.runDate);
  if (k < 1) return none;
  const balance = await leaseBalance(db, lease.id);
  if (balance <= 0) return none;
  const idempotencyKey = `autopay:${lease.id}:${periodStart(lease.moveInDate, k)}`;
  if (await db.query.payments.findFirst({ columns: { id: true }, where: eq(payments.idempotencyKey, idempotencyKey) })) return none;
  const card = await db.query.savedCards.findFirst({ where: and(eq(savedCards.id, lease.autopayCardId), eq(savedCards.tenantId, lease.tenantId)) });
  if (!card) return none;
  const result = await chargeAutopayCard(db, getPaymentGateway(location), { tenantId: lease.tenantId, leaseId: lease.id, amount: balance, idempotencyKey, card });
  if (result.status === "declined") {
    return {
      chargesPosted: posted,
      autopay: "declined",
      autopayAmount: balance,
      declineReason: result.reason,
      ...(result.authentication ? { authentication: { intentId: result.authentication.intentId, paymentKey: idempotencyKey } } : {}),
    };
  }
  await db.transaction(async (tx) => {
    const [locked] = await tx.select().from(leases).where(eq(leases.id, lease.id)).for("update");
    const recorded = await recordApprovedPayment(tx, {
      tenantId: lease.tenantId,
      leaseId: lease.id,
      amount: balance,
      source: "autopay",
      cardBrand: result.brand,
      cardLast4: result.last4,
      authReference: result.authReference,
      idempotencyKey,
      entryDate: input.runDate,
      description: `Autopay (${result.brand === "mastercard" ? "Master Card" : result.brand === "visa" ? "Visa" : "Discover"} ending ${result.last4})`,
      now: input.now,
    });
    if (recorded.created && locked) await refreshPaidThrough(tx, locked);
  });
  return { chargesPosted: posted, autopay: "approved", autopayAmount: balance, declineReason: null };
}
