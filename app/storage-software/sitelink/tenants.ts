/**
 * Tenants at a SiteLink location (study §3.4, §3.6), first cut:
 * - identity stays ours (tenants table, bcrypt hash; SiteLink web passwords are 4-10 characters and
 *   readable), linked to the site's TenantID (tenant_software_links); contact and phone changes go to
 *   SiteLink first (read-modify-write TenantUpdate_v3, ./tenant-contact.ts), then to ours;
 * - leases are our lease records of SiteLink ledgers (written at move-in), with SiteLink's live
 *   figures (balance, paid-through date, gate code, scheduled move-out) read from LedgersByTenantID_v3,
 *   and SiteLink's own ledger lines (./ledger.ts);
 * - payments: option A SiteLink's processor (PaymentSimpleWithSource), option B our gateway and
 *   SiteLink records a check payment carrying the gateway reference (PaymentSimpleCheckWithSource).
 *   Each SiteLink write is journalled; a payment without an answer is looked for in PaymentsByLedgerID
 *   (a new receipt of the same amount) and is never sent twice;
 * - move-out notice: ScheduleMoveOut, journalled, and our notice record;
 * - billing: SiteLink posts its leases' charges; autopay is SiteLink's (A) or ours (B): ./autopay.ts.
 */
import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { leases, tenantSoftwareLinks } from "~/db/schema";
import { cardBrand as brandOf, type CardBrand } from "~/domain/payments/cards";
import { getPaymentGateway } from "~/platform/payments/gateway.server";
import type { Billing, ContactUpdate, LocationRef, Payment, PrepayOffer, SavedCard, TenantLease, Tenants } from "../port";
import { ContactLeftForOfficeError, OutcomeUnknownError, PaymentDeclinedError, SoftwareUnreachableError, StorageSoftwareError, StorageValidationError } from "../errors";
import { recordApprovedPayment, recordDeclinedPayment } from "../shared/ledger";
import { emailTakenError, sharedTenants, toPayment } from "../shared/tenants";
import { logger } from "~/platform/logger.server";
import type { SiteLinkLog } from "./client";
import { siteLinkContactPush, type OwnedFields } from "./tenant-contact";
import { rows, siteLinkDate } from "./calls";
import { type Row } from "./dataset";
import { type SiteLinkCall } from "./client";
import { siteLinkAutopayDecline, siteLinkBilling } from "./autopay";
import { createJournal } from "./journal";
import { siteLinkLedger } from "./ledger";
import { readAnswer } from "./answers";
import { mayHaveBeenApplied } from "./errors";
import { billingInfoParams, expiryParam } from "./billing-params";
import { readLedgers } from "./ledger-reads";
import { locationDate, openPaymentsOfLedger, PAYMENT_PREFIX, settleUnclearPayment } from "./payments-unclear";
import { autopayWantedAtMoveIn, autopayWishHandled } from "./move-in-attempts";
import { centsToDecimal, dateOf, decimalToCents } from "./quote";
import { settleAfterMsFor, type SiteLinkSettings } from "./settings";
import { nextDueAfter, paidThroughAfter } from "~/domain/payments/billing";

interface SiteLinkTenantsDeps {
  db: Database;
  location: LocationRef;
  call: SiteLinkCall;
  settings: SiteLinkSettings;
  now?: () => Date;
  log?: SiteLinkLog;
}

/** The SiteLink fields a contact change owns (decision 168). */
function contactFields(input: ContactUpdate): OwnedFields {
  return {
    sFName: input.firstName,
    sLName: input.lastName,
    sEmail: input.email.trim().toLowerCase(),
    sAddr1: input.addr1,
    sAddr2: input.addr2 ?? "",
    sCity: input.city,
    sRegion: input.region,
    sPostalCode: input.postalCode,
    bCommercial: input.isCommercial,
    bCompanyIsTenant: input.isCompany,
    sFNameAlt: input.altContactFirstName ?? "",
    sLNameAlt: input.altContactLastName ?? "",
    sPhoneAlt: input.altContactPhone ?? "",
  };
}

/** The cell phone is sMobile; sPhone follows it when it held the same number (or none), as at move-in. */
function phoneFields(record: Row, cellPhone: string): OwnedFields {
  const phone = (record.sPhone ?? "").trim();
  return phone === "" || phone === (record.sMobile ?? "").trim() ? { sMobile: cellPhone, sPhone: cellPhone } : { sMobile: cellPhone };
}


/** Why a SiteLink location's payment is not refunded from the console (decision 280). */
export const SITELINK_REFUND_REFUSAL =
  "Payments at this location are booked in SiteLink, so refund them in SiteLink (its own refund keeps its ledger right). Nothing was refunded here.";

const SITELINK_MOVE_OUT_REFUSAL =
  "Tenants at this location are moved out in SiteLink (it frees the unit and closes the ledger there). Nothing was changed here: this page shows the lease ended once SiteLink does.";

export function siteLinkTenants(deps: SiteLinkTenantsDeps): Omit<Tenants, "claimOfficeTenant"> & Billing {
  const { db, location, call, settings } = deps;
  const now = deps.now ?? (() => new Date());
  const local = sharedTenants(db, location);
  const journal = createJournal(db, location.id);
  const unclearDeps = { db, location, call, journal, settings };
  const contact = siteLinkContactPush({
    call,
    journal,
    log: deps.log ?? logger,
    settleAfterMs: settleAfterMsFor(settings),
  });

  /** The site's TenantID of our tenant, when the tenant is linked at this location. */
  async function siteLinkTenantOf(tenantId: string): Promise<string | null> {
    if (!/^\d{1,9}$/.test(tenantId)) return null;
    const [link] = await db
      .select({ externalTenantId: tenantSoftwareLinks.externalTenantId })
      .from(tenantSoftwareLinks)
      .where(and(eq(tenantSoftwareLinks.tenantId, Number(tenantId)), eq(tenantSoftwareLinks.locationId, location.id)));
    return link?.externalTenantId ?? null;
  }

  /**
   * SiteLink first, then ours (decision 168): a SiteLink that cannot be reached or refuses leaves both
   * unchanged; if ours then fails, SiteLink's record is put back as it was.
   */
  async function pushThenSave(tenantId: string, fieldsFor: (record: Row) => OwnedFields, military: boolean | null, save: () => Promise<void>) {
    const siteLinkTenantId = await siteLinkTenantOf(tenantId);
    if (!siteLinkTenantId) return save();
    let pushed: { undo(): Promise<void> };
    try {
      pushed = await contact.push(siteLinkTenantId, fieldsFor, military, now());
    } catch (error) {
      // Not sent to SiteLink, left for the office (issue 37): ours holds the new details the office
      // copies; the caller tells the tenant the office will make the change.
      if (error instanceof ContactLeftForOfficeError) await save();
      throw error;
    }
    try {
      await save();
    } catch (error) {
      await pushed.undo().catch((undoError: unknown) =>
        (deps.log ?? logger).warn(
          { tenantId, error: undoError instanceof Error ? undoError.message : String(undoError) },
          "[sitelink] contact change saved in SiteLink but not here, and could not be put back: the journal shows it",
        ),
      );
      throw error;
    }
  }

  /** The SiteLink ids behind our lease (ours to read only when it is this tenant's, at this location). */
  async function ids(tenantId: string, leaseId: string) {
    if (!/^\d{1,9}$/.test(tenantId) || !/^\d{1,9}$/.test(leaseId)) return null;
    const [lease] = await db
      .select({
        id: leases.id,
        externalId: leases.externalId,
        unitId: leases.unitId,
      })
      .from(leases)
      .where(and(eq(leases.id, Number(leaseId)), eq(leases.tenantId, Number(tenantId)), eq(leases.locationId, location.id)));
    if (!lease?.externalId) return null;
    const [link] = await db
      .select({ externalTenantId: tenantSoftwareLinks.externalTenantId })
      .from(tenantSoftwareLinks)
      .where(and(eq(tenantSoftwareLinks.tenantId, Number(tenantId)), eq(tenantSoftwareLinks.locationId, location.id)));
    if (!link) return null;
    return {
      leaseId: lease.id,
      ledgerId: lease.externalId,
      siteLinkTenantId: link.externalTenantId,
    };
  }

  async function ledgerRow(tenantId: string, leaseId: string): Promise<Row | null> {
    const x = await ids(tenantId, leaseId);
    if (!x) return null;
    return (await readLedgers(call, x.siteLinkTenantId)).find((l) => l.LedgerID === x.ledgerId) ?? null;
  }

  /**
   * What the tenant has paid for (decision 140): SiteLink keeps a prepayment as credit and moves
   * dPaidThru only over posted charges, so a ledger in credit is paid through dPaidThru plus the whole
   * periods the credit covers at the ledger's own rate (one period of SiteLink's prepayment figure,
   * tax included); that credit is no longer shown as a balance, the rest of it is.
   */
  async function paidFor(row: Row, siteLinkTenantId: string, fallback: { paidThrough: string; balance: number }) {
    const postedThrough = dateOf(row.dPaidThru) ?? fallback.paidThrough;
    const due = row.dcTotalDue !== undefined ? decimalToCents(row.dcTotalDue) : fallback.balance;
    if (due >= 0)
      return {
        paidThrough: postedThrough,
        postedThrough,
        balance: due,
        coveredPeriods: 0,
      };
    const a = await call("CustomerAccountsBalanceDetailsWithPrepayment", { iTenantID: Number(siteLinkTenantId), iNumberOfMonthsPrepay: 1 }, { write: false });
    const withOne = rows(a, "Table1")
      .filter((r) => r.LedgerID === row.LedgerID)
      .reduce((sum, r) => sum + decimalToCents(r.dcBalance), 0);
    const period = withOne - due;
    const coveredPeriods = period > 0 ? Math.floor(-due / period) : 0;
    return {
      paidThrough: paidThroughAfter(postedThrough, coveredPeriods),
      postedThrough,
      balance: due + coveredPeriods * period,
      coveredPeriods,
    };
  }

  /**
   * SiteLink's autopay card on a ledger (TenantBillingInfoByTenantID_v3), or null when the ledger has
   * none or autopay is off there (iAutoBillType 0). Only the last four digits, brand and expiry are
   * kept: SiteLink returns the number unmasked (study §8.5), which never leaves this function.
   */
  async function siteLinkAutopayCard(siteLinkTenantId: string, ledgerId: string, tenantId: string): Promise<SavedCard | null> {
    const a = await call("TenantBillingInfoByTenantID_v3", { iTenantID: Number(siteLinkTenantId) }, { write: false });
    const row = rows(a, "Table").find((r) => r.LedgerID === ledgerId);
    const number = (row?.sCreditCardNum ?? "").replace(/\D/g, "");
    if (!row || Number(row.iAutoBillType ?? 0) !== 1 || number.length < 4) return null;
    const byTypeId = Object.entries(settings.cardTypeIds).find(([, id]) => String(id) === row.iCreditCardTypeID)?.[0];
    const brand = (brandOf(number) ?? byTypeId ?? "visa") as CardBrand;
    const last4 = number.slice(-4);
    const expiry = dateOf(row.dCreditCardExpir);
    // The same card saved with us (enrolled in the portal): its id, so the portal's forms know it.
    const ours = (await local.listSavedCards(tenantId)).find((c) => c.last4 === last4 && c.brand === brand);
    return {
      id: ours?.id ?? `ledger:${ledgerId}`,
      brand,
      last4,
      expMonth: expiry ? Number(expiry.slice(5, 7)) : (ours?.expMonth ?? 12),
      expYear: expiry ? Number(expiry.slice(0, 4)) : (ours?.expYear ?? 2099),
    };
  }

  /**
   * Autopay as it really is (issue 11): "on" only with a card that will be charged. Under option A
   * SiteLink runs autopay, so it is SiteLink's ledger that says (iAutoBillType 1 and a card on file);
   * under option B it is our record (enrolled, with a saved gateway card).
   */
  async function liveAutopay(lease: TenantLease, row: Row, x: { siteLinkTenantId: string; ledgerId: string }, tenantId: string): Promise<TenantLease["autopay"]> {
    let autopay: TenantLease["autopay"];
    if (settings.cardChargedBy !== "sitelink") {
      autopay = { enabled: lease.autopay.enabled && lease.autopay.card !== null, card: lease.autopay.card };
    } else {
      const off = row.iAutoBillType !== undefined && Number(row.iAutoBillType) !== 1;
      const card = off ? null : await siteLinkAutopayCard(x.siteLinkTenantId, x.ledgerId, tenantId);
      autopay = { enabled: card !== null, card };
    }
    return autopay.enabled ? autopay : { ...autopay, notSetUp: await autopayWantedAtMoveIn(db, location.id, lease.leaseId) };
  }

  /** Our lease record with SiteLink's live figures. */
  async function live(lease: TenantLease, tenantId: string): Promise<TenantLease> {
    const x = await ids(tenantId, lease.leaseId);
    const row = x ? ((await readLedgers(call, x.siteLinkTenantId)).find((l) => l.LedgerID === x.ledgerId) ?? null) : null;
    // A lease SiteLink does not list (moved out at the office): our record, autopay only with a card.
    if (!x || !row) return { ...lease, autopay: { enabled: lease.autopay.enabled && lease.autopay.card !== null, card: lease.autopay.card } };
    const { paidThrough, balance } = await paidFor(row, x.siteLinkTenantId, {
      paidThrough: lease.paidThroughDate,
      balance: lease.balance,
    });
    return {
      ...lease,
      paidThroughDate: paidThrough,
      nextDueDate: nextDueAfter(paidThrough),
      balance,
      gateCode: row.sAccessCode ?? lease.gateCode,
      moveOutDate: dateOf(row.dSchedOut) ?? lease.moveOutDate,
      insurancePremium: row.dcInsurPremium !== undefined ? decimalToCents(row.dcInsurPremium) : lease.insurancePremium,
      insuranceCoverage: (await coverageOf(row.InsurCoverageID)) ?? lease.insuranceCoverage,
      autopay: await liveAutopay(lease, row, x, tenantId),
      // Our record's notice counts our own ledger lines; SiteLink's balance says whether it still applies.
      autopayDecline: await siteLinkAutopayDecline(db, lease.leaseId, balance),
    };
  }

  /** The coverage (cents) of SiteLink's protection plan on a ledger, or null. */
  async function coverageOf(coverageId: string | undefined): Promise<number | null> {
    if (!coverageId || Number(coverageId) <= 0) return null;
    const plans = rows(await call("InsuranceCoverageRetrieve_V2", {}, { write: false }), "Table");
    const plan = plans.find((p) => p.InsurCoverageID === coverageId);
    return plan ? decimalToCents(plan.dcCoverage) : null;
  }

  const typedCard = (method: Parameters<Tenants["makePayment"]>[0]["method"]) => {
    if (method.kind === "card") return method.card;
    throw new StorageValidationError("Please enter your card.", {
      card_number: ["Please enter your card."],
    });
  };

  async function pay(input: {
    tenantId: string;
    leaseId: string;
    amount: number;
    method: Parameters<Tenants["makePayment"]>[0]["method"];
    idempotencyKey: string;
    now: Date;
    source: "portal" | "prepay";
  }): Promise<Payment> {
    const x = await ids(input.tenantId, input.leaseId);
    if (!x) throw new StorageValidationError("This unit is not on your account.");
    // A repeat of the same key: the first answer, nothing sent again.
    const previous = await db.query.payments.findFirst({
      where: (p, { eq }) => eq(p.idempotencyKey, input.idempotencyKey),
    });
    if (previous) {
      return {
        id: String(previous.id),
        amount: previous.amount,
        status: previous.status,
        cardBrand: previous.cardBrand,
        cardLast4: previous.cardLast4,
        authReference: previous.authReference,
        declineReason: previous.declineReason,
        createdAt: previous.createdAt,
      };
    }
    const key = `${PAYMENT_PREFIX}${input.idempotencyKey}`;
    const open = await journal.get(key);
    if (open && (open.state === "pending" || open.state === "unknown")) throw new OutcomeUnknownError("This payment is being confirmed");
    // An earlier payment of this balance SiteLink has not confirmed yet: read it back first; while it
    // is still open a new one waits (never a second charge while SiteLink may book the first late).
    for (const earlier of await openPaymentsOfLedger(journal, x.ledgerId)) {
      const settled = await settleUnclearPayment(unclearDeps, earlier, input.now).catch(() => "open" as const);
      if (settled === "open") throw new OutcomeUnknownError("An earlier payment of this balance is still being confirmed");
    }
    const unitId = (await ledgerRow(input.tenantId, input.leaseId))?.UnitID;
    if (!unitId) throw new StorageSoftwareError("SiteLink has no ledger for this lease");
    const before = rows(await call("PaymentsByLedgerID", { sLedgerID: x.ledgerId }, { write: false }), "PmtHistory").map((r) => r.Receipt);

    let brand = "visa";
    let last4 = "";
    let gatewayAuth = "";
    let params: Record<string, string | number | boolean>;
    let operation: string;
    if (settings.cardChargedBy === "gateway") {
      const gateway = getPaymentGateway(location);
      let charge;
      if (input.method.kind === "saved") {
        // A saved card is ours: its gateway token, only when it is this tenant's card.
        const savedId = input.method.savedCardId;
        const card = /^\d{1,9}$/.test(savedId)
          ? await db.query.savedCards.findFirst({ where: (c, { and, eq }) => and(eq(c.id, Number(savedId)), eq(c.tenantId, Number(input.tenantId))) })
          : undefined;
        if (!card) throw new StorageValidationError("Choose one of your saved cards.", { saved_card: ["Choose one of your saved cards."] });
        charge = await gateway.charge({ amount: input.amount, idempotencyKey: input.idempotencyKey, cardToken: card.gatewayToken });
      } else {
        charge = await gateway.charge({ amount: input.amount, idempotencyKey: input.idempotencyKey, method: input.method });
      }
      if (charge.status === "declined") {
        // The office sees the declined attempt in the desk's payments list (no ledger line: nothing was paid).
        await recordDeclinedPayment(db, {
          tenantId: Number(input.tenantId),
          leaseId: x.leaseId,
          amount: input.amount,
          source: input.source,
          cardBrand: ("brand" in charge && charge.brand) || "visa",
          cardLast4: ("last4" in charge && charge.last4) || "",
          idempotencyKey: `${input.idempotencyKey}:declined`,
          reason: charge.reason,
        });
        throw new PaymentDeclinedError(charge.reason);
      }
      brand = charge.brand;
      last4 = charge.last4;
      gatewayAuth = charge.authReference;
      operation = "PaymentSimpleCheckWithSource";
      params = {
        iTenantID: Number(x.siteLinkTenantId),
        iUnitID: Number(unitId),
        dcPaymentAmount: centsToDecimal(input.amount),
        sCheckNumber: gatewayAuth.slice(0, 30),
        iSource: 5,
      };
    } else {
      const card = typedCard(input.method);
      const number = card.number.replace(/\D/g, "");
      brand = brandOf(number) ?? "visa";
      last4 = number.slice(-4);
      const typeId = settings.cardTypeIds[brand];
      if (!typeId)
        throw new StorageValidationError("This location does not take this card online. Please use another card.", {
          card_number: ["Please use another card."],
        });
      operation = "PaymentSimpleWithSource";
      params = {
        iTenantID: Number(x.siteLinkTenantId),
        iUnitID: Number(unitId),
        dcPaymentAmount: centsToDecimal(input.amount),
        iCreditCardType: typeId,
        sCreditCardNumber: number,
        sCreditCardCVV: card.cvv,
        dExpirationDate: expiryParam(card.expMonth, card.expYear),
        sBillingName: card.nameOnCard,
        sBillingAddress: "",
        sBillingZipCode: card.postalCode,
        bTestMode: settings.testMode,
        iSource: 5,
      };
    }
    const { created } = await journal.begin({
      key,
      operation,
      fingerprint: `${x.ledgerId}:${input.amount}`,
      // What the scheduled read-back (./payments-unclear.ts) needs to record the payment without the tenant.
      externalIds: {
        ledgerId: x.ledgerId,
        amount: String(input.amount),
        before: before.join(","),
        tenantId: input.tenantId,
        leaseId: String(x.leaseId),
        idempotencyKey: input.idempotencyKey,
        purpose: input.source,
        brand,
        last4,
        gatewayAuth,
      },
      now: input.now,
    });
    if (!created) throw new OutcomeUnknownError("This payment is being confirmed");
    let receipt = "";
    try {
      const a = await call(operation, params, { write: true });
      // A positive code is the receipt; 0 or -1 may mean it was booked: read back below (answers.ts).
      const outcome = readAnswer(operation as "PaymentSimpleWithSource" | "PaymentSimpleCheckWithSource", a);
      const code = outcome.kind === "ok" ? 0 : (outcome.code ?? 0);
      if (outcome.kind === "ok") receipt = outcome.id ?? "";
      else if (outcome.kind === "unclear") {
        // Not a refusal: SiteLink may have booked it (never refunded here); the receipt is looked for.
      } else if (code === -100 || code === -14) {
        await journal.settle(key, "failed", {
          error: `${code} ${a.retMsg}`,
          now: input.now,
        });
        const reason = code === -14 ? "This card number is not valid." : "Your card was declined.";
        await recordDeclinedPayment(db, {
          tenantId: Number(input.tenantId),
          leaseId: x.leaseId,
          amount: input.amount,
          source: input.source,
          cardBrand: brand as "visa",
          cardLast4: last4,
          idempotencyKey: `${input.idempotencyKey}:declined`,
          reason,
        });
        throw new PaymentDeclinedError(reason);
      } else {
        // A clear refusal: SiteLink booked nothing, so our gateway's charge (option B) goes back.
        await journal.settle(key, "failed", {
          error: `${code} ${a.retMsg}`,
          now: input.now,
        });
        if (gatewayAuth) await getPaymentGateway(location).refund(input.idempotencyKey);
        throw new StorageSoftwareError(`SiteLink refused the payment: ${code} ${a.retMsg}`);
      }
    } catch (error) {
      if (error instanceof PaymentDeclinedError || (error instanceof StorageSoftwareError && !mayHaveBeenApplied(error))) throw error;
    }
    if (!receipt) {
      // No answer (or -1): look for a new receipt of this amount; found means it went through.
      const after = await call("PaymentsByLedgerID", { sLedgerID: x.ledgerId }, { write: false }).catch(() => null);
      const found = after ? rows(after, "PmtHistory").find((r) => !before.includes(r.Receipt) && decimalToCents(r.Payment) === input.amount) : undefined;
      if (!found?.Receipt) {
        await journal.settle(key, "unknown", {
          error: "no answer; no new receipt yet",
          now: input.now,
        });
        throw new OutcomeUnknownError("SiteLink did not confirm the payment yet");
      }
      receipt = found.Receipt;
    }
    await journal.settle(key, "done", {
      externalIds: { receipt },
      now: input.now,
    });
    const paid = await recordApprovedPayment(db, {
      tenantId: Number(input.tenantId),
      leaseId: x.leaseId,
      amount: input.amount,
      source: input.source,
      cardBrand: brand as "visa",
      cardLast4: last4,
      authReference: gatewayAuth || `SiteLink receipt ${receipt}`,
      idempotencyKey: input.idempotencyKey,
      // The location's calendar date, not UTC's (a 22:30 payment in North Carolina is that day's).
      entryDate: await locationDate(db, location.id, input.now),
      now: input.now,
    });
    return toPayment(
      (await db.query.payments.findFirst({
        where: (q, { eq }) => eq(q.id, paid.paymentId),
      }))!,
    );
  }

  /** Whether SiteLink's ledger shows this scheduled move-out date (a read; false when it cannot be read). */
  async function moveOutShown(siteLinkTenantId: string, ledgerId: string, date: string): Promise<boolean> {
    const ledger = (await readLedgers(call, siteLinkTenantId).catch(() => [] as Row[])).find((l) => l.LedgerID === ledgerId);
    return dateOf(ledger?.dSchedOut) === date;
  }

  /** SiteLink's prepayment figures for one lease (CustomerAccountsBalanceDetailsWithPrepayment, study §3.4). */
  async function quotePrepay(tenantId: string, leaseId: string, months: number): Promise<PrepayOffer | null> {
    const x = await ids(tenantId, leaseId);
    if (!x || !Number.isInteger(months) || months < 1 || months > 12) return null;
    const row = (await readLedgers(call, x.siteLinkTenantId)).find((l) => l.LedgerID === x.ledgerId);
    if (!row) return null;
    // SiteLink's figure counts from its own dPaidThru: months already covered by credit are asked for
    // too (and paid by that credit), so the tenant pays for `months` after the date we show.
    const { balance, paidThrough, coveredPeriods } = await paidFor(row, x.siteLinkTenantId, { paidThrough: dateOf(row.dPaidThru)!, balance: 0 });
    if (months + coveredPeriods > 12) return null;
    const a = await call(
      "CustomerAccountsBalanceDetailsWithPrepayment",
      {
        iTenantID: Number(x.siteLinkTenantId),
        iNumberOfMonthsPrepay: months + coveredPeriods,
      },
      { write: false },
    );
    const items = rows(a, "Table1").filter((r) => r.LedgerID === x.ledgerId);
    const total = items.reduce((sum, r) => sum + decimalToCents(r.dcBalance), 0);
    return {
      months,
      balance,
      // SiteLink gives the prepayment per category with tax included: one line for the months ahead.
      lines: [
        {
          description: `${months} month${months === 1 ? "" : "s"} ahead (${
            items
              .map((r) => r.sItem)
              .filter(Boolean)
              .join(", ") || "rent"
          })`,
          amount: total - balance,
          tax: 0,
        },
      ],
      total,
      newPaidThroughDate: paidThroughAfter(paidThrough, months),
    };
  }

  /** Whether the ledger's billing info shows this autopay setting (and, when on, this card's last four digits). */
  async function billingInfoShows(siteLinkTenantId: string, ledgerId: string, c: { number: string; autoBillType: 0 | 1 }): Promise<boolean> {
    const a = await call("TenantBillingInfoByTenantID_v3", { iTenantID: Number(siteLinkTenantId) }, { write: false });
    const row = rows(a, "Table").find((r) => r.LedgerID === ledgerId);
    if (!row || Number(row.iAutoBillType ?? 0) !== c.autoBillType) return false;
    return c.autoBillType === 0 || (row.sCreditCardNum ?? "").replace(/\D/g, "").slice(-4) === c.number.replace(/\D/g, "").slice(-4);
  }

  /** The autopay card on SiteLink's ledger (TenantBillingInfoUpdate_v2), journalled; never undoes our record. */
  async function billingInfo(
    siteLinkTenantId: string,
    ledgerId: string,
    c: {
      number: string;
      brand: string;
      expMonth: number;
      expYear: number;
      name: string;
      zip: string;
      autoBillType: 0 | 1;
    },
    now: Date,
  ): Promise<"done" | "failed" | "unknown"> {
    // One entry per change (a test clock, or two changes in one millisecond, must not merge two).
    const key = `autopay:${ledgerId}:${now.getTime()}:${c.autoBillType}:${crypto.randomBytes(4).toString("hex")}`;
    const { created } = await journal.begin({
      key,
      operation: "TenantBillingInfoUpdate_v2",
      fingerprint: ledgerId,
      now,
    });
    if (!created) return "unknown";
    try {
      const a = await call(
        "TenantBillingInfoUpdate_v2",
        billingInfoParams(settings, ledgerId, { ...c, street: "" }),
        { write: true },
      );
      const outcome = readAnswer("TenantBillingInfoUpdate_v2", a);
      // An answer that may mean it was saved (0, -1): the ledger's billing info read back says.
      const shown = outcome.kind === "unclear" && (await billingInfoShows(siteLinkTenantId, ledgerId, c).catch(() => false));
      const state = outcome.kind === "ok" || shown ? "done" : outcome.kind === "refused" ? "failed" : "unknown";
      await journal.settle(key, state, {
        error: outcome.kind === "ok" ? null : shown ? `${outcome.message}; confirmed by reading the billing info back` : outcome.message,
        now,
      });
      return state;
    } catch (error) {
      const state = mayHaveBeenApplied(error) ? "unknown" : "failed";
      await journal.settle(key, state, { error: error instanceof Error ? error.message : String(error), now });
      return state;
    }
  }

  return {
    authenticateTenant: local.authenticateTenant,
    findTenantByEmail: local.findTenantByEmail,
    getTenant: local.getTenant,
    verifyTenantPassword: local.verifyTenantPassword,
    setTenantPassword: local.setTenantPassword,
    async updateTenantContact(tenantId, input) {
      const tenant = await local.getTenant(tenantId);
      if (!tenant) throw new StorageValidationError("No such tenant.");
      // Checked before anything is sent: an address another tenant uses is refused here and in ours alike.
      const holder = await local.findTenantByEmail(input.email);
      if (holder && holder.id !== tenant.id) throw emailTakenError();
      await pushThenSave(tenantId, () => contactFields(input), input.isMilitary, () => local.updateTenantContact(tenantId, input));
    },
    async updateTenantPhone(tenantId, cellPhone) {
      const tenant = await local.getTenant(tenantId);
      if (!tenant) throw new StorageValidationError("No such tenant.");
      await pushThenSave(tenantId, (record) => phoneFields(record, cellPhone), null, () => local.updateTenantPhone(tenantId, cellPhone));
    },
    // The texting opt-in changed after the move-in (issue 40, decision 614): bSMSOptIn on SiteLink's tenant,
    // the same journalled read-modify-write as a contact change (read back when unanswered, never resent).
    async setTenantTextOptIn(tenantId, optedIn) {
      const siteLinkTenantId = await siteLinkTenantOf(tenantId);
      if (!siteLinkTenantId) return "not_kept";
      await contact.push(siteLinkTenantId, () => ({ bSMSOptIn: optedIn }), null, now());
      return "sent";
    },
    async listTenantLeases(tenantId) {
      return Promise.all((await local.listTenantLeases(tenantId)).map((l) => live(l, tenantId)));
    },
    async getTenantLease(tenantId, leaseId) {
      const lease = await local.getTenantLease(tenantId, leaseId);
      return lease ? live(lease, tenantId) : null;
    },
    // SiteLink's ledger (charges and payments as SiteLink has them), not our own lines (decision 169).
    async getLedger(tenantId, leaseId) {
      const x = await ids(tenantId, leaseId);
      if (!x) return local.getLedger(tenantId, leaseId);
      return siteLinkLedger(db, call, x);
    },
    listSavedCards: local.listSavedCards,
    getReceipt: local.getReceipt,
    // The payment is booked in SiteLink: reversing it there is SiteLink's own refund, which the port
    // does not call (decision 280). Refusing leaves both SiteLink and the card untouched.
    async refundPayment(input) {
      // Cancelling the rental with it (decision 509) is a move-out, done in SiteLink too.
      return { kind: "refused" as const, message: input.cancelRental ? `${SITELINK_REFUND_REFUSAL} To cancel the rental, move the tenant out in SiteLink as well.` : SITELINK_REFUND_REFUSAL };
    },
    async recordMoveOut() {
      return { kind: "refused" as const, message: SITELINK_MOVE_OUT_REFUSAL };
    },
    async makePayment(input) {
      return pay({ ...input, source: "portal" });
    },
    quotePrepay,
    async prepay(input) {
      const offer = await quotePrepay(input.tenantId, input.leaseId, input.months);
      if (!offer) throw new StorageValidationError("This unit is not on your account.");
      if (offer.total !== input.expectedTotal) {
        throw new StorageValidationError("The amount to prepay changed. Please check the new total and pay again. Nothing was charged.");
      }
      return pay({ ...input, amount: offer.total, source: "prepay" });
    },
    async enrolAutopay(input) {
      const x = await ids(input.tenantId, input.leaseId);
      if (!x) throw new StorageValidationError("This unit is not on your account.");
      // Our record (the card checked and tokenised by our gateway; a declined card stops here) ...
      const saved = await local.enrolAutopay(input);
      // ... and under option A the card on SiteLink's ledger, so that SiteLink's own autopay charges it.
      if (settings.cardChargedBy === "sitelink") {
        const number = input.method.kind === "card" ? input.method.card.number.replace(/\D/g, "") : `XXXXXXXXXXXX${saved.last4}`;
        const name = input.method.kind === "card" ? input.method.card.nameOnCard : "";
        const zip = input.method.kind === "card" ? input.method.card.postalCode : "";
        const outcome = await billingInfo(
          x.siteLinkTenantId,
          x.ledgerId,
          {
            number,
            brand: saved.brand,
            expMonth: saved.expMonth,
            expYear: saved.expYear,
            name,
            zip,
            autoBillType: 1,
          },
          input.now,
        );
        // SiteLink runs autopay here: it must have the card, or autopay is not on (never "On" on our word).
        if (outcome === "failed") {
          await local.cancelAutopay(input);
          throw new StorageValidationError("The facility's system could not save this card for autopay. Please check the card or use another card.", {
            card_number: ["Please check the card or use another card."],
          });
        }
        if (outcome === "unknown") throw new SoftwareUnreachableError("SiteLink did not confirm the autopay card");
      }
      await autopayWishHandled(db, location.id, input.leaseId, input.now);
      return saved;
    },
    async cancelAutopay(input) {
      const x = await ids(input.tenantId, input.leaseId);
      // The card autopay charges now, read before anything changes (SiteLink's card under option A,
      // also when it was given at the move-in and never saved with us). SiteLink unreachable: nothing
      // is cancelled, the tenant is told to try again in a moment.
      const ours = x ? await local.getTenantLease(input.tenantId, input.leaseId) : null;
      const before = ours ? await live(ours, input.tenantId) : null;
      await local.cancelAutopay(input);
      await autopayWishHandled(db, location.id, input.leaseId, new Date());
      const card = before?.autopay.card;
      if (x && card && settings.cardChargedBy === "sitelink") {
        await billingInfo(
          x.siteLinkTenantId,
          x.ledgerId,
          {
            number: `XXXXXXXXXXXX${card.last4}`,
            brand: card.brand,
            expMonth: card.expMonth,
            expYear: card.expYear,
            name: "",
            zip: "",
            autoBillType: 0,
          },
          new Date(),
        );
      }
    },
    async giveMoveOutNotice(input) {
      const x = await ids(input.tenantId, input.leaseId);
      if (!x) throw new StorageValidationError("This unit is not on your account.");
      const key = `moveout:${x.ledgerId}:${input.moveOutDate}`;
      const { created } = await journal.begin({
        key,
        operation: "ScheduleMoveOut",
        fingerprint: x.ledgerId,
        now: input.now,
      });
      if (created) {
        try {
          const a = await call(
            "ScheduleMoveOut",
            {
              iLedgerID: Number(x.ledgerId),
              dScheduledOut: siteLinkDate(input.moveOutDate),
            },
            { write: true },
          );
          const outcome = readAnswer("ScheduleMoveOut", a);
          if (outcome.kind === "refused") {
            await journal.settle(key, "failed", { error: outcome.message, now: input.now });
            throw new StorageSoftwareError(`SiteLink refused the move-out date: ${outcome.message}`);
          }
          // Success, or an answer that may mean it (no source shows ScheduleMoveOut's success code):
          // the ledger read back says whether the date is there.
          const shown = outcome.kind === "ok" || (await moveOutShown(x.siteLinkTenantId, x.ledgerId, input.moveOutDate));
          await journal.settle(key, shown ? "done" : "unknown", {
            error: shown ? (outcome.kind === "ok" ? null : `${outcome.message}; confirmed by reading the ledger back`) : `${outcome.message}; the ledger does not show the date yet`,
            now: input.now,
          });
        } catch (error) {
          // Setting a date twice is harmless: an unknown outcome is settled by the next read of the ledger.
          if (!mayHaveBeenApplied(error)) throw error;
          await journal.settle(key, "unknown", {
            error: error instanceof Error ? error.message : String(error),
            now: input.now,
          });
        }
      }
      await local.giveMoveOutNotice(input);
    },
    // SiteLink posts its charges; autopay is SiteLink's own (A) or charged by our gateway (B).
    billLeases: siteLinkBilling({ db, location, call, settings, gateway: () => getPaymentGateway(location) }).billLeases,
  };
}
