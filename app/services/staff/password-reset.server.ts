/**
 * "Forgot password" for the back office (issue 39, docs/decisions/503-staff-password-reset.md).
 *
 * - Asking for a link answers the same whatever the address (the route shows one neutral message);
 *   it is counted per address (10 in 15 minutes) and per e-mail (3 an hour), before anything is looked up.
 * - A link goes only to a member who has accepted their invitation and is not disabled. It is on the
 *   console's configured origin (never the Host header), works once, for one hour; only the SHA-256
 *   of its token is kept. Each request is audited in words, the unknown addresses too (as a failed
 *   sign-in is).
 * - Choosing a new password spends the link (a conditional UPDATE: once, even twice at once), spends
 *   every other open link of the member, ends every session of the member and clears the password's
 *   lockout (they proved they own the mailbox). It never gives a session: the member gets a
 *   password-only one, which opens nothing but the second-factor page (TOTP, recovery code or passkey).
 */
import crypto from "node:crypto";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { rateLimitHits, staffMembers, staffPasskeys, staffPasswordResets } from "~/db/schema";
import { commonStaffPasswordError } from "~/domain/shared/common-passwords";
import { staffPasswordProblem } from "~/domain/staff/password";
import { hashPassword } from "~/platform/password.server";
import { recordAudit } from "../audit/events.server";
import { queueEmail, sendQueuedEmail } from "../mail/outbox.server";
import { addressKey, hitRateLimit } from "../web/rate-limit.server";
import { inviteTokenHash, passwordAccountKey, STAFF_SIGNIN_WINDOW_MS } from "./auth.server";
import { createStaffSession, endStaffSessions } from "./session.server";

/** A reset link works for one hour. */
const STAFF_RESET_TTL_MS = 60 * 60 * 1000;
const RESET_LIMIT_PER_ADDRESS = 10;
const RESET_LIMIT_PER_EMAIL = 3;
const RESET_EMAIL_WINDOW_MS = 60 * 60 * 1000;
/** Choosing a new password: per address, 20 in 15 minutes (the token itself cannot be guessed). */
const RESET_SUBMIT_LIMIT_PER_ADDRESS = 20;

const normalEmail = (email: string) => email.trim().toLowerCase();

type RequestResult = { limited: false } | { limited: true; retryAfterMinutes: number };

/**
 * Asks for a reset link. Always the same answer for the caller (limited or not): whether a link was
 * sent is never told. The e-mail is queued in the audit's transaction and sent after the commit
 * without waiting for the mail server, so a known address takes no longer to answer than an unknown one.
 */
export async function requestStaffPasswordReset(
  db: Database,
  input: { accountId: number; email: string; ip: string; origin: string; now: Date },
): Promise<RequestResult> {
  const email = normalEmail(input.email);
  const perAddress = await hitRateLimit(db, { key: addressKey("staff-reset", input.ip), limit: RESET_LIMIT_PER_ADDRESS, windowMs: STAFF_SIGNIN_WINDOW_MS, now: input.now });
  if (!perAddress.allowed) return { limited: true, retryAfterMinutes: perAddress.retryAfterMinutes };
  // Per recipient too (member or not, so the answer reveals nothing): no mailbox is flooded from many addresses.
  const perEmail = await hitRateLimit(db, { key: `staff-reset:email:${input.accountId}:${email}`, limit: RESET_LIMIT_PER_EMAIL, windowMs: RESET_EMAIL_WINDOW_MS, now: input.now });
  if (!perEmail.allowed) return { limited: true, retryAfterMinutes: perEmail.retryAfterMinutes };
  const member = await db.query.staffMembers.findFirst({ where: and(eq(staffMembers.accountId, input.accountId), sql`lower(${staffMembers.email}) = ${email}`) });
  const refused = !member ? "unknown e-mail" : member.disabledAt ? "account disabled" : !member.passwordHash ? "invitation not accepted" : null;
  if (!member || refused) {
    await recordAudit(db, {
      accountId: input.accountId, staffId: member?.id ?? null, actor: email, ip: input.ip || null, action: "staff.password_reset_refused", entity: member ? "staff_member" : null, entityId: member?.id ?? null,
      detail: { summary: `A password reset link was asked for ${email}; none was sent (${refused}).`, reason: refused }, at: input.now,
    });
    return { limited: false };
  }
  const token = crypto.randomBytes(32).toString("base64url");
  const expiresAt = new Date(input.now.getTime() + STAFF_RESET_TTL_MS);
  const link = `${input.origin.replace(/\/$/, "")}/admin/reset-password/${token}`;
  const outboxId = await db.transaction(async (tx) => {
    await tx.insert(staffPasswordResets).values({ staffId: member.id, tokenHash: inviteTokenHash(token), expiresAt, createdAt: input.now });
    const mail = await queueEmail(tx, {
      to: member.email,
      subject: "Choose a new password for the back office",
      secrets: [link, token],
      text: [
        `Hello${member.name ? ` ${member.name}` : ""},`,
        "",
        "Someone (we hope you) asked to choose a new password for your back office account.",
        "Open this link to choose it. It works once, for one hour:",
        "",
        link,
        "",
        "You will still be asked for the code from your authenticator app (or your passkey) to sign in.",
        "If you did not ask for this, you can ignore this e-mail: your password has not changed.",
      ].join("\n"),
    });
    await recordAudit(tx, {
      accountId: input.accountId, staffId: member.id, actor: member.email, ip: input.ip || null, action: "staff.password_reset_requested", entity: "staff_member", entityId: member.id,
      detail: { summary: `A password reset link was e-mailed to ${member.email}; it works once, for one hour.`, expiresAt: expiresAt.toISOString(), outboxId: mail.id }, at: input.now,
    });
    return mail.id;
  });
  void sendQueuedEmail(db, outboxId);
  return { limited: false };
}

export type StaffResetState = { state: "open"; resetId: number; staffId: number; email: string; name: string } | { state: "expired" | "used" | "unknown" };

/**
 * What a reset link's token leads to. A link of a member who is disabled, or whose sign-in an owner
 * has reset since (no password, no second factor), no longer works.
 */
export async function readStaffPasswordReset(db: Database, token: string, now: Date): Promise<StaffResetState> {
  if (!token || token.length < 20 || token.length > 200) return { state: "unknown" };
  const [row] = await db
    .select({ reset: staffPasswordResets, member: staffMembers })
    .from(staffPasswordResets)
    .innerJoin(staffMembers, eq(staffMembers.id, staffPasswordResets.staffId))
    .where(eq(staffPasswordResets.tokenHash, inviteTokenHash(token)))
    .limit(1);
  if (!row) return { state: "unknown" };
  if (row.reset.usedAt) return { state: "used" };
  if (row.reset.expiresAt.getTime() <= now.getTime() || row.member.disabledAt || !row.member.passwordHash) return { state: "expired" };
  return { state: "open", resetId: row.reset.id, staffId: row.member.id, email: row.member.email, name: row.member.name };
}

type CompleteResult =
  | { ok: true; cookie: string }
  | { ok: false; reason: "link"; state: "expired" | "used" | "unknown" }
  | { ok: false; reason: "password"; message: string }
  | { ok: false; reason: "limited"; message: string };

/**
 * Sets the new password from a reset link (see the module's comment). The cookie returned is a
 * password-only session: the member still gives their second factor on /admin/sign-in/code.
 */
export async function completeStaffPasswordReset(
  db: Database,
  input: { accountId: number; token: string; password: string; ip: string; now: Date; userAgent?: string | null; companyName?: string | null },
): Promise<CompleteResult> {
  const limit = await hitRateLimit(db, { key: addressKey("staff-reset-submit", input.ip), limit: RESET_SUBMIT_LIMIT_PER_ADDRESS, windowMs: STAFF_SIGNIN_WINDOW_MS, now: input.now });
  if (!limit.allowed) return { ok: false, reason: "limited", message: `Too many attempts. For your security, please wait ${limit.retryAfterMinutes} minute${limit.retryAfterMinutes === 1 ? "" : "s"} and try again.` };
  const reset = await readStaffPasswordReset(db, input.token, input.now);
  if (reset.state !== "open") return { ok: false, reason: "link", state: reset.state };
  const weak = staffPasswordProblem(input.password, { name: reset.name, email: reset.email, companyName: input.companyName }) ?? commonStaffPasswordError(input.password);
  if (weak) return { ok: false, reason: "password", message: weak };
  const passwordHash = await hashPassword(input.password);
  const cookie = await db.transaction(async (tx) => {
    const [spent] = await tx
      .update(staffPasswordResets)
      .set({ usedAt: input.now })
      .where(and(eq(staffPasswordResets.id, reset.resetId), isNull(staffPasswordResets.usedAt), gt(staffPasswordResets.expiresAt, input.now)))
      .returning({ id: staffPasswordResets.id });
    if (!spent) return null;
    const member = await tx.query.staffMembers.findFirst({ where: and(eq(staffMembers.id, reset.staffId), eq(staffMembers.accountId, input.accountId)) });
    // The second factor is what the reset never replaces: a member without one (an owner reset their sign-in meanwhile) uses their invitation.
    const passkeys = member ? await tx.select({ id: staffPasskeys.id }).from(staffPasskeys).where(eq(staffPasskeys.staffId, member.id)).limit(1) : [];
    if (!member || member.disabledAt || !member.passwordHash || (!member.totpSecretSealed && !passkeys.length)) return null;
    await tx.update(staffMembers).set({ passwordHash, updatedAt: input.now }).where(eq(staffMembers.id, member.id));
    const othersSpent = await tx
      .update(staffPasswordResets)
      .set({ usedAt: input.now })
      .where(and(eq(staffPasswordResets.staffId, member.id), isNull(staffPasswordResets.usedAt)))
      .returning({ id: staffPasswordResets.id });
    const sessionsEnded = await endStaffSessions(tx, member.id);
    await tx.delete(rateLimitHits).where(eq(rateLimitHits.key, passwordAccountKey(input.accountId, member.email)));
    await recordAudit(tx, {
      accountId: input.accountId, staffId: member.id, actor: member.email, ip: input.ip || null, action: "staff.password_reset", entity: "staff_member", entityId: member.id,
      changes: { password: { before: "set", after: "changed" } },
      detail: {
        summary: `${member.email} chose a new password from a reset link; ${sessionsEnded} session${sessionsEnded === 1 ? "" : "s"} ended${othersSpent.length ? ` and ${othersSpent.length} other reset link${othersSpent.length === 1 ? "" : "s"} cancelled` : ""}. Signing in still needs their second factor.`,
        sessionsEnded,
        otherLinksCancelled: othersSpent.length,
      },
      at: input.now,
    });
    return createStaffSession(tx, { staffId: member.id, now: input.now, passwordOnly: true, ip: input.ip, userAgent: input.userAgent });
  });
  if (!cookie) return { ok: false, reason: "link", state: "used" };
  return { ok: true, cookie };
}
