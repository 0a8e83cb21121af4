import { z } from "zod";
import { STAFF_ROLES, type StaffRole } from "./roles";

/**
 * The schemas of the staff forms that parse with Conform (decision 342): the same schema checks the
 * field in the browser and in the action. Rules that need the server (a wrong code, a limit) stay in
 * the services and join the reply as field or form errors.
 */
const CODE_MESSAGE = "Enter the 6-digit code from your app, or a recovery code.";

/** Sign-in step 2 and "Confirm it's you": a code from the app or a recovery code (checked on the server). */
export const staffCodeSchema = z.object({
  code: z.string({ error: CODE_MESSAGE }).trim().min(1, CODE_MESSAGE).transform((code) => code.slice(0, 40)),
});

/** The same test the staff service uses for an invited address. */
export const STAFF_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const EMAIL_MESSAGE = "Enter an e-mail address like name@example.com.";
const ROLE_MESSAGE = "Choose a role from the list.";
const LOCATIONS_MESSAGE = "Choose at least one location: this role sees only the locations given.";

const accessFields = {
  role: z.enum(STAFF_ROLES, { error: ROLE_MESSAGE }),
  locations: z.array(z.number({ error: "Choose locations from the list." }).int("Choose locations from the list.").positive("Choose locations from the list.")).default([]),
};

/** An owner needs no location; every other role sees only the locations given (at least one). */
function atLeastOneLocation(value: { role: StaffRole; locations: number[] }, ctx: z.RefinementCtx) {
  if (value.role !== "owner" && value.locations.length === 0) ctx.addIssue({ code: "custom", path: ["locations"], message: LOCATIONS_MESSAGE });
}

/** The staff page's invitation: e-mail, role and locations (whether the locations are the account's is the server's). */
export const staffInviteSchema = z
  .object({
    email: z.string({ error: EMAIL_MESSAGE }).trim().max(254, EMAIL_MESSAGE).regex(STAFF_EMAIL, EMAIL_MESSAGE),
    ...accessFields,
  })
  .superRefine(atLeastOneLocation);

const memberId = z.number({ error: "Choose a staff member." }).int().positive();

/** A member's role and locations. */
export const staffAccessSchema = z.object({ staffId: memberId, ...accessFields }).superRefine(atLeastOneLocation);

/** The member actions that cannot be undone with one click: each asks "are you sure?" first (issue 39). */
const CONFIRMED_MEMBER_ACTIONS = ["disable", "reset-sign-in"] as const;
const CONFIRM_MESSAGES: Record<(typeof CONFIRMED_MEMBER_ACTIONS)[number], string> = {
  disable: "Tick the box to confirm that you want to disable this account.",
  "reset-sign-in": "Tick the box to confirm that you want to reset this member's sign-in.",
};

/**
 * A member's buttons (hidden fields and the button): end sessions, disable, re-enable, lift a
 * lockout, reset sign-in. Disabling and resetting the sign-in need the confirmation box ticked
 * (`confirm=yes`): with JavaScript off the box is the confirmation.
 */
export const staffMemberActionSchema = z
  .object({
    staffId: memberId,
    intent: z.enum(["sessions", "disable", "enable", "lift-lockout", "reset-sign-in"], { error: "Choose an action." }),
    confirm: z.string().optional(),
  })
  .superRefine((value, ctx) => {
    const needs = (CONFIRMED_MEMBER_ACTIONS as readonly string[]).includes(value.intent);
    if (needs && value.confirm !== "yes") ctx.addIssue({ code: "custom", path: ["confirm"], message: CONFIRM_MESSAGES[value.intent as (typeof CONFIRMED_MEMBER_ACTIONS)[number]] });
  });

/** "Forgot password" on the console's sign-in page: the e-mail address only. */
export const staffForgotPasswordSchema = z.object({
  email: z.string({ error: "Enter your e-mail address." }).trim().min(1, "Enter your e-mail address.").max(254, EMAIL_MESSAGE).regex(STAFF_EMAIL, EMAIL_MESSAGE),
});

/**
 * The security page's forms: remove a passkey (hidden fields) or add one (its name, and the
 * authenticator's answer the page's script fills in; the service checks that answer).
 */
export const passkeyFormSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("remove"), passkeyId: z.number().int().positive() }),
  z.object({ intent: z.literal("add"), name: z.string().trim().max(60, "The name can be at most 60 characters.").default(""), response: z.string().optional() }),
]);

/** The one answer to "forgot password", whether or not the address is a member's (no enumeration). */
export const STAFF_RESET_SENT_MESSAGE =
  "If that e-mail address belongs to a staff account, we have sent it a link to choose a new password. The link works once, for one hour. You will still be asked for your second factor when you sign in.";

/** The form field (and query parameter) naming an action "Confirm it's you" holds until the code (decision 643). */
export const HELD_ACTION_FIELD = "heldAction";
