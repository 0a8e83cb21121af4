import { describe, expect, it } from "vitest";
import { monthlyPromotionDiscount, promotionOn, promotionProblems, promotionWording, shownPromotion, type PromotionColumns } from "./promotion";
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

describe("promotion wording and discount (decisions 600–602)", () => {
  it("words what it gives", () => {
    expect(promotionWording({ kind: "percent", percent: 100, months: 1 })).toBe("First month free");
    expect(promotionWording({ kind: "percent", percent: 100, months: 2 })).toBe("First 2 months free");
    expect(promotionWording({ kind: "percent", percent: 50, months: 1 })).toBe("50% off the first month");
    expect(promotionWording({ kind: "percent", percent: 25, months: 3 })).toBe("25% off the first 3 months");
    expect(promotionWording({ kind: "amount", amount: 2000, months: 1 })).toBe("$20 off the first month");
    expect(promotionWording({ kind: "amount", amount: 1250, months: 3 })).toBe("$12.50 off each of the first 3 months");
  });

  it("discounts a month's rent once, half up, never more than the rent", () => {
    expect(monthlyPromotionDiscount({ kind: "percent", percent: 15, months: 1 }, 8333)).toBe(1250); // 1249.95 → 1250
    expect(monthlyPromotionDiscount({ kind: "percent", percent: 100, months: 1 }, 8300)).toBe(8300);
    expect(monthlyPromotionDiscount({ kind: "amount", amount: 10_000, months: 1 }, 8300)).toBe(8300);
  });

  it("applies between its dates (both included) and only where its kind belongs", () => {
    const p = cols({ promotionKind: "percent", promotionPercent: 50, promotionStartsOn: "2026-12-01", promotionEndsOn: "2026-12-31" });
    expect(promotionOn(p, "2026-11-30", "local")).toBeNull();
    expect(promotionOn(p, "2026-12-01", "local")?.wording).toBe("50% off the first month");
    expect(promotionOn(p, "2026-12-31", "local")).not.toBeNull();
    expect(promotionOn(p, "2027-01-01", "local")).toBeNull();
    expect(promotionOn(p, "2026-12-05", "sitelink")).toBeNull();
    const plan = cols({ promotionKind: "plan", promotionPlanId: 7, promotionPercent: 100 });
    expect(promotionOn(plan, "2026-12-05", "sitelink")).toEqual({ terms: { kind: "percent", percent: 100, months: 1 }, planId: 7, wording: "First month free" });
    expect(promotionOn(plan, "2026-12-05", "local")).toBeNull();
    expect(shownPromotion({ ...p, promotion: "" }, "2027-01-02", "local")).toBe("");
    expect(shownPromotion({ ...cols({}), promotion: " Old text " }, "2027-01-02", "local")).toBe("Old text");
  });

  it("refuses a typed text that is not the wording of what it gives, and dates out of order", () => {
    const v = { promotionKind: "percent", promotionPercent: 100, promotionMonths: 1, promotion: "First month $1", promotionStartsOn: "2026-12-10", promotionEndsOn: "2026-12-01" };
    expect(promotionProblems(v)).toMatchObject({ promotion: expect.stringContaining("First month free"), promotionEndsOn: expect.any(String) });
    expect(promotionProblems({ ...v, promotion: "", promotionEndsOn: null })).toEqual({});
    expect(promotionProblems({ promotionKind: "amount", promotionAmount: 0, promotionMonths: 1 })).toHaveProperty("promotionAmount");
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
    expect(q.promotion).toEqual({ wording: "$20 off each of the first 3 months", monthlyDiscount: 2000, months: 3, planId: null });
    const terms = { moveInDate: "2026-12-05", monthlyRate: 8300, insurancePremium: 0, recurringCharges: [], promotion: { monthlyDiscount: 2000, months: 3, wording: q.promotion!.wording } };
    expect(chargesForPeriod(terms, 1).find((l) => l.postingKey.startsWith("promotion:"))).toMatchObject({ amount: -2000, postingKey: "promotion:2027-01-05" });
    expect(chargesForPeriod(terms, 2).some((l) => l.postingKey.startsWith("promotion:"))).toBe(true);
    expect(chargesForPeriod(terms, 3).some((l) => l.postingKey.startsWith("promotion:"))).toBe(false);
  });
});
