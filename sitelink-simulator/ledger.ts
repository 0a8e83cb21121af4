/**
 * Ledger accounting: charges per period, payments applied oldest charge first, paid-through date,
 * credit, prepayment and the billing run (monthly charges + SiteLink's own autopay).
 *
 * Simulator choices (docs/decisions/106-sitelink-simulator-business-rules.md): a payment above the balance
 * posts the next whole periods it covers (so dPaidThru advances by whole periods) and keeps the rest
 * as credit; every tax (rent included) is rounded half up (evidence §4.4).
 */
import type { ChargeRecord, LedgerRecord, PaymentRecord, SiteRecord } from "./state";
import { addDays, addMonths, endOfMonth, parseIsoDate, taxHalfUp } from "./values";
import { concessionDiscount } from "./concessions";

export const CHARGE_DESC = { rent: 1, admin: 2, lock: 3, insurance: 4, deposit: 5, lateFee: 6 } as const;

export function chargeTotal(c: ChargeRecord): number {
  return c.amount + c.tax1 + c.tax2;
}

export function ledgerCharges(site: SiteRecord, ledgerId: number): ChargeRecord[] {
  return site.charges.filter((c) => c.LedgerID === ledgerId);
}

/** What is owed on posted charges (cents), before credit. */
export function outstanding(site: SiteRecord, ledger: LedgerRecord): number {
  return ledgerCharges(site, ledger.LedgerID).reduce((s, c) => s + chargeTotal(c) - c.paid, 0);
}

/** Balance due: outstanding minus credit (negative = in credit). */
export function balance(site: SiteRecord, ledger: LedgerRecord): number {
  return outstanding(site, ledger) - ledger.credit;
}

function monthsFrom(from: string, to: string): number {
  const a = parseIsoDate(from);
  const b = parseIsoDate(to);
  return (b.y - a.y) * 12 + (b.m - a.m);
}

/** The next billing period after chargedThru: anniversary months from the move-in, or calendar months. */
function nextPeriod(site: SiteRecord, ledger: LedgerRecord): { start: string; end: string } {
  const start = addDays(ledger.chargedThru, 1);
  if (!site.billing.anniversary) return { start, end: endOfMonth(start) };
  let k = monthsFrom(ledger.movedIn, start);
  while (addMonths(ledger.movedIn, k) <= ledger.chargedThru) k += 1;
  return { start, end: addDays(addMonths(ledger.movedIn, k + 1), -1) };
}

interface PeriodCharge {
  ChargeDescID: number;
  sChgDesc: string;
  sChgCategory: string;
  amount: number;
  tax1: number;
  tax2: number;
  /** The discount the ledger's plan took off the rent (`amount` is net of it). */
  discount?: number;
  ConcessionID?: number;
}

/** How many months of rent the ledger has been charged (the move-in's rent lines included). */
function rentMonthsPosted(site: SiteRecord, ledger: LedgerRecord): number {
  return new Set(ledgerCharges(site, ledger.LedgerID).filter((c) => c.sChgCategory === "Rent").map((c) => c.start)).size;
}

/**
 * The recurring charges of one full period: rent and the insurance premium (tax half up). The rent of
 * a month the move-in's plan covers is net of its discount, taxed on what is left (issue 40).
 * `month`: which month of the rental the period is (default: the next one to charge).
 */
export function periodCharges(site: SiteRecord, ledger: LedgerRecord, month = rentMonthsPosted(site, ledger) + 1): PeriodCharge[] {
  const discount = ledger.concession ? concessionDiscount(site, ledger.concession, month, ledger.rent) : 0;
  const rent = ledger.rent - discount;
  const out: PeriodCharge[] = [
    {
      ChargeDescID: CHARGE_DESC.rent,
      sChgDesc: "Rent",
      sChgCategory: "Rent",
      amount: rent,
      tax1: taxHalfUp(rent, site.rentTax1Rate),
      tax2: taxHalfUp(rent, site.rentTax2Rate),
      ...(discount > 0 ? { discount, ConcessionID: ledger.concession!.ConcessionID } : {}),
    },
  ];
  if (ledger.insurCoverageId !== null && ledger.insurPremium > 0) {
    const cov = site.insurance.find((i) => i.InsurCoverageID === ledger.insurCoverageId);
    out.push({
      ChargeDescID: CHARGE_DESC.insurance,
      sChgDesc: "Insurance",
      sChgCategory: "Insurance",
      amount: ledger.insurPremium,
      tax1: taxHalfUp(ledger.insurPremium, cov?.tax1Rate ?? 0),
      tax2: 0,
    });
  }
  return out;
}

function periodTotal(site: SiteRecord, ledger: LedgerRecord): number {
  return periodCharges(site, ledger).reduce((s, c) => s + c.amount + c.tax1 + c.tax2, 0);
}


export function postCharge(site: SiteRecord, ledger: LedgerRecord, c: PeriodCharge, start: string, end: string, moveIn = false): ChargeRecord {
  site.seq.charge += 1;
  const rec: ChargeRecord = { ChargeID: site.seq.charge, LedgerID: ledger.LedgerID, ...c, start, end, paid: 0, moveIn };
  site.charges.push(rec);
  return rec;
}

/** Posts the next period's recurring charges and applies any credit to them. */
export function postNextPeriod(site: SiteRecord, ledger: LedgerRecord): void {
  const { start, end } = nextPeriod(site, ledger);
  for (const c of periodCharges(site, ledger)) postCharge(site, ledger, c, start, end);
  ledger.chargedThru = end;
  applyCredit(site, ledger);
}

function allocate(site: SiteRecord, ledger: LedgerRecord, cents: number): number {
  let left = cents;
  const open = ledgerCharges(site, ledger.LedgerID)
    .filter((c) => chargeTotal(c) > c.paid)
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.ChargeID - b.ChargeID));
  for (const c of open) {
    if (left <= 0) break;
    const take = Math.min(left, chargeTotal(c) - c.paid);
    c.paid += take;
    left -= take;
  }
  return left;
}

function applyCredit(site: SiteRecord, ledger: LedgerRecord): void {
  if (ledger.credit > 0) ledger.credit = allocate(site, ledger, ledger.credit);
  updatePaidThru(site, ledger);
}

/** Paid through the end of the last period whose charges (and all earlier ones) are fully paid. */
export function updatePaidThru(site: SiteRecord, ledger: LedgerRecord): void {
  const periods = new Map<string, ChargeRecord[]>();
  for (const c of ledgerCharges(site, ledger.LedgerID)) {
    if (c.sChgCategory !== "Rent") continue;
    const list = periods.get(c.start) ?? [];
    list.push(c);
    periods.set(c.start, list);
  }
  let paidThru = ledger.paidThru;
  const starts = [...periods.keys()].sort();
  for (const start of starts) {
    const rows = ledgerCharges(site, ledger.LedgerID).filter((c) => c.start <= start && c.end >= start);
    if (rows.some((c) => c.paid < chargeTotal(c))) break;
    const end = periods.get(start)!.reduce((m, c) => (c.end > m ? c.end : m), "");
    if (end > paidThru) paidThru = end;
  }
  ledger.paidThru = paidThru;
}

interface PaymentInput {
  amount: number;
  at: string;
  description: string;
  payMethod: number;
  cardTypeId: number | null;
  last4: string | null;
  checkNumber: string | null;
  testMode: boolean;
  source: number;
}

/** Records a payment: pays open charges oldest first; what is left posts whole future periods, then stays as credit. */
export function recordPayment(site: SiteRecord, ledger: LedgerRecord, p: PaymentInput): PaymentRecord {
  site.seq.receipt += 1;
  const rec: PaymentRecord = {
    Receipt: site.seq.receipt,
    LedgerID: ledger.LedgerID,
    TenantID: ledger.TenantID,
    at: p.at,
    amount: p.amount,
    description: p.description,
    payMethod: p.payMethod,
    cardTypeId: p.cardTypeId,
    last4: p.last4,
    checkNumber: p.checkNumber,
    testMode: p.testMode,
    source: p.source,
  };
  site.payments.push(rec);
  let left = allocate(site, ledger, p.amount);
  // Whole future periods while the money covers the next one (a month the plan makes free is left to the billing run).
  for (let perPeriod = periodTotal(site, ledger); perPeriod > 0 && left >= perPeriod; perPeriod = periodTotal(site, ledger)) {
    const { start, end } = nextPeriod(site, ledger);
    for (const c of periodCharges(site, ledger)) postCharge(site, ledger, c, start, end);
    ledger.chargedThru = end;
    left = allocate(site, ledger, left);
  }
  ledger.credit += left;
  updatePaidThru(site, ledger);
  return rec;
}

/** Future periods' charges for a prepayment quote (not posted): the plan's discount on the months it covers. */
export function prepaymentCharges(site: SiteRecord, ledger: LedgerRecord, months: number): PeriodCharge[] {
  const out: PeriodCharge[] = [];
  const next = rentMonthsPosted(site, ledger) + 1;
  for (let i = 0; i < months; i++) out.push(...periodCharges(site, ledger, next + i));
  return out;
}
