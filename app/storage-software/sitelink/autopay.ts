/**
 * Autopay at a SiteLink location where our gateway charges (option B, decision 170).
 *
 * SiteLink posts the charges of its leases itself; its own autopay needs its processor, which an
 * option-B site does not have. So the daily run (`billLeases`) charges the tenant's saved card (our
 * gateway token) when rent falls due and records the payment in SiteLink as a check payment carrying
 * the gateway reference (`PaymentSimpleCheckWithSource`, like portal payments, decision 117).
 *
 * Once per lease and due date: the journal row `payment:autopay:{lease}:{due date}` is written before
 * the gateway is asked (only the process that writes it goes on), the gateway charge carries the
 * idempotency key `autopay:{lease}:{due date}`, and our payment row carries it too. A send without an
 * answer is looked for in SiteLink's receipts (read back), then and on later runs; it is sent once
 * more (attempt `:2`) only when SiteLink still shows no receipt after the settle time. A decline is
 * one declined payment row per due date (the dashboard notice and the email), never retried that period.
 *
 * Under option A SiteLink charges its own autopay: nothing is done here (`billedBy: "software"`).
 */
import { and, asc, desc, eq, isNotNull, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { logger } from "~/platform/logger.server";
import { leases, payments, savedCards, tenantSoftwareLinks } from "~/db/schema";
import { addMonthsIso } from "~/domain/shared/calendar";
import { nextDueAfter } from "~/domain/payments/billing";
import type { CardBrand } from "~/domain/payments/cards";
import type { Billing, LeaseBilling, LocationRef, TenantLease } from "../port";
import { chargeAutopayCard, recordApprovedPayment } from "../shared/ledger";
import { rows } from "./calls";
import { type Row } from "./dataset";
import { type SiteLinkCall } from "./client";
import { createJournal, type JournalEntry } from "./journal";
import { readAnswer } from "./answers";
import { mayHaveBeenApplied } from "./errors";
import { readLedgers } from "./ledger-reads";
import { centsToDecimal, dateOf, decimalToCents } from "./quote";
import { settleAfterMsFor, type SiteLinkSettings } from "./settings";

const CHECK_PAYMENT = "PaymentSimpleCheckWithSource";
const PREFIX = "payment:autopay:";
/** One send, and one more only after SiteLink showed no receipt for the settle time. */
const MAX_SENDS = 2;

type Charge =
  | {
      status: "approved";
      authReference: string;
      brand: CardBrand;
      last4: string;
    }
  | { status: "declined"; reason: string };

/** What autopay needs of our payment gateway (structurally the app's; the adapter does not import services/). */
interface AutopayGateway {
  charge(input: {
    amount: number;
    idempotencyKey: string;
    cardToken: string;
  }): Promise<Charge>;
  /** The answer given to an idempotency key, if any. */
  lookup(idempotencyKey: string): Promise<Charge | null>;
  refund(idempotencyKey: string): Promise<{ refunded: boolean }>;
}

interface SiteLinkBillingDeps {
  db: Database;
  location: LocationRef;
  call: SiteLinkCall;
  settings: SiteLinkSettings;
  /** The process's gateway, asked for at each use. */
  gateway: () => AutopayGateway;
}

/** What a send needs, kept on the journal row so that a later run (or process) can finish it. */
interface AutopayContext {
  leaseId: string;
  tenantId: string;
  ledgerId: string;
  siteLinkTenantId: string;
  unitId: string;
  amount: string;
  dueDate: string;
  /** Receipts on the ledger before the first send (comma-separated). */
  before: string;
  gatewayAuth?: string;
  brand?: string;
  last4?: string;
  /** Why an attempt failed for good: declined | refused | not-recorded. */
  outcome?: string;
}

type LeaseResult = Omit<LeaseBilling, "leaseId" | "tenantId">;
const NONE: LeaseResult = {
  chargesPosted: 0,
  autopay: "none",
  autopayAmount: 0,
  declineReason: null,
};

/** The start of the billing period that `runDate` falls in, counted in whole months from the next due date. */
function currentDueDate(nextDue: string, runDate: string): string {
  let n = 0;
  while (addMonthsIso(nextDue, n + 1) <= runDate) n += 1;
  return addMonthsIso(nextDue, n);
}

/** The dashboard's decline notice for a SiteLink lease: the last autopay declined and SiteLink still shows a balance. */
export async function siteLinkAutopayDecline(
  db: Database,
  leaseId: string,
  balance: number,
): Promise<TenantLease["autopayDecline"]> {
  if (balance <= 0 || !/^\d{1,9}$/.test(leaseId)) return null;
  const last = await db.query.payments.findFirst({
    where: and(
      eq(payments.leaseId, Number(leaseId)),
      eq(payments.source, "autopay"),
    ),
    orderBy: [desc(payments.createdAt), desc(payments.id)],
  });
  return last?.status === "declined"
    ? {
        date: last.createdAt,
        amount: last.amount,
        reason: last.declineReason ?? "Declined.",
      }
    : null;
}

export function siteLinkBilling(deps: SiteLinkBillingDeps): Billing {
  const { db, location, call, settings, gateway: getPaymentGateway } = deps;
  const journal = createJournal(db, location.id);
  const settleAfterMs = settleAfterMsFor(settings);

  const receipts = async (ledgerId: string) =>
    rows(
      await call(
        "PaymentsByLedgerID",
        { sLedgerID: ledgerId },
        { write: false },
      ),
      "PmtHistory",
    );

  /** A receipt SiteLink added since `before` for this amount (the one naming our gateway reference first). */
  async function findReceipt(ctx: AutopayContext): Promise<string | null> {
    const before = new Set(ctx.before.split(",").filter(Boolean));
    const fresh = (await receipts(ctx.ledgerId)).filter(
      (r) =>
        r.Receipt &&
        !before.has(r.Receipt) &&
        decimalToCents(r.Payment) === Number(ctx.amount),
    );
    const named = ctx.gatewayAuth
      ? fresh.find((r) => (r.Description ?? "").includes(ctx.gatewayAuth!))
      : undefined;
    return (named ?? fresh[0])?.Receipt ?? null;
  }

  /** SiteLink has the payment: our payment row (once, on the gateway key) and the journal row done. */
  async function recorded(
    key: string,
    ctx: AutopayContext,
    receipt: string,
    now: Date,
  ): Promise<LeaseResult> {
    await journal.settle(key, "done", { externalIds: { receipt }, now });
    const { created } = await recordApprovedPayment(db, {
      tenantId: Number(ctx.tenantId),
      leaseId: Number(ctx.leaseId),
      amount: Number(ctx.amount),
      source: "autopay",
      cardBrand: (ctx.brand ?? "visa") as "visa",
      cardLast4: ctx.last4 ?? "",
      authReference: ctx.gatewayAuth ?? `SiteLink receipt ${receipt}`,
      idempotencyKey: `autopay:${ctx.leaseId}:${ctx.dueDate}`,
      entryDate: ctx.dueDate,
      description: `Autopay (card ending ${ctx.last4 ?? ""})`,
      now,
    });
    // Reported once: another process reconciling the same attempt at the same moment finds our row.
    if (!created) return NONE;
    return {
      chargesPosted: 0,
      autopay: "approved",
      autopayAmount: Number(ctx.amount),
      declineReason: null,
    };
  }

  /**
   * Sends the check payment of an approved gateway charge (the journal row `key` is ours and pending).
   * No answer or -1: read back at once; still nothing is `unknown`, left to the next run.
   */
  async function send(
    key: string,
    ctx: AutopayContext,
    now: Date,
  ): Promise<LeaseResult> {
    try {
      const a = await call(
        CHECK_PAYMENT,
        {
          iTenantID: Number(ctx.siteLinkTenantId),
          iUnitID: Number(ctx.unitId),
          dcPaymentAmount: centsToDecimal(Number(ctx.amount)),
          sCheckNumber: (ctx.gatewayAuth ?? "").slice(0, 30),
          iSource: 5,
        },
        { write: true },
      );
      // A positive code is the receipt; 0 or -1 may mean SiteLink booked it: read back below, never
      // refunded (answers.ts: PaymentSimpleCheckWithSource's success code is in no source).
      const outcome = readAnswer(CHECK_PAYMENT, a);
      const code = outcome.kind === "refused" ? outcome.code : 0;
      if (outcome.kind === "ok" && outcome.id) return recorded(key, ctx, outcome.id, now);
      if (outcome.kind === "refused") {
        // A clear refusal (the ledger or unit is gone): nothing was recorded; give the money back.
        await journal.settle(key, "failed", {
          externalIds: { outcome: "refused" },
          error: `${code} ${a.retMsg}`,
          now,
        });
        await getPaymentGateway().refund(
          `autopay:${ctx.leaseId}:${ctx.dueDate}`,
        );
        throw new Error(
          `SiteLink refused the autopay payment of lease ${ctx.leaseId}: ${code} ${a.retMsg}; the gateway charge was refunded`,
        );
      }
    } catch (error) {
      if (!mayHaveBeenApplied(error)) {
        const entry = await journal.get(key);
        if (entry?.state === "pending")
          await journal.settle(key, "failed", {
            externalIds: { outcome: "refused" },
            error: String(error),
            now,
          });
        throw error;
      }
    }
    const receipt = await findReceipt(ctx).catch(() => null);
    if (receipt) return recorded(key, ctx, receipt, now);
    await journal.settle(key, "unknown", {
      error: "no answer; no new receipt yet",
      now,
    });
    logger.warn(
      `[sitelink] autopay payment of lease ${ctx.leaseId} (${ctx.dueDate}) not confirmed by SiteLink yet; the next run looks again`,
    );
    // Counted by the run that records it (once SiteLink shows the receipt), not here as well.
    return NONE;
  }

  /**
   * An attempt left open by an earlier run or another process: a new receipt means SiteLink has it;
   * none after the settle time means it was not recorded, and the approved charge is sent once more.
   */
  /** The gateway's answer on the attempt's key, noted on it when we had not (a crash may have come before we did). */
  async function noteGatewayCharge(ctx: AutopayContext): Promise<void> {
    if (ctx.gatewayAuth) return;
    const charge = await getPaymentGateway().lookup(`autopay:${ctx.leaseId}:${ctx.dueDate}`);
    if (charge?.status === "approved") Object.assign(ctx, { gatewayAuth: charge.authReference, brand: charge.brand, last4: charge.last4 });
  }

  async function reconcile(
    entry: JournalEntry,
    now: Date,
  ): Promise<LeaseResult> {
    const ctx = entry.externalIds as unknown as AutopayContext;
    const receipt = await findReceipt(ctx);
    if (receipt) {
      await noteGatewayCharge(ctx);
      return recorded(entry.key, ctx, receipt, now);
    }
    if (now.getTime() - entry.startedAt.getTime() < settleAfterMs) return NONE;
    await journal.settle(entry.key, "failed", {
      externalIds: { outcome: "not-recorded" },
      error: "no receipt in SiteLink after the settle time",
      now,
    });
    await noteGatewayCharge(ctx);
    if (!ctx.gatewayAuth) {
      // Never charged (the gateway failed before answering): the due date may be tried again.
      await journal.settle(entry.key, "failed", {
        externalIds: { outcome: "not-charged" },
        now,
      });
      return NONE;
    }
    const attempts = await journal.withPrefix(
      `${PREFIX}${ctx.leaseId}:${ctx.dueDate}`,
    );
    if (attempts.length >= MAX_SENDS) {
      logger.error(
        `[sitelink] autopay payment of lease ${ctx.leaseId} (${ctx.dueDate}, ${ctx.gatewayAuth}) charged by our gateway but not recorded in SiteLink: record it at the office`,
      );
      return NONE;
    }
    const key = `${PREFIX}${ctx.leaseId}:${ctx.dueDate}:${attempts.length + 1}`;
    const { created } = await journal.begin({
      key,
      operation: CHECK_PAYMENT,
      fingerprint: entry.fingerprint,
      externalIds: {
        ...(ctx as unknown as Record<string, string>),
        outcome: "",
      },
      now,
    });
    return created ? send(key, { ...ctx, outcome: "" }, now) : NONE;
  }

  /** One lease: charge the saved card once for the due date when SiteLink shows rent due and unpaid. */
  async function billLease(
    lease: { id: number; tenantId: number; cardId: number },
    ledger: Row,
    siteLinkTenantId: string,
    input: { runDate: string; now: Date },
  ): Promise<LeaseResult> {
    const paidThru = dateOf(ledger.dPaidThru);
    const balance = decimalToCents(ledger.dcTotalDue ?? ledger.dcChargeBalance);
    if (!paidThru || balance <= 0) return NONE;
    const nextDue = nextDueAfter(paidThru);
    if (nextDue > input.runDate) return NONE;
    const dueDate = currentDueDate(nextDue, input.runDate);
    const idempotencyKey = `autopay:${lease.id}:${dueDate}`;
    if (
      await db.query.payments.findFirst({
        columns: { id: true },
        where: eq(payments.idempotencyKey, idempotencyKey),
      })
    )
      return NONE;
    // An attempt for this due date exists: open ones were reconciled before; done, declined, refused
    // and not-recorded ones are final; only one the gateway never charged makes way for a new one.
    const attempts = await journal.withPrefix(
      `${PREFIX}${lease.id}:${dueDate}`,
    );
    if (attempts.some((a) => a.externalIds.outcome !== "not-charged"))
      return NONE;
    const card = await db.query.savedCards.findFirst({
      where: and(
        eq(savedCards.id, lease.cardId),
        eq(savedCards.tenantId, lease.tenantId),
      ),
    });
    if (!card) return NONE;

    const ctx: AutopayContext = {
      leaseId: String(lease.id),
      tenantId: String(lease.tenantId),
      ledgerId: ledger.LedgerID!,
      siteLinkTenantId,
      unitId: ledger.UnitID!,
      amount: String(balance),
      dueDate,
      before: (await receipts(ledger.LedgerID!))
        .map((r) => r.Receipt)
        .join(","),
    };
    const key = `${PREFIX}${lease.id}:${dueDate}${attempts.length ? `:${attempts.length + 1}` : ""}`;
    // The claim: only the process that writes this row charges; it is committed before the gateway is asked.
    const { created } = await journal.begin({
      key,
      operation: CHECK_PAYMENT,
      fingerprint: `${ctx.ledgerId}:${balance}`,
      externalIds: ctx as unknown as Record<string, string>,
      now: input.now,
    });
    if (!created) return NONE;
    const charge = await chargeAutopayCard(db, getPaymentGateway(), { tenantId: lease.tenantId, leaseId: lease.id, amount: balance, idempotencyKey, card });
    if (charge.status === "declined") {
      await journal.settle(key, "failed", {
        externalIds: { outcome: "declined" },
        error: `declined by our gateway: ${charge.reason}`,
        now: input.now,
      });
      return {
        chargesPosted: 0,
        autopay: "declined",
        autopayAmount: balance,
        declineReason: charge.reason,
      };
    }
    Object.assign(ctx, {
      gatewayAuth: charge.authReference,
      brand: charge.brand,
      last4: charge.last4,
    });
    await journal.note(key, {
      gatewayAuth: charge.authReference,
      brand: charge.brand,
      last4: charge.last4,
    });
    return send(key, ctx, input.now);
  }

  return {
    async billLeases(input) {
      if (settings.cardChargedBy !== "gateway")
        return { billedBy: "software", leases: [], failed: [] };
      const billed: LeaseBilling[] = [];
      const failed: Array<{ leaseId: string; error: unknown }> = [];
      const only =
        input.tenantId === undefined
          ? undefined
          : /^\d{1,9}$/.test(input.tenantId)
            ? Number(input.tenantId)
            : -1;

      // Attempts left open by an earlier run or another process first (whatever the lease's autopay is now).
      for (const entry of await journal.withPrefix(PREFIX)) {
        if (entry.state !== "pending" && entry.state !== "unknown") continue;
        const ctx = entry.externalIds as unknown as AutopayContext;
        if (only !== undefined && Number(ctx.tenantId) !== only) continue;
        try {
          const r = await reconcile(entry, input.now);
          if (r.autopay !== "none")
            billed.push({ leaseId: ctx.leaseId, tenantId: ctx.tenantId, ...r });
        } catch (error) {
          failed.push({ leaseId: ctx.leaseId, error });
        }
      }

      const list = await db
        .select({
          id: leases.id,
          tenantId: leases.tenantId,
          cardId: leases.autopayCardId,
          siteLinkTenantId: tenantSoftwareLinks.externalTenantId,
          ledgerId: leases.externalId,
        })
        .from(leases)
        .innerJoin(
          tenantSoftwareLinks,
          and(
            eq(tenantSoftwareLinks.tenantId, leases.tenantId),
            eq(tenantSoftwareLinks.locationId, leases.locationId),
          ),
        )
        .where(
          and(
            eq(leases.locationId, location.id),
            eq(leases.status, "active"),
            eq(leases.autopayEnabled, true),
            isNotNull(leases.autopayCardId),
            isNotNull(leases.externalId),
            sql`${leases.moveInDate} <= ${input.runDate}`,
            only === undefined ? undefined : eq(leases.tenantId, only),
          ),
        )
        .orderBy(asc(leases.id));
      const ledgersOf = new Map<string, Promise<Row[]>>();
      for (const lease of list) {
        try {
          if (!ledgersOf.has(lease.siteLinkTenantId))
            ledgersOf.set(
              lease.siteLinkTenantId,
              readLedgers(call, lease.siteLinkTenantId),
            );
          const ledger = (await ledgersOf.get(lease.siteLinkTenantId)!).find(
            (l) => l.LedgerID === lease.ledgerId,
          );
          if (!ledger) continue; // moved out at the office: SiteLink no longer lists it
          const r = await billLease(
            { id: lease.id, tenantId: lease.tenantId, cardId: lease.cardId! },
            ledger,
            lease.siteLinkTenantId,
            input,
          );
          billed.push({
            leaseId: String(lease.id),
            tenantId: String(lease.tenantId),
            ...r,
          });
        } catch (error) {
          failed.push({ leaseId: String(lease.id), error });
        }
      }
      return { billedBy: "us", leases: billed, failed };
    },
  };
}
