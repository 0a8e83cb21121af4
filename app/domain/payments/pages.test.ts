import { describe, expect, it } from "vitest";
import { isPaymentRoute } from "./pages";

describe("isPaymentRoute", () => {
  it.each([
    [[undefined, { enhanceForms: true, paymentPage: true }], true],
    [[{ paymentPage: true }], true],
    [[undefined, { enhanceForms: true }], false],
    [[{ paymentPage: "yes" }], false],
    [[], false],
  ])("%j → %s", (handles, expected) => {
    expect(isPaymentRoute(handles)).toBe(expected);
  });
});
