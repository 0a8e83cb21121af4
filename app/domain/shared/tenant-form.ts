import { z } from "zod";
import { formatPhone, usPhoneProblem, type UsPhoneProblem } from "./phone";
import { US_STATE_CODES } from "./us-states";
import { CONTROL_MESSAGE, isCleanLine, NAME_CHARS_MESSAGE } from "./text-rules";

/**
 * The account-creation form of spec §3 with the rules of spec §5, one schema for the browser
 * (Conform) and the server. Phones are accepted in any common format and come out as ten digits.
 */

const required = (what: string) => z.string({ error: `Enter your ${what}.` }).trim().min(1, `Enter your ${what}.`);
const optionalText = (max: number, what: string, charsMessage = CONTROL_MESSAGE) =>
  z
    .string()
    .trim()
    .max(max, `${what} can be at most ${max} characters.`)
    .refine(isCleanLine, charsMessage)
    .optional()
    .transform((v) => (v ? v : null));
/**
 * An optional checkbox: "on" (or "true") when ticked, absent when not. Typed as an optional string so
 * Conform's getZodConstraint does not mark it `required` (a union or boolean would be).
 */
export const optionalCheckbox = z
  .string()
  .optional()
  .transform((v) => v === "on" || v === "true");
const checkbox = optionalCheckbox;

export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 20;

/**
 * The password length rule (spec §5: 6 to 20 characters; decision 215: its one home), with its
 * messages, on a string field: "password", "password confirmation", "new password".
 */
export const withPasswordLength = (field: z.ZodString, what: string) =>
  field.min(PASSWORD_MIN, `Your ${what} must be at least ${PASSWORD_MIN} characters.`).max(PASSWORD_MAX, `Your ${what} can be at most ${PASSWORD_MAX} characters.`);
export const PHONE_MASK_HINT = "(###) ###-####";

const PHONE_PROBLEM_MESSAGES: Record<UsPhoneProblem, (what: string) => string> = {
  digits: (what) => `Enter a 10-digit ${what} in the format ${PHONE_MASK_HINT}.`,
  area_code: (what) => `Enter a US ${what}: the area code (the first 3 digits) cannot start with 0 or 1.`,
  exchange: (what) => `Enter a US ${what}: the 3 digits after the area code cannot start with 0 or 1.`,
};

function checkUsPhone(what: string) {
  return (v: string | undefined, ctx: z.RefinementCtx) => {
    const problem = v ? usPhoneProblem(v) : null;
    if (problem) ctx.addIssue({ code: "custom", message: PHONE_PROBLEM_MESSAGES[problem](what) });
  };
}

/** A required phone field checked as a US number; the parsed value is always "(###) ###-####" (spec §5). */
export const phoneField = (what: string) =>
  z
    .string({ error: `Enter your ${what}.` })
    .trim()
    .min(1, `Enter your ${what}.`)
    .superRefine(checkUsPhone(what))
    .transform((v) => formatPhone(v));

/** An optional phone field, the same rules when filled in; empty is null. */
const optionalPhoneField = (what: string) =>
  z
    .string()
    .trim()
    .optional()
    .superRefine(checkUsPhone(what))
    .transform((v) => (v ? formatPhone(v) : null));

const phone = phoneField;

export const passwordField = (what = "password") => withPasswordLength(z.string({ error: `Enter a ${what}.` }).min(1, `Enter a ${what}.`), what);

/** Contact details: shared by account creation and the portal's profile form. */
export const tenantContactShape = {
  first_name: required("first name").pipe(z.string().max(50, "First name can be at most 50 characters.").refine(isCleanLine, NAME_CHARS_MESSAGE)),
  last_name: required("last name").pipe(z.string().max(50, "Last name can be at most 50 characters.").refine(isCleanLine, NAME_CHARS_MESSAGE)),
  email: required("email address").pipe(z.email("Enter a valid email address, like name@example.com.")).transform((v) => v.toLowerCase()),
  cell_phone: phone("cell phone number"),
  addr_1: required("street address").pipe(z.string().max(100, "Address can be at most 100 characters.").refine(isCleanLine, CONTROL_MESSAGE)),
  addr_2: optionalText(100, "Address line 2"),
  city: required("city").pipe(z.string().max(60, "City can be at most 60 characters.").refine(isCleanLine, CONTROL_MESSAGE)),
  region: z
    .string({ error: "Choose your state." })
    .trim()
    .min(1, "Choose your state.")
    .refine((v) => US_STATE_CODES.has(v.toUpperCase()), "Choose your state from the list.")
    .transform((v) => v.toUpperCase()),
  postal_code: required("ZIP code").pipe(z.string().regex(/^\d{5}(-?\d{4})?$/, "Enter a 5-digit ZIP code, like 28358.")),
  is_military: checkbox,
  is_company: checkbox,
  is_commercial: checkbox,
  alt_contact_first_name: optionalText(50, "Alternate contact first name", NAME_CHARS_MESSAGE),
  alt_contact_last_name: optionalText(50, "Alternate contact last name", NAME_CHARS_MESSAGE),
  alt_contact_phone: optionalPhoneField("phone number"),
};

/** The password and its confirmation of the account-creation form (spec §5: 6 to 20 characters each). */
export const accountPasswordShape = {
  web_pw: passwordField("password"),
  confirm_web_pw: withPasswordLength(z.string({ error: "Confirm your password." }).min(1, "Confirm your password."), "password confirmation"),
};

/** Spec §5: the confirmation must equal the password (reported on the confirmation). */
export function passwordsMustMatch(v: { web_pw?: string; confirm_web_pw?: string }, ctx: z.RefinementCtx) {
  if (v.confirm_web_pw && v.web_pw && v.confirm_web_pw !== v.web_pw) {
    ctx.addIssue({ code: "custom", path: ["confirm_web_pw"], message: "The passwords do not match." });
  }
}

export const accountCreationSchema = z.object({ ...tenantContactShape, ...accountPasswordShape }).superRefine(passwordsMustMatch);

export type AccountCreationInput = z.infer<typeof accountCreationSchema>;
type TenantContactInput = z.infer<z.ZodObject<typeof tenantContactShape>>;

/**
 * The tenant's contact details in the storage software's words (the port's `ContactUpdate`), from
 * the form's parsed value. The one mapping from the account-creation form (spec §3) to the tenant:
 * the rental's details step, the reservation's full form and the portal's profile form all use it.
 */
export interface TenantContact {
  firstName: string;
  lastName: string;
  email: string;
  addr1: string;
  addr2: string | null;
  city: string;
  region: string;
  postalCode: string;
  isMilitary: boolean;
  isCompany: boolean;
  isCommercial: boolean;
  altContactFirstName: string | null;
  altContactLastName: string | null;
  altContactPhone: string | null;
}

const TENANT_CONTACT_KEYS = [
  "firstName", "lastName", "email", "addr1", "addr2", "city", "region", "postalCode",
  "isMilitary", "isCompany", "isCommercial", "altContactFirstName", "altContactLastName", "altContactPhone",
] as const satisfies ReadonlyArray<keyof TenantContact>;

/** Just the contact details of anything that holds them (a tenant, our tenant row). */
export function pickTenantContact(source: TenantContact): TenantContact {
  return Object.fromEntries(TENANT_CONTACT_KEYS.map((key) => [key, source[key]])) as unknown as TenantContact;
}

export function tenantContactFromForm(v: Omit<TenantContactInput, "cell_phone">): TenantContact {
  return {
    firstName: v.first_name,
    lastName: v.last_name,
    email: v.email,
    addr1: v.addr_1,
    addr2: v.addr_2,
    city: v.city,
    region: v.region,
    postalCode: v.postal_code,
    isMilitary: v.is_military,
    isCompany: v.is_company,
    isCommercial: v.is_commercial,
    altContactFirstName: v.alt_contact_first_name,
    altContactLastName: v.alt_contact_last_name,
    altContactPhone: v.alt_contact_phone,
  };
}

/** The whole tenant of the account-creation form (contact details and cell phone; never the password). */
export function tenantFromForm(v: TenantContactInput): TenantContact & { cellPhone: string } {
  return { ...tenantContactFromForm(v), cellPhone: v.cell_phone };
}
