import { describe, expect, it } from "vitest";
import {
  monthlyPromotionDiscount,
  planAttention,
  promotionDiscountInMonth,
  promotionLaterMonthsText,
  promotionOn,
  promotionProblems,
  promotionWording,
  shownPromotion,
  type PlanReading,
  type PromotionColumns,
  type PromotionTerms,
} from "./promotion";
import { quoteMoveIn } from "./move-in-quote";
import { chargesForPeriod } from "../payments/billing";

const cols = (over: Partial<PromotionColumns>): PromotionColumns => ({
  promotionKind: "none",
  promotionAmount: 0,
  promotionPercent: 0,
  promotionMonths: 1,
  promotionPlanId: null,
  promotionStartsOn: null,
  promotionEndsOn: null,
  ...over,
});

const reading = (terms: PromotionTerms | null, over: Partial<PlanReading> = {}): PlanReading => ({ name: "1st Month Free", listed: true, terms, notOffered: terms ? null : "it needs 3 months paid in advance at move-in", ...over });

describe("promotion wording and discount (decisions 600–602, 672)", () => {
  it.each<[PromotionTerms, string]>([
    [{ kind: "percent", percent: 100, months: 1 }, "First month free"],
    [{ kind: "percent", percent: 100, months: 2 }, "First 2 months free"],
    [{ kind: "percent", percent: 100, months: 1, fromMonth: 2 }, "Second month free"],
    [{ kind: "percent", percent: 100, months: 3, fromMonth: 2 }, "Months 2 to 4 free"],
    [{ kind: "percent", percent: 100, months: 1, fromMonth: 13 }, "Month 13 free"],
    [{ kind: "percent", percent: 50, months: 1 }, "50% off the first month"],
    [{ kind: "percent", percent: 25, months: 3 }, "25% off the first 3 months"],
    [{ kind: "percent", percent: 12.5, months: 2, fromMonth: 3 }, "12.5% off months 3 and 4"],
    [{ kind: "percent", percent: 50, months: 1, maxAmount: 7500 }, "50% off the first month (up to $75)"],
    [{ kind: "percent", percent: 100, months: 2, maxAmount: 5000 }, "100% off the first 2 months (up to $50 a month)"],
    [{ kind: "amount", amount: 2000, months: 1 }, "$20 off the first month"],
    [{ kind: "amount", amount: 1250, months: 3 }, "$12.50 off each of the first 3 months"],
    [{ kind: "amount", amount: 2000, months: 1, fromMonth: 3 }, "$20 off the third month"],
    [{ kind: "amount", amount: 2000, months: 3, fromMonth: 2 }, "$20 off each of months 2 to 4"],
  ])("%j → %s", (terms, words) => expect(promotionWording(terms)).toBe(words));

  it("discounts a month's rent once, half up, never more than the rent or the cap", () => {
    expect(monthlyPromotionDiscount({ kind: "percent", percent: 15, months: 1 }, 8333)).toBe(1250); // 1249.95 → 1250
    expect(monthlyPromotionDiscount({ kind: "percent", percent: 100, months: 1 }, 8300)).toBe(8300);
    expect(monthlyPromotionDiscount({ kind: "amount", amount: 10_000, months: 1 }, 8300)).toBe(8300);
    expect(monthlyPromotionDiscount({ kind: "percent", percent: 50, months: 1, maxAmount: 3000 }, 8300)).toBe(3000);
  });

  it("discounts only the months it covers (1: the month moved in)", () => {
    const terms: PromotionTerms = { kind: "percent", percent: 50, months: 2, fromMonth: 2 };
    expect([1, 2, 3, 4].map((m) => promotionDiscountInMonth(terms, m, 8000))).toEqual([0, 4000, 4000, 0]);
  });

  it("says what the later months get, after the months charged today", () => {
    expect(promotionLaterMonthsText({ kind: "percent", percent: 100, months: 1 }, "First month free", 1)).toBe("");
    expect(promotionLaterMonthsText({ kind: "percent", percent: 50, months: 3 }, "50% off the first 3 months", 1)).toBe(
      "The promotion (50% off the first 3 months) also applies to the rent of months 2 and 3, when they are billed.",
    );
    expect(promotionLaterMonthsText({ kind: "percent", percent: 50, months: 3 }, "50% off the first 3 months", 2)).toBe(
      "The promotion (50% off the first 3 months) also applies to the rent of month 3, when it is billed.",
    );
    expect(promotionLaterMonthsText({ kind: "percent", percent: 100, months: 1, fromMonth: 2 }, "Second month free", 1)).toBe(
      "The promotion (Second month free) applies to the rent of month 2, when it is billed.",
    );
    expect(promotionLaterMonthsText({ kind: "amount", amount: 2000, months: 4, fromMonth: 2 }, "$20 off each of months 2 to 5", 1)).toBe(
      "The promotion ($20 off each of months 2 to 5) applies to the rent of months 2 to 5, when they are billed.",
    );
  });

  it("applies between its dates (both included) and only where its kind belongs", () => {
    const p = cols({ promotionKind: "percent", promotionPercent: 50, promotionStartsOn: "2026-12-01", promotionEndsOn: "2026-12-31" });
    expect(promotionOn(p, "2026-11-30", "local")).toBeNull();
    expect(promotionOn(p, "2026-12-01", "local")?.wording).toBe("50% off the first month");
    expect(promotionOn(p, "2026-12-31", "local")).not.toBeNull();
    expect(promotionOn(p, "2027-01-01", "local")).toBeNull();
    expect(promotionOn(p, "2026-12-05", "sitelink")).toBeNull();
    expect(shownPromotion(p, "2027-01-02", "local")).toBe("");
  });

  it("a SiteLink plan gives what SiteLink lists now, or nothing when it is gone or cannot be worded (decision 673)", () => {
    const plan = cols({ promotionKind: "plan", promotionPlanId: 7, promotionPercent: 100 });
    const free: PromotionTerms = { kind: "percent", percent: 100, months: 1 };
    expect(promotionOn(plan, "2026-12-05", "sitelink", reading(free))).toEqual({ terms: free, planId: 7, wording: "First month free" });
    // Changed in SiteLink since: the words follow the plan as read.
    expect(shownPromotion(plan, "2026-12-05", "sitelink", reading({ kind: "percent", percent: 50, months: 2 }))).toBe("50% off the first 2 months");
    expect(promotionOn(plan, "2026-12-05", "sitelink", null)).toBeNull();
    expect(promotionOn(plan, "2026-12-05", "sitelink", reading(free, { listed: false }))).toBeNull();
    expect(promotionOn(plan, "2026-12-05", "sitelink", reading(null))).toBeNull();
    expect(promotionOn(plan, "2026-12-05", "local", reading(free))).toBeNull();
  });

  it("tells the office when a plan changed, went, or can no longer be worded", () => {
    const p = { promotionPlanId: 41, promotionPlanWording: "First month free" };
    expect(planAttention(p, reading({ kind: "percent", percent: 100, months: 1 }))).toBeNull();
    expect(planAttention(p, reading({ kind: "percent", percent: 50, months: 1 }))).toBe(
      "SiteLink's discount plan 41 (1st Month Free) now gives “50% off the first month”; it gave “First month free” when the promotion was saved. The website now shows “50% off the first month”, what SiteLink applies. Save the promotion again to confirm it.",
    );
    expect(planAttention(p, reading({ kind: "percent", percent: 100, months: 1 }, { listed: false }))).toMatch(/^SiteLink no longer lists discount plan 41 \(1st Month Free\): the promotion is not shown and not applied\./);
    expect(planAttention(p, null)).toMatch(/^SiteLink no longer lists discount plan 41: /);
    expect(planAttention(p, reading(null))).toContain("(it needs 3 months paid in advance at move-in)");
  });

  it("checks what it gives and its dates; there is no typed text to check (decision 674)", () => {
    expect(promotionProblems({ promotionKind: "percent", promotionPercent: 100, promotionMonths: 1, promotionStartsOn: "2026-12-10", promotionEndsOn: "2026-12-01" })).toEqual({
      promotionEndsOn: "The end date must be on or after the start date (2026-12-10).",
    });
    expect(promotionProblems({ promotionKind: "amount", promotionAmount: 0, promotionMonths: 1 })).toEqual({ promotionAmount: "Enter the amount off each month in dollars, such as 20 or 12.50." });
    expect(promotionProblems({ promotionKind: "plan", promotionPlanId: null })).toHaveProperty("promotionPlanId", "Choose one of the site's discount plans.");
    expect(promotionProblems({ promotionKind: "plan", promotionPlanId: 41, promotionPlanWording: "" })).toHaveProperty("promotionPlanId");
    expect(promotionProblems({ promotionKind: "plan", promotionPlanId: 41, promotionPlanWording: "First month free" })).toEqual({});
  });

  it("one computed discount: the quote's line and the later months' ledger lines", () => {
    const promotion = promotionOn(cols({ promotionKind: "amount", promotionAmount: 2000, promotionMonths: 3 }), "2026-12-05", "local")!;
    const q = quoteMoveIn({
      unitType: { name: "Drive-Up", category: "drive_up", standardRate: 9200, webRate: 8300 },
      settings: { isWebRatesEnabled: true, fakeDiscountPercentage: 0, isShowExtraChargesAtCheckout: false, isHideExtraChargesForParkingOrOffice: false },
      charges: [],
      insurancePlan: null,
      moveInDate: "2026-12-05",
      promotion,
    });
    expect(q.lines.find((l) => l.postingKey === "promotion:2026-12-05")).toMatchObject({ kind: "discount", amount: -2000, description: "Promotion: $20 off each of the first 3 months" });
    expect(q.total).toBe(6300);
    expect(q.promotion).toEqual({
      wording: "$20 off each of the first 3 months",
      monthlyDiscount: 2000,
      months: 3,
      planId: null,
      later: "The promotion ($20 off each of the first 3 months) also applies to the rent of months 2 and 3, when they are billed.",
    });
    const terms = { moveInDate: "2026-12-05", monthlyRate: 8300, insurancePremium: 0, recurringCharges: [], promotion: { monthlyDiscount: 2000, months: 3, wording: q.promotion!.wording } };
    expect(chargesForPeriod(terms, 1).find((l) => l.postingKey.startsWith("promotion:"))).toMatchObject({ amount: -2000, postingKey: "promotion:2027-01-05" });
    expect(chargesForPeriod(terms, 2).some((l) => l.postingKey.startsWith("promotion:"))).toBe(true);
    expect(chargesForPeriod(terms, 3).some((l) => l.postingKey.startsWith("promotion:"))).toBe(false);
  });
});
