/**
 * The portal profile's account changes (issue 8 item 3, docs/decisions/067-account-changes.md):
 * changing the e-mail address (the sign-in name) or the password needs the current password, and
 * that check counts toward the sign-in limits. Everything is checked before anything is saved.
 */
import { commonPasswordError } from "~/domain/shared/common-passwords";
import { pickTenantContact } from "~/domain/shared/tenant-form";
import { logger } from "~/platform/logger.server";
import { ContactLeftForOfficeError, StorageSoftwareError, StorageValidationError } from "~/storage-software/errors";
import { storageFor } from "~/storage-software/index.server";
import type { ContactUpdate, LocationRef, StorageSoftware, Tenant } from "~/storage-software/port";
import { checkCurrentPassword } from "./sign-in-limits.server";
import { sendEmail } from "../mail/outbox.server";
import type { PortalContext } from "./context.server";
import { destroyTenantSessions } from "../web/session.server";

type ProfileOutcome =
  /** `byOffice`: a location's software was not sent the change; the office makes it (issue 37). */
  | { ok: true; byOffice?: true }
  /** `unavailable`: a location's software could not take the change (the route answers 503, Retry-After). */
  | { ok: false; fieldErrors: Record<string, string[]>; formErrors: string[]; unavailable?: true };

export const CURRENT_PASSWORD_FOR_EMAIL_MESSAGE = "Enter your current password to change your email address.";

const fieldError = (name: string, message: string): ProfileOutcome => ({ ok: false, fieldErrors: { [name]: [message] }, formErrors: [] });

/** What the tenant reads when a location's software (SiteLink) could not take the change: nothing was saved. */
export const CONTACT_NOT_SAVED_MESSAGE = "We could not reach the facility's system to save this change, so nothing was changed. Please try again in a moment.";

function contactOf(t: Tenant): ContactUpdate {
  return pickTenantContact(t);
}

/**
 * (Also the desk's contact change on a tenant's page, issue 39, decision 641.)
 * A tenant's details are the account's, but each SiteLink location keeps its own tenant record
 * (decision 168): the change goes to every location's software in turn (a SiteLink adapter sends it
 * to SiteLink, then saves ours; a local one saves ours). If one cannot take it, the ones already done
 * are put back, so nothing is half-saved, and the form says to try again in a moment.
 */
export async function everywhere(
  ctx: { db: PortalContext["db"]; locations: readonly LocationRef[] },
  tenantId: string,
  apply: (storage: StorageSoftware) => Promise<void>,
  undo: (storage: StorageSoftware) => Promise<void>,
): Promise<ProfileOutcome> {
  const done: StorageSoftware[] = [];
  let byOffice = false;
  for (const location of ctx.locations) {
    const storage = storageFor(ctx.db, location);
    try {
      await apply(storage);
      done.push(storage);
    } catch (error) {
      // Saved here, not sent to the location's software: its office makes it (issue 37, decision 472).
      if (error instanceof ContactLeftForOfficeError) {
        logger.warn({ tenantId, location: location.id }, "[profile] a contact change was left for the office of a location");
        byOffice = true;
        done.push(storage);
        continue;
      }
      for (const s of done.reverse()) {
        await undo(s).catch((undoError: unknown) =>
          logger.warn({ tenantId, location: location.id, error: undoError instanceof Error ? undoError.message : String(undoError) }, "[profile] a change could not be put back"),
        );
      }
      if (error instanceof StorageValidationError) {
        return { ok: false, fieldErrors: error.fieldErrors, formErrors: Object.keys(error.fieldErrors).length ? [] : [error.message] };
      }
      if (error instanceof StorageSoftwareError) {
        logger.warn({ tenantId, location: location.id, error: error.message }, "[profile] the location's software did not take a contact change; nothing saved");
        return { ok: false, fieldErrors: {}, formErrors: [CONTACT_NOT_SAVED_MESSAGE], unavailable: true };
      }
      throw error;
    }
  }
  return byOffice ? { ok: true, byOffice: true } : { ok: true };
}

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
  const saved = await everywhere(ctx, input.tenantId, (storage) => storage.updateTenantContact(input.tenantId, input.contact), (storage) =>
    storage.updateTenantContact(input.tenantId, contactOf(tenant)),
  );
  if (!saved.ok) return saved;
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
  return saved;
}

/** Saves the cell phone, in every location's software as the contact details are. */
export async function changePhone(ctx: PortalContext, input: { tenantId: string; cellPhone: string }): Promise<ProfileOutcome> {
  const tenant = await ctx.storage.getTenant(input.tenantId);
  if (!tenant) return { ok: false, fieldErrors: {}, formErrors: ["Your account could not be found. Please sign in again."] };
  return everywhere(ctx, input.tenantId, (storage) => storage.updateTenantPhone(input.tenantId, input.cellPhone), (storage) =>
    storage.updateTenantPhone(input.tenantId, tenant.cellPhone),
  );
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
