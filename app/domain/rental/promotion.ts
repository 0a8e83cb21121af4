/**
 * A promotion that applies at rent time (issue 40, decisions 600–603, 672–674): what it gives, the one
 * discount it makes, and the one wording every page, the lease and the e-mails show.
 *
 * - At a local location it is an amount or a percentage off the monthly rent of its first months,
 *   computed here (integer cents; a percentage rounded half up once, on the month's rent).
 * - At a SiteLink location it is one of the site's own discount plans (ConcessionID): SiteLink applies
 *   it. What it gives is read from SiteLink (DiscountPlansRetrieve, decision 672): an amount or a
 *   percentage (perhaps capped), from which month of the rental, for how many months. The text shown
 *   is derived from the plan as last read, never from what it gave when the promotion was saved
 *   (decision 673); a plan SiteLink no longer lists, or whose terms we cannot word for certain, gives
 *   nothing and shows nothing.
 *
 * The text shown is never typed (decision 674): it is `promotionWording(terms)`, so it says what is
 * applied. Pure: no I/O.
 */
import { formatWholeDollars, percentOf } from "../shared/money";

export const PROMOTION_KINDS = ["none", "amount", "percent", "plan"] as const;

/**
 * What a promotion gives: an amount or a percentage off the rent of `months` months of the rental,
 * from month `fromMonth` (1, the default: the month moved in); a percentage may be capped at
 * `maxAmount` cents a month (SiteLink's dcMaxAmountOff; absent or 0: no cap).
 */
export type PromotionTerms =
  | { kind: "amount"; amount: number; months: number; fromMonth?: number }
  | { kind: "percent"; percent: number; months: number; fromMonth?: number; maxAmount?: number };

/** A unit type's promotion as stored (unit_types.promotion_*). */
export interface PromotionColumns {
  promotionKind: string;
  promotionAmount: number;
  promotionPercent: number;
  promotionMonths: number;
  promotionPlanId: number | null;
  promotionStartsOn: string | null;
  promotionEndsOn: string | null;
}

/**
 * A SiteLink discount plan as last read (the adapter's mirror, decision 673): still listed by SiteLink
 * or not, and what it gives, or null with the reason when we cannot word it for certain.
 */
export interface PlanReading {
  name: string;
  listed: boolean;
  terms: PromotionTerms | null;
  notOffered: string | null;
}

/** The promotion a rental applies: its terms, its wording and, at SiteLink, the plan. */
export interface AppliedPromotion {
  terms: PromotionTerms;
  /** SiteLink's ConcessionID; null at a local location. */
  planId: number | null;
  wording: string;
}

const ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth"];

/** The promotion's first month of the rental (1: the month moved in). */
function promotionFromMonth(terms: PromotionTerms): number {
  return Math.max(1, Math.trunc(terms.fromMonth ?? 1));
}

/** The promotion's last month of the rental. */
function promotionLastMonth(terms: PromotionTerms): number {
  return promotionFromMonth(terms) + Math.max(1, terms.months) - 1;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** "months 2 and 3", "months 2 to 5", "month 4". */
function monthRange(from: number, to: number): string {
  if (from === to) return `month ${from}`;
  return to === from + 1 ? `months ${from} and ${to}` : `months ${from} to ${to}`;
}

/**
 * The months a promotion covers, as a phrase: `the` ("the first month", "the first 3 months", "the
 * second month", "months 2 to 4") and `each` ("each of the first 3 months", "each of months 2 to 4").
 */
function monthsPhrase(terms: PromotionTerms): { the: string; each: string } {
  const from = promotionFromMonth(terms);
  const months = Math.max(1, terms.months);
  if (months === 1) {
    const one = from <= ORDINALS.length ? `the ${ORDINALS[from - 1]} month` : `month ${from}`;
    return { the: one, each: one };
  }
  if (from === 1) return { the: `the first ${months} months`, each: `each of the first ${months} months` };
  const range = monthRange(from, from + months - 1);
  return { the: range, each: `each of ${range}` };
}

/**
 * The promotion's words, e.g. "First month free", "First 2 months free", "Second month free",
 * "50% off the first month", "50% off the first month (up to $75)", "$20 off each of the first 3
 * months", "$20 off each of months 2 to 4". The same function words the card, the review step, the
 * lease, the receipt and the e-mails.
 */
export function promotionWording(terms: PromotionTerms): string {
  const { the, each } = monthsPhrase(terms);
  if (terms.kind === "percent") {
    const cap = terms.maxAmount && terms.maxAmount > 0 ? terms.maxAmount : 0;
    if (terms.percent >= 100 && !cap) {
      const from = promotionFromMonth(terms);
      if (from === 1) return terms.months === 1 ? "First month free" : `First ${terms.months} months free`;
      return `${capitalise(the.replace(/^the /, ""))} free`;
    }
    const capText = cap ? ` (up to ${formatWholeDollars(cap)}${terms.months > 1 ? " a month" : ""})` : "";
    return `${trimPercent(Math.min(100, terms.percent))}% off ${the}${capText}`;
  }
  return `${formatWholeDollars(terms.amount)} off ${each}`;
}

function trimPercent(p: number): string {
  return String(Math.round(p * 100) / 100);
}

/** The discount on one month's rent (cents): never more than the rent (nor the cap); a percentage half up, once. */
export function monthlyPromotionDiscount(terms: PromotionTerms, monthlyRate: number): number {
  if (!Number.isInteger(monthlyRate) || monthlyRate < 0) throw new Error(`Bad monthly rate: ${monthlyRate}`);
  let raw = terms.kind === "amount" ? terms.amount : percentOf(monthlyRate, Math.min(100, terms.percent));
  if (terms.kind === "percent" && terms.maxAmount && terms.maxAmount > 0) raw = Math.min(raw, terms.maxAmount);
  return Math.max(0, Math.min(monthlyRate, raw));
}

/** The discount on the rent of month `month` of the rental (1: the month moved in): 0 outside the promotion's months. */
export function promotionDiscountInMonth(terms: PromotionTerms, month: number, rent: number): number {
  if (month < promotionFromMonth(terms) || month > promotionLastMonth(terms)) return 0;
  return monthlyPromotionDiscount(terms, rent);
}

/**
 * What the rental's later months get, said once where the charges of today are listed (the review
 * step, the lease, the receipt): "The promotion (50% off the first 3 months) also applies to the rent of
 * months 2 and 3, when they are billed." Empty when the charges of today (`monthsCharged` months of
 * rent) cover every month of it.
 */
export function promotionLaterMonthsText(terms: PromotionTerms, wording: string, monthsCharged: number): string {
  const from = Math.max(promotionFromMonth(terms), monthsCharged + 1);
  const to = promotionLastMonth(terms);
  if (from > to) return "";
  const also = promotionFromMonth(terms) <= monthsCharged ? "also applies" : "applies";
  return `The promotion (${wording}) ${also} to the rent of ${monthRange(from, to)}, when ${from === to ? "it is" : "they are"} billed.`;
}

/** The terms of a stored local promotion, or null when it gives nothing. */
export function promotionTerms(p: Pick<PromotionColumns, "promotionKind" | "promotionAmount" | "promotionPercent" | "promotionMonths">): PromotionTerms | null {
  const months = Math.max(1, Math.min(12, Math.trunc(p.promotionMonths || 1)));
  if (p.promotionKind === "amount" && p.promotionAmount > 0) return { kind: "amount", amount: p.promotionAmount, months };
  if (p.promotionKind === "percent" && p.promotionPercent > 0) return { kind: "percent", percent: p.promotionPercent, months };
  return null;
}

/** Whether a date ("YYYY-MM-DD", the location's calendar) falls in the promotion's dates (both ends included). */
export function isWithinPromotionDates(p: Pick<PromotionColumns, "promotionStartsOn" | "promotionEndsOn">, date: string): boolean {
  if (p.promotionStartsOn && date < p.promotionStartsOn) return false;
  if (p.promotionEndsOn && date > p.promotionEndsOn) return false;
  return true;
}

/**
 * The promotion a rental moving in on `moveInDate` gets, or null: it gives something, it is in its
 * dates, and at a SiteLink location (`software`) it names a plan that SiteLink lists now and whose
 * terms we can word (`plan`, the plan as last read); at a local one it is an amount or a percentage.
 */
export function promotionOn(p: PromotionColumns, moveInDate: string, software: "local" | "sitelink", plan: PlanReading | null = null): AppliedPromotion | null {
  if (p.promotionKind === "none" || !p.promotionKind) return null;
  if (!isWithinPromotionDates(p, moveInDate)) return null;
  if (software === "sitelink") {
    if (p.promotionKind !== "plan" || p.promotionPlanId == null || !plan?.listed || !plan.terms) return null;
    return { terms: plan.terms, planId: p.promotionPlanId, wording: promotionWording(plan.terms) };
  }
  if (p.promotionKind === "plan") return null;
  const terms = promotionTerms(p);
  return terms ? { terms, planId: null, wording: promotionWording(terms) } : null;
}

/**
 * The text shown with the unit type on `today`: the applied promotion's wording while it is in its
 * dates, nothing otherwise (decision 674: only a promotion that applies shows text).
 */
export function shownPromotion(p: PromotionColumns, today: string, software: "local" | "sitelink", plan: PlanReading | null = null): string {
  return promotionOn(p, today, software, plan)?.wording ?? "";
}

/**
 * What the office must be told about a published SiteLink promotion (decision 673), or null when the
 * plan still gives what it gave when the promotion was saved (`promotionPlanWording`).
 */
export function planAttention(p: { promotionPlanId: number; promotionPlanWording: string }, plan: PlanReading | null): string | null {
  const id = p.promotionPlanId;
  const named = plan?.name ? ` (${plan.name})` : "";
  if (!plan || !plan.listed) {
    return `SiteLink no longer lists discount plan ${id}${named}: the promotion is not shown and not applied. Choose another plan, or remove the promotion.`;
  }
  if (!plan.terms) {
    return `SiteLink's discount plan ${id}${named} now gives something the website cannot word for certain (${plan.notOffered ?? "unknown terms"}): the promotion is not shown and not applied. Choose another plan, or remove the promotion.`;
  }
  const now = promotionWording(plan.terms);
  if (now === p.promotionPlanWording) return null;
  return `SiteLink's discount plan ${id}${named} now gives \u201c${now}\u201d; it gave \u201c${p.promotionPlanWording || "something else"}\u201d when the promotion was saved. The website now shows \u201c${now}\u201d, what SiteLink applies. Save the promotion again to confirm it.`;
}

/**
 * The console's rule between the fields (at save and at publish): what it gives is complete, and the
 * dates are in order.
 */
export function promotionProblems(v: Record<string, unknown>): Record<string, string> {
  const errors: Record<string, string> = {};
  const kind = String(v.promotionKind ?? "none");
  if (kind === "none") return errors;
  const num = (x: unknown) => (typeof x === "number" ? x : 0);
  if (kind === "amount" && num(v.promotionAmount) <= 0) errors.promotionAmount = "Enter the amount off each month in dollars, such as 20 or 12.50.";
  if (kind === "percent" && (num(v.promotionPercent) <= 0 || num(v.promotionPercent) > 100)) errors.promotionPercent = "Enter a percentage from 1 to 100.";
  if (kind === "plan" && v.promotionPlanId == null) errors.promotionPlanId = "Choose one of the site's discount plans.";
  if (kind === "plan" && !errors.promotionPlanId && (typeof v.promotionPlanWording !== "string" || v.promotionPlanWording.trim() === ""))
    errors.promotionPlanId = "This discount plan gives nothing the website can word for certain: choose another.";
  const starts = typeof v.promotionStartsOn === "string" ? v.promotionStartsOn : null;
  const ends = typeof v.promotionEndsOn === "string" ? v.promotionEndsOn : null;
  if (starts && ends && ends < starts) errors.promotionEndsOn = `The end date must be on or after the start date (${starts}).`;
  return errors;
}

/** The line of a promotion on the quote, the lease, the receipt and the ledger: "Promotion: First month free". */
export function promotionLineWording(wording: string): string {
  return `Promotion: ${wording}`;
}
