/**
 * SiteLink's move-in quote (`MoveInCostRetrieveWithDiscount_v4` rows) as our MoveInQuote, so the
 * rental shows exactly what SiteLink will charge: `MoveInWithDiscount_v7` refuses any amount that
 * differs by a cent (-11), and SiteLink's proration, fees and tax rounding are its own
 * (study §3.3, §4, LK-R). Pure: rows in, quote out.
 *
 * Required payment = Σ dcTotal over the rows with bMoveInRequired (dcTotal already includes tax and
 * is net of the discount; MC-C). Each row becomes one line whose amount + tax = its dcTotal exactly
 * (tax = dcTotal − amount + discount), and a discount, when the row has one, its own negative line.
 */
import { nextDueAfter } from "~/domain/payments/billing";
import { percentOf } from "~/domain/shared/money";
import type { MoveInQuote, QuoteLine, QuoteLineKind } from "~/domain/rental/move-in-quote";
import { firstMonthProtectionWording, firstMonthRentWording, periodChargeWording, PROTECTION_NAME, RENT_NAME } from "~/domain/payments/charge-wording";
import { centsToDecimal, isTrue, optionalCents } from "./money";
import { monthlyPromotionDiscount, promotionDiscountInMonth, promotionLaterMonthsText, promotionLineWording, type AppliedPromotion } from "~/domain/rental/promotion";
import { logger } from "~/platform/logger.server";

type Row = Record<string, string | undefined>;

/** "117.6500", "95", "-3.5" -> cents by string arithmetic (./money); an absent column is 0. */
export const decimalToCents = (value: string | undefined | null): number => optionalCents(value);
export { centsToDecimal, isTrue };

/** The calendar date of a SiteLink datetime: its first 10 characters, never shifted through Date. */
export const dateOf = (v: string | undefined) => (v && /^\d{4}-\d{2}-\d{2}/.test(v) ? v.slice(0, 10) : null);

function kindOf(description: string): Exclude<QuoteLineKind, "discount"> {
  if (/\brent\b/i.test(description)) return "rent";
  if (/insur|protect|coverage/i.test(description)) return "insurance";
  return "charge";
}

function slug(s: string) {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "charge"
  );
}

interface SiteLinkQuoteContext {
  moveInDate: string;
  standardRate: number;
  /** The rent the lease carries (web or standard rate, what ChannelType asked for). */
  monthlyRate: number;
  insurancePlanId: string | null;
  insurancePremium: number;
  /**
   * The site's rent tax rates in percent (SiteInformation's dcTax1Rate_Rent and dcTax2Rate_Rent), for
   * the monthly figure; null when SiteLink did not give them (then they are inferred, see below).
   */
  rentTaxRates?: RentTaxRates | null;
}

/** A site's rent tax rates, in percent (7 for 7 %); SiteLink taxes each on its own, half up (evidence §4.4). */
export interface RentTaxRates {
  tax1: number;
  tax2: number;
}

/**
 * The tax of one month's rent at the site's rates: each rate on its own, half up, as SiteLink taxes a
 * rent line (evidence §4.4; the simulator's moveInQuote does the same).
 */
function monthlyRentTax(monthlyRate: number, rates: RentTaxRates): number {
  return percentOf(monthlyRate, rates.tax1) + percentOf(monthlyRate, rates.tax2);
}

/**
 * Only when SiteLink gave no site rate: the rate of the rent line with the largest taxed base (its
 * amount less its discount, since SiteLink taxes the discounted rent), which a prorated or discounted
 * first line makes approximate. Null when there is no rent line with a base.
 */
function inferredRentTaxRate(lines: QuoteLine[]): number | null {
  const bases = lines
    .filter((l) => l.kind === "rent" && l.amount > 0)
    .map((l) => {
      const discount = -(lines.find((d) => d.postingKey === `discount:${l.postingKey}`)?.amount ?? 0);
      return { base: l.amount - discount, tax: l.tax };
    })
    .filter((b) => b.base > 0)
    .sort((a, b) => b.base - a.base);
  const top = bases[0];
  return top ? (top.tax * 100) / top.base : null;
}

/**
 * The quote of the cost rows. Throws when SiteLink answered no required row (that is an error of the
 * site's configuration, not something to show a visitor).
 */
export function quoteFromCostRows(rows: Row[], ctx: SiteLinkQuoteContext): MoveInQuote {
  const required = rows.filter((r) => isTrue(r.bMoveInRequired));
  if (required.length === 0) throw new Error("SiteLink's move-in cost has no required charge");
  const lines: QuoteLine[] = [];
  const seen = new Map<string, number>();
  let paidThroughDate: string | null = null;
  for (const r of required) {
    const description = (r.ChargeDescription ?? "").trim() || "Charge";
    const kind = kindOf(description);
    const amount = decimalToCents(r.ChargeAmount);
    const discount = decimalToCents(r.dcDiscount);
    const total = decimalToCents(r.dcTotal);
    const start = dateOf(r.StartDate);
    const end = dateOf(r.EndDate);
    if (kind === "rent" && end && (!paidThroughDate || end > paidThroughDate)) paidThroughDate = end;
    const base = `${kind === "charge" ? `charge:${slug(description)}` : kind}:${start ?? ctx.moveInDate}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const postingKey = n === 1 ? base : `${base}:${n}`;
    lines.push({
      kind,
      description,
      amount,
      tax: total - amount + discount,
      total: total + discount,
      postingKey,
      periodStart: start,
      periodEnd: end,
      isRecurring: kind !== "charge",
    });
    if (discount !== 0) {
      lines.push({
        kind: "discount",
        description: `Discount (${description})`,
        amount: -discount,
        tax: 0,
        total: -discount,
        postingKey: `discount:${postingKey}`,
        periodStart: start,
        periodEnd: end,
        isRecurring: false,
      });
    }
  }
  const subtotal = lines.reduce((s, l) => s + l.amount, 0);
  const tax = lines.reduce((s, l) => s + l.tax, 0);
  const total = required.reduce((s, r) => s + decimalToCents(r.dcTotal), 0);
  if (subtotal + tax !== total) throw new Error("SiteLink quote lines do not add up");
  const through = paidThroughDate ?? ctx.moveInDate;
  const rates = ctx.rentTaxRates ?? { tax1: inferredRentTaxRate(lines) ?? 0, tax2: 0 };
  return {
    moveInDate: ctx.moveInDate,
    paidThroughDate: through,
    nextDueDate: nextDueAfter(through),
    monthlyRate: ctx.monthlyRate,
    standardRate: ctx.standardRate,
    insurancePlanId: ctx.insurancePlanId,
    insurancePremium: ctx.insurancePremium,
    lines,
    subtotal,
    tax,
    total,
    // The month's rent taxed at the site's own rates (never a rate inferred from a discounted or
    // prorated first line when SiteLink gave the site's), each half up as SiteLink rounds (evidence §4.4).
    monthlyTotal: ctx.monthlyRate + monthlyRentTax(ctx.monthlyRate, rates) + ctx.insurancePremium,
  };
}

/** The amount SiteLink requires at move-in: Σ dcTotal of the required rows, in cents. */
export function requiredTotal(rows: Row[]): number {
  return rows.filter((r) => isTrue(r.bMoveInRequired)).reduce((s, r) => s + decimalToCents(r.dcTotal), 0);
}

/**
 * The quote in the site's own wording (decision 202). SiteLink names its move-in rows "Rent",
 * "Second Monthly Rent Fee" and "Insurance"; the review step, the lease and the receipt say what a
 * local move-in says (app/domain/payments/charge-wording.ts): the first rent row is the first month's rent with
 * its dates, a later one the month's rent, the first protection row names the plan's coverage. Other
 * rows (the lock fee, an admin fee) keep the names the site gave them. Amounts are not touched.
 */
export function inSiteWording(quote: MoveInQuote, protectionCoverage: number | null): MoveInQuote {
  const renamed = new Map<string, string>();
  const byStart = (a: QuoteLine, b: QuoteLine) => (a.periodStart ?? "").localeCompare(b.periodStart ?? "");
  const word = (kind: "rent" | "insurance", first: (l: QuoteLine) => string, name: string) => {
    quote.lines
      .filter((l) => l.kind === kind)
      .sort(byStart)
      .forEach((l, i) => {
        const later = l.periodStart && l.periodEnd ? periodChargeWording(name, l.periodStart, l.periodEnd) : name;
        renamed.set(l.postingKey, i === 0 ? first(l) : later);
      });
  };
  word("rent", (l) => firstMonthRentWording(l.periodStart ?? quote.moveInDate, l.periodEnd ?? quote.paidThroughDate), RENT_NAME);
  word("insurance", () => firstMonthProtectionWording(protectionCoverage), PROTECTION_NAME);
  return {
    ...quote,
    lines: quote.lines.map((l) => {
      const own = renamed.get(l.postingKey);
      if (own) return { ...l, description: own };
      const of = l.kind === "discount" && l.postingKey.startsWith("discount:") ? renamed.get(l.postingKey.slice("discount:".length)) : undefined;
      return of ? { ...l, description: `Discount (${of})` } : l;
    }),
  };
}

/**
 * The quote with the unit type's promotion (issue 40, decisions 601, 604, 672): SiteLink applied the
 * plan (ConcessionPlanID) and answered its discount on each rent row. Checked against what the plan
 * gives as SiteLink lists it (the words the card shows): each rent row of the move-in is a month of
 * the rental (the first row month 1), and its discount must be the plan's for that month (none outside
 * its months). When every row agrees, each discount line says the promotion's words ("Promotion: First
 * month free"), the same as the card, and the sentence on later months says what SiteLink will take off
 * when it bills them. When not (a reading of SiteLink's we did not expect, or a plan changed between
 * our read and SiteLink's quote), SiteLink's figures stand (they are what is charged), the lines keep
 * SiteLink's wording, no promotion words are shown, and the mismatch is logged.
 */
export function withPromotion(quote: MoveInQuote, promotion: AppliedPromotion, monthlyRate: number): MoveInQuote {
  const rents = quote.lines.filter((l) => l.kind === "rent").sort((a, b) => (a.periodStart ?? "").localeCompare(b.periodStart ?? ""));
  const discountLineOf = (rent: QuoteLine) => quote.lines.find((l) => l.postingKey === `discount:${rent.postingKey}`);
  const applied = rents.map((r) => -(discountLineOf(r)?.amount ?? 0));
  const expected = rents.map((r, i) => promotionDiscountInMonth(promotion.terms, i + 1, r.amount));
  const matches = rents.length > 0 && expected.every((e, i) => e === applied[i]);
  if (!matches) {
    logger.warn({ planId: promotion.planId, applied, expected }, "SiteLink's discount plan does not give what the promotion says");
  }
  const ours = new Set(matches ? rents.map(discountLineOf).filter((l): l is QuoteLine => l !== undefined) : []);
  return {
    ...quote,
    lines: quote.lines.map((l) => (ours.has(l) ? { ...l, description: promotionLineWording(promotion.wording) } : l)),
    promotion: {
      wording: matches ? promotion.wording : "",
      monthlyDiscount: monthlyPromotionDiscount(promotion.terms, monthlyRate),
      months: promotion.terms.months,
      planId: promotion.planId,
      later: matches ? promotionLaterMonthsText(promotion.terms, promotion.wording, rents.length) : "",
    },
  };
}
