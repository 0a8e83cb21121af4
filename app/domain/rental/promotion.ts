/**
 * A promotion that applies at rent time (issue 40, decisions 600–603): what it gives, the one
 * discount it makes, and the one wording every page, the lease and the e-mails show.
 *
 * - At a local location it is an amount or a percentage off the monthly rent for a number of months,
 *   computed here (integer cents; a percentage rounded half up once, on the month's rent).
 * - At a SiteLink location it is one of the site's own discount plans (ConcessionID): SiteLink applies
 *   it; its terms (read from DiscountPlansRetrieve) give the wording and the discount we expect.
 *
 * The text shown is never typed: it is `promotionWording(terms)`, so it says what is applied.
 * Pure: no I/O.
 */
import { formatWholeDollars, percentOf } from "../shared/money";

export const PROMOTION_KINDS = ["none", "amount", "percent", "plan"] as const;

/** What a promotion gives, off each of the first `months` months' rent. */
export type PromotionTerms = { kind: "amount"; amount: number; months: number } | { kind: "percent"; percent: number; months: number };

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

/** The promotion a rental applies: its terms, its wording and, at SiteLink, the plan. */
export interface AppliedPromotion {
  terms: PromotionTerms;
  /** SiteLink's ConcessionID; null at a local location. */
  planId: number | null;
  wording: string;
}

function monthsText(months: number): string {
  return months === 1 ? "the first month" : `the first ${months} months`;
}

/**
 * The promotion's words, e.g. "First month free", "First 2 months free", "50% off the first month",
 * "$20 off each of the first 3 months". The same function words the card, the review step, the
 * lease, the receipt and the e-mails.
 */
export function promotionWording(terms: PromotionTerms): string {
  const { months } = terms;
  if (terms.kind === "percent" && terms.percent >= 100) {
    return months === 1 ? "First month free" : `First ${months} months free`;
  }
  if (terms.kind === "percent") return `${trimPercent(terms.percent)}% off ${monthsText(months)}`;
  const off = formatWholeDollars(terms.amount);
  return months === 1 ? `${off} off the first month` : `${off} off each of the first ${months} months`;
}

function trimPercent(p: number): string {
  return String(Math.round(p * 100) / 100);
}

/** The discount on one month's rent (cents): never more than the rent; a percentage half up, once. */
export function monthlyPromotionDiscount(terms: PromotionTerms, monthlyRate: number): number {
  if (!Number.isInteger(monthlyRate) || monthlyRate < 0) throw new Error(`Bad monthly rate: ${monthlyRate}`);
  const raw = terms.kind === "amount" ? terms.amount : percentOf(monthlyRate, Math.min(100, terms.percent));
  return Math.max(0, Math.min(monthlyRate, raw));
}

/** The terms of a stored promotion, or null when it gives nothing. */
export function promotionTerms(p: Pick<PromotionColumns, "promotionKind" | "promotionAmount" | "promotionPercent" | "promotionMonths">): PromotionTerms | null {
  const months = Math.max(1, Math.min(12, Math.trunc(p.promotionMonths || 1)));
  if (p.promotionKind === "amount" && p.promotionAmount > 0) return { kind: "amount", amount: p.promotionAmount, months };
  if (p.promotionKind === "percent" && p.promotionPercent > 0) return { kind: "percent", percent: p.promotionPercent, months };
  // A SiteLink plan keeps the terms SiteLink gave for it (an amount or a percentage).
  if (p.promotionKind === "plan") {
    if (p.promotionPercent > 0) return { kind: "percent", percent: p.promotionPercent, months };
    if (p.promotionAmount > 0) return { kind: "amount", amount: p.promotionAmount, months };
  }
  return null;
}

/** Whether a date ("YYYY-MM-DD", the location's calendar) falls in the promotion's dates (both ends included). */
function isWithinPromotionDates(p: Pick<PromotionColumns, "promotionStartsOn" | "promotionEndsOn">, date: string): boolean {
  if (p.promotionStartsOn && date < p.promotionStartsOn) return false;
  if (p.promotionEndsOn && date > p.promotionEndsOn) return false;
  return true;
}

/**
 * The promotion a rental moving in on `moveInDate` gets, or null: it gives something, it is in its
 * dates, and at a SiteLink location (`software`) it names a plan, at a local one it does not.
 */
export function promotionOn(p: PromotionColumns, moveInDate: string, software: "local" | "sitelink"): AppliedPromotion | null {
  if (p.promotionKind === "none" || !p.promotionKind) return null;
  if (software === "sitelink" ? p.promotionKind !== "plan" || p.promotionPlanId == null : p.promotionKind === "plan") return null;
  const terms = promotionTerms(p);
  if (!terms || !isWithinPromotionDates(p, moveInDate)) return null;
  return { terms, planId: software === "sitelink" ? p.promotionPlanId : null, wording: promotionWording(terms) };
}

/**
 * The text shown with the unit type on `today`: the applied promotion's wording while it is in its
 * dates; for a type without one, the display text it had before promotions applied (decision 603).
 */
export function shownPromotion(p: PromotionColumns & { promotion: string }, today: string, software: "local" | "sitelink"): string {
  if (!p.promotionKind || p.promotionKind === "none") return p.promotion.trim();
  return promotionOn(p, today, software)?.wording ?? "";
}

/**
 * The console's rule between the fields (at save and at publish): what it gives is complete, the
 * dates are in order, and the text is the wording of what it gives (never something else).
 */
export function promotionProblems(v: Record<string, unknown>): Record<string, string> {
  const errors: Record<string, string> = {};
  const kind = String(v.promotionKind ?? "none");
  if (kind === "none") return errors;
  const num = (x: unknown) => (typeof x === "number" ? x : 0);
  if (kind === "amount" && num(v.promotionAmount) <= 0) errors.promotionAmount = "Enter the amount off each month, in cents (2000 is $20.00).";
  if (kind === "percent" && (num(v.promotionPercent) <= 0 || num(v.promotionPercent) > 100)) errors.promotionPercent = "Enter a percentage from 1 to 100.";
  if (kind === "plan" && v.promotionPlanId == null) errors.promotionPlanId = "Choose one of the site's discount plans.";
  if (kind === "plan" && !errors.promotionPlanId && num(v.promotionPercent) <= 0 && num(v.promotionAmount) <= 0)
    errors.promotionPlanId = "This discount plan gives no amount or percentage we can show: choose another.";
  const starts = typeof v.promotionStartsOn === "string" ? v.promotionStartsOn : null;
  const ends = typeof v.promotionEndsOn === "string" ? v.promotionEndsOn : null;
  if (starts && ends && ends < starts) errors.promotionEndsOn = `The end date must be on or after the start date (${starts}).`;
  const terms = promotionTerms({
    promotionKind: kind,
    promotionAmount: num(v.promotionAmount),
    promotionPercent: num(v.promotionPercent),
    promotionMonths: num(v.promotionMonths),
  });
  if (terms && typeof v.promotion === "string" && v.promotion.trim() !== "" && v.promotion.trim() !== promotionWording(terms)) {
    errors.promotion = `The promotion's text comes from what it gives («${promotionWording(terms)}»): leave this empty.`;
  }
  return errors;
}

/** The line of a promotion on the quote, the lease, the receipt and the ledger: "Promotion: First month free". */
export function promotionLineWording(wording: string): string {
  return `Promotion: ${wording}`;
}
