import { describe, expect, it } from "vitest";
import { allowedStep, detailsSchema, furthestStep, rentalSteps, nextStep, parseStep, paySchema, previousStep, protectionSchema, signSchema } from "./steps";

const none = { hasDetails: false, hasProtection: false, hasReviewed: false, hasSigned: false };
const all = { hasDetails: true, hasProtection: true, hasReviewed: true, hasSigned: true };

describe("rental steps", () => {
  it("the step comes from the URL, details by default", () => {
    expect(parseStep("pay")).toBe("pay");
    expect(parseStep("bogus")).toBe("details");
    expect(parseStep(null)).toBe("details");
  });

  it("a later step cannot be reached before the earlier ones are answered", () => {
    expect(furthestStep(none)).toBe("details");
    expect(allowedStep("pay", none)).toBe("details");
    expect(allowedStep("review", { ...none, hasDetails: true })).toBe("protection");
    expect(allowedStep("sign", { ...none, hasDetails: true, hasProtection: true, hasReviewed: true })).toBe("sign");
    expect(allowedStep("pay", { ...all, hasSigned: false })).toBe("sign");
    expect(allowedStep("details", all)).toBe("details");
    expect(furthestStep(all)).toBe("pay");
  });

  it("Back goes one step back", () => {
    expect(previousStep("details")).toBeNull();
    expect(previousStep("pay")).toBe("sign");
  });

  // Decision 203: is_sitelink_esign_enabled off: no online e-sign step (the lease is signed at the office).
  const reviewed = { ...none, hasDetails: true, hasProtection: true, hasReviewed: true };
  it.each([
    ["the steps", () => rentalSteps(false), ["details", "protection", "review", "pay"]],
    ["with e-sign", () => rentalSteps(true), ["details", "protection", "review", "sign", "pay"]],
    ["reviewed, not signed: pay is reachable", () => furthestStep(reviewed, false), "pay"],
    ["reviewed, not signed, with e-sign: sign first", () => furthestStep(reviewed, true), "sign"],
    ["sign asked for: the furthest step instead", () => allowedStep("sign", reviewed, false), "pay"],
    ["pay before the review: the review", () => allowedStep("pay", { ...none, hasDetails: true, hasProtection: false }, false), "protection"],
    ["Back from pay: the review", () => previousStep("pay", false), "review"],
    ["after the review: pay", () => nextStep("review", false), "pay"],
    ["after the review with e-sign: sign", () => nextStep("review", true), "sign"],
    ["after pay: nothing", () => nextStep("pay", false), null],
  ] as const)("without e-sign: %s", (_name, got, want) => {
    expect(got()).toEqual(want);
  });
});

describe("details when coming back", () => {
  const base = {
    first_name: "Ada", last_name: "Lovelace", email: "ada@example.com", cell_phone: "9105550134",
    addr_1: "1 Main St", city: "Lumberton", region: "NC", postal_code: "28358",
  };
  it("the password may be left empty to keep the one chosen", () => {
    expect(detailsSchema({ passwordOptional: true }).safeParse(base).success).toBe(true);
    expect(detailsSchema({ passwordOptional: false }).safeParse(base).success).toBe(false);
  });
  it("a new password still follows the rules", () => {
    const r = detailsSchema({ passwordOptional: true }).safeParse({ ...base, web_pw: "abcde", confirm_web_pw: "abcde" });
    expect(r.success).toBe(false);
    const m = detailsSchema({ passwordOptional: true }).safeParse({ ...base, web_pw: "abcdef", confirm_web_pw: "abcdeg" });
    expect(m.success ? [] : m.error.issues.map((i) => i.message)).toEqual(["The passwords do not match."]);
  });
});

describe("protection, signature and payment", () => {
  it("a listed plan or 'none' (insurance not required)", () => {
    expect(protectionSchema(["1", "2"], false).safeParse({ insurance_plan: "none" }).success).toBe(true);
    expect(protectionSchema(["1", "2"], false).safeParse({ insurance_plan: "2" }).success).toBe(true);
    expect(protectionSchema(["1", "2"], false).safeParse({ insurance_plan: "9" }).success).toBe(false);
    expect(protectionSchema(["1", "2"], false).safeParse({}).success).toBe(false);
    expect(protectionSchema(["1", "2"], true).safeParse({ insurance_plan: "none" }).success).toBe(false);
  });

  it("the signature is the full name (any case and spacing) with consent", () => {
    const s = signSchema("Ada Lovelace");
    expect(s.safeParse({ signed_name: "  ada   LOVELACE ", consent: "on" }).success).toBe(true);
    expect(s.safeParse({ signed_name: "Ada", consent: "on" }).success).toBe(false);
    expect(s.safeParse({ signed_name: "Ada Lovelace" }).success).toBe(false);
  });

  it("autopay is what the visitor ticked, or on when forced", () => {
    const card = { card_number: "4242424242424242", exp_month: "12", exp_year: "2030", cvv: "123", name_on_card: "A", billing_postal_code: "28358" };
    const today = { year: 2026, month: 11 };
    expect(paySchema(today, { forceAutopay: false }).parse({ ...card, autopay: "on" }).autopay).toBe(true);
    expect(paySchema(today, { forceAutopay: false }).parse(card).autopay).toBe(false);
    expect(paySchema(today, { forceAutopay: true }).parse(card).autopay).toBe(true);
    expect(paySchema(today, { forceAutopay: false }).safeParse({ ...card, exp_year: "2026", exp_month: "10" }).success).toBe(false);
  });
});
