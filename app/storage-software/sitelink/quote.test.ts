import { describe, expect, it } from "vitest";
import { centsToDecimal, decimalToCents, quoteFromCostRows, requiredTotal } from "./quote";

describe("SiteLink money and quote rows", () => {
  it.each([
    ["117.6500", 11765],
    ["95", 9500],
    ["0.005", 1],
    ["-3.5", -350],
    ["", 0],
  ])("decimalToCents(%j) = %i", (input, cents) => {
    expect(decimalToCents(input)).toBe(cents);
  });

  it("refuses what is not a decimal", () => {
    expect(() => decimalToCents("12,50")).toThrow();
  });

  it("writes cents as SiteLink decimals", () => {
    expect(centsToDecimal(6635)).toBe("66.35");
    expect(centsToDecimal(5)).toBe("0.05");
    expect(centsToDecimal(-120)).toBe("-1.20");
  });

  const rows = [
    {
      ChargeDescription: "Rent",
      ChargeAmount: "45.0000",
      TaxAmount: "3.0300",
      dcDiscount: "5.0000",
      dcTotal: "43.0300",
      bMoveInRequired: "true",
      StartDate: "2026-11-22T00:00:00",
      EndDate: "2026-12-21T00:00:00-05:00",
    },
    {
      ChargeDescription: "Administrative Fee",
      ChargeAmount: "20",
      TaxAmount: "1.3500",
      dcDiscount: "0",
      dcTotal: "21.3500",
      bMoveInRequired: "true",
    },
    {
      ChargeDescription: "Security Deposit",
      ChargeAmount: "25",
      dcTotal: "25",
      bMoveInRequired: "false",
    },
  ];

  it("charges only the required rows: the total is the sum of their dcTotal, to the cent", () => {
    expect(requiredTotal(rows)).toBe(4303 + 2135);
    const q = quoteFromCostRows(rows, {
      moveInDate: "2026-11-22",
      standardRate: 4500,
      monthlyRate: 4500,
      insurancePlanId: null,
      insurancePremium: 0,
    });
    expect(q.total).toBe(6438);
    expect(q.lines.reduce((s, l) => s + l.amount + l.tax, 0)).toBe(6438);
    expect(q.lines.map((l) => [l.kind, l.amount, l.tax])).toEqual([
      ["rent", 4500, 303],
      ["discount", -500, 0],
      ["charge", 2000, 135],
    ]);
    expect(q.paidThroughDate).toBe("2026-12-21");
    expect(q.nextDueDate).toBe("2026-12-22");
  });

  it("refuses an answer without a required row", () => {
    expect(() =>
      quoteFromCostRows([rows[2]!], {
        moveInDate: "2026-11-22",
        standardRate: 1,
        monthlyRate: 1,
        insurancePlanId: null,
        insurancePremium: 0,
      }),
    ).toThrow();
  });

  it("estimates the monthly figure with rent tax rounded half up, as SiteLink does (LSETUP), never floored", () => {
    // A first-of-month site: the first line is 12 days prorated (24.00, tax 1.62 at 6.75 %).
    const rent = { ChargeDescription: "Rent", ChargeAmount: "24.0000", TaxAmount: "1.6200", dcDiscount: "0", dcTotal: "25.6200", bMoveInRequired: "true", StartDate: "2026-03-20T00:00:00", EndDate: "2026-03-31T00:00:00" };
    const q = quoteFromCostRows([rent], { moveInDate: "2026-03-20", standardRate: 6200, monthlyRate: 6200, insurancePlanId: null, insurancePremium: 0 });
    // 62.00 x 6.75 % = 4.185 -> 4.19 (flooring gave 4.18).
    expect(q.monthlyTotal).toBe(6200 + 419);
  });

  describe("the monthly figure comes from the site's tax rate, not from a discounted or prorated first line", () => {
    const ctx = { moveInDate: "2026-03-20", standardRate: 10000, monthlyRate: 10000, insurancePlanId: null, insurancePremium: 0 };

    it("50 % off the first month at 7 %: $107.00 a month, not $103.50", () => {
      // SiteLink taxes the discounted rent: 100.00 - 50.00 = 50.00, tax 3.50, dcTotal 53.50.
      const rent = { ChargeDescription: "Rent", ChargeAmount: "100.0000", dcDiscount: "50.0000", dcTotal: "53.5000", bMoveInRequired: "true", StartDate: "2026-03-20T00:00:00", EndDate: "2026-04-19T00:00:00" };
      expect(quoteFromCostRows([rent], { ...ctx, rentTaxRates: { tax1: 7, tax2: 0 } }).monthlyTotal).toBe(10700);
      // Without the site's rate (SiteInformation gave none), the rate inferred from the taxed base is still 7 %.
      expect(quoteFromCostRows([rent], ctx).monthlyTotal).toBe(10700);
    });

    it.each([
      // 13 of 31 days of 62.00 = 26.00 (tax 1.82 at 7 %: 7.0 %); the month: 62.00 + 4.34.
      ["prorated 13/31, 7 %", "26.0000", "27.8200", 6200, { tax1: 7, tax2: 0 }, 6200 + 434],
      // 3 of 31 days of 95.00 = 9.19, tax 0.64 at 7 % (inferred 6.96 %: 6.62 a month, the site's 6.65).
      ["prorated 3/31, 7 %", "9.1900", "9.8300", 9500, { tax1: 7, tax2: 0 }, 9500 + 665],
      // Two taxes, each rounded on its own: 61.50 x 4.75 % = 2.92, x 2.25 % = 1.38 (together 7 % = 4.31).
      ["two taxes", "61.5000", "65.8000", 6150, { tax1: 4.75, tax2: 2.25 }, 6150 + 292 + 138],
    ])("%s", (_name, amount, total, monthlyRate, rentTaxRates, monthly) => {
      const rent = { ChargeDescription: "Rent", ChargeAmount: amount, dcDiscount: "0", dcTotal: total, bMoveInRequired: "true", StartDate: "2026-03-29T00:00:00", EndDate: "2026-03-31T00:00:00" };
      expect(quoteFromCostRows([rent], { ...ctx, monthlyRate, standardRate: monthlyRate, rentTaxRates }).monthlyTotal).toBe(monthly);
    });

    it("a rate inferred from a prorated line is cents off (the case the site's rate fixes)", () => {
      const rent = { ChargeDescription: "Rent", ChargeAmount: "9.1900", dcDiscount: "0", dcTotal: "9.8300", bMoveInRequired: "true", StartDate: "2026-03-29T00:00:00", EndDate: "2026-03-31T00:00:00" };
      expect(quoteFromCostRows([rent], { ...ctx, monthlyRate: 9500, standardRate: 9500 }).monthlyTotal).toBe(9500 + 662);
      expect(quoteFromCostRows([rent], { ...ctx, monthlyRate: 9500, standardRate: 9500, rentTaxRates: { tax1: 7, tax2: 0 } }).monthlyTotal).toBe(9500 + 665);
    });
  });
});
