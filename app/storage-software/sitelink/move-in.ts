/**
 * The SiteLink move-in, step by step (study §5), idempotent on the rental through the write journal
 * (SiteLink has no idempotency key):
 *
 *  1. Done already (rental completed) -> the first result, `created: false`, no call.
 *  2. An earlier attempt of this rental whose outcome is unknown -> reconcile first (LedgersByTenantID);
 *     never a second MoveIn blindly.
 *  3. The held unit is still free in SiteLink (fresh UnitsInformationByUnitID); if the office rented it,
 *     another unit of the type is held for the rental and UnitUnavailableError says so (no charge).
 *  4. SiteLink's quote (MoveInCostRetrieveWithDiscount_v4) must equal the total signed for, to the cent,
 *     or ChargesChangedError.
 *  5. The email is free (our tenants, and SiteLink's TenantSearchDetailed exact match).
 *  6. The SiteLink tenant: created once per rental (journal `tenant:{rentalId}`) and re-used after a
 *     decline; `sTenNote` carries the rental's id so a timed-out creation can be found again.
 *  7. Option B (our gateway charges): the gateway charge, idempotent on the rental's key.
 *  8. MoveInWithDiscount_v7, journalled `pending` and the rental set `confirming` (committed) before
 *     the request leaves. Yes -> local records (tenant identity, link, lease record, payment record)
 *     and the rental completed. -2/-25 unit gone, -100/-14 declined, -11 changed: nothing written.
 *     -1, a timeout or no answer: outcome unknown -> OutcomeUnknownError, the rental stays
 *     `confirming` and `confirmMoveIn` (page reload, background sweep) settles it by reading back.
 */
import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { rentals, leases, locations, tenantSoftwareLinks, tenants, units } from "~/db/schema";
import { ledgerEntries, savedCards } from "~/db/schema/billing";
import { holdEndsAt } from "~/domain/rental/hold";
import { isSignedOnline } from "~/domain/rental/lease";
import { cardBrand as brandOf, type CardBrand } from "~/domain/payments/cards";
import type { MoveInQuote } from "~/domain/rental/move-in-quote";
import { logger } from "~/platform/logger.server";
import type { CardDetails, LocationRef, MoveInChargeLine, MoveInCheck, MoveInInput, MoveInResult, PaymentMethodInput } from "../port";
import {
  CardNotTakenOnlineError,
  ChargesChangedError,
  EMAIL_TAKEN_MESSAGE,
  OutcomeUnknownError,
  PaymentDeclinedError,
  SoftwareUnreachableError,
  StorageSoftwareError,
  StorageValidationError,
  UnitUnavailableError,
} from "../errors";
import { postCharges, recordApprovedPayment } from "../shared/ledger";
import { newTenantRow } from "../shared/tenants";
import { rows, siteLinkDate } from "./calls";
import { type Row } from "./dataset";
import { type SiteLinkCall } from "./client";
import { mayHaveBeenApplied, readFailed } from "./errors";
import { findTenantWithNote, searchTenantsByEmail, tenantNote, tenantParams } from "./tenant-records";
import { readAnswer, type AnswerOutcome } from "./answers";
import { billingInfoParams, expiryParam } from "./billing-params";
import { readLedgers } from "./ledger-reads";
import { moveInKeyPrefix, tenantsWeCreated } from "./move-in-attempts";
import { createJournal, type Journal, type JournalEntry } from "./journal";
import { centsToDecimal, dateOf, isTrue, quoteFromCostRows, requiredTotal } from "./quote";
import { readRentTaxRates } from "./site-tax";

/** Per-location SiteLink settings the rentals part needs (site settings table, study §3.5, §4). */
export interface SiteLinkRentalSettings {
  /** "sitelink": SiteLink's own processor charges the card (A); "gateway": our gateway charges, SiteLink records cash (B). */
  charges: "sitelink" | "gateway";
  /** The site's PmtTypeID per card brand (PaymentTypesRetrieve). */
  cardTypeIds: Partial<Record<CardBrand, number>>;
  /** MoveInWithDiscount_v7's iPayMethod per way of paying at this site (decision 180): card under A, cash under B. */
  payMethodIds: { card: number; cash: number };
  /** iBillingFrequency accepted by the site (per-site; MC-K 3 = monthly). */
  billingFrequency: number;
  /** ChannelType: 1 web rate, 0 standard (must match the quote's). */
  channelType: 0 | 1;
  /** bTestMode on MoveIn and payments (sandbox / simulator). */
  testMode: boolean;
  /**
   * How long after an unanswered write reconciliation may conclude that SiteLink did nothing (no ledger
   * found). Longer than the write timeout, so a slow commit is never mistaken for none.
   */
  settleAfterMs: number;
}

/**
 * What option B needs of our payment gateway (structurally the app's PaymentGateway, which the
 * adapter factory passes in; the adapter does not import services/).
 */
export interface MoveInGateway {
  charge(input: { amount: number; idempotencyKey: string; method: PaymentMethodInput }): Promise<
    | {
        status: "approved";
        authReference: string;
        brand: CardBrand;
        last4: string;
      }
    | { status: "declined"; reason: string }
  >;
  refund(idempotencyKey: string): Promise<{ refunded: boolean }>;
  tokenize(input: PaymentMethodInput): Promise<
    | {
        status: "ok";
        brand: CardBrand;
        last4: string;
        cardToken: string;
        expMonth?: number;
        expYear?: number;
      }
    | { status: "declined"; reason: string }
  >;
}

interface MoveInDeps {
  db: Database;
  location: LocationRef;
  call: SiteLinkCall;
  journal: Journal;
  settings: SiteLinkRentalSettings;
  gateway: MoveInGateway;
}

const MOVE_IN = "MoveInWithDiscount_v7";
const TENANT_NEW = "TenantNewDetailed_v3";
const NONE = -999;

const tenantKey = (rentalId: string) => `tenant:${rentalId}`;

const DECLINED = "Your card was declined.";
/** The journal's mark on a move-in refused with -2 while the unit was free (status: needs attention). */
const PAY_METHOD_ATTENTION = "card not taken online: -2 while the unit was free";
const NOT_IN_SITELINK = "SiteLink has no record of the move-in";
const INVALID_CARD = "This card number is not valid.";

type Executor = Database | Transaction;

// ------------------------------------------------------------------ small reads

async function rentalRow(db: Executor, rentalId: string) {
  const [row] = await db.select().from(rentals).where(eq(rentals.id, rentalId));
  return row ?? null;
}

async function accountIdOf(db: Executor, locationId: number) {
  const [row] = await db.select({ accountId: locations.accountId }).from(locations).where(eq(locations.id, locationId));
  if (!row) throw new StorageSoftwareError(`Location ${locationId} does not exist`);
  return row.accountId;
}

/** SiteLink's answer for one unit, or null when it does not know the unit. Throws SoftwareUnreachableError. */
async function readUnit(call: SiteLinkCall, siteLinkUnitId: string): Promise<Row | null> {
  const a = await call("UnitsInformationByUnitID", { UnitID: Number(siteLinkUnitId) }, { write: false });
  // Refused credentials, an unknown location code, a failing read: not "the unit is gone".
  if (rows(a, "Table").length === 0 && a.retCode !== null && a.retCode < 0) throw readFailed(a, "UnitsInformationByUnitID")!;
  return rows(a, "Table").find((r) => r.UnitID === siteLinkUnitId) ?? rows(a, "Table")[0] ?? null;
}

const isFree = (u: Row | null) => Boolean(u) && !isTrue(u!.bRented) && isTrue(u!.bRentable ?? "true") && !isTrue(u!.bWaitingListReserved) && !u!.dDeleted;

// ------------------------------------------------------------------ quote

interface SiteLinkQuoteInput {
  siteLinkUnitId: string;
  moveInDate: string;
  /** SiteLink's InsurCoverageID, or null for none. */
  insuranceCoverageId: string | null;
  insurancePremium: number;
  insurancePlanId: string | null;
  standardRate: number;
  monthlyRate: number;
  /** The site's discount plan to apply (the unit type's promotion: ConcessionPlanID), or null/absent for none. */
  concessionPlanId?: number | null;
}

async function siteLinkCostRows(
  call: SiteLinkCall,
  settings: SiteLinkRentalSettings,
  q: Omit<SiteLinkQuoteInput, "standardRate" | "monthlyRate" | "insurancePremium" | "insurancePlanId">,
) {
  const a = await call(
    "MoveInCostRetrieveWithDiscount_v4",
    {
      iUnitID: Number(q.siteLinkUnitId),
      dMoveInDate: siteLinkDate(q.moveInDate),
      InsuranceCoverageID: q.insuranceCoverageId ? Number(q.insuranceCoverageId) : NONE,
      ConcessionPlanID: q.concessionPlanId ?? NONE,
      iPromoGlobalNum: 0,
      ChannelType: settings.channelType,
      bApplyInsuranceCredit: false,
    },
    { write: false },
  );
  const list = rows(a, "Table");
  if (list.length === 0) {
    if (a.retCode === -25) throw new UnitUnavailableError("SiteLink does not know this unit");
    throw new SoftwareUnreachableError(`MoveInCostRetrieveWithDiscount_v4 answered no cost rows (${a.retCode ?? "no code"} ${a.retMsg})`);
  }
  return list;
}

export async function siteLinkQuote(call: SiteLinkCall, settings: SiteLinkRentalSettings, q: SiteLinkQuoteInput): Promise<MoveInQuote> {
  const list = await siteLinkCostRows(call, settings, q);
  // The monthly figure at the site's own tax rate, not one inferred from a discounted or prorated first line.
  return quoteFromCostRows(list, { ...q, rentTaxRates: await readRentTaxRates(call) });
}

// ------------------------------------------------------------------ the move-in

/**
 * What the journal keeps of a move-in attempt so that reconciliation can finish it without the visitor:
 * ids, amounts and dates only (journal.ts names the fields a row may keep). The rest is PendingMoveIn.
 */
interface AttemptContext {
  tenantId: string;
  unitId: string;
  localUnitId: string;
  total: string;
  cardBrand: string;
  cardLast4: string;
  autopay: string;
  lines: string;
  moveInDate: string;
  paidThroughDate: string;
  nextDueDate: string;
  monthlyRate: string;
  insurancePremium: string;
  idempotencyKey: string;
  gatewayAuth: string;
}

/**
 * What reconciliation needs of a move-in and the journal may not keep (issue 19): kept on the rental
 * (`checkouts.pending_move_in`, beside the tenant details it already holds) from the send until the
 * move-in is settled, then removed.
 */
interface PendingMoveIn {
  /** JSON of MoveInTenant (contact details and the password's hash, as the rental holds them; never a card). */
  tenant: string;
  /** JSON of the signature: hash, signed name, time and address. */
  signature: string;
  leaseText: string;
  /** The gate code SiteLink gave the tenant (the ledger read back gives it too). */
  accessCode: string;
  /**
   * Option B with autopay chosen: our gateway's token for the card (never the number or CVV), its
   * brand, last four digits, expiry and name, so that the lease is enrolled in autopay when it is
   * confirmed, also by reconciliation after the visitor has gone.
   */
  autopayToken?: string;
  autopayCard?: string;
}

/** Forgets what a rental's move-in kept for reconciliation (settled: recorded, or it did not happen). */
async function forgetPendingMoveIn(db: Executor, rentalId: string): Promise<void> {
  await db.update(rentals).set({ pendingMoveIn: null }).where(and(eq(rentals.id, rentalId), sql`${rentals.pendingMoveIn} is not null`));
}

export function createSiteLinkMoveIn(deps: MoveInDeps) {
  const { db, location, call, journal, settings, gateway } = deps;

  /** The rental's local unit and its SiteLink UnitID. */
  async function heldUnit(rentalId: string, localUnitId: number | null) {
    const unit = localUnitId
      ? await db.query.units.findFirst({
          where: and(eq(units.id, localUnitId), eq(units.locationId, location.id)),
        })
      : await db.query.units.findFirst({
          where: and(eq(units.holdToken, rentalId), eq(units.locationId, location.id)),
        });
    if (!unit?.externalId) throw new UnitUnavailableError("The unit held for this rental is gone");
    return unit;
  }

  /**
   * The office rented (or blocked) the held unit: our mirror says so at once, and another unit of the
   * same type is held for the rental when SiteLink confirms one is free. Returns its name, or null.
   */
  async function unitTaken(rentalId: string, unit: { id: number; unitTypeId: number }, now: Date): Promise<string | null> {
    await db.update(units).set({ status: "rented", heldUntil: null, holdToken: null }).where(eq(units.id, unit.id));
    const candidates = await db
      .select({ id: units.id, name: units.name, externalId: units.externalId })
      .from(units)
      .where(
        and(
          eq(units.locationId, location.id),
          eq(units.unitTypeId, unit.unitTypeId),
          eq(units.status, "available"),
          sql`(${units.heldUntil} is null or ${units.heldUntil} <= ${now.toISOString()}::timestamptz or ${units.holdToken} = ${rentalId})`,
        ),
      )
      .orderBy(units.name)
      .limit(5);
    for (const c of candidates) {
      if (!c.externalId) continue;
      const fresh = await readUnit(call, c.externalId).catch(() => null);
      if (!isFree(fresh)) {
        if (fresh)
          await db
            .update(units)
            .set({ status: isTrue(fresh.bRented) ? "rented" : "unavailable" })
            .where(eq(units.id, c.id));
        continue;
      }
      const until = holdEndsAt(now);
      const claimed = await db
        .update(units)
        .set({ heldUntil: until, holdToken: rentalId })
        .where(
          and(
            eq(units.id, c.id),
            eq(units.status, "available"),
            sql`(${units.heldUntil} is null or ${units.heldUntil} <= ${now.toISOString()}::timestamptz or ${units.holdToken} = ${rentalId})`,
          ),
        )
        .returning({ id: units.id });
      if (!claimed.length) continue;
      await db.update(rentals).set({ unitId: c.id, expiresAt: until }).where(eq(rentals.id, rentalId));
      return c.name;
    }
    return null;
  }

  function unitGoneError(alternative: string | null): UnitUnavailableError {
    return new UnitUnavailableError(
      alternative
        ? `The unit held for you was just rented at the office. We are now holding unit ${alternative} of the same size for you; nothing was charged.`
        : "The unit held for you was just rented at the office and no other unit of this size is free. Nothing was charged.",
      alternative,
    );
  }

  async function reopen(rentalId: string, opts: { newKey?: boolean } = {}) {
    // The move-in did not happen (nothing charged): what was kept to finish it (and any token) goes.
    await forgetPendingMoveIn(db, rentalId);
    await db
      .update(rentals)
      .set({
        status: "open",
        ...(opts.newKey ? { idempotencyKey: crypto.randomBytes(24).toString("base64url") } : {}),
      })
      .where(and(eq(rentals.id, rentalId), sql`${rentals.status} in ('confirming', 'charging')`));
  }

  async function refuseTakenEmail(email: string) {
    const accountId = await accountIdOf(db, location.id);
    const local = await db.query.tenants.findFirst({
      columns: { id: true },
      where: and(eq(tenants.accountId, accountId), sql`lower(${tenants.email}) = ${email}`),
    });
    const taken = () =>
      new StorageValidationError(EMAIL_TAKEN_MESSAGE, {
        email: [EMAIL_TAKEN_MESSAGE],
      });
    if (local) throw taken();
    const found = await searchTenantsByEmail(call, email);
    // Fuzzy and capped: keep exact matches only, and never count the tenant this rental made itself.
    const ours = await tenantsWeCreated(db, location.id);
    const match = found.find((r) => !ours.has(r.TenantID ?? ""));
    if (match) throw taken();
  }

  /** The SiteLink tenant of this rental: the one it made before, found again, or a new one. */
  async function siteLinkTenant(input: MoveInInput, email: string, now: Date): Promise<{ tenantId: string; accessCode: string }> {
    const key = tenantKey(input.rentalId);
    const previous = await journal.get(key);
    if (previous?.state === "done" && previous.externalIds.tenantId) {
      // The journal keeps no gate code: SiteLink's record has it.
      const tenantId = previous.externalIds.tenantId;
      return { tenantId, accessCode: await accessCodeOf(tenantId) };
    }
    if (previous && (previous.state === "pending" || previous.state === "unknown")) {
      const found = await findTenantByNote(email, input.rentalId);
      if (found) {
        await journal.settle(key, "done", { externalIds: { tenantId: found.tenantId }, now });
        return found;
      }
      // Not there: the creation did nothing (a stray tenant would be an orphan, never a charge).
      await journal.settle(key, "failed", {
        error: "not found in SiteLink after no answer",
        now,
      });
    }
    const attemptKey = previous ? `${key}:${crypto.randomBytes(4).toString("hex")}` : key;
    const { created } = await journal.begin({
      key: attemptKey,
      operation: TENANT_NEW,
      fingerprint: input.rentalId,
      now,
    });
    if (!created) throw new OutcomeUnknownError("The tenant of this rental is being created");
    const t = input.tenant;
    const params = tenantParams(t, email, tenantNote(input.rentalId));
    let answer;
    let outcome: AnswerOutcome;
    try {
      answer = await call(TENANT_NEW, params, { write: true });
      if (answer.retCode === -2) {
        // -2: the gate code refused (manual: invalid or duplicate). Read back before writing again: a
        // tenant with this rental's note means it was created after all (and is used); only when there
        // is none is it sent once more, SiteLink choosing the gate code.
        const made = await findTenantByNote(email, input.rentalId);
        if (made) {
          await journal.settle(attemptKey, "done", { externalIds: { tenantId: made.tenantId }, error: "-2, then found by its note", now });
          if (attemptKey !== key) await journal.settle(key, "done", { externalIds: { tenantId: made.tenantId }, now });
          return made;
        }
        answer = await call(TENANT_NEW, { ...params, sGateCode: "" }, { write: true });
      }
      outcome = readAnswer(TENANT_NEW, answer);
    } catch (error) {
      outcome = { kind: "unclear", code: null, message: String(error) };
    }
    if (outcome.kind === "unclear") {
      // No answer, or one that may mean it was created: look for it (its note), never create blindly.
      await journal.settle(attemptKey, "unknown", { error: outcome.message, now });
      const found = await findTenantByNote(email, input.rentalId).catch(() => null);
      if (found) {
        await journal.settle(attemptKey, "done", { externalIds: { tenantId: found.tenantId }, now });
        if (attemptKey !== key) await journal.settle(key, "done", { externalIds: { tenantId: found.tenantId }, now }).catch(() => undefined);
        return found;
      }
      throw new SoftwareUnreachableError(`TenantNewDetailed_v3 did not say whether the tenant was created: ${outcome.message}`);
    }
    if (outcome.kind === "refused") {
      await journal.settle(attemptKey, "failed", { error: outcome.message, now });
      throw new StorageSoftwareError(`SiteLink refused the tenant: ${outcome.message}`);
    }
    const rt = rows(answer!, "RT")[0] ?? {};
    const found = {
      tenantId: outcome.id!,
      accessCode: rt.AccessCode ?? rt.sAccessCode ?? "",
    };
    await journal.settle(attemptKey, "done", { externalIds: { tenantId: found.tenantId }, now });
    if (attemptKey !== key) await journal.settle(key, "done", { externalIds: { tenantId: found.tenantId }, now });
    if (t.isMilitary) await call("TenantUpdateMilitary", { TenantID: Number(found.tenantId), bMilitary: true }, { write: true }).catch(() => undefined);
    return found;
  }

  /** The tenant's gate code as SiteLink has it ("" when the record does not say). */
  async function accessCodeOf(siteLinkTenantId: string): Promise<string> {
    const info = rows(await call("TenantInfoByTenantID", { iTenantID: Number(siteLinkTenantId) }, { write: false }), "Table")[0];
    return info?.sAccessCode ?? "";
  }

  async function findTenantByNote(email: string, rentalId: string): Promise<{ tenantId: string; accessCode: string } | null> {
    return findTenantWithNote(call, email, tenantNote(rentalId));
  }

  /**
   * Finishes a move-in SiteLink accepted: the local records the portal and the confirmation read.
   * Runs from the visitor's request or from reconciliation; idempotent on the rental.
   */
  async function recordCompleted(
    rentalId: string,
    ctx: AttemptContext,
    ledger: { ledgerId: string; leaseNum: string; row: Row | null },
    now: Date,
  ): Promise<MoveInResult> {
    const lines = JSON.parse(ctx.lines) as MoveInChargeLine[];
    const receipt = await call("PaymentsByLedgerID", { sLedgerID: ledger.ledgerId }, { write: false })
      .then((a) => rows(a, "PmtHistory").at(-1)?.Receipt ?? "")
      .catch(() => "");
    return db.transaction(async (tx) => {
      const [c] = await tx.select().from(rentals).where(eq(rentals.id, rentalId)).for("update");
      if (!c) throw new StorageSoftwareError("This rental does not exist");
      if (c.completedLeaseId != null) return existingResult(tx, c.completedLeaseId);
      // The tenant as the visitor gave it, kept on the rental (reconciliation has no request). An
      // attempt journalled before issue 19 still carries it on the journal row.
      const legacy = ctx as unknown as Partial<PendingMoveIn>;
      const kept = { ...legacy, ...((c.pendingMoveIn ?? {}) as Partial<PendingMoveIn>) };
      if (!kept.tenant || !kept.signature || kept.leaseText === undefined) throw new StorageSoftwareError("What this move-in needs to be recorded is no longer kept");
      const t = JSON.parse(kept.tenant) as MoveInInput["tenant"];
      const sig = JSON.parse(kept.signature) as {
        hash: string;
        signedName: string;
        signedAt: string;
        signedIp: string;
      };
      const email = t.email.trim().toLowerCase();
      const accountId = await accountIdOf(tx, location.id);
      const existing = await tx.query.tenants.findFirst({
        columns: { id: true },
        where: and(eq(tenants.accountId, accountId), sql`lower(${tenants.email}) = ${email}`),
      });
      const tenantId =
        existing?.id ??
        (
          await tx
            .insert(tenants)
            .values({ ...newTenantRow({ ...t, webPwHash: c.webPwHash ?? t.webPwHash }, email, accountId), externalId: ctx.tenantId })
            .returning({ id: tenants.id })
        )[0]!.id;
      await linkTenant(tx, tenantId, ctx.tenantId);
      const localUnitId = Number(ctx.localUnitId);
      // The unit is SiteLink's to rent: our mirror follows (a stray local lease on it would be a bug).
      await tx.update(units).set({ status: "rented", heldUntil: null, holdToken: null }).where(eq(units.id, localUnitId));
      const paidThrough = dateOf(ledger.row?.dPaidThru) ?? ctx.paidThroughDate;
      const [lease] = await tx
        .insert(leases)
        .values({
          tenantId,
          unitId: localUnitId,
          locationId: location.id,
          moveInDate: ctx.moveInDate,
          monthlyRate: Number(ctx.monthlyRate),
          insurancePremium: Number(ctx.insurancePremium),
          paidThroughDate: paidThrough,
          nextDueDate: ctx.nextDueDate,
          gateCode: ledger.row?.sAccessCode ?? kept.accessCode ?? "",
          leaseText: kept.leaseText,
          leaseHash: sig.hash,
          signedName: sig.signedName,
          signedAt: new Date(sig.signedAt),
          signedIp: sig.signedIp,
          externalId: ledger.ledgerId,
        })
        .returning({ id: leases.id });
      const leaseId = lease!.id;
      // The charges as SiteLink quoted them: what the confirmation and the lease show.
      await postCharges(tx, {
        leaseId,
        tenantId,
        now,
        lines: lines.filter((l) => l.kind !== "discount").map((l) => ({ ...l, entryDate: ctx.moveInDate })),
      });
      const brand = (ctx.cardBrand || "visa") as CardBrand;
      // SiteLink gives no processor authorisation code: its receipt number stands for it (option A).
      const authReference = ctx.gatewayAuth || (receipt ? `SiteLink receipt ${receipt}` : `SiteLink ledger ${ledger.ledgerId}`);
      const paid = await recordApprovedPayment(tx, {
        tenantId,
        leaseId,
        amount: Number(ctx.total),
        source: "move_in",
        cardBrand: brand,
        cardLast4: ctx.cardLast4,
        authReference,
        idempotencyKey: ctx.idempotencyKey,
        entryDate: ctx.moveInDate,
        description: `Move-in payment (card ending ${ctx.cardLast4})`,
        now,
      });
      const discounts = lines.filter((l) => l.kind === "discount");
      if (discounts.length) {
        await tx.insert(ledgerEntries).values(
          discounts.map((l) => ({
            leaseId,
            tenantId,
            kind: "credit" as const,
            description: l.description,
            amount: -l.amount,
            tax: 0,
            entryDate: ctx.moveInDate,
            postingKey: l.postingKey,
            postedAt: now,
          })),
        );
      }
      // Option B, autopay chosen: the gateway's token kept on the attempt enrols the lease now, also
      // when only reconciliation confirmed it (the visitor's card itself is long gone).
      if (ctx.autopay === "true" && kept.autopayToken && kept.autopayCard) {
        const k = JSON.parse(kept.autopayCard) as { brand: CardBrand; last4: string; expMonth: number; expYear: number; name: string };
        const [saved] = await tx
          .insert(savedCards)
          .values({ tenantId, brand: k.brand, last4: k.last4, expMonth: k.expMonth, expYear: k.expYear, nameOnCard: k.name, gatewayToken: kept.autopayToken })
          .returning({ id: savedCards.id });
        await tx.update(leases).set({ autopayEnabled: true, autopayCardId: saved!.id }).where(eq(leases.id, leaseId));
      }
      await tx
        .update(rentals)
        .set({
          status: "completed",
          completedLeaseId: leaseId,
          unitId: localUnitId,
          pendingMoveIn: null,
        })
        .where(eq(rentals.id, rentalId));
      const unit = await tx.query.units.findFirst({
        columns: { name: true },
        where: eq(units.id, localUnitId),
      });
      return {
        leaseId: String(leaseId),
        tenantId: String(tenantId),
        unitId: String(localUnitId),
        unitName: ledger.row?.sUnitName ?? unit?.name ?? "",
        gateCode: ledger.row?.sAccessCode ?? kept.accessCode ?? "",
        paymentId: String(paid.paymentId),
        authReference,
        cardBrand: brand,
        cardLast4: ctx.cardLast4,
        created: true,
      };
    });
  }

  async function linkTenant(tx: Executor, tenantId: number, externalTenantId: string) {
    await tx.insert(tenantSoftwareLinks).values({ tenantId, locationId: location.id, externalTenantId }).onConflictDoNothing();
  }

  async function existingResult(tx: Executor, leaseId: number): Promise<MoveInResult> {
    const lease = await tx.query.leases.findFirst({
      where: eq(leases.id, leaseId),
      with: { unit: { columns: { name: true } } },
    });
    if (!lease) throw new StorageSoftwareError(`Lease ${leaseId} is missing`);
    const payment = await tx.query.payments.findFirst({
      where: (p, { and, eq }) => and(eq(p.leaseId, leaseId), eq(p.source, "move_in"), eq(p.status, "approved")),
    });
    return {
      leaseId: String(lease.id),
      tenantId: String(lease.tenantId),
      unitId: String(lease.unitId),
      unitName: lease.unit.name,
      gateCode: lease.gateCode,
      paymentId: String(payment?.id ?? ""),
      authReference: payment?.authReference ?? "",
      cardBrand: payment?.cardBrand ?? "",
      cardLast4: payment?.cardLast4 ?? "",
      created: false,
    };
  }

  type Confirmation = MoveInCheck;

  /**
   * Settles an attempt whose outcome is unknown, by reading SiteLink back: a ledger of the rental's
   * own tenant means the move-in went through (finish it here); none, `settleAfterMs` after it was
   * sent, means SiteLink did nothing; otherwise it is still pending. Never sends the MoveIn again.
   */
  async function settleAttempt(rentalId: string, entry: JournalEntry, now: Date): Promise<Confirmation> {
    const ctx = entry.externalIds as unknown as AttemptContext;
    if (!ctx.tenantId) {
      await journal.settle(entry.key, "failed", {
        error: "no tenant on the attempt",
        now,
      });
      return { status: "not_completed", reason: "not sent" };
    }
    let ledgers: Row[];
    try {
      ledgers = await readLedgers(call, ctx.tenantId);
    } catch {
      return { status: "pending" };
    }
    const ledger = ledgers.find((l) => l.UnitID === ctx.unitId) ?? ledgers[0];
    if (ledger?.LedgerID) {
      await journal.settle(entry.key, "done", {
        externalIds: {
          ledgerId: ledger.LedgerID,
          leaseNum: ledger.iLeaseNum ?? "",
        },
        now,
      });
      const result = await recordCompleted(
        rentalId,
        ctx,
        {
          ledgerId: ledger.LedgerID,
          leaseNum: ledger.iLeaseNum ?? "",
          row: ledger,
        },
        now,
      );
      return { status: "completed", result };
    }
    if (now.getTime() - entry.startedAt.getTime() < settings.settleAfterMs) return { status: "pending" };
    await journal.settle(entry.key, "failed", {
      error: "no ledger in SiteLink after the settle time",
      now,
    });
    if (ctx.gatewayAuth) await gateway.refund(ctx.idempotencyKey).catch(() => undefined);
    await reopen(rentalId, { newKey: true });
    logger.warn(`[sitelink] move-in of rental ${rentalId.slice(0, 6)}… not found in SiteLink after no answer: nothing charged, visitor may pay again`);
    return { status: "not_completed", reason: NOT_IN_SITELINK };
  }

  async function confirmMoveIn({ rentalId, now }: { rentalId: string; now: Date }): Promise<Confirmation> {
    const c = await rentalRow(db, rentalId);
    if (!c) return { status: "not_completed", reason: "no such rental" };
    if (c.completedLeaseId != null)
      return {
        status: "completed",
        result: await existingResult(db, c.completedLeaseId),
      };
    const open = (await journal.withPrefix(moveInKeyPrefix(rentalId))).filter((e) => e.state === "pending" || e.state === "unknown");
    if (open.length === 0) {
      if (c.status === "confirming") await reopen(rentalId);
      return { status: "not_completed", reason: "no move-in attempt waiting" };
    }
    let last: Confirmation = { status: "pending" };
    for (const e of open) {
      last = await settleAttempt(rentalId, e, now);
      if (last.status !== "not_completed") return last;
    }
    return last;
  }

  async function moveIn(input: MoveInInput): Promise<MoveInResult> {
    const now = input.now;
    const email = input.tenant.email.trim().toLowerCase();
    const c = await rentalRow(db, input.rentalId);
    if (!c) throw new StorageSoftwareError("This rental does not exist");
    if (c.completedLeaseId != null) return existingResult(db, c.completedLeaseId);
    // SiteLink's processor (A) needs the card number itself: a processor's token cannot reach it.
    const typed: CardDetails | null = input.payment.kind === "card" ? input.payment.card : null;
    if (settings.charges === "sitelink" && !typed) {
      throw new StorageValidationError("This location takes cards typed on this page only. Please enter your card number.", {
        card_number: ["Please enter your card number."],
      });
    }

    // 2. An earlier attempt without an answer: settle it before anything is sent again.
    const confirmation = await confirmMoveIn({
      rentalId: input.rentalId,
      now,
    });
    if (confirmation.status === "completed") {
      const typedBrand = (typed && brandOf(typed.number.replace(/\D/g, ""))) || "visa";
      return withAutopay(confirmation.result, input, typedBrand, now);
    }
    if (confirmation.status === "pending") throw new OutcomeUnknownError("An earlier payment of this rental is still being confirmed");
    // Reconciliation that proved an earlier attempt did nothing gave the rental a new key: use it.
    const idempotencyKey =
      confirmation.reason === NOT_IN_SITELINK ? ((await rentalRow(db, input.rentalId))?.idempotencyKey ?? input.idempotencyKey) : input.idempotencyKey;

    // 3. The held unit, fresh from SiteLink.
    const unit = await heldUnit(input.rentalId, c.unitId);
    const live = await readUnit(call, unit.externalId!);
    if (!isFree(live)) throw unitGoneError(await unitTaken(input.rentalId, unit, now));

    // 4. SiteLink's quote, to the cent.
    const plan = input.insurancePlanId;
    const costRows = await siteLinkCostRows(call, settings, {
      siteLinkUnitId: unit.externalId!,
      moveInDate: input.moveInDate,
      insuranceCoverageId: plan,
      // The promotion's plan, as quoted: SiteLink applies it (issue 40, decision 601).
      concessionPlanId: input.promotion?.planId ?? null,
    });
    const required = requiredTotal(costRows);
    if (required !== input.total) throw new ChargesChangedError();
    const startRow = costRows.find((r) => isTrue(r.bMoveInRequired) && /\brent\b/i.test(r.ChargeDescription ?? "")) ?? costRows[0]!;

    // 5. The email is free (SiteLink's own search too; never our own tenant of this rental).
    await refuseTakenEmail(email);

    // 6. The SiteLink tenant of this rental.
    const tenant = await siteLinkTenant(input, email, now);

    // 7. Option B: our gateway charges first (idempotent on the key); SiteLink records it as cash.
    let brand: CardBrand = (typed && brandOf(typed.number.replace(/\D/g, ""))) || "visa";
    let last4 = typed ? typed.number.replace(/\D/g, "").slice(-4) : "";
    let gatewayAuth = "";
    let autopayToken: { token: string; card: string } | null = null;
    if (settings.charges === "gateway") {
      const charge = await gateway.charge({
        amount: input.total,
        idempotencyKey,
        method: input.payment,
      });
      if (charge.status === "declined") throw new PaymentDeclinedError(charge.reason);
      gatewayAuth = charge.authReference;
      brand = charge.brand;
      last4 = charge.last4;
      if (input.autopay) autopayToken = await autopayTokenFor(input);
    } else if (!settings.cardTypeIds[brand]) {
      throw new StorageValidationError("This location does not take this card online. Please use another card.", { card_number: ["Please use another card."] });
    }

    // 8. The move-in: journalled and the rental `confirming` before the request leaves.
    const pending: PendingMoveIn = {
      tenant: JSON.stringify({ ...input.tenant, email }),
      signature: JSON.stringify({
        hash: input.lease.hash,
        signedName: input.lease.signedName,
        signedAt: input.lease.signedAt,
        signedIp: input.lease.signedIp,
      }),
      leaseText: input.lease.text,
      accessCode: tenant.accessCode,
      ...(autopayToken ? { autopayToken: autopayToken.token, autopayCard: autopayToken.card } : {}),
    };
    const ctx: AttemptContext = {
      tenantId: tenant.tenantId,
      unitId: unit.externalId!,
      localUnitId: String(unit.id),
      total: String(input.total),
      cardBrand: brand,
      cardLast4: last4,
      autopay: String(input.autopay),
      lines: JSON.stringify(input.lines),
      moveInDate: input.moveInDate,
      paidThroughDate: dateOf(startRow.EndDate) ?? input.paidThroughDate,
      nextDueDate: input.nextDueDate,
      monthlyRate: String(input.monthlyRate),
      insurancePremium: String(input.insurancePremium),
      idempotencyKey,
      gatewayAuth,
    };
    const key = `${moveInKeyPrefix(input.rentalId)}${idempotencyKey}`;
    const begun = await db.transaction(async (tx) => {
      const [locked] = await tx
        .select({
          status: rentals.status,
          completedLeaseId: rentals.completedLeaseId,
        })
        .from(rentals)
        .where(eq(rentals.id, input.rentalId))
        .for("update");
      if (!locked || locked.completedLeaseId != null || locked.status === "confirming") return null;
      const j = createJournal(tx, location.id);
      const { created } = await j.begin({
        key,
        operation: MOVE_IN,
        fingerprint: `${input.rentalId}:${unit.externalId}:${input.total}`,
        externalIds: ctx as unknown as Record<string, string>,
        now,
      });
      if (!created) return null;
      await tx.update(rentals).set({ status: "confirming", pendingMoveIn: pending as unknown as Record<string, string> }).where(eq(rentals.id, input.rentalId));
      return true;
    });
    if (!begun) {
      // Another request of this rental is sending (double click) or did: its outcome decides.
      const again = await confirmMoveIn({ rentalId: input.rentalId, now });
      if (again.status === "completed") return again.result;
      throw new OutcomeUnknownError("This payment is being confirmed");
    }

    const card: CardDetails = typed ?? {
      number: "",
      cvv: "",
      expMonth: 12,
      expYear: 2099,
      nameOnCard: `${input.tenant.firstName} ${input.tenant.lastName}`,
      postalCode: input.tenant.postalCode,
    };
    const params = {
      TenantID: Number(tenant.tenantId),
      sAccessCode: tenant.accessCode,
      UnitID: Number(unit.externalId),
      dStartDate: startRow.StartDate?.slice(0, 19) ?? siteLinkDate(input.moveInDate),
      dEndDate: startRow.EndDate?.slice(0, 19) ?? siteLinkDate(input.paidThroughDate),
      dcPaymentAmount: centsToDecimal(input.total),
      iCreditCardType: settings.charges === "sitelink" ? settings.cardTypeIds[brand]! : 0,
      sCreditCardNumber: settings.charges === "sitelink" ? card.number.replace(/\D/g, "") : "",
      sCreditCardCVV: settings.charges === "sitelink" ? card.cvv : "",
      sCCTrack2: "",
      dExpirationDate: settings.charges === "sitelink" ? expiryParam(card.expMonth, card.expYear) : siteLinkDate(input.moveInDate),
      sBillingName: card.nameOnCard,
      sBillingAddress: input.tenant.addr1,
      sBillingZipCode: card.postalCode,
      InsuranceCoverageID: plan ? Number(plan) : NONE,
      ConcessionPlanID: input.promotion?.planId ?? NONE,
      iSource: 5,
      sSource: "Gatehouse website",
      bUsePushRate: false,
      iPayMethod: settings.charges === "sitelink" ? settings.payMethodIds.card : settings.payMethodIds.cash,
      sABARoutingNum: "",
      sAccountNum: "",
      iAccountType: 0,
      iKeypadZoneID: -1,
      iTimeZoneID: -1,
      iBillingFrequency: settings.billingFrequency,
      WaitingID: NONE,
      ChannelType: settings.channelType,
      bTestMode: settings.testMode,
      bApplyInsuranceCredit: false,
    };
    let answer;
    try {
      answer = await call(MOVE_IN, params, { write: true });
    } catch (error) {
      if (!mayHaveBeenApplied(error)) {
        // Refused before it left (a bad envelope, a soap:Client Fault): nothing happened in SiteLink.
        await journal.settle(key, "failed", {
          error: error instanceof Error ? error.message : String(error),
          now,
        });
        await refundB(gatewayAuth, idempotencyKey);
        await reopen(input.rentalId, { newKey: Boolean(gatewayAuth) });
        throw error;
      }
      await journal.settle(key, "unknown", {
        error: error instanceof Error ? error.message : String(error),
        now,
      });
      logger.warn(`[sitelink] ${MOVE_IN} for rental ${input.rentalId.slice(0, 6)}… got no answer: reconciling, never resending blindly`);
      // Perhaps it went through: one read now settles most cases at once.
      const settled = await confirmMoveIn({
        rentalId: input.rentalId,
        now,
      });
      if (settled.status === "completed") return withAutopay(settled.result, input, brand, now);
      throw new OutcomeUnknownError("SiteLink did not answer the move-in");
    }
    const outcome = readAnswer(MOVE_IN, answer);
    if (outcome.kind === "ok") {
      const ledgerId = outcome.id!;
      const leaseNum = rows(answer, "RT")[0]?.iLeaseNum ?? "";
      await journal.settle(key, "done", {
        externalIds: { ledgerId, leaseNum },
        now,
      });
      const ledgerRow = await readLedgers(call, tenant.tenantId)
        .then((l) => l.find((r) => r.LedgerID === ledgerId) ?? null)
        .catch(() => null);
      const result = await recordCompleted(input.rentalId, ctx, { ledgerId, leaseNum, row: ledgerRow }, now);
      if (input.autopay && settings.charges === "sitelink") await enrolAutopayAfterMoveIn(result, ledgerId, input, brand, now);
      await call(
        "TenantNoteInsert_v2",
        {
          iLedgerID: Number(ledgerId),
          // E-sign off (decision 203): the office still has to have the lease signed.
          sNote: isSignedOnline(input.lease)
            ? `Lease signed online by ${input.lease.signedName}, SHA-256 ${input.lease.hash}`
            : `Lease NOT signed online: have the tenant sign it at the office. Text SHA-256 ${input.lease.hash}`,
          iNoteType: 0,
        },
        { write: true },
      ).catch(() => undefined);
      return result;
    }
    const message = outcome.message;
    if (outcome.kind === "unclear") {
      // "Failed to save move in" (-1) or a code that does not say: we cannot tell whether the card was
      // authorised or the ledger made. Reconcile by reading back (like a timeout); never refund here.
      await journal.settle(key, "unknown", { error: message, now });
      logger.warn(`[sitelink] ${MOVE_IN} answered ${message} for rental ${input.rentalId.slice(0, 6)}…: outcome unknown, reconciling`);
      const settled = await confirmMoveIn({ rentalId: input.rentalId, now });
      if (settled.status === "completed") return withAutopay(settled.result, input, brand, now);
      throw new OutcomeUnknownError("SiteLink could not say whether the move-in was saved");
    }
    const code = outcome.code;
    await journal.settle(key, "failed", { error: message, now });
    if (code === -2 || code === -25) {
      // Perhaps our own earlier attempt rented it (a slow commit): then it is ours.
      const mine = await readLedgers(call, tenant.tenantId).catch(() => [] as Row[]);
      const own = mine.find((l) => l.UnitID === unit.externalId);
      if (own?.LedgerID) return withAutopay(await recordCompleted(input.rentalId, ctx, { ledgerId: own.LedgerID, leaseNum: own.iLeaseNum ?? "", row: own }, now), input, brand, now);
      await refundB(gatewayAuth, idempotencyKey);
      await reopen(input.rentalId, { newKey: Boolean(gatewayAuth) });
      if (code === -2) {
        // -2 is "unit not available" in the manual, but LSETUP answers -2 to a pay method it reads as
        // "none" (evidence §4.9): checked before it is believed. The unit still free (or unreadable):
        // nothing is marked rented, the renter is asked to call the office, the operator is told.
        const again = await readUnit(call, unit.externalId!).catch(() => undefined);
        if (again === undefined || isFree(again)) {
          const why = again === undefined ? "the unit could not be read again" : "the unit is still free in SiteLink";
          await journal.settle(key, "failed", {
            error: `${message}: ${why}; the card was not taken online (check the location's --pay-method ids with sitelink:configure)`,
            externalIds: { attention: PAY_METHOD_ATTENTION },
            now,
          });
          logger.warn(`[sitelink] ${MOVE_IN} answered ${message} at ${location.name} while ${why}: the pay-method id may be wrong for this site (nothing charged, nothing rented)`);
          throw new CardNotTakenOnlineError("The card could not be taken online for this unit");
        }
      }
      throw unitGoneError(await unitTaken(input.rentalId, unit, now));
    }
    await refundB(gatewayAuth, idempotencyKey);
    await reopen(input.rentalId, { newKey: Boolean(gatewayAuth) });
    if (code === -100) throw new PaymentDeclinedError(DECLINED);
    if (code === -14) throw new PaymentDeclinedError(INVALID_CARD);
    if (code === -11) throw new ChargesChangedError();
    logger.error(`[sitelink] ${MOVE_IN} refused for a configuration reason at ${location.name}: ${message} (check the site's SiteLink settings)`);
    throw new StorageSoftwareError(`SiteLink refused the move-in: ${message}`);
  }

  async function refundB(gatewayAuth: string, idempotencyKey: string) {
    if (gatewayAuth) await gateway.refund(idempotencyKey);
  }

  /**
   * Option B: our gateway's token for the autopay card, taken before the MoveIn so that whoever
   * confirms the move-in (this request or reconciliation) can enrol the lease. Null when the gateway
   * would not keep the card (autopay then stays off and the tenant is told to set it up).
   */
  async function autopayTokenFor(input: MoveInInput): Promise<{ token: string; card: string } | null> {
    const token = await gateway.tokenize(input.payment).catch(() => null);
    if (!token || token.status !== "ok") return null;
    const typedCard = input.payment.kind === "card" ? input.payment.card : null;
    return {
      token: token.cardToken,
      card: JSON.stringify({
        brand: token.brand,
        last4: token.last4,
        expMonth: token.expMonth ?? typedCard?.expMonth ?? 12,
        expYear: token.expYear ?? typedCard?.expYear ?? 2099,
        name: typedCard?.nameOnCard ?? "",
      }),
    };
  }

  /**
   * A move-in this request found completed (after no answer, or an earlier attempt): under option A
   * the visitor's typed card is still here, so autopay is put on SiteLink's ledger now if it is not
   * yet. (Under option B recordCompleted enrolled it with the gateway token.)
   */
  async function withAutopay(result: MoveInResult, input: MoveInInput, brand: CardBrand, now: Date): Promise<MoveInResult> {
    if (!input.autopay || settings.charges !== "sitelink" || input.payment.kind !== "card") return result;
    const lease = await db.query.leases.findFirst({ columns: { externalId: true, autopayEnabled: true }, where: eq(leases.id, Number(result.leaseId)) });
    if (lease?.externalId && !lease.autopayEnabled) await enrolAutopayAfterMoveIn(result, lease.externalId, input, brand, now);
    return result;
  }

  /** Autopay after the move-in under option A: SiteLink keeps the card on the ledger. Never undoes the move-in. */
  async function enrolAutopayAfterMoveIn(result: MoveInResult, ledgerId: string, input: MoveInInput, brand: CardBrand, now: Date) {
    try {
      if (input.payment.kind !== "card") return;
      const typed = input.payment.card;
      const key = `autopay:${ledgerId}:${input.idempotencyKey}`;
      const { created } = await journal.begin({
        key,
        operation: "TenantBillingInfoUpdate_v2",
        fingerprint: ledgerId,
        now,
      });
      if (!created) return;
      const a = await call(
        "TenantBillingInfoUpdate_v2",
        billingInfoParams(settings, ledgerId, {
          brand,
          number: typed.number.replace(/\D/g, ""),
          expMonth: typed.expMonth,
          expYear: typed.expYear,
          name: typed.nameOnCard,
          street: input.tenant.addr1,
          zip: typed.postalCode,
          autoBillType: 1,
        }),
        { write: true },
      );
      const outcome = readAnswer("TenantBillingInfoUpdate_v2", a);
      const ok = outcome.kind === "ok";
      await journal.settle(key, ok ? "done" : outcome.kind === "refused" ? "failed" : "unknown", {
        error: ok ? null : outcome.message,
        now,
      });
      if (ok)
        await db
          .update(leases)
          .set({ autopayEnabled: true })
          .where(eq(leases.id, Number(result.leaseId)));
    } catch (error) {
      logger.warn(
        `[sitelink] autopay after move-in (ledger ${ledgerId}) failed: ${error instanceof Error ? error.message : String(error)}; the tenant can turn it on in the portal`,
      );
    }
  }

  return { moveIn, confirmMoveIn };
}
