/**
 * The move-in: SiteLink's cost quote (MoveInCostRetrieveWithDiscount_v4) and the move-in itself
 * (MoveInWithDiscount_v7), which refuses any amount that differs from the quote by a cent (-11, LK-R)
 * and writes nothing on any error.
 *
 * Quote rules (LK-R §3, LK-CALC, study §4): rent for the first period (anniversary: a whole month from
 * the move-in date; first-of-month: prorated to the month's end, half up, plus the whole next month
 * from iDayStrtProratePlusNext on); a concession discounts the first rent line, or each rent line of a
 * month it covers (`readings.planMonths`, ../concessions.ts); every tax half up (evidence §4.4);
 * insurance prorated like rent, its tax half up; admin fee and every charge applied at move-in (the
 * lock) with their own tax, half up; security deposit untaxed. Required payment = Σ dcTotal.
 */
import { checkCard } from "../cards";
import { dateTime, int, rt, str, bool } from "../helpers";
import { postCharge, recordPayment, updatePaidThru } from "../ledger";
import { CHARGE_DESC } from "../ledger";
import type { OpContext, OpHandler } from "../simulator";
import { readingsOf, type ConcessionPlan, type SiteRecord, type UnitRecord } from "../state";
import { concessionDiscount, concessionUsable } from "../concessions";
import { addDays, addMonths, daysInMonth, decimalToCents, dollars, endOfMonth, money4, parseIsoDate, prorate, rateText, taxHalfUp } from "../values";
import type { ResultTable, Row } from "../wire";

interface CostLine {
  ChargeDescID: number;
  description: string;
  category: string;
  amount: number;
  discount: number;
  tax1: number;
  tax2: number;
  start: string;
  end: string;
}

interface Quote {
  lines: CostLine[];
  total: number;
  rate: number;
  insuranceId: number | null;
  insurancePremium: number;
  concessionId: number;
  /** The plan named, as it is now (kept on the ledger for the billing run). */
  concession: ConcessionPlan | null;
}

type QuoteResult = { ok: true; quote: Quote } | { ok: false; code: number; message: string };

function lineTotal(l: CostLine): number {
  return l.amount - l.discount + l.tax1 + l.tax2;
}

/** The periods the first payment covers, with the fraction of a month each one is. */
function firstPeriods(site: SiteRecord, date: string): Array<{ start: string; end: string; num: number; den: number }> {
  if (site.billing.anniversary) return [{ start: date, end: addDays(addMonths(date, 1), -1), num: 1, den: 1 }];
  const { y, m, d } = parseIsoDate(date);
  const dim = daysInMonth(y, m);
  const first =
    d < site.billing.iDayStrtProrating ? { start: date, end: endOfMonth(date), num: 1, den: 1 } : { start: date, end: endOfMonth(date), num: dim - d + 1, den: dim };
  const out = [first];
  if (d >= site.billing.iDayStrtProratePlusNext) {
    const next = addDays(endOfMonth(date), 1);
    out.push({ start: next, end: endOfMonth(next), num: 1, den: 1 });
  }
  return out;
}

function moveInQuote(
  site: SiteRecord,
  unit: UnitRecord,
  date: string,
  opts: { insuranceId: number; concessionId: number; channel: number },
  concessionCode: number,
): QuoteResult {
  if (opts.channel !== 0 && opts.channel !== 1) return { ok: false, code: -29, message: "Invalid ChannelType" };
  const insurance = opts.insuranceId === -999 || opts.insuranceId === 0 ? null : site.insurance.find((i) => i.InsurCoverageID === opts.insuranceId);
  if (insurance === undefined) return { ok: false, code: -3, message: "Invalid InsuranceCoverageID" };
  const concession = opts.concessionId === -999 || opts.concessionId === 0 ? null : site.concessions.find((c) => c.ConcessionID === opts.concessionId);
  if (concession === undefined || (concession && !concessionUsable(site, concession, date))) return { ok: false, code: concessionCode, message: "Invalid ConcessionPlanID" };
  // Which rent lines of the move-in the plan discounts: the first only (LK's LSETUP test), or each month it covers (ST).
  const eachMonth = readingsOf(site).planMonths === "each";
  const rate = opts.channel === 1 && unit.webRate > 0 ? unit.webRate : unit.stdRate;
  const lines: CostLine[] = [];
  const periods = firstPeriods(site, date);
  periods.forEach((p, i) => {
    const amount = prorate(rate, p.num, p.den);
    const discount = concession && (i === 0 || eachMonth) ? concessionDiscount(site, concession, i + 1, amount) : 0;
    lines.push({
      ChargeDescID: CHARGE_DESC.rent,
      description: i === 0 ? "Rent" : "Second Monthly Rent Fee",
      category: "Rent",
      amount,
      discount,
      tax1: taxHalfUp(amount - discount, site.rentTax1Rate),
      tax2: taxHalfUp(amount - discount, site.rentTax2Rate),
      start: p.start,
      end: p.end,
    });
  });
  if (site.adminFee > 0) {
    lines.push({ ChargeDescID: CHARGE_DESC.admin, description: "Administrative Fee", category: "AdminFee", amount: site.adminFee, discount: 0, tax1: taxHalfUp(site.adminFee, site.adminFeeTax1Rate), tax2: 0, start: date, end: date });
  }
  if (unit.secDep > 0) {
    lines.push({ ChargeDescID: CHARGE_DESC.deposit, description: "Security Deposit", category: "SecDep", amount: unit.secDep, discount: 0, tax1: 0, tax2: 0, start: date, end: date });
  }
  for (const c of site.chargeDescriptions) {
    if (!c.applyAtMoveIn || c.disabled || ["Rent", "Insurance", "AdminFee", "SecDep"].includes(c.sChgCategory)) continue;
    lines.push({ ChargeDescID: c.ChargeDescID, description: c.sChgDesc, category: c.sChgCategory, amount: c.price, discount: 0, tax1: taxHalfUp(c.price, c.tax1Rate), tax2: taxHalfUp(c.price, c.tax2Rate), start: date, end: date });
  }
  if (insurance) {
    for (const p of periods) {
      const amount = prorate(insurance.premium, p.num, p.den);
      lines.push({ ChargeDescID: CHARGE_DESC.insurance, description: "Insurance", category: "Insurance", amount, discount: 0, tax1: taxHalfUp(amount, insurance.tax1Rate), tax2: 0, start: p.start, end: p.end });
    }
  }
  return {
    ok: true,
    quote: {
      lines,
      total: lines.reduce((s, l) => s + lineTotal(l), 0),
      rate,
      insuranceId: insurance?.InsurCoverageID ?? null,
      insurancePremium: insurance?.premium ?? 0,
      concessionId: concession?.ConcessionID ?? -999,
      concession: concession ? structuredClone(concession) : null,
    },
  };
}

function site(ctx: OpContext): SiteRecord {
  if (!ctx.site) throw new Error("site required");
  return ctx.site;
}

function costTables(ctx: OpContext, s: SiteRecord, unit: UnitRecord, q: Quote, channel: number): ResultTable[] {
  const type = s.unitTypes.find((t) => t.UnitTypeID === unit.UnitTypeID);
  const rows: Row[] = q.lines.map((l) => ({
    SiteID: s.SiteID,
    ChargeDescID: l.ChargeDescID,
    ChargeDescription: l.description,
    sChgCategory: l.category,
    ChargeAmount: money4(l.amount),
    TaxAmount: money4(l.tax1),
    TaxAmount2: money4(l.tax2),
    dcDiscount: money4(l.discount),
    dcTotal: money4(lineTotal(l)),
    bMoveInRequired: true,
    StartDate: ctx.sim.dt(s, l.start),
    EndDate: ctx.sim.dt(s, l.end),
    ConcessionID: q.concessionId,
    UnitID: unit.UnitID,
    UnitName: unit.sUnitName,
    TypeName: type?.sTypeName ?? "",
    Width: rateText(unit.width * 100),
    Length: rateText(unit.length * 100),
    bClimate: unit.climate,
    dcTenantRate: money4(q.rate),
    dcStdRate: money4(unit.stdRate),
    WebRate: money4(channel === 1 ? unit.webRate : unit.stdRate),
    dcPushRate: money4(unit.pushRate),
    bAnnivDateLeasing: s.billing.anniversary,
    b2ndMonthProrate: s.billing.b2ndMonthProrate,
    iDayStrtProrating: s.billing.iDayStrtProrating,
    iDayStrtProratePlusNext: s.billing.iDayStrtProratePlusNext,
    InsuranceCoverageID: q.insuranceId ?? -999,
  }));
  return [{ name: "Table", rows }];
}

function costRetrieve(ctx: OpContext, waitingCheck: boolean): ResultTable[] {
  const s = site(ctx);
  const unit = s.units.find((u) => u.UnitID === int(ctx.params.iUnitID) && !u.deleted);
  if (!unit) return [rt(-25, "Invalid UnitID")];
  if (waitingCheck && !s.reservations.some((r) => r.WaitingID === int(ctx.params.WaitingID))) return [rt(-1, "Invalid WaitingID")];
  const date = dateTime(ctx.params.dMoveInDate);
  if (!date) return [rt(-1, "General failure")];
  const channel = ctx.present.has("ChannelType") ? int(ctx.params.ChannelType) : 0;
  const result = moveInQuote(s, unit, date.date, { insuranceId: int(ctx.params.InsuranceCoverageID), concessionId: int(ctx.params.ConcessionPlanID), channel }, -2);
  if (!result.ok) return [rt(result.code, result.message)];
  return costTables(ctx, s, unit, result.quote, channel);
}

const MoveInCostRetrieveWithDiscount_v4: OpHandler = (ctx) => costRetrieve(ctx, false);
const MoveInCostRetrieveWithDiscount_Reservation_v4: OpHandler = (ctx) => costRetrieve(ctx, true);

/** What an iPayMethod value means at this site, under its reading (state.ts SiteReadings). */
function payMethodKind(site: SiteRecord, payMethod: number): "none" | "card" | "check" | "cash" | "other" {
  const table: Record<string, Array<"none" | "card" | "check" | "cash" | "other">> = {
    // LK's LSETUP notes (evidence §4.9): 0 none, 1 card, 2 cash, 3 check, 4 ACH.
    lsetup: ["none", "card", "cash", "check", "other"],
    // MC's transcription of the manual: 0 card, 1 check, 2 cash, 3 debit (a card), 4 ACH.
    manual: ["card", "check", "cash", "card", "other"],
  };
  return table[readingsOf(site).payMethod]![payMethod] ?? "other";
}

/** Validation in SiteLink's order; nothing is written unless every check passes. */
const MoveInWithDiscount_v7: OpHandler = (ctx) => {
  const s = site(ctx);
  const p = ctx.params;
  const tenant = s.tenants.find((t) => t.TenantID === int(p.TenantID));
  if (!tenant) return [rt(-95, "Invalid TenantID")];
  const unit = s.units.find((u) => u.UnitID === int(p.UnitID) && !u.deleted);
  if (!unit) return [rt(-25, "Invalid UnitID")];
  if (unit.rented || !unit.rentable) return [rt(-2, "Unit ID is not available")];
  if (!s.billingFrequencies.includes(int(p.iBillingFrequency))) return [rt(-28, "Invalid billing frequency")];
  const start = dateTime(p.dStartDate);
  if (!start || !dateTime(p.dEndDate)) return [rt(-1, "Failed to save move in")];
  if (start.date < addMonths(ctx.today, -2)) return [rt(-83, "Move in date cannot be more than 2 months in the past")];
  const waitingId = int(p.WaitingID);
  const reservation = waitingId > 0 ? s.reservations.find((r) => r.WaitingID === waitingId && r.TenantID === tenant.TenantID) : null;
  if (reservation === undefined) return [rt(-1, "Invalid WaitingID")];
  const channel = int(p.ChannelType);
  const quoted = moveInQuote(s, unit, start.date, { insuranceId: int(p.InsuranceCoverageID), concessionId: int(p.ConcessionPlanID), channel }, -17);
  if (!quoted.ok) return [rt(quoted.code, quoted.message)];
  const quote = quoted.quote;
  const paid = decimalToCents(str(p.dcPaymentAmount));
  if (paid !== quote.total) return [rt(-11, `Payment amount does not match the required payment of ${dollars(quote.total)}`)];
  const payMethod = int(p.iPayMethod);
  const kind = payMethodKind(s, payMethod);
  let cardTypeId: number | null = null;
  let last4: string | null = null;
  let description: string;
  if (kind === "none") {
    // LSETUP: 0 is "none", refused as -2 "Payment amount must be greater than zero" (evidence §4.9).
    return [rt(-2, "Payment amount must be greater than zero")];
  } else if (kind === "card") {
    const card = checkCard(s, int(p.iCreditCardType), str(p.sCreditCardNumber), dateTime(p.dExpirationDate), ctx.today);
    if (!card.ok) return [rt(card.code, card.message)];
    cardTypeId = card.typeId;
    last4 = card.last4;
    description = `Move-in payment: ${card.description}`;
  } else if (kind === "check" || kind === "cash") {
    description = kind === "check" ? "Move-in payment: Check" : "Move-in payment: Cash";
  } else {
    return [rt(-5, "Invalid payment type id")];
  }

  // A site whose test mode writes nothing (issue 37): every check above, then an id and no record.
  if (bool(p.bTestMode) && readingsOf(s).testMode === "nothing") {
    return [{ name: "RT", rows: [{ Ret_Code: s.seq.ledger + 1, Ret_Msg: "", iLeaseNum: 1 }] }];
  }
  // Commit: ledger, charges, payment, unit rented, reservation converted.
  s.seq.ledger += 1;
  const rentEnd = quote.lines.filter((l) => l.category === "Rent").reduce((m, l) => (l.end > m ? l.end : m), start.date);
  const ledger = {
    LedgerID: s.seq.ledger,
    TenantID: tenant.TenantID,
    UnitID: unit.UnitID,
    iLeaseNum: s.ledgers.filter((l) => l.TenantID === tenant.TenantID).length + 1,
    movedIn: start.date,
    anniversaryDay: s.billing.anniversary ? Number(start.date.slice(8, 10)) : 1,
    paidThru: addDays(start.date, -1),
    chargedThru: rentEnd,
    schedOut: null,
    rent: quote.rate,
    insurCoverageId: quote.insuranceId,
    insurPremium: quote.insurancePremium,
    accessCode: str(p.sAccessCode).trim() || tenant.accessCode,
    autobill: null,
    lastAutopayDecline: null,
    credit: 0,
    active: true,
    concession: quote.concession,
  };
  s.ledgers.push(ledger);
  for (const l of quote.lines) {
    const charge = postCharge(s, ledger, { ChargeDescID: l.ChargeDescID, sChgDesc: l.description, sChgCategory: l.category, amount: l.amount - l.discount, tax1: l.tax1, tax2: l.tax2 }, l.start, l.end, true);
    // The concession SiteLink applied, kept on the charge (the control API's ledger shows it; issue 40).
    if (l.discount > 0) Object.assign(charge, { discount: l.discount, ConcessionID: quote.concessionId });
  }
  recordPayment(s, ledger, {
    amount: quote.total,
    at: ctx.nowLocal,
    description,
    payMethod,
    cardTypeId,
    last4,
    checkNumber: null,
    testMode: bool(p.bTestMode),
    source: int(p.iSource),
  });
  updatePaidThru(s, ledger);
  unit.rented = true;
  if (reservation) {
    reservation.iWaitingStatus = 1;
    reservation.dConverted = ctx.nowLocal;
    reservation.updated = ctx.nowLocal;
  }
  ctx.sim.touch(s, unit);
  return [{ name: "RT", rows: [{ Ret_Code: ledger.LedgerID, Ret_Msg: "", iLeaseNum: ledger.iLeaseNum }] }];
};

export const moveInOperations: Record<string, OpHandler> = {
  MoveInCostRetrieveWithDiscount_v4,
  MoveInCostRetrieveWithDiscount_Reservation_v4,
  MoveInWithDiscount_v7,
};
