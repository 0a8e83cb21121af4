import { describe, expect, it } from "vitest";
import { centsToDecimal, decimalToCents, decimalToNumber, intOrNull, isTrue, optionalCents } from "./money";

describe("SiteLink money", () => {
  it.each([
    ["117.6500", 11765],
    ["95", 9500],
    ["0", 0],
    ["-3.5", -350],
    ["8.95", 895],
    ["0.1", 10],
    ["19.9950", 2000],
    ["19.9949", 1999],
    ["-0.005", -1],
    [".5", 50],
    ["1234567.89", 123456789],
    [" 36.9500 ", 3695],
  ])("decimalToCents(%j) = %d", (text, cents) => {
    expect(decimalToCents(text)).toBe(cents);
  });

  it.each(["", "abc", "1,00", "1e3", "$5", "."])("decimalToCents(%j) throws", (text) => {
    expect(() => decimalToCents(text)).toThrow();
  });

  it("an omitted column is the fallback", () => {
    expect(optionalCents(undefined)).toBe(0);
    expect(optionalCents("", 5)).toBe(5);
    expect(optionalCents("1.01")).toBe(101);
  });

  it.each([
    [11765, "117.65"],
    [9500, "95.00"],
    [5, "0.05"],
    [-350, "-3.50"],
    [0, "0.00"],
  ])("centsToDecimal(%d) = %s", (cents, text) => {
    expect(centsToDecimal(cents)).toBe(text);
  });

  it("round trips every cent amount up to $10,000", () => {
    for (let c = -1000; c <= 1_000_000; c += 97) expect(decimalToCents(centsToDecimal(c))).toBe(c);
  });

  it("numbers, booleans and ints", () => {
    expect(decimalToNumber("10.0000")).toBe(10);
    expect(decimalToNumber("6.7500")).toBe(6.75);
    expect(decimalToNumber(undefined, 1)).toBe(1);
    expect(() => decimalToNumber("x")).toThrow();
    expect(isTrue("true")).toBe(true);
    expect(isTrue("True")).toBe(true);
    expect(isTrue("1")).toBe(true);
    expect(isTrue("false")).toBe(false);
    expect(isTrue(undefined)).toBe(false);
    expect(intOrNull("277")).toBe(277);
    expect(intOrNull("-1")).toBe(-1);
    expect(intOrNull("2.5")).toBeNull();
    expect(intOrNull(undefined)).toBeNull();
  });
});
