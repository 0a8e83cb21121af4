/**
 * Our own tenant records, kept by both adapters (issue 21): tenant rows, sign-in, contact, leases as
 * the portal lists them, saved cards, receipts, autopay enrolment and move-out notices, on our own
 * tables. The local adapter is built of these and its payments; the SiteLink adapter keeps the same
 * rows beside SiteLink's (identity, our lease record of each move-in, saved cards) and adds its own
 * calls around them. Neither adapter is imported here (decision 220).
 */
import type { CardBrand } from "~/domain/payments/cards";
import { and, desc, eq, ne, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { insurancePlans, leases, locations, moveOutNotices, payments, savedCards, tenants, unitTypes, units } from "~/db/schema";
import { ledgerEntries } from "~/db/schema/billing";
import { dummyPasswordHash, hashPassword, PASSWORD_CHECK_MAX_WAIT_MS, verifyPassword } from "~/platform/password.server";
import { getPaymentGateway, type TokenizeResult } from "~/platform/payments/gateway.server";
import { pickTenantContact } from "~/domain/shared/tenant-form";
import type { MoveInTenant, Payment, PaymentMethod, PaymentMethodInput, SavedCard, Tenant, TenantLease, Tenants } from "../port";
import type { LocationRef } from "../port";
import { OutcomeUnknownError, PaymentDeclinedError, StorageValidationError } from "../errors";
import { leaseBalance, listLedger, type Executor } from "./ledger";

type TenantRow = typeof tenants.$inferSelect;
export type LeaseRow = typeof leases.$inferSelect;

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
export function givenInput(method: Exclude<PaymentMethod, { kind: "saved" }>): PaymentMethodInput {
  return method.kind === "card" ? { kind: "card", card: method.card } : { kind: "token", token: method.token };
}

/** Expiry and holder name of a card to save: from the typed card, else from what the gateway told. */
export function cardHolder(method: Exclude<PaymentMethod, { kind: "saved" }>, told: { expMonth?: number; expYear?: number }) {
  if (method.kind === "card") return { expMonth: method.card.expMonth, expYear: method.card.expYear, nameOnCard: method.card.nameOnCard };
  return { expMonth: told.expMonth ?? 0, expYear: told.expYear ?? 0, nameOnCard: "" };
}

/** A positive integer id from a string, or null (so "abc" or "1e3" never reaches a query). */
export function idOf(value: string): number | null {
  return /^\d{1,9}$/.test(value) ? Number(value) : null;
}

/** A contact change to an email address another tenant of the account uses. */
export function emailTakenError(): StorageValidationError {
  return new StorageValidationError("This email address is already used by another account.", {
    email: ["This email address is already used by another account. Please use another one or call the office."],
  });
}

/** Our tenant row for a tenant given at a move-in or reservation (both adapters keep one). */
export function newTenantRow(t: MoveInTenant, email: string, accountId: number): typeof tenants.$inferInsert {
  return {
    accountId,
    firstName: t.firstName,
    lastName: t.lastName,
    email,
    cellPhone: t.cellPhone,
    webPwHash: t.webPwHash,
    addr1: t.addr1,
    addr2: t.addr2 ?? null,
    city: t.city,
    region: t.region,
    postalCode: t.postalCode,
    isMilitary: t.isMilitary,
    isCompany: t.isCompany,
    isCommercial: t.isCommercial,
    altContactFirstName: t.altContactFirstName ?? null,
    altContactLastName: t.altContactLastName ?? null,
    altContactPhone: t.altContactPhone ?? null,
  };
}

/**
 * The rows a tenant's requests start from, checked: the tenant (the account's), the lease (this
 * tenant's, at this location), the card to charge (this tenant's), and a card to save.
 */
export function tenantRows(db: Database, location: LocationRef) {
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

  return { accountId, tenantRow, leaseRow, summary, resolveMethod, saveCard };
}

type SharedTenantMethods = "authenticateTenant" | "findTenantByEmail" | "getTenant" | "verifyTenantPassword" | "setTenantPassword" | "updateTenantContact" | "updateTenantPhone" | "setTenantTextOptIn" | "listTenantLeases" | "getTenantLease" | "getLedger" | "listSavedCards" | "getReceipt" | "enrolAutopay" | "cancelAutopay" | "giveMoveOutNotice";

/**
 * The Tenants methods both adapters answer from our own tables (the SiteLink adapter wraps some with
 * its calls to SiteLink). `rows` lets the caller share its tenant-row helpers (and their cached account id).
 */
export function sharedTenants(db: Database, location: LocationRef, rows = tenantRows(db, location)): Pick<Tenants, SharedTenantMethods> {
  const { accountId, tenantRow, leaseRow, summary, resolveMethod, saveCard } = rows;
  return {
    async authenticateTenant({ email, password }) {
      const row = await db.query.tenants.findFirst({
        columns: { id: true, webPwHash: true },
        where: and(eq(tenants.accountId, await accountId()), sql`lower(${tenants.email}) = ${email.trim().toLowerCase()}`),
      });
      // A sign-in: told "busy" (PasswordBusyError) rather than kept waiting past a proxy's timeout (decision 331).
      const ok = await verifyPassword(password, row?.webPwHash ?? dummyPasswordHash(), { maxWaitMs: PASSWORD_CHECK_MAX_WAIT_MS });
      return row && ok ? { tenantId: String(row.id) } : null;
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

    // Our own tables keep no texting field: the consent log (text_consents) is the record (decision 614).
    async setTenantTextOptIn() {
      return "not_kept" as const;
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
        let token: TokenizeResult;
        try {
          // Bound to this tenant's autopay: a card set up after the bank's check on the page comes back
          // as its SetupIntent, taken only with the same owner (decision 405).
          token = await getPaymentGateway(location).tokenize(givenInput(resolved.given), { owner: `autopay:tenant:${lease.tenantId}` });
        } catch (error) {
          // The processor did not answer (a timeout): nothing is saved and no money was taken; the
          // tenant is asked to try again, never a 500 (decision 412).
          throw new OutcomeUnknownError(`The card processor did not answer: ${error instanceof Error ? error.message : String(error)}`);
        }
        if (token.status === "declined") throw new PaymentDeclinedError(token.reason, token.authentication ?? null);
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
