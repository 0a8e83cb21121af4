import { describe, expect, it } from "vitest";
import { cardSchema, toCardDetails } from "./card-schema";

const today = { year: 2026, month: 11 };
const valid = { card_number: "4242 4242 4242 4242", exp_month: "12", exp_year: "2030", cvv: "123", name_on_card: "Ada Lovelace", billing_postal_code: "28358" };
function errors(input: Record<string, unknown>) {
  const r = cardSchema(today).safeParse(input);
  if (r.success) return {};
  const out: Record<string, string[]> = {};
  for (const i of r.error.issues) (out[String(i.path[0])] ??= []).push(i.message);
  return out;
}

describe("card fields", () => {
  it("parses a valid Visa into the gateway's card details", () => {
    const card = toCardDetails(cardSchema(today).parse(valid));
    expect(card).toEqual({ brand: "visa", number: "4242424242424242", expMonth: 12, expYear: 2030, cvv: "123", nameOnCard: "Ada Lovelace", postalCode: "28358" });
  });

  it.each([
    ["5555555555554444", "mastercard"],
    ["2223003122003222", "mastercard"],
    ["6011111111111117", "discover"],
  ])("accepts %s (%s)", (number, brand) => {
    expect(toCardDetails(cardSchema(today).parse({ ...valid, card_number: number })).brand).toBe(brand);
  });

  it("refuses other brands (American Express) with the accepted list", () => {
    expect(errors({ ...valid, card_number: "378282246310005" }).card_number?.[0]).toBe("This card is not accepted here. We accept Visa, Master Card and Discover.");
  });

  it("refuses a number failing Luhn", () => {
    expect(errors({ ...valid, card_number: "4242424242424241" }).card_number).toEqual(["This card number is not valid. Please check it."]);
  });

  it("expiry: this month is still valid, last month is not", () => {
    expect(errors({ ...valid, exp_month: "11", exp_year: "2026" })).toEqual({});
    expect(errors({ ...valid, exp_month: "10", exp_year: "2026" }).exp_month?.[0]).toMatch(/expired/);
    expect(errors({ ...valid, exp_month: "12", exp_year: "2025" }).exp_month?.[0]).toMatch(/expired/);
    expect(errors({ ...valid, exp_month: "13" }).exp_month).toBeDefined();
  });

  it("CVV 3 or 4 digits; name and ZIP required", () => {
    expect(errors({ ...valid, cvv: "12" }).cvv).toBeDefined();
    expect(errors({ ...valid, cvv: "1234" })).toEqual({});
    expect(errors({ ...valid, cvv: "12345" }).cvv).toBeDefined();
    expect(errors({ ...valid, name_on_card: "" }).name_on_card).toBeDefined();
    expect(errors({ ...valid, billing_postal_code: "" }).billing_postal_code).toBeDefined();
  });
});
