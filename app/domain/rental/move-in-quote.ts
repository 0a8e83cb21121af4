/**
 * The move-in quote: every figure of an online rental, computed once on the server from the unit
 * type, the account's flags and the location's charges (docs/decisions/040-billing-model.md).
 * Pure: the caller passes the move-in date (today in the location's time zone, see `localDate`).
 * Money in integer cents; each tax on each line rounded half up (app/domain/shared/money.ts).
 */
import { percentOf } from "../shared/money";
import { chargeKey, chargePostingKey, periodEnd, periodStart } from "../payments/billing";
import { firstMonthProtectionWording, firstMonthRentWording } from "../payments/charge-wording";
import { monthlyRateFor } from "../site/rates";
import { monthlyPromotionDiscount, promotionLaterMonthsText, promotionLineWording, type AppliedPromotion } from "./promotion";

export interface QuoteUnitType {
  name: string;
  category: string;
  standardRate: number;
  webRate: number;
}

interface QuoteInsurancePlan {
  id: string;
  coverage: number;
  premium: number;
}

export interface QuoteCharge {
  id: string | null;
  name: string;
  /** Cents. */
  amount: number;
  /** Percent, e.g. 6.75. */
  tax1Rate: number;
  tax2Rate: number;
  isRecurring: boolean;
}

export interface QuoteSettings {
  isWebRatesEnabled: boolean;
  fakeDiscountPercentage: number;
  isShowExtraChargesAtCheckout: boolean;
  isHideExtraChargesForParkingOrOffice: boolean;
}

interface QuoteInput {
  unitType: QuoteUnitType;
  settings: QuoteSettings;
  /** The location's charges_to_show_at_checkout, parsed, in cents. */
  charges: QuoteCharge[];
  /** null: no protection plan. */
  insurancePlan: QuoteInsurancePlan | null;
  /** "YYYY-MM-DD", the move-in date in the location's time zone. */
  moveInDate: string;
  /** The unit type's promotion on the move-in date (`promotionOn`), or null. */
  promotion?: AppliedPromotion | null;
}

export type QuoteLineKind = "rent" | "discount" | "insurance" | "charge";

export interface QuoteLine {
  kind: QuoteLineKind;
  description: string;
  /** Cents before tax; negative for the discount. */
  amount: number;
  tax: number;
  total: number;
  /** Ledger posting key, unique per lease. */
  postingKey: string;
  periodStart: string | null;
  periodEnd: string | null;
  isRecurring: boolean;
}

export interface MoveInQuote {
  moveInDate: string;
  paidThroughDate: string;
  nextDueDate: string;
  /** The monthly rent the lease carries (web or standard rate). */
  monthlyRate: number;
  /** The rate the visitor would pay without web rates, for "was" display. */
  standardRate: number;
  insurancePlanId: string | null;
  insurancePremium: number;
  lines: QuoteLine[];
  subtotal: number;
  tax: number;
  /** What is charged today. */
  total: number;
  /** What each later month costs (rent, premium, recurring charges with their taxes). */
  monthlyTotal: number;
  /**
   * The promotion applied (issue 40, decision 601): its wording (the same text as the unit type's
   * card), the discount on each of its months and, at SiteLink, the plan sent with the move-in.
   * Absent or null: none.
   */
  promotion?: QuotePromotion | null;
}

export interface QuotePromotion {
  wording: string;
  /** Cents off each of the first `months` months' rent (the first one is a line of this quote). */
  monthlyDiscount: number;
  months: number;
  /** SiteLink's ConcessionID; null at a local location. */
  planId: number | null;
  /**
   * What the later months get, in a sentence for the review step, the lease and the receipt ("The
   * promotion (…) also applies to the rent of months 2 and 3, when they are billed."); "" when the
   * charges of today cover it all. Absent in quotes stored before it existed.
   */
  later?: string;
}


/** Parking spaces (and office units) do not need a lock or the like: their extra charges can be hidden. */
function isParkingOrOffice(unitType: Pick<QuoteUnitType, "name" | "category">): boolean {
  return unitType.category === "parking" || /\b(parking|office)\b/i.test(unitType.name);
}

/** The extra charges shown and charged for this unit type, per the location's flags. */
export function extraChargesFor(unitType: QuoteUnitType, settings: QuoteSettings, charges: QuoteCharge[]): QuoteCharge[] {
  if (!settings.isShowExtraChargesAtCheckout) return [];
  if (settings.isHideExtraChargesForParkingOrOffice && isParkingOrOffice(unitType)) return [];
  return charges;
}

/** Today's calendar date in a time zone (the calendar module's `localDate`, under the name callers use). */

/** The first month covered at move-in: D .. addMonths(D,1) − 1 day; next due addMonths(D,1). */
export function firstPeriod(moveInDate: string): { paidThroughDate: string; nextDueDate: string } {
  return { paidThroughDate: periodEnd(moveInDate, 0), nextDueDate: periodStart(moveInDate, 1) };
}

function line(
  kind: QuoteLineKind,
  description: string,
  amount: number,
  postingKey: string,
  opts: { tax1Rate?: number; tax2Rate?: number; periodStart?: string | null; periodEnd?: string | null; isRecurring?: boolean } = {},
): QuoteLine {
  const tax = percentOf(amount, opts.tax1Rate ?? 0) + percentOf(amount, opts.tax2Rate ?? 0);
  return {
    kind,
    description,
    amount,
    tax,
    total: amount + tax,
    postingKey,
    periodStart: opts.periodStart ?? null,
    periodEnd: opts.periodEnd ?? null,
    isRecurring: opts.isRecurring ?? false,
  };
}

/** The move-in quote. Throws on impossible input (negative money, bad dates): that is a bug or bad operator data. */
export function quoteMoveIn(input: QuoteInput): MoveInQuote {
  const { unitType, settings, insurancePlan, moveInDate } = input;
  const { paidThroughDate, nextDueDate } = firstPeriod(moveInDate);
  const monthlyRate = monthlyRateFor(unitType, settings.isWebRatesEnabled);
  if (!Number.isInteger(monthlyRate) || monthlyRate < 0) throw new Error(`Bad monthly rate: ${monthlyRate}`);
  const period = { periodStart: moveInDate, periodEnd: paidThroughDate, isRecurring: true };

  const lines: QuoteLine[] = [line("rent", firstMonthRentWording(moveInDate, paidThroughDate), monthlyRate, `rent:${moveInDate}`, period)];

  const discountPct = settings.fakeDiscountPercentage;
  if (discountPct > 0) {
    const discount = percentOf(monthlyRate, discountPct);
    if (discount > 0) {
      lines.push(line("discount", `Online discount (${discountPct}% off the first month's rent)`, -discount, `discount:${moveInDate}`, { ...period, isRecurring: false }));
    }
  }

  let promotion: QuotePromotion | null = null;
  if (input.promotion) {
    const online = -(lines.find((l) => l.kind === "discount")?.amount ?? 0);
    const discount = Math.min(monthlyPromotionDiscount(input.promotion.terms, monthlyRate), monthlyRate - online);
    if (discount > 0) {
      lines.push(line("discount", promotionLineWording(input.promotion.wording), -discount, `promotion:${moveInDate}`, { ...period, isRecurring: false }));
      promotion = {
        wording: input.promotion.wording,
        monthlyDiscount: monthlyPromotionDiscount(input.promotion.terms, monthlyRate),
        months: input.promotion.terms.months,
        planId: input.promotion.planId,
        later: promotionLaterMonthsText(input.promotion.terms, input.promotion.wording, 1),
      };
    }
  }

  if (insurancePlan) {
    lines.push(
      line("insurance", firstMonthProtectionWording(insurancePlan.coverage), insurancePlan.premium, `insurance:${moveInDate}`, period),
    );
  }

  for (const c of extraChargesFor(unitType, settings, input.charges)) {
    if (!Number.isInteger(c.amount) || c.amount < 0) throw new Error(`Bad charge amount for ${c.name}: ${c.amount}`);
    const key = chargePostingKey(chargeKey({ sitelinkId: c.id, name: c.name }), moveInDate);
    lines.push(line("charge", c.name, c.amount, key, { tax1Rate: c.tax1Rate, tax2Rate: c.tax2Rate, isRecurring: c.isRecurring }));
  }

  const subtotal = lines.reduce((s, l) => s + l.amount, 0);
  const tax = lines.reduce((s, l) => s + l.tax, 0);
  const monthlyTotal =
    monthlyRate +
    (insurancePlan?.premium ?? 0) +
    extraChargesFor(unitType, settings, input.charges)
      .filter((c) => c.isRecurring)
      .reduce((s, c) => s + c.amount + percentOf(c.amount, c.tax1Rate) + percentOf(c.amount, c.tax2Rate), 0);

  return {
    moveInDate,
    paidThroughDate,
    nextDueDate,
    monthlyRate,
    standardRate: unitType.standardRate,
    insurancePlanId: insurancePlan?.id ?? null,
    insurancePremium: insurancePlan?.premium ?? 0,
    lines,
    subtotal,
    tax,
    total: subtotal + tax,
    monthlyTotal,
    promotion,
  };
}
