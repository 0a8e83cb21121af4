/**
 * A tenant's accounts: ledgers (table Ledgers), charges, payments (table PmtHistory), prepayment
 * quote (Table1), payments by card (SiteLink's processor), check and cash, the autopay card
 * (TenantBillingInfo*, one per ledger, returned unmasked as S3 §7.84 warns), move-out scheduling.
 * Payments target the unit (iTenantID + iUnitID), not the ledger (LK-A).
 */
import { checkCard } from "../cards";
import { bool, dateTime, idFromString, int, rt, str, successRt } from "../helpers";
import { balance, chargeTotal, ledgerCharges, outstanding, prepaymentCharges, recordPayment } from "../ledger";
import type { OpContext, OpHandler } from "../simulator";
import type { LedgerRecord, SiteRecord } from "../state";
import { decimalToCents, luhnValid, money4 } from "../values";
import type { ResultTable, Row } from "../wire";

function site(ctx: OpContext): SiteRecord {
  if (!ctx.site) throw new Error("site required");
  return ctx.site;
}

const LEDGER_ERROR = "Error retrieving ledger data from the server";

function ledgerRow(ctx: OpContext, s: SiteRecord, l: LedgerRecord): Row {
  const unit = s.units.find((u) => u.UnitID === l.UnitID);
  const tenant = s.tenants.find((t) => t.TenantID === l.TenantID);
  return {
    LedgerID: l.LedgerID,
    TenantID: l.TenantID,
    SiteID: s.SiteID,
    UnitID: l.UnitID,
    sUnitName: unit?.sUnitName ?? null,
    iLeaseNum: l.iLeaseNum,
    dMovedIn: ctx.sim.dt(s, l.movedIn),
    dAnniv: ctx.sim.dt(s, l.movedIn),
    dPaidThru: ctx.sim.dt(s, l.paidThru),
    dSchedOut: ctx.sim.dt(s, l.schedOut),
    dcRent: money4(l.rent),
    dcInsurPremium: money4(l.insurPremium),
    InsurCoverageID: l.insurCoverageId ?? undefined,
    dcChargeBalance: money4(outstanding(s, l)),
    dcTotalDue: money4(balance(s, l)),
    sAccessCode: l.accessCode || null,
    iAutoBillType: l.autobill?.iAutoBillType ?? 0,
    sBillingFrequency: "Monthly",
    bOverlocked: false,
    sFName: (tenant?.fields.sFName as string) ?? null,
    sLName: (tenant?.fields.sLName as string) ?? null,
    sEmail: (tenant?.fields.sEmail as string) || null,
  };
}

/** Active ledgers of a tenant (moved-out ledgers are not listed). */
const LedgersByTenantID_v3: OpHandler = (ctx) => {
  const s = site(ctx);
  const id = idFromString(ctx.params.sTenantID);
  if (!s.tenants.some((t) => t.TenantID === id)) return [rt(-1, LEDGER_ERROR)];
  return [{ name: "Ledgers", rows: s.ledgers.filter((l) => l.TenantID === id && l.active).map((l) => ledgerRow(ctx, s, l)) }];
};

const ChargesAllByLedgerID: OpHandler = (ctx) => {
  const s = site(ctx);
  const id = idFromString(ctx.params.ledgerId);
  if (!s.ledgers.some((l) => l.LedgerID === id)) return [rt(-1, LEDGER_ERROR)];
  return [
    {
      name: "Table",
      rows: ledgerCharges(s, id).map((c) => ({
        ChargeID: c.ChargeID,
        LedgerID: c.LedgerID,
        ChargeDescID: c.ChargeDescID,
        sChgDesc: c.sChgDesc,
        sChgCategory: c.sChgCategory,
        dcAmt: money4(c.amount),
        dcPrice: money4(c.amount),
        dcQty: "1.0000",
        dcTax1: money4(c.tax1),
        dcTax2: money4(c.tax2),
        dChgStrt: ctx.sim.dt(s, c.start),
        dChgEnd: ctx.sim.dt(s, c.end),
        dcPmtAmt: money4(Math.min(c.paid, chargeTotal(c))),
        bMoveIn: c.moveIn,
        bMoveOut: false,
      })),
    },
  ];
};

const PaymentsByLedgerID: OpHandler = (ctx) => {
  const s = site(ctx);
  const id = idFromString(ctx.params.sLedgerID);
  if (!s.ledgers.some((l) => l.LedgerID === id)) return [rt(-1, LEDGER_ERROR)];
  return [
    {
      name: "PmtHistory",
      rows: s.payments
        .filter((p) => p.LedgerID === id)
        .map((p) => ({ Receipt: p.Receipt, LedgerID: p.LedgerID, dPmt: ctx.sim.dt(s, p.at), Description: p.description, Payment: money4(p.amount), iPayMethod: p.payMethod })),
    },
  ];
};

/** Per ledger and category (Rent, Insurance, Other Fees last): what is owed now plus N future months (AN). */
const CustomerAccountsBalanceDetailsWithPrepayment: OpHandler = (ctx) => {
  const s = site(ctx);
  const tenantId = int(ctx.params.iTenantID);
  if (!s.tenants.some((t) => t.TenantID === tenantId)) return [rt(-1, "Invalid TenantID")];
  const months = int(ctx.params.iNumberOfMonthsPrepay);
  if (months < 0 || months > 12) return [rt(-1, "Invalid number of months")];
  const rows: Row[] = [];
  for (const l of s.ledgers.filter((x) => x.TenantID === tenantId && x.active)) {
    const unit = s.units.find((u) => u.UnitID === l.UnitID);
    const sums = new Map<string, number>([["Rent", 0], ["Insurance", 0], ["Other Fees", 0]]);
    const item = (cat: string) => (cat === "Rent" || cat === "Insurance" ? cat : "Other Fees");
    for (const c of ledgerCharges(s, l.LedgerID)) sums.set(item(c.sChgCategory), sums.get(item(c.sChgCategory))! + chargeTotal(c) - c.paid);
    for (const c of prepaymentCharges(s, l, months)) sums.set(item(c.sChgCategory), sums.get(item(c.sChgCategory))! + c.amount + c.tax1 + c.tax2);
    sums.set("Rent", sums.get("Rent")! - l.credit);
    for (const [sItem, cents] of sums) {
      if (cents === 0 && sItem !== "Rent") continue;
      rows.push({ LedgerID: l.LedgerID, UnitID: l.UnitID, sUnitName: unit?.sUnitName ?? null, sItem, dcBalance: money4(cents) });
    }
  }
  return [{ name: "Table1", rows }];
};

function ledgerForUnit(s: SiteRecord, tenantId: number, unitId: number): LedgerRecord | ResultTable {
  if (!s.tenants.some((t) => t.TenantID === tenantId)) return rt(-95, "Invalid TenantID");
  if (!s.units.some((u) => u.UnitID === unitId)) return rt(-25, "Invalid UnitID");
  const ledger = s.ledgers.find((l) => l.TenantID === tenantId && l.UnitID === unitId && l.active);
  return ledger ?? rt(-1, "No ledger found for this tenant and unit");
}

function cardPayment(ctx: OpContext): ResultTable[] {
  const s = site(ctx);
  const p = ctx.params;
  const ledger = ledgerForUnit(s, int(p.iTenantID), int(p.iUnitID));
  if (!("LedgerID" in ledger)) return [ledger];
  const amount = decimalToCents(str(p.dcPaymentAmount));
  if (amount === null || amount <= 0) return [rt(-1, "Invalid payment amount")];
  const card = checkCard(s, int(p.iCreditCardType), str(p.sCreditCardNumber), dateTime(p.dExpirationDate), ctx.today);
  if (!card.ok) return [rt(card.code, card.message)];
  const pay = recordPayment(s, ledger, {
    amount,
    at: ctx.nowLocal,
    description: `Payment: ${card.description}`,
    payMethod: 0,
    cardTypeId: card.typeId,
    last4: card.last4,
    checkNumber: null,
    testMode: bool(p.bTestMode),
    source: int(p.iSource),
  });
  return [successRt(s, pay.Receipt, "Success")];
}

function offlinePayment(ctx: OpContext, payMethod: 1 | 2): ResultTable[] {
  const s = site(ctx);
  const p = ctx.params;
  const ledger = ledgerForUnit(s, int(p.iTenantID), int(p.iUnitID));
  if (!("LedgerID" in ledger)) return [ledger];
  const amount = decimalToCents(str(p.dcPaymentAmount));
  if (amount === null || amount <= 0) return [rt(-1, "Invalid payment amount")];
  const check = str(p.sCheckNumber).trim();
  const pay = recordPayment(s, ledger, {
    amount,
    at: ctx.nowLocal,
    description: payMethod === 1 ? `Payment: Check #${check}` : "Payment: Cash",
    payMethod,
    cardTypeId: null,
    last4: null,
    checkNumber: payMethod === 1 ? check : null,
    testMode: false,
    source: int(p.iSource),
  });
  // Check: the success code by the site's reading; cash (not called by the adapter) keeps the receipt.
  return [payMethod === 1 ? successRt(s, pay.Receipt, "Success") : rt(pay.Receipt, "Success")];
}

const TenantBillingInfoByTenantID_v3: OpHandler = (ctx) => {
  const s = site(ctx);
  const tenantId = int(ctx.params.iTenantID);
  if (!s.tenants.some((t) => t.TenantID === tenantId)) return [rt(-1, "Invalid TenantID")];
  return [
    {
      name: "Table",
      rows: s.ledgers
        .filter((l) => l.TenantID === tenantId && l.active)
        .map((l) => ({
          LedgerID: l.LedgerID,
          TenantID: l.TenantID,
          UnitID: l.UnitID,
          sUnitName: s.units.find((u) => u.UnitID === l.UnitID)?.sUnitName ?? null,
          iAutoBillType: l.autobill?.iAutoBillType ?? 0,
          iCreditCardTypeID: l.autobill?.iCreditCardTypeID,
          sCreditCardNum: l.autobill?.sCreditCardNum || null,
          dCreditCardExpir: ctx.sim.dt(s, l.autobill?.dCreditCardExpir),
          sCreditCardHolderName: l.autobill?.sCreditCardHolderName || null,
          sCreditCardStreet: l.autobill?.sCreditCardStreet || null,
          sCreditCardZip: l.autobill?.sCreditCardZip || null,
          iDaysAfterDue: l.autobill?.iDaysAfterDue,
        })),
    },
  ];
};

/** Stores the ledger's autopay card without authorising it (study §3.4); a masked number keeps the stored card. */
const TenantBillingInfoUpdate_v2: OpHandler = (ctx) => {
  const s = site(ctx);
  const p = ctx.params;
  const ledger = s.ledgers.find((l) => l.LedgerID === int(p.iLedgerID) && l.active);
  if (!ledger) return [rt(-1, "Ledger not found")];
  const type = int(p.iAutoBillType);
  const typeId = int(p.iCreditCardTypeID);
  let number = str(p.sCreditCardNum).replace(/[\s-]/g, "");
  // A masked number (as TenantBillingInfo returns it to a careful client) keeps the stored card, also
  // when autopay is only being turned off: turning it on again later uses the same card.
  if (/[*Xx]/.test(number) && ledger.autobill && ledger.autobill.sCreditCardNum.slice(-4) === number.slice(-4)) number = ledger.autobill.sCreditCardNum;
  if (type === 1) {
    if (!s.paymentTypes.some((t) => t.PmtTypeID === typeId && t.sCategory === "Credit Card")) return [rt(-95, "Invalid credit card type id")];
    if (!luhnValid(number)) return [rt(-2, "Could not save billing information")];
  }
  const exp = dateTime(p.dCredtiCardExpir);
  ledger.autobill = {
    iAutoBillType: type,
    iCreditCardTypeID: typeId,
    sCreditCardNum: number,
    dCreditCardExpir: exp && exp.date > "0001-01-01" ? `${exp.date}T${exp.time}` : null,
    sCreditCardHolderName: str(p.sCreditCardHolderName),
    sCreditCardStreet: str(p.sCreditCardStreet),
    sCreditCardZip: str(p.sCreditCardZip),
    iDaysAfterDue: int(p.iDaysAfterDue),
  };
  return [rt(ledger.LedgerID, "")];
};

/** Only sets the scheduled date (S3 §7.80); the tenant stays until the office moves them out. */
const ScheduleMoveOut: OpHandler = (ctx) => {
  const s = site(ctx);
  const ledger = s.ledgers.find((l) => l.LedgerID === int(ctx.params.iLedgerID) && l.active);
  if (!ledger) return [rt(-1, "Invalid LedgerID")];
  const d = dateTime(ctx.params.dScheduledOut);
  if (!d || d.date < ctx.today) return [rt(-2, "Scheduled move out date cannot be in the past")];
  ledger.schedOut = d.date;
  return [successRt(s, ledger.LedgerID)];
};

const PaidThroughDateByLedgerID: OpHandler = (ctx) => {
  const s = site(ctx);
  const ledger = s.ledgers.find((l) => l.LedgerID === int(ctx.params.iLedgerID));
  if (!ledger) return [rt(-1, LEDGER_ERROR)];
  return [{ name: "Table", rows: [{ LedgerID: ledger.LedgerID, dPaidThru: ctx.sim.dt(s, ledger.paidThru) }] }];
};


export const accountOperations: Record<string, OpHandler> = {
  LedgersByTenantID_v3,
  ChargesAllByLedgerID,
  PaymentsByLedgerID,
  CustomerAccountsBalanceDetailsWithPrepayment,
  PaymentSimpleWithSource: cardPayment,
  PaymentSimpleWithSource_v2: cardPayment,
  PaymentSimpleCheckWithSource: (ctx) => offlinePayment(ctx, 1),
  PaymentSimpleCashWithSource: (ctx) => offlinePayment(ctx, 2),
  TenantBillingInfoByTenantID_v3,
  TenantBillingInfoUpdate_v2,
  ScheduleMoveOut,
  PaidThroughDateByLedgerID,
};
