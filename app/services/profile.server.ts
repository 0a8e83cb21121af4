/**
 * The portal profile's account changes (issue 8 item 3, docs/decisions/067-account-changes.md):
 * changing the e-mail address (the sign-in name) or the password needs the current password, and
 * that check counts toward the sign-in limits. Everything is checked before anything is saved.
 */
import { commonPasswordError } from "~/domain/common-passwords";
import { StorageValidationError } from "~/storage-software/errors";
import type { ContactUpdate } from "~/storage-software/port";
import { checkCurrentPassword } from "./auth.server";
import { sendEmail } from "./email.server";
import type { PortalContext } from "./portal.server";
import { destroyTenantSessions } from "./session.server";

export type ProfileOutcome = { ok: true } | { ok: false; fieldErrors: Record<string, string[]>; formErrors: string[] };

export const CURRENT_PASSWORD_FOR_EMAIL_MESSAGE = "Enter your current password to change your email address.";

const fieldError = (name: string, message: string): ProfileOutcome => ({ ok: false, fieldErrors: { [name]: [message] }, formErrors: [] });

/** Saves the contact details; a new e-mail address needs the current password and the old address is told. */
export async function changeContact(
  ctx: PortalContext,
  input: { tenantId: string; contact: ContactUpdate; currentPassword: string | undefined; ip: string },
): Promise<ProfileOutcome> {
  const tenant = await ctx.storage.getTenant(input.tenantId);
  if (!tenant) return { ok: false, fieldErrors: {}, formErrors: ["Your account could not be found. Please sign in again."] };
  const oldEmail = tenant.email.trim().toLowerCase();
  const emailChanged = input.contact.email.trim().toLowerCase() !== oldEmail;
  if (emailChanged) {
    if (!input.currentPassword) return fieldError("current_password", CURRENT_PASSWORD_FOR_EMAIL_MESSAGE);
    const check = await checkCurrentPassword(ctx.db, ctx.storage, { accountId: ctx.accountId, tenantId: input.tenantId, password: input.currentPassword, ip: input.ip, now: ctx.now });
    if (!check.ok) return fieldError("current_password", check.message);
  }
  try {
    await ctx.storage.updateTenantContact(input.tenantId, input.contact);
  } catch (error) {
    if (error instanceof StorageValidationError) {
      return { ok: false, fieldErrors: error.fieldErrors, formErrors: Object.keys(error.fieldErrors).length ? [] : [error.message] };
    }
    throw error;
  }
  if (emailChanged) {
    await sendEmail(ctx.db, {
      to: tenant.email,
      subject: `Your ${ctx.siteName} customer portal email address was changed`,
      text: [
        `Hello ${tenant.firstName},`,
        "",
        `The email address of your ${ctx.siteName} customer portal account was changed on ${ctx.now.toUTCString()}.`,
        "You now sign in with the new address, and your receipts and notices go there.",
        "",
        `If you did not make this change, please call the office at once at ${ctx.phone}.`,
        "",
        ctx.siteName,
      ].join("\n"),
    });
  }
  return { ok: true };
}

/** Changes the password: not a common one, the current one right (counted as a sign-in); other sessions end. */
export async function changePassword(
  ctx: PortalContext,
  input: { tenantId: string; currentPassword: string; newPassword: string; ip: string; keepSessionHash: string },
): Promise<ProfileOutcome> {
  const common = commonPasswordError(input.newPassword);
  if (common) return fieldError("new_password", common);
  const check = await checkCurrentPassword(ctx.db, ctx.storage, { accountId: ctx.accountId, tenantId: input.tenantId, password: input.currentPassword, ip: input.ip, now: ctx.now });
  if (!check.ok) return fieldError("current_password", check.message);
  await ctx.storage.setTenantPassword(input.tenantId, input.newPassword);
  await destroyTenantSessions(ctx.db, input.tenantId, input.keepSessionHash);
  return { ok: true };
}
