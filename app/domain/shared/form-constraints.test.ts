import { getZodConstraint } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { detailsSchema, paySchema, signSchema } from "../rental/steps";
import { profileContactSchema, profilePhoneSchema } from "../portal/forms";
import { reservationSchema } from "../rental/reservation";
import { contactSchema, notifySchema } from "../site/contact-schema";

/**
 * The `required` attribute each form renders comes from getZodConstraint. Only the fields spec §5
 * names as required may carry it: screen readers announce "required" on every one of them.
 */
function requiredFields(schema: z.ZodType): string[] {
  return Object.entries(getZodConstraint(schema))
    .filter(([, c]) => c.required)
    .map(([name]) => name)
    .sort();
}

const contactRequired = ["addr_1", "city", "email", "first_name", "last_name", "postal_code", "region"];
const today = { year: 2026, month: 11 };

describe("form constraints: only required fields are marked required", () => {
  it("rental details: the spec's required fields, not the military/company/commercial boxes", () => {
    expect(requiredFields(detailsSchema({ passwordOptional: false }))).toEqual([...contactRequired, "cell_phone", "confirm_web_pw", "web_pw"].sort());
    expect(requiredFields(detailsSchema({ passwordOptional: true }))).toEqual([...contactRequired, "cell_phone"].sort());
  });

  it("portal profile: same contact rules, the checkboxes optional", () => {
    expect(requiredFields(profileContactSchema)).toEqual([...contactRequired, "intent"].sort());
    expect(requiredFields(profilePhoneSchema)).toEqual(["cell_phone", "intent"]);
  });

  it("rental payment: the autopay box is optional; the lease consent box is required", () => {
    expect(requiredFields(paySchema(today, { forceAutopay: false }))).not.toContain("autopay");
    expect(requiredFields(signSchema("Ann Lee"))).toEqual(["consent", "signed_name"]);
  });

  it("reservation and contact forms", () => {
    const res = requiredFields(reservationSchema({ min: "2026-11-01", max: "2026-11-03" }));
    expect(res).toEqual(expect.arrayContaining(["email", "first_name", "last_name", "phone"]));
    expect(requiredFields(contactSchema)).toEqual(["email", "message", "name"]);
    expect(requiredFields(notifySchema)).toEqual(["email", "name"]);
  });
});
