import { describe, expect, it } from "vitest";
import { CARD_BRAND_LABELS, cardBrand, expiryInFuture, luhnValid, maskedCard } from "./cards";

describe("cardBrand by prefix: the accepted cards Visa, Master Card and Discover", () => {
  it.each([
    ["4242 4242 4242 4242", "visa"],
    ["4111111111111111", "visa"],
    ["5105105105105100", "mastercard"],
    ["5555 5555 5555 4444", "mastercard"],
    ["2221000000000009", "mastercard"],
    ["2720999999999996", "mastercard"],
    ["2721000000000004", null],
    ["6011111111111117", "discover"],
    ["6500000000000002", "discover"],
    ["6445644564456445", "discover"],
    ["6221260000000000", "discover"],
    ["6229250000000000", "discover"],
    ["6229260000000000", null],
    ["378282246310005", null], // American Express is not accepted
    ["3530111333300000", null], // JCB
    ["5000000000000000", null],
    ["", null],
  ])("%s → %s", (number, brand) => {
    expect(cardBrand(number)).toBe(brand);
  });

  it("labels brands as the spec writes them", () => {
    expect(Object.values(CARD_BRAND_LABELS)).toEqual(["Visa", "Master Card", "Discover"]);
  });
});

describe("luhnValid", () => {
  it.each([
    ["4242424242424242", true],
    ["4242 4242 4242 4242", true],
    ["4242-4242-4242-4241", false],
    ["6011111111111117", true],
    ["5555555555554444", true],
    ["5555555555554445", false],
    ["79927398713", false], // valid checksum but too short for a card
    ["424242424242", true], // 12 digits is the shortest length accepted
    ["4242424242424243", false],
    ["4222222222222", true], // 13-digit Visa
    ["42424242424242424242", false], // 20 digits
    ["", false],
  ])("%s → %s", (number, ok) => {
    expect(luhnValid(number)).toBe(ok);
  });
});

describe("expiryInFuture: the card works to the end of its expiry month", () => {
  const today = { year: 2026, month: 11 };
  it.each([
    [11, 2026, true],
    [12, 2026, true],
    [10, 2026, false],
    [1, 2027, true],
    [12, 2025, false],
    [11, 26, true],
    [10, 26, false],
    [0, 2030, false],
    [13, 2030, false],
    [1.5, 2030, false],
  ])("%i/%i → %s", (month, year, ok) => {
    expect(expiryInFuture(month, year, today)).toBe(ok);
  });
});

describe("maskedCard", () => {
  it("shows only the last four digits", () => {
    expect(maskedCard("4242")).toBe("•••• 4242");
  });
});
