import { and, desc, eq, ne, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { insurancePlans, leases, locations, moveOutNotices, payments, savedCards, tenants, unitTypes, units } from "~/db/schema";
import { ledgerEntries, type CardBrand } from "~/db/schema/billing";
import { dummyPasswordHash, hashPassword, verifyPassword } from "~/platform/password.server";
import { getPaymentGateway, type ChargeResult } from "~/platform/payment-gateway.server";
import { parseCheckoutCharges } from "~/domain/location-settings";
import { dollarsToCents } from "~/domain/money";
import { pickTenantContact } from "~/domain/tenant-form";
import {
  balanceOf,
  chargeKey,
  chargePostingKey,
  lastPostedPeriod,
  localDate,
  paidThrough,
  prepayQuote,
  type LeaseTerms,
  type LedgerLine as DomainLedgerLine,
  type RecurringCharge,
} from "~/domain/billing";
import type { Payment, PaymentMethod, PaymentMethodInput, PrepayOffer, SavedCard, Tenant, TenantLease, Tenants } from "../port";
import type { LocationRef } from "../port";
import { PaymentDeclinedError, StorageValidationError } from "../errors";
import { leaseBalance, listLedger, postCharges, recordApprovedPayment, recordDeclinedPayment, type Executor } from "../shared/ledger";


type TenantRow = typeof tenants.$inferSelect;
type LeaseRow = typeof leases.$inferSelect;

function toTenant(t: TenantRow): Tenant {
  return { id: String(t.id), cellPhone: t.cellPhone, ...pickTenantContact(t) };
}

function toSavedCard(c: typeof savedCards.$inferSelect): SavedCard {
  return { id: String(c.id), brand: c.brand, last4: c.last4, expMonth: c.expMonth, expYear: c.expYear };
}

/** A payment row as the port's Payment (the SiteLink adapter keeps the same rows). */
export function toPayment(p: typeof payments.$inferSelect): Payment {
  return {
    id: String(p.id),
    amount: p.amount,
    status: p.status,
    cardBrand: p.cardBrand,
    cardLast4: p.cardLast4,
    authReference: p.authReference,
    declineReason: p.declineReason,
    createdAt: p.createdAt,
  };
}

/** The gateway's `PaymentMethodInput` of a method given now (the `saveCard` flag is ours). */
function givenInput(method: Exclude<PaymentMethod, { kind: "saved" }>): PaymentMethodInput {
  return method.kind === "card" ? { kind: "card", card: method.card } : { kind: "token", token: method.token };
}

/** Expiry and holder name of a card to save: from the typed card, else from what the gateway told. */
function cardHolder(method: Exclude<PaymentMethod, { kind: "saved" }>, told: { expMonth?: number; expYear?: number }) {
  if (method.kind === "card") return { expMonth: method.card.expMonth, expYear: method.card.expYear, nameOnCard: method.card.nameOnCard };
  return { expMonth: told.expMonth ?? 0, expYear: told.expYear ?? 0, nameOnCard: "" };
}

/** A positive integer id from a string, or null (so "abc" or "1e3" never reaches a query). */
function idOf(value: string): number | null {
  return /^\d{1,9}$/.test(value) ? Number(value) : null;
}

async function recurringChargesFor(ex: Executor, lease: LeaseRow): Promise<RecurringCharge[]> {
  const [loc] = await ex.select({ charges: locations.chargesToShowAtCheckout }).from(locations).where(eq(locations.id, lease.locationId));
  const parsed = parseCheckoutCharges(loc?.charges ?? "[]");
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
  };
}

export async function domainLedger(ex: Executor, leaseId: number): Promise<DomainLedgerLine[]> {
  const lines = await listLedger(ex, leaseId);
  return lines.map((l) => ({ id: l.id, kind: l.kind, amount: l.amount, tax: l.tax, entryDate: l.entryDate, periodStart: l.periodStart }));
}

/** Recomputes paid-through and next due from the ledger (never moving them back). */
export async function refreshPaidThrough(tx: Executor, lease: LeaseRow): Promise<void> {
  const computed = paidThrough(lease.moveInDate, await domainLedger(tx, lease.id));
  if (computed.paidThroughDate > lease.paidThroughDate) {
    await tx
      .update(leases)
      .set({ paidThroughDate: computed.paidThroughDate, nextDueDate: computed.nextDueDate, updatedAt: new Date() })
      .where(eq(leases.id, lease.id));
  }
}


/** A contact change to an email address another tenant of the account uses. */
export function emailTakenError(): StorageValidationError {
  return new StorageValidationError("This email address is already used by another account.", {
    email: ["This email address is already used by another account. Please use another one or call the office."],
  });
}

/**
 * The Tenants part of the local adapter: tenants, leases, ledgers, payments and autopay in our own
 * tables. Leases are those of this location; tenants are the account's.
 */
export function localTenants(db: Database, location: LocationRef): Tenants {
  let accountIdPromise: Promise<number> | undefined;
  const accountId = () =>
    (accountIdPromise ??= db
      .select({ accountId: locations.accountId })
      .from(locations)
      .where(eq(locations.id, location.id))
      .then((r) => {
        if (!r[0]) throw new StorageValidationError(`Location ${location.id} does not exist`);
        return r[0].accountId;
      }));

  async function tenantRow(tenantId: string): Promise<TenantRow | null> {
    const id = idOf(tenantId);
    if (id === null) return null;
    const row = await db.query.tenants.findFirst({ where: and(eq(tenants.id, id), eq(tenants.accountId, await accountId())) });
    return row ?? null;
  }

  /** The lease when it is this tenant's and at this location. */
  async function leaseRow(ex: Executor, tenantId: string, leaseId: string, lock = false): Promise<LeaseRow | null> {
    const t = idOf(tenantId);
    const l = idOf(leaseId);
    if (t === null || l === null) return null;
    const q = ex.select().from(leases).where(and(eq(leases.id, l), eq(leases.tenantId, t), eq(leases.locationId, location.id)));
    const rows = lock ? await q.for("update") : await q;
    return rows[0] ?? null;
  }

  async function summary(lease: LeaseRow): Promise<TenantLease> {
    const [unit] = await db
      .select({ unitName: units.name, unitTypeName: unitTypes.name, width: unitTypes.width, length: unitTypes.length })
      .from(units)
      .innerJoin(unitTypes, eq(unitTypes.id, units.unitTypeId))
      .where(eq(units.id, lease.unitId));
    const plan = lease.insurancePlanId
      ? await db.query.insurancePlans.findFirst({ columns: { coverage: true }, where: eq(insurancePlans.id, lease.insurancePlanId) })
      : undefined;
    const card = lease.autopayCardId
      ? await db.query.savedCards.findFirst({ where: and(eq(savedCards.id, lease.autopayCardId), eq(savedCards.tenantId, lease.tenantId)) })
      : undefined;
    const lastAutopay = await db.query.payments.findFirst({
      where: and(eq(payments.leaseId, lease.id), eq(payments.source, "autopay")),
      orderBy: [desc(payments.createdAt), desc(payments.id)],
    });
    const balance = await leaseBalance(db, lease.id);
    return {
      leaseId: String(lease.id),
      locationId: lease.locationId,
      unitName: unit?.unitName ?? "",
      unitTypeName: unit?.unitTypeName ?? "",
      width: unit?.width ?? 0,
      length: unit?.length ?? 0,
      status: lease.status,
      moveInDate: lease.moveInDate,
      monthlyRate: lease.monthlyRate,
      insurancePremium: lease.insurancePremium,
      insuranceCoverage: plan?.coverage ?? null,
      paidThroughDate: lease.paidThroughDate,
      nextDueDate: lease.nextDueDate,
      balance,
      gateCode: lease.gateCode,
      // On only with a card to charge (a lease enrolled without one would never be charged).
      autopay: { enabled: lease.autopayEnabled && card !== undefined, card: card ? toSavedCard(card) : null },
      moveOutDate: lease.moveOutDate,
      autopayDecline:
        lastAutopay?.status === "declined" && balance > 0
          ? { date: lastAutopay.createdAt, amount: lastAutopay.amount, reason: lastAutopay.declineReason ?? "Declined." }
          : null,
    };
  }

  /** The card to charge, checked to be this tenant's. */
  async function resolveMethod(
    tenantId: number,
    method: PaymentMethod,
  ): Promise<{ given: Exclude<PaymentMethod, { kind: "saved" }> } | { saved: typeof savedCards.$inferSelect }> {
    if (method.kind !== "saved") return { given: method };
    const id = idOf(method.savedCardId);
    const saved = id === null ? undefined : await db.query.savedCards.findFirst({ where: and(eq(savedCards.id, id), eq(savedCards.tenantId, tenantId)) });
    if (!saved) throw new StorageValidationError("Choose one of your saved cards.", { saved_card_id: ["Choose one of your saved cards."] });
    return { saved };
  }

  async function saveCard(tx: Executor, tenantId: number, card: { brand: CardBrand; last4: string; expMonth: number; expYear: number; nameOnCard: string; token: string }) {
    const existing = await tx.query.savedCards.findFirst({
      where: and(eq(savedCards.tenantId, tenantId), eq(savedCards.brand, card.brand), eq(savedCards.last4, card.last4), eq(savedCards.expMonth, card.expMonth), eq(savedCards.expYear, card.expYear)),
    });
    if (existing) {
      await tx.update(savedCards).set({ gatewayToken: card.token, nameOnCard: card.nameOnCard, updatedAt: new Date() }).where(eq(savedCards.id, existing.id));
      return existing;
    }
    const [row] = await tx
      .insert(savedCards)
      .values({ tenantId, brand: card.brand, last4: card.last4, expMonth: card.expMonth, expYear: card.expYear, nameOnCard: card.nameOnCard, gatewayToken: card.token })
      .returning();
    return row!;
  }

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
    const gateway = getPaymentGateway();
    const result: ChargeResult =
      "given" in resolved
        ? await gateway.charge({ amount: input.amount, idempotencyKey: input.idempotencyKey, method: givenInput(resolved.given) })
        : await gateway.charge({ amount: input.amount, idempotencyKey: input.idempotencyKey, cardToken: resolved.saved.gatewayToken });
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
      throw new PaymentDeclinedError(result.reason);
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
    async authenticateTenant({ email, password }) {
      const row = await db.query.tenants.findFirst({
        columns: { id: true, webPwHash: true },
        where: and(eq(tenants.accountId, await accountId()), sql`lower(${tenants.email}) = ${email.trim().toLowerCase()}`),
      });
      const ok = await verifyPassword(password, row?.webPwHash ?? dummyPasswordHash());
      return row && ok ? { tenantId: String(row.id) } : null;
    },

    // Every local tenant rented online and already has a sign-in: there is no office record to claim.
    async claimOfficeTenant() {
      return { kind: "not_supported" as const };
    },

    async findTenantByEmail(email) {
      const row = await db.query.tenants.findFirst({
        where: and(eq(tenants.accountId, await accountId()), sql`lower(${tenants.email}) = ${email.trim().toLowerCase()}`),
      });
      return row ? toTenant(row) : null;
    },

    async getTenant(tenantId) {
      const row = await tenantRow(tenantId);
      return row ? toTenant(row) : null;
    },

    async verifyTenantPassword(tenantId, password) {
      const row = await tenantRow(tenantId);
      return verifyPassword(password, row?.webPwHash ?? dummyPasswordHash()).then((ok) => Boolean(row) && ok);
    },

    async setTenantPassword(tenantId, password) {
      const row = await tenantRow(tenantId);
      if (!row) throw new StorageValidationError("No such tenant.");
      await db.update(tenants).set({ webPwHash: await hashPassword(password), updatedAt: new Date() }).where(eq(tenants.id, row.id));
    },

    async updateTenantContact(tenantId, input) {
      const row = await tenantRow(tenantId);
      if (!row) throw new StorageValidationError("No such tenant.");
      const email = input.email.trim().toLowerCase();
      const taken = await db.query.tenants.findFirst({
        columns: { id: true },
        where: and(eq(tenants.accountId, row.accountId), sql`lower(${tenants.email}) = ${email}`, ne(tenants.id, row.id)),
      });
      const emailTaken = emailTakenError();
      if (taken) throw emailTaken;
      try {
        await db
          .update(tenants)
          .set({
            firstName: input.firstName,
            lastName: input.lastName,
            email,
            addr1: input.addr1,
            addr2: input.addr2,
            city: input.city,
            region: input.region,
            postalCode: input.postalCode,
            isMilitary: input.isMilitary,
            isCompany: input.isCompany,
            isCommercial: input.isCommercial,
            altContactFirstName: input.altContactFirstName,
            altContactLastName: input.altContactLastName,
            altContactPhone: input.altContactPhone,
            updatedAt: new Date(),
          })
          .where(eq(tenants.id, row.id));
      } catch (error) {
        // Two tenants taking the same address at the same moment: the unique index decides.
        const code = (error as { cause?: { code?: string }; code?: string }).cause?.code ?? (error as { code?: string }).code;
        if (code === "23505") throw emailTaken;
        throw error;
      }
    },

    async updateTenantPhone(tenantId, cellPhone) {
      const row = await tenantRow(tenantId);
      if (!row) throw new StorageValidationError("No such tenant.");
      await db.update(tenants).set({ cellPhone, updatedAt: new Date() }).where(eq(tenants.id, row.id));
    },

    async listTenantLeases(tenantId) {
      const t = idOf(tenantId);
      if (t === null) return [];
      const rows = await db
        .select()
        .from(leases)
        .where(and(eq(leases.tenantId, t), eq(leases.locationId, location.id)))
        .orderBy(leases.status, leases.id);
      return Promise.all(rows.map(summary));
    },

    async getTenantLease(tenantId, leaseId) {
      const row = await leaseRow(db, tenantId, leaseId);
      return row ? summary(row) : null;
    },

    async getLedger(tenantId, leaseId) {
      const row = await leaseRow(db, tenantId, leaseId);
      if (!row) return null;
      const lines = await listLedger(db, row.id);
      return lines.map((l) => ({
        id: String(l.id),
        kind: l.kind,
        description: l.description,
        amount: l.amount,
        tax: l.tax,
        entryDate: l.entryDate,
        runningBalance: l.runningBalance,
        paymentId: l.paymentId === null ? null : String(l.paymentId),
      }));
    },

    async listSavedCards(tenantId) {
      const t = idOf(tenantId);
      if (t === null) return [];
      const rows = await db.select().from(savedCards).where(eq(savedCards.tenantId, t)).orderBy(desc(savedCards.id));
      return rows.map(toSavedCard);
    },

    makePayment(input) {
      return pay({ ...input, source: "portal" });
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

    async getReceipt(tenantId, paymentId) {
      const t = idOf(tenantId);
      const p = idOf(paymentId);
      if (t === null || p === null) return null;
      const payment = await db.query.payments.findFirst({ where: and(eq(payments.id, p), eq(payments.tenantId, t)) });
      if (!payment || payment.leaseId === null || payment.status !== "approved") return null;
      const lease = await leaseRow(db, tenantId, String(payment.leaseId));
      if (!lease) return null;
      const line = await db.query.ledgerEntries.findFirst({ where: eq(ledgerEntries.paymentId, payment.id) });
      const [unit] = await db.select({ name: units.name }).from(units).where(eq(units.id, lease.unitId));
      return {
        payment: toPayment(payment),
        leaseId: String(lease.id),
        unitName: unit?.name ?? "",
        description: line?.description ?? "Card payment",
        entryDate: line?.entryDate ?? "",
        source: payment.source,
        balance: await leaseBalance(db, lease.id),
        paidThroughDate: lease.paidThroughDate,
      };
    },

    async enrolAutopay(input) {
      const lease = await leaseRow(db, input.tenantId, input.leaseId);
      if (!lease || lease.status !== "active") throw new StorageValidationError("This unit is not on your account.");
      const resolved = await resolveMethod(lease.tenantId, input.method);
      let cardId: number;
      let card: typeof savedCards.$inferSelect;
      if ("given" in resolved) {
        const token = await getPaymentGateway().tokenize(givenInput(resolved.given));
        if (token.status === "declined") throw new PaymentDeclinedError(token.reason);
        card = await db.transaction((tx) =>
          saveCard(tx, lease.tenantId, { brand: token.brand, last4: token.last4, ...cardHolder(resolved.given, token), token: token.cardToken }),
        );
        cardId = card.id;
      } else {
        card = resolved.saved;
        cardId = card.id;
      }
      await db.update(leases).set({ autopayEnabled: true, autopayCardId: cardId, updatedAt: new Date() }).where(eq(leases.id, lease.id));
      return toSavedCard(card);
    },

    async cancelAutopay(input) {
      const lease = await leaseRow(db, input.tenantId, input.leaseId);
      if (!lease) throw new StorageValidationError("This unit is not on your account.");
      await db.update(leases).set({ autopayEnabled: false, autopayCardId: null, updatedAt: new Date() }).where(eq(leases.id, lease.id));
    },

    async giveMoveOutNotice(input) {
      const lease = await leaseRow(db, input.tenantId, input.leaseId);
      if (!lease || lease.status !== "active") throw new StorageValidationError("This unit is not on your account.");
      await db.transaction(async (tx) => {
        await tx.insert(moveOutNotices).values({ leaseId: lease.id, tenantId: lease.tenantId, moveOutDate: input.moveOutDate, reason: input.reason });
        await tx.update(leases).set({ moveOutDate: input.moveOutDate, moveOutNoticeAt: input.now, updatedAt: new Date() }).where(eq(leases.id, lease.id));
      });
    },
  };
}
