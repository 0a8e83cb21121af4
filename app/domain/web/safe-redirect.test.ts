import { describe, expect, it } from "vitest";
import { isSafeLocalPath, safeRedirectTo } from "./safe-redirect";

describe("safeRedirectTo", () => {
  const FALLBACK = "/customer-portal";
  it.each([
    // followed as given
    ["/customer-portal", "/customer-portal"],
    ["/customer-portal/profile", "/customer-portal/profile"],
    ["/customer-portal/units/12/pay?x=1", "/customer-portal/units/12/pay?x=1"],
    ["/customer-portal/receipts/5#top", "/customer-portal/receipts/5#top"],
    // the review's case: a dot segment and a tab ("/\t/evil.example" is "//evil.example" to a browser)
    ["/customer-portal/../\t/evil.example", FALLBACK],
    ["/customer-portal/..\t/evil.example", FALLBACK],
    ["/customer-portal/../%09/evil.example", FALLBACK],
    ["/customer-portal/../", FALLBACK],
    ["/customer-portal/./profile", FALLBACK],
    ["/customer-portal/%2e%2e/evil", FALLBACK],
    // other hosts and protocol-relative forms
    ["//evil.example", FALLBACK],
    ["/customer-portal//evil.example", FALLBACK],
    ["https://evil.example/customer-portal", FALLBACK],
    ["javascript:alert(1)", FALLBACK],
    ["\\\\evil.example", FALLBACK],
    ["/customer-portal\\..\\..\\evil", FALLBACK],
    ["/customer-portal/%2fevil.example", FALLBACK],
    ["/customer-portal/%2Fevil.example", FALLBACK],
    ["/customer-portal/%5cevil.example", FALLBACK],
    ["/customer-portal/%5Cevil.example", FALLBACK],
    // control characters anywhere
    ["/customer-portal/\nprofile", FALLBACK],
    ["/customer-portal/\rprofile", FALLBACK],
    ["/customer-portal/\u0000", FALLBACK],
    ["/customer-portal/\u007F", FALLBACK],
    ["/customer-portal/ profile", FALLBACK],
    // outside the portal, or the sign-in pages themselves
    ["/", FALLBACK],
    ["/customer-portalx", FALLBACK],
    ["/customer-portal-evil", FALLBACK],
    ["/customer-portal/login", FALLBACK],
    ["/customer-portal/logout?x=1", FALLBACK],
    ["", FALLBACK],
    ["customer-portal", FALLBACK],
    [`/customer-portal/${"a".repeat(3000)}`, FALLBACK],
  ])("%j → %j", (input, expected) => {
    expect(safeRedirectTo(input)).toBe(expected);
  });

  it("falls back for values that are not strings", () => {
    expect(safeRedirectTo(undefined)).toBe(FALLBACK);
    expect(safeRedirectTo(null)).toBe(FALLBACK);
    expect(safeRedirectTo(["/customer-portal/profile"])).toBe(FALLBACK);
  });

  it("isSafeLocalPath refuses what a browser would send elsewhere", () => {
    expect(isSafeLocalPath("/faqs")).toBe(true);
    expect(isSafeLocalPath("/\t/evil.example")).toBe(false);
    expect(isSafeLocalPath("/\\evil.example")).toBe(false);
  });
});
