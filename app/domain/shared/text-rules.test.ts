import { describe, expect, it } from "vitest";
import { isCleanLine, isCleanText } from "./text-rules";
import { accountCreationSchema } from "./tenant-form";
import { contactSchema } from "../site/contact-schema";
import { reservationSchema } from "../rental/reservation";

describe("text rules", () => {
  it.each([
    ["Ann", true],
    ["Anne-Marie O'Neil", true],
    ["José Ñúñez", true],
    ["Ann\u0000", false],
    ["Ann\tLee", false],
    ["Ann\nLee", false],
    ["Ann\u007F", false],
    ["Ann\u0085", false],
    ["\u202Enna", false],
    ["Ann\u202A", false],
    ["Ann\u2066x\u2069", false],
    ["Ann\u200B", false],
    ["Ann\u200F", false],
    ["\uFEFFAnn", false],
  ])("isCleanLine(%j) = %s", (value, expected) => {
    expect(isCleanLine(value)).toBe(expected);
  });

  it("messages may have line breaks and tabs, not other controls", () => {
    expect(isCleanText("Hello,\r\n\tthanks")).toBe(true);
    expect(isCleanText("Hello\u0000")).toBe(false);
    expect(isCleanText("Hello\u202E")).toBe(false);
  });
});

const validAccount = {
  first_name: "Ann",
  last_name: "Lee",
  email: "ann@example.com",
  cell_phone: "(910) 555-0134",
  web_pw: "secret1",
  confirm_web_pw: "secret1",
  addr_1: "1 Main St",
  city: "Lumberton",
  region: "NC",
  postal_code: "28358",
};

describe("the shared schemas refuse control and direction characters beside the field", () => {
  it.each([
    ["first_name", "Ann\u0000"],
    ["last_name", "\u202ELee"],
    ["addr_1", "1 Main\u0000 St"],
    ["city", "Lumber\u0007ton"],
    ["alt_contact_first_name", "Bo\u2067b"],
  ])("account creation: %s", (field, value) => {
    const r = accountCreationSchema.safeParse({ ...validAccount, [field]: value });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join("."))).toEqual([field]);
  });

  it("account creation still accepts a clean form", () => {
    expect(accountCreationSchema.safeParse(validAccount).success).toBe(true);
  });

  it("contact: name and message", () => {
    const base = { name: "Ann", email: "ann@example.com", message: "Hi\nthere" };
    expect(contactSchema.safeParse(base).success).toBe(true);
    expect(contactSchema.safeParse({ ...base, name: "A\u202Enn" }).error!.issues[0]!.path).toEqual(["name"]);
    expect(contactSchema.safeParse({ ...base, message: "Hi\u0000" }).error!.issues[0]!.path).toEqual(["message"]);
  });

  it("reservation: names", () => {
    const schema = reservationSchema({ min: "2026-01-01", max: "2026-01-03" });
    const base = { first_name: "Ann", last_name: "Lee", email: "ann@example.com", phone: "9105550134", desired_move_in_date: "2026-01-02" };
    expect(schema.safeParse(base).success).toBe(true);
    expect(schema.safeParse({ ...base, last_name: "Lee\u0000" }).error!.issues[0]!.path).toEqual(["last_name"]);
  });
});
