/**
 * Our own ledger, kept by both adapters (docs/decisions/040-billing-model.md): charge lines, payments and
 * balances on our own tables (app/db/schema/billing.ts).
 *
 * - Charges are positive amounts owed, their tax in its own column; payments and credits are positive
 *   amounts paid. Balance = Σ(charge amount + tax) − Σ(payment + credit).
 * - A charge with a `postingKey` (e.g. "rent:2026-12-22") is posted at most once per lease: posting it
 *   again does nothing, so a billing run or a retried move-in can run twice.
 * - An approved payment is written together with its ledger line, in one transaction, and is
 *   idempotent on its `idempotencyKey`: a repeat returns the first payment and writes nothing.
 *
 * Every function takes a database or a transaction: callers that must write more in the same
 * transaction (the move-in) pass their `tx`.
 */
import type { CardBrand } from "~/domain/payments/cards";
import { and, asc, eq, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { ledgerEntries, payments, type LedgerEntryKind } from "~/db/schema/billing";

export type Executor = Database | Transaction;

interface ChargeLine {
  description: string;
  /** Cents, before tax. */
  amount: number;
  /** Cents. */
  tax: number;
  /** "YYYY-MM-DD" local date the charge is due. */
  entryDate: string;
  periodStart?: string | null;
  periodEnd?: string | null;
  /** Makes the posting idempotent per lease, e.g. "rent:2026-12-22", "insurance:2026-12-22", "charge:lock:2026-11-22". */
  postingKey?: string | null;
}

/** Posts charge lines (a negative one as a credit) to a lease. Lines whose posting key is already on the lease are skipped. Returns the ids written. */
export async function postCharges(
  db: Executor,
  input: { leaseId: number; tenantId: number; lines: ChargeLine[]; now?: Date },
): Promise<number[]> {
  if (input.lines.length === 0) return [];
  for (const l of input.lines) {
    if (!Number.isInteger(l.amount) || !Number.isInteger(l.tax)) throw new Error(`Ledger amounts must be whole cents: ${l.description}`);
  }
  const rows = await db
    .insert(ledgerEntries)
    .values(
      input.lines.map((l) => ({
        leaseId: input.leaseId,
        tenantId: input.tenantId,
        // A negative line (a discount: a promotion's month) is a credit of that amount, as at move-in.
        kind: l.amount < 0 ? ("credit" as const) : ("charge" as const),
        description: l.description,
        amount: Math.abs(l.amount),
        tax: l.tax,
        entryDate: l.entryDate,
        periodStart: l.periodStart ?? null,
        periodEnd: l.periodEnd ?? null,
        postingKey: l.postingKey ?? null,
        ...(input.now ? { postedAt: input.now } : {}),
      })),
    )
    .onConflictDoNothing({ target: [ledgerEntries.leaseId, ledgerEntries.postingKey] })
    .returning({ id: ledgerEntries.id });
  return rows.map((r) => r.id);
}

interface ApprovedPaymentInput {
  tenantId: number;
  leaseId: number;
  amount: number;
  source: "move_in" | "portal" | "prepay" | "autopay";
  cardBrand: CardBrand;
  cardLast4: string;
  authReference: string;
  idempotencyKey: string;
  /** "YYYY-MM-DD" local date of the payment. */
  entryDate: string;
  description?: string;
  now?: Date;
}

interface RecordedPayment {
  paymentId: number;
  ledgerEntryId: number | null;
  /** False when the idempotency key had already been used: nothing new was written. */
  created: boolean;
}

/**
 * Records an approved card payment and its ledger line in one transaction (the caller's, when a
 * transaction is passed). A repeated idempotency key returns the first payment.
 */
export async function recordApprovedPayment(db: Executor, input: ApprovedPaymentInput): Promise<RecordedPayment> {
  if (!Number.isInteger(input.amount) || input.amount <= 0) throw new Error(`Payment must be a positive number of cents: ${input.amount}`);
  const run = async (tx: Executor): Promise<RecordedPayment> => {
    const [payment] = await tx
      .insert(payments)
      .values({
        tenantId: input.tenantId,
        leaseId: input.leaseId,
        amount: input.amount,
        status: "approved",
        source: input.source,
        cardBrand: input.cardBrand,
        cardLast4: input.cardLast4,
        authReference: input.authReference,
        idempotencyKey: input.idempotencyKey,
      })
      .onConflictDoNothing({ target: payments.idempotencyKey })
      .returning({ id: payments.id });
    if (!payment) {
      const existing = await tx.query.payments.findFirst({ where: eq(payments.idempotencyKey, input.idempotencyKey) });
      if (!existing) throw new Error("Payment idempotency conflict without a payment");
      const line = await tx.query.ledgerEntries.findFirst({ where: eq(ledgerEntries.paymentId, existing.id) });
      return { paymentId: existing.id, ledgerEntryId: line?.id ?? null, created: false };
    }
    const [line] = await tx
      .insert(ledgerEntries)
      .values({
        leaseId: input.leaseId,
        tenantId: input.tenantId,
        kind: "payment",
        description: input.description ?? `Card payment (${input.cardBrand} ending ${input.cardLast4})`,
        amount: input.amount,
        tax: 0,
        entryDate: input.entryDate,
        paymentId: payment.id,
        ...(input.now ? { postedAt: input.now } : {}),
      })
      .returning({ id: ledgerEntries.id });
    return { paymentId: payment.id, ledgerEntryId: line!.id, created: true };
  };
  // A Database has .transaction and so does a Transaction (savepoint); either keeps the pair atomic.
  return (db as Database).transaction((tx) => run(tx));
}

/** The posting key of the line reversing a refunded payment (one per payment, so a refund posts once). */
const refundPostingKey = (paymentId: number, refundedBefore = 0) => (refundedBefore ? `refund:${paymentId}:${refundedBefore}` : `refund:${paymentId}`);

/**
 * Posts the ledger line reversing a refunded payment (decision 280): a payment line of minus the
 * amount on the refund's local day, so the balance owes it again and each day's payment lines still
 * add up to the money taken less the money given back that day. Not linked by `paymentId` (that is
 * the payment's own line, its receipt); its posting key names the payment. Idempotent: returns null
 * when the payment's reversal is already posted.
 */
export async function postRefundLine(
  db: Executor,
  input: { leaseId: number; tenantId: number; paymentId: number; amount: number; entryDate: string; description: string; now: Date; refundedBefore?: number },
): Promise<number | null> {
  if (!Number.isInteger(input.amount) || input.amount <= 0) throw new Error(`A refund must be a positive number of cents: ${input.amount}`);
  const [line] = await db
    .insert(ledgerEntries)
    .values({
      leaseId: input.leaseId,
      tenantId: input.tenantId,
      kind: "payment",
      description: input.description,
      amount: -input.amount,
      tax: 0,
      entryDate: input.entryDate,
      // One line per refund: the first (or only) one `refund:{id}`, a later partial one `refund:{id}:{refunded before it}` (decision 509).
      postingKey: refundPostingKey(input.paymentId, input.refundedBefore),
      postedAt: input.now,
    })
    .onConflictDoNothing({ target: [ledgerEntries.leaseId, ledgerEntries.postingKey] })
    .returning({ id: ledgerEntries.id });
  return line?.id ?? null;
}

/** Records a declined attempt (no ledger line: nothing was paid). Idempotent on the key. */
export async function recordDeclinedPayment(
  db: Executor,
  input: Omit<ApprovedPaymentInput, "authReference" | "entryDate" | "description" | "leaseId" | "tenantId"> & {
    tenantId: number | null;
    leaseId: number | null;
    /** Where the card was tried, when there is no lease yet (a declined move-in): the desk's payments list. */
    locationId?: number | null;
    reason: string;
  },
): Promise<void> {
  await db
    .insert(payments)
    .values({
      tenantId: input.tenantId,
      leaseId: input.leaseId,
      locationId: input.locationId ?? null,
      amount: input.amount,
      status: "declined",
      source: input.source,
      cardBrand: input.cardBrand,
      cardLast4: input.cardLast4,
      declineReason: input.reason,
      idempotencyKey: input.idempotencyKey,
    })
    .onConflictDoNothing({ target: payments.idempotencyKey });
}

/**
 * Charges a tenant's saved card for autopay through `gateway` (idempotent on the key); a decline is
 * recorded as a declined autopay payment (no ledger line: nothing was paid). Both adapters' billing
 * runs use it; what an approval records differs (our ledger, or SiteLink's).
 */
export async function chargeAutopayCard<R extends { status: "approved" } | { status: "declined"; reason: string }>(
  db: Executor,
  gateway: { charge(request: { amount: number; idempotencyKey: string; cardToken: string }): Promise<R> },
  input: { tenantId: number; leaseId: number; amount: number; idempotencyKey: string; card: { brand: CardBrand; last4: string; gatewayToken: string } },
): Promise<R> {
  const result = await gateway.charge({ amount: input.amount, idempotencyKey: input.idempotencyKey, cardToken: input.card.gatewayToken });
  if (result.status === "declined") {
    await recordDeclinedPayment(db, {
      tenantId: input.tenantId,
      leaseId: input.leaseId,
      amount: input.amount,
      source: "autopay",
      cardBrand: input.card.brand,
      cardLast4: input.card.last4,
      idempotencyKey: input.idempotencyKey,
      reason: result.reason,
    });
  }
  return result;
}

/** The lease's balance in cents (positive: owed by the tenant; negative: credit). */
export async function leaseBalance(db: Executor, leaseId: number): Promise<number> {
  const [row] = await db
    .select({
      balance: sql<string>`coalesce(sum(case when ${ledgerEntries.kind} = 'charge' then ${ledgerEntries.amount} + ${ledgerEntries.tax} else -${ledgerEntries.amount} end), 0)`,
    })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.leaseId, leaseId));
  return Number(row?.balance ?? 0);
}

interface LedgerLine {
  id: number;
  kind: LedgerEntryKind;
  description: string;
  amount: number;
  tax: number;
  entryDate: string;
  periodStart: string | null;
  periodEnd: string | null;
  paymentId: number | null;
  postingKey: string | null;
  /** Balance after this line, cents. */
  runningBalance: number;
}

/** The lease's ledger in posting order (by date, then id), with the running balance. */
export async function listLedger(db: Executor, leaseId: number): Promise<LedgerLine[]> {
  const rows = await db
    .select()
    .from(ledgerEntries)
    .where(eq(ledgerEntries.leaseId, leaseId))
    .orderBy(asc(ledgerEntries.entryDate), asc(ledgerEntries.id));
  let balance = 0;
  return rows.map((r) => {
    balance += r.kind === "charge" ? r.amount + r.tax : -r.amount;
    return {
      id: r.id,
      kind: r.kind,
      description: r.description,
      amount: r.amount,
      tax: r.tax,
      entryDate: r.entryDate,
      periodStart: r.periodStart,
      periodEnd: r.periodEnd,
      paymentId: r.paymentId,
      postingKey: r.postingKey,
      runningBalance: balance,
    };
  });
}

/** True when the lease already has a line with this posting key. */
export async function hasPosting(db: Executor, leaseId: number, postingKey: string): Promise<boolean> {
  const row = await db.query.ledgerEntries.findFirst({
    columns: { id: true },
    where: and(eq(ledgerEntries.leaseId, leaseId), eq(ledgerEntries.postingKey, postingKey)),
  });
  return Boolean(row);
}
