import { describe, expect, it } from "vitest";
import { AMOUNT_FORMAT_MESSAGE, changePasswordSchema, HOSTED_CARD_MISSING, dollarsField, maxPortalPayment, portalAmountError, moveOutSchema, paySchema, prepaySchema, profileContactSchema, profilePhoneSchema, resetPasswordSchema } from "./forms";

const today = { year: 2026, month: 11 };
const card = { card_number: "4242 4242 4242 4242", exp_month: "12", exp_year: "2030", cvv: "123", name_on_card: "Pat", billing_postal_code: "28358" };
const key = "abcdefghijklmnopqrstuvwx";
const issues = (r: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  Object.fromEntries((r.error?.issues ?? []).map((i) => [i.path.join("."), i.message]));

describe("pay form", () => {
  it("takes the balance with a new card and keeps the card only in memory", () => {
    const r = paySchema(today).safeParse({ idempotency_key: key, amount_choice: "balance", payment_method: "new", ...card });
    expect(r.success).toBe(true);
    expect(r.data).toMatchObject({ otherAmount: null, method: { kind: "card", card: { number: "4242424242424242", expMonth: 12, expYear: 2030 }, saveCard: false } });
  });
  it("takes another amount in dollars", () => {
    const r = paySchema(today).safeParse({ idempotency_key: key, amount_choice: "other", other_amount: "$1,025.50", payment_method: "saved:7" });
    expect(r.data).toMatchObject({ otherAmount: 102550, method: { kind: "saved", savedCardId: "7" } });
  });
  it.each([
    ["", "Enter an amount."],
    ["0.99", "The smallest payment online is $1.00."],
    ["12.345", AMOUNT_FORMAT_MESSAGE],
    ["abc", AMOUNT_FORMAT_MESSAGE],
  ])("refuses the other amount %j", (amount, message) => {
    const r = paySchema(today).safeParse({ idempotency_key: key, amount_choice: "other", other_amount: amount, payment_method: "saved:1" });
    expect(issues(r)).toEqual({ other_amount: message });
  });
  it("checks the card fields only when a new card is chosen", () => {
    expect(paySchema(today).safeParse({ idempotency_key: key, amount_choice: "balance", payment_method: "saved:3" }).success).toBe(true);
    const r = paySchema(today).safeParse({ idempotency_key: key, amount_choice: "balance", payment_method: "new", ...card, card_number: "4242424242424241", exp_month: "10", exp_year: "2026" });
    expect(issues(r)).toMatchObject({ card_number: "This card number is not valid. Please check it.", exp_month: expect.stringContaining("expired") });
  });
  it("refuses a missing or odd idempotency key", () => {
    expect(issues(paySchema(today).safeParse({ idempotency_key: "x", amount_choice: "balance", payment_method: "saved:3" }))).toHaveProperty("idempotency_key");
  });
  it.each([
    ["1,500.00", 150000],
    ["1500", 150000],
    ["15.5", 1550],
    ["$1,025.50", 102550],
    ["$ 25", 2500],
    ["999,999.99", 99999999],
  ])("accepts the well-formed amount %j", (amount, cents) => {
    expect(dollarsField.parse(amount)).toBe(cents);
  });
  it.each(["1,50", "1.505", "-5", "1e3", "1,5000", ",150", "1,000,000", "1.", "1 000", "$-5", "0x10"])("refuses the malformed amount %j beside the field", (amount) => {
    const r = paySchema(today).safeParse({ idempotency_key: key, amount_choice: "other", other_amount: amount, payment_method: "saved:1" });
    expect(issues(r)).toEqual({ other_amount: AMOUNT_FORMAT_MESSAGE });
  });
  it("caps a payment at the balance plus the allowed prepayment", () => {
    expect(maxPortalPayment({ balance: 5000, monthlyTotal: 6000, prepayMonths: 3 })).toBe(23000);
    expect(maxPortalPayment({ balance: -2000, monthlyTotal: 6000, prepayMonths: 3 })).toBe(18000);
    expect(maxPortalPayment({ balance: 5000, monthlyTotal: 6000, prepayMonths: 0 })).toBe(5000);
    expect(portalAmountError(23000, 23000)).toBeNull();
    expect(portalAmountError(23001, 23000)).toBe("You can pay at most $230.00 online: the balance due plus the months you may pay ahead. For more, please call the office.");
  });
  it("parses dollars exactly", () => {
    expect(dollarsField.parse("58.42")).toBe(5842);
  });
});

describe("a hosted card form (Stripe, decisions 383 and 400)", () => {
  const hosted = { idempotency_key: key, amount_choice: "balance", payment_method: "new", hosted_fields: "1" };
  it("a processor's token is the new card", () => {
    expect(paySchema(today).safeParse({ ...hosted, payment_token: "pm_card_visa", save_card: "on" }).data).toMatchObject({ method: { kind: "token", token: "pm_card_visa", saveCard: true } });
  });
  it("no token (JavaScript off, or Stripe.js did not load): on to the processor's page, with 'save this card' as chosen", () => {
    expect(paySchema(today).safeParse({ ...hosted, save_card: "on" }).data).toMatchObject({ method: { kind: "checkout", saveCard: true } });
    expect(paySchema(today).safeParse({ ...hosted, payment_token: "" }).data).toMatchObject({ method: { kind: "checkout", saveCard: false } });
  });
  it("something else in the token is refused beside the card choice", () => {
    expect(issues(paySchema(today).safeParse({ ...hosted, payment_token: "4242424242424242" }))).toEqual({ payment_method: HOSTED_CARD_MISSING });
  });
  it("a saved card stays a saved card", () => {
    expect(paySchema(today).safeParse({ ...hosted, payment_method: "saved:3" }).data).toMatchObject({ method: { kind: "saved", savedCardId: "3" } });
  });
});

describe("prepay form", () => {
  it.each([
    ["0", false],
    ["1", true],
    ["3", true],
    ["4", false],
  ])("months %s within 1..3: %s", (months, ok) => {
    expect(prepaySchema(today, 3).safeParse({ idempotency_key: key, months, payment_method: "saved:1" }).success).toBe(ok);
  });
});

describe("move-out form", () => {
  it.each([
    ["2026-11-21", false],
    ["2026-11-22", true],
    ["2027-01-05", true],
    ["2026-02-30", false],
    ["", false],
  ])("date %j on or after 2026-11-22: %s", (date, ok) => {
    expect(moveOutSchema("2026-11-22").safeParse({ move_out_date: date }).success).toBe(ok);
  });
});

describe("password forms", () => {
  const base = { intent: "password", current_password: "old", new_password: "abcdef", confirm_password: "abcdef" };
  it.each([
    ["abcde", false],
    ["abcdef", true],
    ["a".repeat(20), true],
    ["a".repeat(21), false],
  ])("new password %j (6 to 20): %s", (pw, ok) => {
    expect(changePasswordSchema.safeParse({ ...base, new_password: pw, confirm_password: pw }).success).toBe(ok);
  });
  it("must be confirmed", () => {
    expect(issues(changePasswordSchema.safeParse({ ...base, confirm_password: "abcdeg" }))).toEqual({ confirm_password: "The passwords do not match." });
    expect(issues(resetPasswordSchema.safeParse({ token: "t", new_password: "abcdef", confirm_password: "abcdeg" }))).toEqual({ confirm_password: "The passwords do not match." });
  });
});

describe("profile forms", () => {
  it("uses the rental form's rules for contact details and the phone", () => {
    const r = profileContactSchema.safeParse({ intent: "contact", first_name: "Pat", last_name: "T", email: "PAT@Example.com", addr_1: "1 Main", city: "Lumberton", region: "nc", postal_code: "28358" });
    expect(r.data).toMatchObject({ email: "pat@example.com", region: "NC", is_military: false });
    expect(profilePhoneSchema.parse({ intent: "phone", cell_phone: "(910) 555-0134" }).cell_phone).toBe("(910) 555-0134");
    expect(profilePhoneSchema.safeParse({ intent: "phone", cell_phone: "555-0134" }).success).toBe(false);
  });
});
