import { describe, expect, it } from "vitest";
import { addMonthsIso } from "../shared/calendar";
import {
  extraChargesFor,
  firstPeriod,
  quoteMoveIn,
  type QuoteCharge,
  type QuoteSettings,
  type QuoteUnitType,
} from "./move-in-quote";
import { localDate } from "../shared/calendar";
import { monthlyRateFor } from "../site/rates";

// Lumberton as seeded (spec §9): lock fee 7.00 with tax_1 6.75 %, not recurring; insurance tiers.
const lockFee: QuoteCharge = { id: "lock", name: "Lock fee", amount: 700, tax1Rate: 6.75, tax2Rate: 0, isRecurring: false };
const tiers = [
  { id: "1", coverage: 100_000, premium: 895 },
  { id: "2", coverage: 500_000, premium: 1195 },
  { id: "3", coverage: 1_000_000, premium: 2195 },
  { id: "4", coverage: 1_500_000, premium: 3695 },
];
const settings: QuoteSettings = {
  isWebRatesEnabled: false,
  fakeDiscountPercentage: 0,
  isShowExtraChargesAtCheckout: true,
  isHideExtraChargesForParkingOrOffice: true,
};
const unit: QuoteUnitType = { name: "Drive Up", category: "drive_up", standardRate: 5000, webRate: 4500 };

describe("quoteMoveIn: Lumberton totals", () => {
  it.each([
    [tiers[0], 895, 6642],
    [tiers[1], 1195, 6942],
    [tiers[2], 2195, 7942],
    [tiers[3], 3695, 9442],
  ])("unit at 50.00 + plan %# + lock fee", (plan, premium, total) => {
    const q = quoteMoveIn({ unitType: unit, settings, charges: [lockFee], insurancePlan: plan!, moveInDate: "2026-11-22" });
    expect(q.lines.map((l) => [l.kind, l.amount, l.tax])).toEqual([
      ["rent", 5000, 0],
      ["insurance", premium, 0],
      ["charge", 700, 47],
    ]);
    expect(q.subtotal).toBe(5000 + premium + 700);
    expect(q.tax).toBe(47);
    expect(q.total).toBe(total);
  });

  it("50.00 + 8.95 + 7.00 + 0.47 = 66.42", () => {
    const q = quoteMoveIn({ unitType: unit, settings, charges: [lockFee], insurancePlan: tiers[0]!, moveInDate: "2026-11-22" });
    expect(q.total).toBe(6642);
    expect(q.insurancePremium).toBe(895);
    expect(q.insurancePlanId).toBe("1");
  });

  it("no protection plan: rent + lock fee + tax", () => {
    const q = quoteMoveIn({ unitType: unit, settings, charges: [lockFee], insurancePlan: null, moveInDate: "2026-11-22" });
    expect(q.total).toBe(5000 + 700 + 47);
    expect(q.lines.some((l) => l.kind === "insurance")).toBe(false);
    expect(q.insurancePremium).toBe(0);
  });

  it("later months: rent + premium, the non-recurring lock fee only once", () => {
    const q = quoteMoveIn({ unitType: unit, settings, charges: [lockFee], insurancePlan: tiers[0]!, moveInDate: "2026-11-22" });
    expect(q.monthlyTotal).toBe(5895);
  });

  it("a recurring charge counts in the monthly total with its tax", () => {
    const fee: QuoteCharge = { id: null, name: "Admin fee", amount: 1000, tax1Rate: 5, tax2Rate: 2.5, isRecurring: true };
    const q = quoteMoveIn({ unitType: unit, settings, charges: [fee], insurancePlan: null, moveInDate: "2026-11-22" });
    expect(q.lines[1]).toMatchObject({ kind: "charge", amount: 1000, tax: 75, total: 1075, postingKey: "charge:admin-fee:2026-11-22" });
    expect(q.monthlyTotal).toBe(5000 + 1075);
  });
});

describe("rates and flags", () => {
  it("web rate only when web rates are on", () => {
    expect(monthlyRateFor(unit, false)).toBe(5000);
    expect(monthlyRateFor(unit, true)).toBe(4500);
    expect(monthlyRateFor({ ...unit, webRate: 0 }, true)).toBe(5000);
    const q = quoteMoveIn({ unitType: unit, settings: { ...settings, isWebRatesEnabled: true }, charges: [], insurancePlan: null, moveInDate: "2026-11-22" });
    expect(q.total).toBe(4500);
    expect(q.monthlyRate).toBe(4500);
    expect(q.standardRate).toBe(5000);
  });

  it("extra charges only when is_show_extra_charges_at_checkout is on", () => {
    expect(extraChargesFor(unit, { ...settings, isShowExtraChargesAtCheckout: false }, [lockFee])).toEqual([]);
    expect(extraChargesFor(unit, settings, [lockFee])).toEqual([lockFee]);
  });

  it("parking and office charges hidden when is_hide_extra_charges_for_parking_or_office is on", () => {
    const parking = { ...unit, name: "Parking", category: "parking" };
    const office = { ...unit, name: "Office Suite", category: "indoor" };
    expect(extraChargesFor(parking, settings, [lockFee])).toEqual([]);
    expect(extraChargesFor(office, settings, [lockFee])).toEqual([]);
    expect(extraChargesFor(parking, { ...settings, isHideExtraChargesForParkingOrOffice: false }, [lockFee])).toEqual([lockFee]);
    const q = quoteMoveIn({ unitType: parking, settings, charges: [lockFee], insurancePlan: null, moveInDate: "2026-11-22" });
    expect(q.total).toBe(5000);
  });

  it("fake discount: its own line, half up, on the first month only", () => {
    const q = quoteMoveIn({ unitType: { ...unit, standardRate: 4999 }, settings: { ...settings, fakeDiscountPercentage: 10 }, charges: [], insurancePlan: null, moveInDate: "2026-11-22" });
    expect(q.lines[1]).toMatchObject({ kind: "discount", amount: -500, tax: 0 });
    expect(q.total).toBe(4499);
    expect(q.monthlyTotal).toBe(4999);
    const none = quoteMoveIn({ unitType: unit, settings, charges: [], insurancePlan: null, moveInDate: "2026-11-22" });
    expect(none.lines.some((l) => l.kind === "discount")).toBe(false);
  });
});

describe("dates", () => {
  it("first month in full: paid through the day before the same date next month", () => {
    expect(firstPeriod("2026-11-22")).toEqual({ paidThroughDate: "2026-12-21", nextDueDate: "2026-12-22" });
    expect(firstPeriod("2026-12-01")).toEqual({ paidThroughDate: "2026-12-31", nextDueDate: "2027-01-01" });
  });

  it("month ends clamp", () => {
    expect(addMonthsIso("2026-01-31", 1)).toBe("2026-02-28");
    expect(addMonthsIso("2028-01-31", 1)).toBe("2028-02-29");
    expect(firstPeriod("2026-01-31")).toEqual({ paidThroughDate: "2026-02-27", nextDueDate: "2026-02-28" });
  });

  it("today is the location's calendar date, not UTC's", () => {
    // 02:30 UTC on Nov 23 is still Nov 22 in New York (UTC−5).
    expect(localDate(new Date("2026-11-23T02:30:00Z"), "America/New_York")).toBe("2026-11-22");
    expect(localDate(new Date("2026-11-23T05:30:00Z"), "America/New_York")).toBe("2026-11-23");
    // Summer time (UTC−4).
    expect(localDate(new Date("2026-07-01T03:59:00Z"), "America/New_York")).toBe("2026-06-30");
  });

  it("the quote carries the posting keys and periods of the ledger", () => {
    const q = quoteMoveIn({ unitType: unit, settings, charges: [lockFee], insurancePlan: tiers[0]!, moveInDate: "2026-11-22" });
    expect(q.lines.map((l) => l.postingKey)).toEqual(["rent:2026-11-22", "insurance:2026-11-22", "charge:lock:2026-11-22"]);
    expect(q.lines[0]).toMatchObject({ periodStart: "2026-11-22", periodEnd: "2026-12-21" });
  });
});
