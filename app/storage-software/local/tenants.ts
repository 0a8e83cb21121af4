import { and, eq, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { leases, locations, payments, units } from "~/db/schema";
import { ledgerEntries } from "~/db/schema/billing";
import { getPaymentGateway, type ChargeResult } from "~/platform/payments/gateway.server";
import { parseExtraCharges } from "~/domain/site/location-settings";
import { dollarsToCents, formatCents } from "~/domain/shared/money";
import {
  balanceOf,
  chargeKey,
  chargePostingKey,
  lastPostedPeriod,
  paidThrough,
  prepayQuote,
  type LeaseTerms,
  type LedgerLine as DomainLedgerLine,
  type RecurringCharge,
} from "~/domain/payments/billing";
import { localDate } from "~/domain/shared/calendar";
import type { Payment, PaymentMethod, PrepayOffer, Tenants } from "../port";
import type { LocationRef } from "../port";
import { OutcomeUnknownError, PaymentDeclinedError, StorageValidationError } from "../errors";
import { listLedger, postCharges, postRefundLine, recordApprovedPayment, recordDeclinedPayment, type Executor } from "../shared/ledger";
import { cardHolder, givenInput, idOf, sharedTenants, tenantRows, toPayment, type LeaseRow } from "../shared/tenants";



async function recurringChargesFor(ex: Executor, lease: LeaseRow): Promise<RecurringCharge[]> {
  const [loc] = await ex.select({ charges: locations.chargesToShowAtCheckout }).from(locations).where(eq(locations.id, lease.locationId));
  const parsed = parseExtraCharges(loc?.charges ?? "[]");
  if (!parsed.ok) return [];
  const recurring = parsed.charges.filter((c) => c.is_recurring);
  if (!recurring.length) return [];
  // A recurring charge is billed monthly when it was charged at move-in (posting key
  // chargePostingKey(chargeKey(charge), move-in date), docs/decisions/040-billing-model.md).
  const keys = await ex
    .select({ key: ledgerEntries.postingKey })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.leaseId, lease.id), sql`${ledgerEntries.postingKey} like 'charge:%'`));
  const have = new Set(keys.map((k) => k.key));
  return recurring
    .map((c) => ({ key: chargeKey({ sitelinkId: c.sitelink_id, name: c.name }), name: c.name, amount: dollarsToCents(c.amount), tax1Rate: c.tax_1_rate, tax2Rate: c.tax_2_rate }))
    .filter((c) => have.has(chargePostingKey(c.key, lease.moveInDate)));
}

export async function termsOf(ex: Executor, lease: LeaseRow): Promise<LeaseTerms> {
  return {
    moveInDate: lease.moveInDate,
    monthlyRate: lease.monthlyRate,
    insurancePremium: lease.insurancePremium,
    recurringCharges: await recurringChargesFor(ex, lease),
    promotion: lease.promotionMonths > 0 ? { monthlyDiscount: lease.promotionDiscount, months: lease.promotionMonths, wording: lease.promotionWording } : null,
  };
}

export async function domainLedger(ex: Executor, leaseId: number): Promise<DomainLedgerLine[]> {
  const lines = await listLedger(ex, leaseId);
  return lines.map((l) => ({ id: l.id, kind: l.kind, amount: l.amount, tax: l.tax, entryDate: l.entryDate, periodStart: l.periodStart }));
}

/**
 * Recomputes paid-through and next due from the ledger (never moving them back, except after a refund:
 * `allowBack`, the money that paid those months was given back).
 */
export async function refreshPaidThrough(tx: Executor, lease: LeaseRow, allowBack = false): Promise<void> {
  const computed = paidThrough(lease.moveInDate, await domainLedger(tx, lease.id));
  if (computed.paidThroughDate > lease.paidThroughDate || (allowBack && computed.paidThroughDate !== lease.paidThroughDate)) {
    await tx
      .update(leases)
      .set({ paidThroughDate: computed.paidThroughDate, nextDueDate: computed.nextDueDate, updatedAt: new Date() })
      .where(eq(leases.id, lease.id));
  }
}

/**
 * The Tenants part of the local adapter: tenants, leases, ledgers, payments and autopay in our own
 * tables (the records both adapters keep are ../shared/tenants.ts). Leases are those of this
 * location; tenants are the account's.
 */
/** Ends the lease on `moveOutDate` (autopay stopped) and frees its unit: a move-out (issue 39, decision 500). */
async function endLease(tx: Executor, lease: LeaseRow, moveOutDate: string, now: Date): Promise<void> {
  await tx.update(leases).set({ status: "moved_out", moveOutDate, autopayEnabled: false, updatedAt: now }).where(eq(leases.id, lease.id));
  // The unit is free to rent again (its availability pages are told by the units table's trigger).
  await tx.update(units).set({ status: "available", heldUntil: null, holdToken: null, updatedAt: now }).where(and(eq(units.id, lease.unitId), eq(units.status, "rented")));
}

/**
 * Cancels a rental whose move-in payment is refunded (decision 509): the lease ends, the unit is
 * free, and what the lease still owes is written off with one credit line (so an ended rental owes
 * nothing for the time it was never used). Returns the cents written off.
 */
async function cancelLease(tx: Executor, lease: LeaseRow, input: { moveOutDate: string; entryDate: string; now: Date }): Promise<number> {
  await endLease(tx, lease, input.moveOutDate, input.now);
  const owed = balanceOf(await domainLedger(tx, lease.id));
  if (owed <= 0) return 0;
  await tx
    .insert(ledgerEntries)
    .values({ leaseId: lease.id, tenantId: lease.tenantId, kind: "credit", description: "Rental cancelled: the balance is written off", amount: owed, tax: 0, entryDate: input.entryDate, postingKey: `cancel:${lease.id}`, postedAt: input.now })
    .onConflictDoNothing({ target: [ledgerEntries.leaseId, ledgerEntries.postingKey] });
  return owed;
}

export function localTenants(db: Database, location: LocationRef): Tenants {
  const rows = tenantRows(db, location);
  const { leaseRow, resolveMethod, saveCard } = rows;
  /**
   * The one payment path: idempotency check, gateway charge, then payment + ledger line (+ the
   * prepaid charges, + the saved card) and the new paid-through date in one transaction.
   */
  async function pay(input: {
    tenantId: string;
    leaseId: string;
    amount: number;
    method: PaymentMethod;
    idempotencyKey: string;
    now: Date;
    source: "portal" | "prepay";
    /** Called inside the transaction before the payment is written; returns the payment line's description. */
    beforeRecord?: (tx: Transaction, lease: LeaseRow) => Promise<string | undefined>;
    checkAmount?: (lease: LeaseRow) => Promise<void>;
  }): Promise<Payment> {
    const lease = await leaseRow(db, input.tenantId, input.leaseId);
    if (!lease) throw new StorageValidationError("This unit is not on your account.");
    const previous = await db.query.payments.findFirst({ where: eq(payments.idempotencyKey, input.idempotencyKey) });
    if (previous) {
      if (previous.tenantId !== lease.tenantId) throw new StorageValidationError("This form was already used. Please reload the page.");
      return toPayment(previous);
    }
    if (!Number.isInteger(input.amount) || input.amount <= 0) throw new StorageValidationError("Enter an amount to pay.", { amount: ["Enter an amount of at least $0.01."] });
    await input.checkAmount?.(lease);
    const resolved = await resolveMethod(lease.tenantId, input.method);
    const gateway = getPaymentGateway(location);
    let result: ChargeResult;
    try {
      result =
        "given" in resolved
          ? await gateway.charge({ amount: input.amount, idempotencyKey: input.idempotencyKey, method: givenInput(resolved.given), saveCard: resolved.given.saveCard })
          : await gateway.charge({ amount: input.amount, idempotencyKey: input.idempotencyKey, cardToken: resolved.saved.gatewayToken });
    } catch (error) {
      // The processor did not answer (a timeout after the charge): never "declined", never a 500; the
      // same form sent again replays the charge under its key (decision 395).
      throw new OutcomeUnknownError(`The card processor did not answer: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (result.status === "declined") {
      await recordDeclinedPayment(db, {
        tenantId: lease.tenantId,
        leaseId: lease.id,
        amount: input.amount,
        source: input.source,
        cardBrand: result.brand ?? ("saved" in resolved ? resolved.saved.brand : "visa"),
        cardLast4: result.last4,
        idempotencyKey: input.idempotencyKey,
        reason: result.reason,
      });
      // Held for the cardholder's authentication: the page may complete it (decision 405); the declined row is what is then recorded as paid.
      throw new PaymentDeclinedError(result.reason, result.authentication ?? null);
    }
    const entryDate = localDate(input.now, await timeZone());
    const paymentId = await db.transaction(async (tx) => {
      const locked = (await leaseRow(tx, input.tenantId, input.leaseId, true))!;
      const description = await input.beforeRecord?.(tx, locked);
      const recorded = await recordApprovedPayment(tx, {
        tenantId: locked.tenantId,
        leaseId: locked.id,
        amount: input.amount,
        source: input.source,
        cardBrand: result.brand,
        cardLast4: result.last4,
        authReference: result.authReference,
        idempotencyKey: input.idempotencyKey,
        entryDate,
        description,
        now: input.now,
      });
      if (recorded.created) {
        if ("given" in resolved && resolved.given.saveCard) {
          await saveCard(tx, locked.tenantId, { brand: result.brand, last4: result.last4, ...cardHolder(resolved.given, result), token: result.cardToken });
        }
        await refreshPaidThrough(tx, locked);
      }
      return recorded.paymentId;
    });
    const row = await db.query.payments.findFirst({ where: eq(payments.id, paymentId) });
    return toPayment(row!);
  }

  let tz: Promise<string> | undefined;
  const timeZone = () =>
    (tz ??= db
      .select({ timeZone: locations.timeZone })
      .from(locations)
      .where(eq(locations.id, location.id))
      .then((r) => r[0]?.timeZone.timeZoneId ?? "America/New_York"));

  async function offer(lease: LeaseRow, months: number): Promise<PrepayOffer> {
    const lines = await domainLedger(db, lease.id);
    const q = prepayQuote(await termsOf(db, lease), { lastPostedPeriod: lastPostedPeriod(lease.moveInDate, lines), balance: balanceOf(lines), months });
    return { months, balance: q.balance, lines: q.lines.map((l) => ({ description: l.description, amount: l.amount, tax: l.tax })), total: q.total, newPaidThroughDate: q.newPaidThroughDate };
  }

  return {
    ...sharedTenants(db, location, rows),
    // Every local tenant rented online and already has a sign-in: there is no office record to claim.
    async claimOfficeTenant() {
      return { kind: "not_supported" as const };
    },

    makePayment(input) {
      return pay({ ...input, source: "portal" });
    },

    async refundPayment(input) {
      const id = idOf(input.paymentId);
      const row = id === null ? undefined : await db.query.payments.findFirst({ where: eq(payments.id, id) });
      const lease = row?.leaseId != null ? await leaseRow(db, input.tenantId, String(row.leaseId)) : null;
      if (!row || !lease) return { kind: "refused", message: "No such payment at this location." };
      if (row.status === "refunded") return { kind: "already_refunded" };
      if (row.status !== "approved") return { kind: "refused", message: "A declined payment took no money: there is nothing to refund." };
      const before = row.refundedAmount;
      if (input.refundedBefore !== undefined && input.refundedBefore !== before) return { kind: "changed", refundedNow: before };
      const left = row.amount - before;
      const amount = input.amount ?? left;
      if (!Number.isInteger(amount) || amount <= 0 || amount > left) return { kind: "refused", message: `Enter an amount from $0.01 to ${formatCents(left)} (what is left to refund).` };
      const whole = before === 0 && amount === row.amount;
      const gateway = getPaymentGateway(location);
      // The whole payment: the gateway's one full refund (as before decision 509). A part: its own key,
      // named by what was refunded before it and its amount, so the same form sent again refunds once.
      const done = whole ? await gateway.refund(row.idempotencyKey) : await gateway.refund(row.idempotencyKey, { amount, key: `${row.idempotencyKey}-${before}-${amount}` });
      if (!done.refunded && !whole) {
        return { kind: "refused", message: "The payment gateway did not refund it (it may have been refunded in its dashboard already), so nothing was recorded. Check the payment in the gateway's dashboard." };
      }
      if (!done.refunded) {
        // The gateway refunds a charge once: "not refunded" for a charge it approved means it was
        // refunded already (a double submit, or a refund whose recording failed), so record it now.
        const charge = await gateway.lookup(row.idempotencyKey);
        if (charge?.status !== "approved") {
          return { kind: "refused", message: "The payment gateway has no record of this charge, so nothing was refunded. Refund it in the gateway's own dashboard." };
        }
      }
      const entryDate = localDate(input.now, await timeZone());
      return db.transaction(async (tx) => {
        const locked = (await leaseRow(tx, input.tenantId, String(row.leaseId), true))!;
        const [current] = await tx.select().from(payments).where(eq(payments.id, row.id)).for("update");
        if (current?.status !== "approved") return { kind: "already_refunded" as const };
        // Another refund was recorded since this one was read (two submits at once): this one is that one.
        if (current.refundedAmount !== before) return { kind: "changed" as const, refundedNow: current.refundedAmount };
        const balanceBefore = balanceOf(await domainLedger(tx, locked.id));
        const after = before + amount;
        await tx
          .update(payments)
          .set({ refundedAmount: after, status: after === row.amount ? "refunded" : "approved", updatedAt: input.now })
          .where(eq(payments.id, row.id));
        const ledgerEntryId = await postRefundLine(tx, {
          leaseId: locked.id,
          tenantId: locked.tenantId,
          paymentId: row.id,
          amount,
          refundedBefore: before,
          entryDate,
          description: whole
            ? `Refund of card payment ${row.id} (${row.cardBrand} ending ${row.cardLast4})`
            : `Refund of ${formatCents(amount)} of card payment ${row.id} (${row.cardBrand} ending ${row.cardLast4})`,
          now: input.now,
        });
        if (ledgerEntryId === null) throw new Error(`Payment ${row.id} was approved but its refund line is already posted`);
        let cancelled = false;
        let writtenOff = 0;
        if (input.cancelRental && locked.status === "active") {
          writtenOff = await cancelLease(tx, locked, { moveOutDate: input.cancelRental.moveOutDate, entryDate, now: input.now });
          cancelled = true;
        } else {
          await refreshPaidThrough(tx, locked, true);
        }
        const balanceAfter = balanceOf(await domainLedger(tx, locked.id));
        const change = { paymentId: row.id, leaseId: locked.id, amount, ledgerEntryId, entryDate, balanceBefore, balanceAfter, refundedBefore: before, refundedAfter: after, cancelled, writtenOff };
        await input.record(tx, change);
        return { kind: "refunded" as const, change };
      });
    },

    async recordMoveOut(input) {
      const lease = await leaseRow(db, input.tenantId, input.leaseId);
      if (!lease) return { kind: "refused", message: "No such lease at this location." };
      if (lease.status !== "active") return { kind: "already_moved_out" };
      return db.transaction(async (tx) => {
        const locked = (await leaseRow(tx, input.tenantId, input.leaseId, true))!;
        if (locked.status !== "active") return { kind: "already_moved_out" as const };
        await endLease(tx, locked, input.moveOutDate, input.now);
        await input.record(tx);
        return { kind: "moved_out" as const };
      });
    },

    async quotePrepay(tenantId, leaseId, months) {
      const lease = await leaseRow(db, tenantId, leaseId);
      if (!lease || lease.status !== "active") return null;
      return offer(lease, months);
    },

    async prepay(input) {
      const lease = await leaseRow(db, input.tenantId, input.leaseId);
      if (!lease || lease.status !== "active") throw new StorageValidationError("This unit is not on your account.");
      const quoted = await offer(lease, input.months);
      return pay({
        tenantId: input.tenantId,
        leaseId: input.leaseId,
        amount: quoted.total,
        method: input.method,
        idempotencyKey: input.idempotencyKey,
        now: input.now,
        source: "prepay",
        async checkAmount() {
          if (quoted.total !== input.expectedTotal) {
            throw new StorageValidationError("The amount changed since you opened this page. Please check the new amount and try again.");
          }
          if (quoted.total <= 0) throw new StorageValidationError("Your credit already covers these months: there is nothing to pay.");
        },
        async beforeRecord(tx, locked) {
          // Recompute under the lease lock: the posted lines are exactly what was charged.
          const lines = await domainLedger(tx, locked.id);
          const q = prepayQuote(await termsOf(tx, locked), { lastPostedPeriod: lastPostedPeriod(locked.moveInDate, lines), balance: balanceOf(lines), months: input.months });
          if (q.total !== quoted.total) throw new StorageValidationError("The amount changed since you opened this page. Please try again.");
          await postCharges(tx, { leaseId: locked.id, tenantId: locked.tenantId, lines: q.lines, now: input.now });
          return `Prepayment, ${input.months} month${input.months === 1 ? "" : "s"} (paid through ${q.newPaidThroughDate})`;
        },
      });
    },

  };
}
