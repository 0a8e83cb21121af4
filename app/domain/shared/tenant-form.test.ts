import { describe, expect, it } from "vitest";
import { accountCreationSchema, pickTenantContact, tenantContactFromForm, tenantContactShape, tenantFromForm } from "./tenant-form";

const valid = {
  first_name: "Ada",
  last_name: "Lovelace",
  email: "Ada@Example.com",
  cell_phone: "(910) 555-0134",
  web_pw: "secret1",
  confirm_web_pw: "secret1",
  addr_1: "1 Main St",
  city: "Lumberton",
  region: "NC",
  postal_code: "28358",
};

function errors(input: Record<string, unknown>) {
  const r = accountCreationSchema.safeParse(input);
  if (r.success) return {};
  const out: Record<string, string[]> = {};
  for (const i of r.error.issues) (out[String(i.path[0])] ??= []).push(i.message);
  return out;
}

describe("account-creation form (spec §3 and §5)", () => {
  it("accepts the required fields alone and normalises them", () => {
    const r = accountCreationSchema.parse(valid);
    expect(r.email).toBe("ada@example.com");
    expect(r.cell_phone).toBe("(910) 555-0134");
    expect(r.addr_2).toBeNull();
    expect(r.is_military).toBe(false);
    expect(r.alt_contact_phone).toBeNull();
  });

  it.each(["first_name", "last_name", "email", "cell_phone", "web_pw", "confirm_web_pw", "addr_1", "city", "region", "postal_code"])(
    "%s is required",
    (field) => {
      const e = errors({ ...valid, [field]: "" });
      expect(e[field]?.length).toBeGreaterThan(0);
      const missing: Record<string, unknown> = { ...valid };
      delete missing[field];
      expect(errors(missing)[field]?.length).toBeGreaterThan(0);
    },
  );

  it.each(["addr_2", "is_military", "is_company", "is_commercial", "alt_contact_first_name", "alt_contact_last_name", "alt_contact_phone"])(
    "%s is optional",
    (field) => {
      expect(errors({ ...valid, [field]: "" })).toEqual({});
    },
  );

  it.each(["ada", "ada@", "@example.com", "ada@example", "ada example@x.com"])("bad email %s", (email) => {
    expect(errors({ ...valid, email }).email).toEqual(["Enter a valid email address, like name@example.com."]);
  });

  it.each([
    [5, false],
    [6, true],
    [20, true],
    [21, false],
  ])("password of %i characters valid: %s", (n, ok) => {
    const pw = "a".repeat(n);
    const e = errors({ ...valid, web_pw: pw, confirm_web_pw: pw });
    expect(Boolean(e.web_pw)).toBe(!ok);
    expect(Boolean(e.confirm_web_pw)).toBe(!ok);
  });

  it("password messages say the limits", () => {
    expect(errors({ ...valid, web_pw: "abcde", confirm_web_pw: "abcde" }).web_pw).toEqual(["Your password must be at least 6 characters."]);
    expect(errors({ ...valid, web_pw: "a".repeat(21), confirm_web_pw: "a".repeat(21) }).web_pw).toEqual(["Your password can be at most 20 characters."]);
  });

  it("confirmation must equal the password", () => {
    expect(errors({ ...valid, confirm_web_pw: "secret2" })).toEqual({ confirm_web_pw: ["The passwords do not match."] });
  });

  it.each([
    "(910) 555-0134",
    "910-555-0134",
    "910.555.0134",
    "9105550134",
    "+1 910 555 0134",
    "1-910-555-0134",
    " 910 5550134 ",
  ])("phone %j is stored as (910) 555-0134, the mask of spec §5", (input) => {
    const r = accountCreationSchema.parse({ ...valid, cell_phone: input, alt_contact_phone: input });
    expect(r.cell_phone).toBe("(910) 555-0134");
    expect(r.alt_contact_phone).toBe("(910) 555-0134");
  });

  it.each([
    ["010-555-0134", /area code/],
    ["(110) 555-0134", /area code/],
    ["1 (010) 555-0134", /area code/],
    ["(910) 055-0134", /after the area code/],
    ["(910) 155-0134", /after the area code/],
  ])("%s cannot be a US number: the message says why", (input, why) => {
    const e = errors({ ...valid, cell_phone: input, alt_contact_phone: input });
    expect(e.cell_phone?.[0]).toMatch(why);
    expect(e.alt_contact_phone?.[0]).toMatch(why);
  });

  it("an empty alternate contact phone is no phone", () => {
    expect(accountCreationSchema.parse({ ...valid, alt_contact_phone: "" }).alt_contact_phone).toBeNull();
  });

  it.each(["555-0134", "910555013", "91055501345", "(910) 555-01345", "phone"])("phone %s is refused", (input) => {
    const e = errors({ ...valid, cell_phone: input, alt_contact_phone: input });
    expect(e.cell_phone?.[0]).toMatch(/\(###\) ###-####/);
    expect(e.alt_contact_phone?.[0]).toMatch(/\(###\) ###-####/);
  });

  it("state must be from the list; ZIP five digits", () => {
    expect(errors({ ...valid, region: "XX" }).region).toEqual(["Choose your state from the list."]);
    expect(errors({ ...valid, postal_code: "2835" }).postal_code).toBeDefined();
    expect(errors({ ...valid, postal_code: "28358-1234" })).toEqual({});
  });

  it("checkboxes arrive as 'on' from HTML forms", () => {
    const r = accountCreationSchema.parse({ ...valid, is_military: "on", is_company: "on" });
    expect(r.is_military).toBe(true);
    expect(r.is_company).toBe(true);
    expect(r.is_commercial).toBe(false);
  });
});

describe("tenantFromForm: the one mapping from the account-creation form to the tenant", () => {
  it("carries every field of the form except the password, under the storage software's names", () => {
    const v = accountCreationSchema.parse({
      first_name: "Ada", last_name: "Lovelace", email: "ADA@example.com", cell_phone: "9105550134", web_pw: "secret1", confirm_web_pw: "secret1",
      addr_1: "1 Main St", addr_2: "Apt 2", city: "Lumberton", region: "nc", postal_code: "28358", is_military: "on", is_company: "on",
      alt_contact_first_name: "Bo", alt_contact_last_name: "Lee", alt_contact_phone: "910 555 0199",
    });
    const t = tenantFromForm(v);
    expect(t).toEqual({
      firstName: "Ada", lastName: "Lovelace", email: "ada@example.com", cellPhone: "(910) 555-0134", addr1: "1 Main St", addr2: "Apt 2",
      city: "Lumberton", region: "NC", postalCode: "28358", isMilitary: true, isCompany: true, isCommercial: false,
      altContactFirstName: "Bo", altContactLastName: "Lee", altContactPhone: "(910) 555-0199",
    });
    // Every field of the form but the password and its confirmation is mapped (a new form field must be added here too).
    const formFields = Object.keys(tenantContactShape).length;
    expect(Object.keys(t)).toHaveLength(formFields);
    const { cellPhone: _phone, ...contact } = t;
    expect(tenantContactFromForm(v)).toEqual(contact);
  });
});

describe("pickTenantContact", () => {
  it("keeps exactly the contact details: no id, phone, password hash or other column", () => {
    const contact = {
      firstName: "Ada", lastName: "Lovelace", email: "ada@example.com", addr1: "1 Main St", addr2: null, city: "Lumberton", region: "NC",
      postalCode: "28358", isMilitary: false, isCompany: true, isCommercial: false, altContactFirstName: null, altContactLastName: null, altContactPhone: null,
    };
    const row = { ...contact, id: 7, cellPhone: "(910) 555-0134", webPwHash: "$2b$10$x", accountId: 1 };
    expect(pickTenantContact(row)).toEqual(contact);
  });
});
