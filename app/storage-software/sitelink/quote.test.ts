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
});
