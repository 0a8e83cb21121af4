import { describe, expect, it } from "vitest";
import { acceptedCardBrands, acceptedCardsText, cardBrandList } from "./accepted-cards";
import { cardSchema } from "./card-schema";
import { paySchema } from "../rental/steps";

const today = { year: 2026, month: 11 };
const valid = { card_number: "4242 4242 4242 4242", exp_month: "12", exp_year: "2030", cvv: "123", name_on_card: "Ada Lovelace", billing_postal_code: "28358" };

describe("accepted cards from the location's payment_types", () => {
  it.each([
    [[{ category: "discover" }, { category: "visa" }, { category: "visa" }], ["visa", "discover"]],
    [[{ category: "mastercard", deletedAt: new Date() }, { category: "visa", deletedAt: null }], ["visa"]],
    [[], []],
    [[{ category: "amex" }], []],
  ])("%j → %j", (types, brands) => {
    expect(acceptedCardBrands(types)).toEqual(brands);
  });

  it("names them for people", () => {
    expect(cardBrandList(["visa", "mastercard", "discover"])).toBe("Visa, Master Card and Discover");
    expect(cardBrandList(["visa"])).toBe("Visa");
    expect(acceptedCardsText([])).toBe("We do not take card payments online.");
  });

  it("refuses a brand the location does not take, beside the card number", () => {
    const r = cardSchema(today).safeParse({ ...valid });
    expect(r.success).toBe(true);
    const visaOnly = paySchema(today, { forceAutopay: false, acceptedCards: ["visa"] });
    expect(visaOnly.safeParse({ ...valid }).success).toBe(true);
    const mc = visaOnly.safeParse({ ...valid, card_number: "5555555555554444" });
    expect(mc.success).toBe(false);
    expect(mc.error!.issues.map((i) => [i.path.join("."), i.message])).toEqual([["card_number", "This card is not accepted here. We accept Visa."]]);
  });
});
