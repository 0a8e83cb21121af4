import { describe, expect, it } from "vitest";
import { contactSchema, notifySchema } from "./contact-schema";
import { isHoneypotFilled, HONEYPOT_FIELD_NAME } from "../web/form-fields";

const good = { name: "Ann Lee", email: "ann@example.com", phone: "", message: "Do you have 10x10 units?" };

const firstError = (schema: typeof contactSchema | typeof notifySchema, value: Record<string, unknown>) => {
  const r = schema.safeParse(value);
  return r.success ? null : { path: r.error.issues[0]!.path.join("."), message: r.error.issues[0]!.message };
};

describe("contactSchema", () => {
  it("accepts a good message and trims it", () => {
    expect(contactSchema.parse({ ...good, name: "  Ann Lee ", phone: " (910) 555-0134 " })).toEqual({
      ...good,
      phone: "(910) 555-0134",
    });
  });

  it.each([
    ["no name", { name: "  " }, { path: "name", message: "Enter your name." }],
    ["a name that is too long", { name: "x".repeat(101) }, { path: "name", message: "Your name can be at most 100 characters." }],
    ["no email", { email: "" }, { path: "email", message: "Enter your email address." }],
    ["a bad email", { email: "ann@" }, { path: "email", message: "Enter a valid email address, like name@example.com." }],
    ["a short phone number", { phone: "555-0134" }, { path: "phone", message: "Enter a 10-digit phone number, like (910) 555-0134." }],
    ["no message", { message: "" }, { path: "message", message: "Enter your message." }],
    ["a missing message", { message: undefined }, { path: "message", message: "Enter your message." }],
    ["a message that is too long", { message: "x".repeat(5001) }, { path: "message", message: "Your message can be at most 5,000 characters." }],
  ])("refuses %s in plain words", (_name, change, expected) => {
    expect(firstError(contactSchema, { ...good, ...change })).toEqual(expected);
  });
});

describe("notifySchema (coming-soon sign-up)", () => {
  it("does not need a message", () => {
    expect(firstError(notifySchema, { ...good, message: undefined })).toBeNull();
  });
  it("still needs an email", () => {
    expect(firstError(notifySchema, { ...good, email: "nope" })?.path).toBe("email");
  });
});

describe("isHoneypotFilled", () => {
  it.each([
    ["", false],
    ["   ", false],
    ["http://spam.example", true],
  ])("%j → %s", (value, filled) => {
    const fd = new FormData();
    fd.set(HONEYPOT_FIELD_NAME, value);
    expect(isHoneypotFilled(fd)).toBe(filled);
  });
  it("is not filled when absent", () => {
    expect(isHoneypotFilled(new FormData())).toBe(false);
  });
});
