import { describe, expect, it } from "vitest";
import { commonPasswordError, COMMON_PASSWORD_MESSAGE, isCommonPassword } from "./common-passwords";

describe("common passwords", () => {
  it.each(["password", "123456", "qwerty", "letmein", "iloveyou", "sunshine", "Password", "DRAGON", "abc123", "password1", "secret1"])("refuses %j", (pw) => {
    expect(isCommonPassword(pw)).toBe(true);
    expect(commonPasswordError(pw)).toBe(COMMON_PASSWORD_MESSAGE);
  });
  it.each(["dragonx9q", "Tidy-Unit-42", "brand-new1", "portal-pass1", "xk2!pq9zz", "Lumberton#Box7"])("accepts %j (an exact match only, not a prefix)", (pw) => {
    expect(isCommonPassword(pw)).toBe(false);
    expect(commonPasswordError(pw)).toBeNull();
  });
  it("says why", () => {
    expect(COMMON_PASSWORD_MESSAGE).toMatch(/^This password is too common/);
  });
});
