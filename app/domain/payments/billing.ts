/**
 * Anniversary billing (docs/decisions/040-billing-model.md, 053-billing-run.md). Pure: dates are
 * "YYYY-MM-DD" calendar dates in the location's time zone, money is integer cents.
 *
 * Period k of a lease (k = 0 is the move-in month) runs from addMonths(moveIn, k) to
 * addMonths(moveIn, k + 1) − 1 day; date-fns clamps to the month's end (move-in Jan 31 → Feb 28,
 * then Mar 31). Rent, the protection premium and recurring charges of period k ≥ 1 are posted on its
 * first day with the posting keys "rent:YYYY-MM-DD", "insurance:YYYY-MM-DD",
 * "charge:<chargeKey>:YYYY-MM-DD" (see `chargePostingKey`), so posting twice posts once.
 */
import { promotionLineWording } from "../rental/promotion";
import { addDaysIso, addMonthsIso, calendarMonthsBetween, type IsoDate } from "../shared/calendar";
import { taxedLine } from "../shared/money";
import { periodChargeWording, PROTECTION_NAME, RENT_NAME } from "./charge-wording";


/** First day of period k. */
export function periodStart(moveInDate: IsoDate, k: number): IsoDate {
  return addMonthsIso(moveInDate, k);
}
/** Last day of period k. */
export function periodEnd(moveInDate: IsoDate, k: number): IsoDate {
  return addDaysIso(addMonthsIso(moveInDate, k + 1), -1);
}
/** The next due date: the day after the paid-through date (the paid-through arithmetic's one home, decision 215). */
export function nextDueAfter(paidThroughDate: IsoDate): IsoDate {
  return addDaysIso(paidThroughDate, 1);
}
/** The paid-through date after `periods` more whole billing months are paid (from the next due date). */
export function paidThroughAfter(paidThroughDate: IsoDate, periods: number): IsoDate {
  return periods === 0 ? paidThroughDate : periodEnd(nextDueAfter(paidThroughDate), periods - 1);
}
/** The period a date falls in (0 for the move-in month; −1 before move-in). */
export function periodIndexOf(moveInDate: IsoDate, date: IsoDate): number {
  let k = calendarMonthsBetween(moveInDate, date);
  // Clamped month ends and days before the anniversary day fall in the previous period.
  while (k > 0 && periodStart(moveInDate, k) > date) k--;
  while (periodStart(moveInDate, k + 1) <= date) k++;
  return date < moveInDate ? -1 : k;
}

/**
 * An extra charge's id in ledger posting keys: its sitelink_id, else its name in lowercase with
 * dashes ("Admin fee" → "admin-fee"). The rental and the monthly billing run both build keys here, so
 * the run finds the move-in line of a recurring charge and bills it every month.
 */
export function chargeKey(charge: { sitelinkId: string | number | null; name: string }): string {
  return charge.sitelinkId !== null && charge.sitelinkId !== "" ? String(charge.sitelinkId) : charge.name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
}

/** The posting key of an extra charge's line for the period starting on `date`. */
export function chargePostingKey(key: string, date: IsoDate): string {
  return `charge:${key}:${date}`;
}

export interface RecurringCharge {
  /** The charge's id in its posting keys (`chargeKey`). */
  key: string;
  name: string;
  amount: number;
  tax1Rate: number;
  tax2Rate: number;
}

export interface LeaseTerms {
  moveInDate: IsoDate;
  /** Monthly rent in cents. */
  monthlyRate: number;
  /** Monthly protection plan premium in cents (0: none). */
  insurancePremium: number;
  recurringCharges: RecurringCharge[];
  /** The promotion the lease moved in with (issue 40): cents off the rent of each of its first `months` months. */
  promotion?: { monthlyDiscount: number; months: number; wording: string } | null;
}

interface PeriodCharge {
  postingKey: string;
  description: string;
  amount: number;
  tax: number;
  periodStart: IsoDate;
  periodEnd: IsoDate;
  /** The date the charge is posted on: the period's first day. */
  entryDate: IsoDate;
}

/** What period k (≥ 1) costs, one line per charge, taxes rounded half up per line. */
export function chargesForPeriod(terms: LeaseTerms, k: number): PeriodCharge[] {
  if (k < 1) throw new Error("Period 0 is charged at move-in");
  const start = periodStart(terms.moveInDate, k);
  const end = periodEnd(terms.moveInDate, k);
  const base = { periodStart: start, periodEnd: end, entryDate: start };
  const lines: PeriodCharge[] = [{ ...base, postingKey: `rent:${start}`, description: periodChargeWording(RENT_NAME, start, end), amount: terms.monthlyRate, tax: 0 }];
  // Period k is the promotion's (k+1)th month: discounted while k < months (period 0 was at move-in).
  const promo = terms.promotion;
  if (promo && k < promo.months && promo.monthlyDiscount > 0) {
    const off = Math.min(promo.monthlyDiscount, terms.monthlyRate);
    lines.push({ ...base, postingKey: `promotion:${start}`, description: promotionLineWording(promo.wording), amount: -off, tax: 0 });
  }
  if (terms.insurancePremium > 0) {
    lines.push({ ...base, postingKey: `insurance:${start}`, description: periodChargeWording(PROTECTION_NAME, start, end), amount: terms.insurancePremium, tax: 0 });
  }
  for (const c of terms.recurringCharges) {
    const line = taxedLine(c.name, c.amount, c.tax1Rate, c.tax2Rate);
    lines.push({ ...base, postingKey: chargePostingKey(c.key, start), description: periodChargeWording(c.name, start, end), amount: line.amount, tax: line.tax });
  }
  return lines;
}

export function lineTotal(lines: Array<{ amount: number; tax: number }>): number {
  return lines.reduce((sum, l) => sum + l.amount + l.tax, 0);
}

/**
 * The periods a billing run on `runDate` posts: every period after the last one posted that has
 * started by `runDate` (so a missed day is caught up), and none starting after a move-out date.
 */
export function periodsToPost(
  terms: LeaseTerms,
  input: { lastPostedPeriod: number; runDate: IsoDate; moveOutDate?: IsoDate | null },
): number[] {
  const out: number[] = [];
  for (let k = Math.max(1, input.lastPostedPeriod + 1); ; k++) {
    const start = periodStart(terms.moveInDate, k);
    if (start > input.runDate) break;
    if (input.moveOutDate && start > input.moveOutDate) break;
    out.push(k);
    if (out.length > 240) throw new Error("Too many periods to post");
  }
  return out;
}

export interface LedgerLine {
  id: number;
  kind: "charge" | "payment" | "credit";
  amount: number;
  tax: number;
  entryDate: IsoDate;
  periodStart: IsoDate | null;
}

/** Σ(charge + tax) − Σ(payments + credits). */
export function balanceOf(lines: Array<Pick<LedgerLine, "kind" | "amount" | "tax">>): number {
  return lines.reduce((sum, l) => sum + (l.kind === "charge" ? l.amount + l.tax : -l.amount), 0);
}

/** The ledger in date order with the balance after each line. */
export function withRunningBalance<T extends LedgerLine>(lines: T[]): Array<T & { runningBalance: number }> {
  const sorted = [...lines].sort((a, b) => (a.entryDate === b.entryDate ? a.id - b.id : a.entryDate < b.entryDate ? -1 : 1));
  let running = 0;
  return sorted.map((l) => {
    running += l.kind === "charge" ? l.amount + l.tax : -l.amount;
    return { ...l, runningBalance: running };
  });
}

/** The highest period with a charge posted (−1 when none). */
export function lastPostedPeriod(moveInDate: IsoDate, lines: LedgerLine[]): number {
  let last = -1;
  for (const l of lines) {
    if (l.kind !== "charge") continue;
    last = Math.max(last, periodIndexOf(moveInDate, l.periodStart ?? l.entryDate));
  }
  return last;
}

/**
 * Paid-through date: the end of the last period whose charges, with every earlier period's, are
 * covered by what was paid. Paying advances it month by month for fully paid months only; a credit
 * beyond the posted periods waits for the next posting.
 */
export function paidThrough(moveInDate: IsoDate, lines: LedgerLine[]): { paidThroughDate: IsoDate; nextDueDate: IsoDate } {
  const paid = lines.reduce((s, l) => s + (l.kind === "charge" ? 0 : l.amount), 0);
  const byPeriod = new Map<number, number>();
  for (const l of lines) {
    if (l.kind !== "charge") continue;
    const k = Math.max(0, periodIndexOf(moveInDate, l.periodStart ?? l.entryDate));
    byPeriod.set(k, (byPeriod.get(k) ?? 0) + l.amount + l.tax);
  }
  let covered = -1;
  let cumulative = 0;
  for (const k of [...byPeriod.keys()].sort((a, b) => a - b)) {
    cumulative += byPeriod.get(k)!;
    if (cumulative > paid) break;
    covered = k;
  }
  const paidThroughDate = covered < 0 ? addDaysIso(moveInDate, -1) : periodEnd(moveInDate, covered);
  return { paidThroughDate, nextDueDate: nextDueAfter(paidThroughDate) };
}

interface PrepayQuote {
  months: number;
  /** Balance due today (negative: a credit), paid as part of the prepayment. */
  balance: number;
  lines: PeriodCharge[];
  total: number;
  newPaidThroughDate: IsoDate;
}

/**
 * Paying `months` ahead: the balance due now plus every charge of the next `months` periods not yet
 * posted (rent, protection plan, recurring charges with their taxes). The new paid-through date is
 * the end of the last of those periods.
 */
export function prepayQuote(terms: LeaseTerms, input: { lastPostedPeriod: number; balance: number; months: number }): PrepayQuote {
  if (!Number.isInteger(input.months) || input.months < 1) throw new Error("months must be a whole number ≥ 1");
  const first = Math.max(1, input.lastPostedPeriod + 1);
  const lines: PeriodCharge[] = [];
  for (let k = first; k < first + input.months; k++) lines.push(...chargesForPeriod(terms, k));
  const total = input.balance + lineTotal(lines);
  return {
    months: input.months,
    balance: input.balance,
    lines,
    total,
    newPaidThroughDate: periodEnd(terms.moveInDate, first + input.months - 1),
  };
}
