import { describe, expect, it } from "vitest";
import { z } from "zod";
import { personalPasswordError, PERSONAL_PASSWORD_MESSAGE, staffPasswordField, STAFF_PASSWORD_MAX, STAFF_PASSWORD_MIN } from "./password";
import { isCommonPasswordVariant } from "../shared/common-passwords";

const parse = (v: string) => {
  const r = z.object({ password: staffPasswordField() }).safeParse({ password: v });
  return r.success ? null : r.error.issues[0]!.message;
};

describe("staffPasswordField: 12 to 128 characters (issue 36; tenants keep 6 to 20)", () => {
  it.each([
    ["", "Choose a password."],
    ["abc123", "Your password must be at least 12 characters."],
    ["a".repeat(STAFF_PASSWORD_MIN - 1), "Your password must be at least 12 characters."],
    ["a".repeat(STAFF_PASSWORD_MIN), null],
    ["a".repeat(STAFF_PASSWORD_MAX), null],
    ["a".repeat(STAFF_PASSWORD_MAX + 1), "Your password can be at most 128 characters."],
  ])("%j: %s", (value, message) => {
    expect(parse(value)).toBe(message);
  });
});

describe("personalPasswordError: not the member's name, e-mail or the company's name", () => {
  const person = { name: "Jo-Ann Smith", email: "jo.ann+ops@gatehousestorage.example", companyName: "Gatehouse Self Storage" };
  it.each([
    ["Smith-Summer-2026", PERSONAL_PASSWORD_MESSAGE],
    ["JOANN.rules.the.desk", PERSONAL_PASSWORD_MESSAGE],
    ["gatehouse-winter-time", PERSONAL_PASSWORD_MESSAGE],
    ["my gatehousestorage key", PERSONAL_PASSWORD_MESSAGE],
    ["storage-is-fun-2026", PERSONAL_PASSWORD_MESSAGE],
    ["Blue-Heron-Kettle-42", null],
    ["", null],
  ])("%j", (password, message) => {
    expect(personalPasswordError(password, person)).toBe(message);
  });
});

describe("isCommonPasswordVariant: the list's passwords with digits around them, or repeated (staff only)", () => {
  it.each([
    ["password1234", true],
    ["!Qwerty2026!", true],
    ["passwordpassword", true],
    ["123456123456", true],
    ["aaaaaaaaaaaa", true],
    ["Blue-Heron-Kettle-42", false],
    ["correct horse battery staple", false],
  ])("%j: %s", (password, common) => {
    expect(isCommonPasswordVariant(password)).toBe(common);
  });
});
