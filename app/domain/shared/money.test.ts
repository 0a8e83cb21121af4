import { describe, expect, it } from "vitest";
import { centsForInput, dollarsToCents, formatCents, parseDollars, percentOf, taxedLine } from "./money";

describe("percentOf: one rounding, half up, to the cent", () => {
  it.each([
    [700, 6.75, 47], // the lock fee's tax: 47.25 → 47
    [1000, 6.75, 68], // 67.5 → 68 (half up)
    [895, 6.75, 60], // 60.4125 → 60
    [1, 50, 1], // 0.5 → 1
    [1, 49.99, 0],
    [0, 6.75, 0],
    [12345, 0, 0],
    [10000, 100, 10000],
    [-700, 6.75, -47],
    [-1000, 6.75, -68], // half away from zero for refunds
    [333, 7.125, 24], // 23.72625 → 24
    [200, 0.25, 1], // 0.5 → 1: rates with many decimals are exact
  ])("%i × %f %% = %i", (cents, percent, expected) => {
    expect(percentOf(cents, percent)).toBe(expected);
  });

  it("refuses amounts that are not whole cents", () => {
    expect(() => percentOf(7.5, 6.75)).toThrow("whole cents");
  });
});

describe("dollarsToCents", () => {
  it.each([
    [7, 700],
    ["7.00", 700],
    ["8.95", 895],
    [8.95, 895],
    ["7.5", 750],
    [0.1 + 0.2, 30],
    ["0", 0],
    ["-12.34", -1234],
    [" 36.95 ", 3695],
  ] as const)("%j → %i", (input, expected) => {
    expect(dollarsToCents(input)).toBe(expected);
  });

  it.each(["", "abc", "1.234", "$5", "1,000"])("refuses %j", (input) => {
    expect(() => dollarsToCents(input)).toThrow("Not an amount");
  });
});

describe("formatCents", () => {
  it.each([
    [0, "$0.00"],
    [5, "$0.05"],
    [700, "$7.00"],
    [895, "$8.95"],
    [123456, "$1,234.56"],
    [100000000, "$1,000,000.00"],
    [-5, "-$0.05"],
    [-123456, "-$1,234.56"],
  ])("%i → %s", (cents, expected) => {
    expect(formatCents(cents)).toBe(expected);
  });
});

describe("taxedLine", () => {
  it.each([
    ["the lock fee (7.00 at 6.75 %)", 700, 6.75, 0, 47, 747],
    ["two taxes, each rounded on the line", 1000, 6.75, 2.25, 68 + 23, 1091],
    ["no tax", 4500, 0, 0, 0, 4500],
  ])("%s", (_name, amount, tax1, tax2, tax, total) => {
    expect(taxedLine("Line", amount, tax1, tax2)).toEqual({ description: "Line", amount, tax, total });
  });
});

describe("parseDollars: an amount as a person types it, in cents (decision 670)", () => {
  it.each([
    ["25", 2500],
    ["25.5", 2550],
    ["25.50", 2550],
    ["$25.00", 2500],
    ["$ 25", 2500],
    [" 1,234.50 ", 123450],
    ["$1,234", 123400],
    [".50", 50],
    ["0", 0],
  ])("%j → %i", (text, cents) => expect(parseDollars(text)).toBe(cents));

  it.each(["", "twenty", "-5", "$-5", "2.505", "1,23", "12,34.00", "25$", "2 5", "1e3", "$"])("%j is not an amount", (text) => {
    expect(parseDollars(text)).toBeNull();
  });

  it("shows cents back for editing without sign or commas, and round-trips", () => {
    for (const cents of [0, 5, 2550, 123450]) expect(parseDollars(centsForInput(cents))).toBe(cents);
    expect(centsForInput(123450)).toBe("1234.50");
  });
});
