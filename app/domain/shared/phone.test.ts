import { describe, expect, it } from "vitest";
import { formatPhone, maskPhoneAsTyped, phoneDigits, phoneHref, usPhoneProblem } from "./phone";

describe("phoneDigits", () => {
  it.each([
    ["(910) 555-0134", "9105550134"],
    ["910-555-0134", "9105550134"],
    ["910.555.0134", "9105550134"],
    ["9105550134", "9105550134"],
    ["+1 (910) 555-0134", "9105550134"],
    ["1 910 555 0134", "9105550134"],
    ["555-0134", null],
    ["2 910 555 0134", null],
    ["(910) 555-01345", null],
    ["", null],
  ])("%j → %j", (input, expected) => {
    expect(phoneDigits(input)).toBe(expected);
  });
});

describe("formatPhone: the (###) ###-#### mask", () => {
  it.each([
    ["9105550134", "(910) 555-0134"],
    ["+1 910 555 0134", "(910) 555-0134"],
    ["555-0134", "555-0134"],
  ])("%j → %j", (input, expected) => {
    expect(formatPhone(input)).toBe(expected);
  });
});

describe("phoneHref", () => {
  it.each([
    ["(910) 555-0134", "tel", "tel:+19105550134"],
    ["(910) 555-0134", "sms", "sms:+19105550134"],
    ["+44 20 7946 0958", "tel", "tel:+442079460958"],
  ] as const)("%s as %s → %s", (input, scheme, expected) => {
    expect(phoneHref(input, scheme)).toBe(expected);
  });
});

describe("maskPhoneAsTyped", () => {
  it.each([
    ["", ""],
    ["9", "(9"],
    ["910", "(910"],
    ["9105", "(910) 5"],
    ["910555", "(910) 555"],
    ["9105550", "(910) 555-0"],
    ["9105550134", "(910) 555-0134"],
    ["91055501349999", "(910) 555-0134"],
    ["19105550134", "(910) 555-0134"],
    ["(910) 555-0134", "(910) 555-0134"],
  ])("%j → %j", (input, expected) => {
    expect(maskPhoneAsTyped(input)).toBe(expected);
  });
});

describe("usPhoneProblem: can it be a US number?", () => {
  it.each([
    ["(910) 555-0134", null],
    ["+1 910 555 0134", null],
    ["555-0134", "digits"],
    ["(910) 555-01345", "digits"],
    ["(010) 555-0134", "area_code"],
    ["(123) 555-0134", "area_code"],
    ["(910) 055-0134", "exchange"],
    ["(910) 123-4567", "exchange"],
  ])("%j → %j", (input, expected) => {
    expect(usPhoneProblem(input)).toBe(expected);
  });
});
