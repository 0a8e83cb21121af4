import { describe, expect, it } from "vitest";
import { isPaymentPage } from "./payment-pages";

describe("isPaymentPage", () => {
  it.each([
    ["/rent/12", true],
    ["/rent/12/", true],
    ["/customer-portal/units/3/pay", true],
    ["/customer-portal/units/3/prepay", true],
    ["/customer-portal/units/3/autopay", true],
    ["/rent/12/confirmation", false],
    ["/rent/lease/5", false],
    ["/customer-portal", false],
    ["/customer-portal/units/3/move-out", false],
    ["/contact", false],
    ["/", false],
    ["/reserve/12", false],
  ])("%s → %s", (path, expected) => {
    expect(isPaymentPage(path)).toBe(expected);
  });
});
