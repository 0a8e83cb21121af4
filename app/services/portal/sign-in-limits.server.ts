import crypto from "node:crypto";
import { and, eq, gt, isNull, sql, type AnyColumn, type SQL } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { passwordResetTokens } from "~/db/schema";
import type { StorageSoftware } from "~/storage-software/port";
import { addressKey, clearRateLimit, hitRateLimit, refundRateLimit } from "../web/rate-limit.server";
import { PasswordBusyError, passwordChecksBusy } from "~/platform/password.server";
import { destroyTenantSessions } from "../web/session.server";
import { sendEmail } from "../mail/outbox.server";

/** Sign-in limits (docs/decisions/052-portal-sign-in-and-reset.md): per account and per IP, 15-minute windows. */
export const SIGNIN_WINDOW_MS = 15 * 60 * 1000;
export const SIGNIN_LIMIT_PER_ACCOUNT = 5;
export const SIGNIN_LIMIT_PER_IP = 20;
const RESET_LIMIT_PER_IP = 10;
/** Reset e-mails per recipient address per hour. */
export const RESET_LIMIT_PER_EMAIL = 3;
const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;

/** The one answer to a wrong email or a wrong password: it never says which. */
export const SIGNIN_FAILED_MESSAGE = "The email address or password is not right. Please check them and try again.";
const signInLimitedMessage = (minutes: number) =>
  `Too many sign-in attempts. For your security, please wait ${minutes} minute${minutes === 1 ? "" : "s"} and try again, or reset your password.`;

/** The rate-limit key of an account's sign-in attempts. */
export const signInAccountKey = (accountId: number, email: string) => `signin:account:${accountId}:${email.trim().toLowerCase()}`;

/** The same key written in SQL over a tenant row's columns (the desk's "locked out" filter). */
export const signInAccountKeySql = (accountId: SQL | AnyColumn, email: SQL | AnyColumn): SQL<string> => sql<string>`('signin:account:' || ${accountId} || ':' || lower(trim(${email})))`;

type SignInResult = { ok: true; tenantId: string } | { ok: false; message: string; limited: boolean };

/**
 * Checks an email and web password. Every attempt counts against the account (the email, whether or
 * not it exists) and the IP before anything is checked; over either limit the attempt is refused
 * before the password is checked. A successful sign-in clears the account's count and gives the IP
 * its hit back, so the IP limit counts failed attempts.
 */
export async function signIn(
  db: Database,
  storage: StorageSoftware,
  input: { accountId: number; email: string; password: string; ip: string; now: Date },
): Promise<SignInResult> {
  // Too busy to check a password within the bound (decision 427): "try again in a moment" at once,
  // before the limits count it or the database is asked anything.
  if (passwordChecksBusy()) throw new PasswordBusyError();
  const email = input.email.trim().toLowerCase();
  const accountKey = signInAccountKey(input.accountId, email);
  const ipKey = addressKey("signin", input.ip);
  const [perAccount, perIp] = [
    await hitRateLimit(db, { key: accountKey, limit: SIGNIN_LIMIT_PER_ACCOUNT, windowMs: SIGNIN_WINDOW_MS, now: input.now }),
    await hitRateLimit(db, { key: ipKey, limit: SIGNIN_LIMIT_PER_IP, windowMs: SIGNIN_WINDOW_MS, now: input.now }),
  ];
  const blocked = [perAccount, perIp].filter((r) => !r.allowed);
  if (blocked.length) {
    return { ok: false, limited: true, message: signInLimitedMessage(Math.max(...blocked.map((b) => b.retryAfterMinutes))) };
  }
  let found: Awaited<ReturnType<StorageSoftware["authenticateTenant"]>>;
  try {
    found = await storage.authenticateTenant({ email, password: input.password });
  } catch (error) {
    // Too busy to check the password (decision 331): not a guess, so neither limit counts it; the
    // form answers "try again in a moment" (keepFormThroughOutage).
    if (error instanceof PasswordBusyError) {
      await refundRateLimit(db, accountKey);
      await refundRateLimit(db, ipKey);
    }
    throw error;
  }
  if (!found) return { ok: false, limited: false, message: SIGNIN_FAILED_MESSAGE };
  // Right: the account starts afresh, and the IP gets its hit back (tenants behind one office or
  // home network do not use up each other's sign-ins; the IP limit counts failures).
  await clearRateLimit(db, accountKey);
  await refundRateLimit(db, ipKey);
  return { ok: true, tenantId: found.tenantId };
}

type PasswordCheck = { ok: true } | { ok: false; message: string; limited: boolean };
const CURRENT_PASSWORD_WRONG_MESSAGE = "Your current password is not right.";

/**
 * A signed-in tenant's current password, checked before an account change (e-mail or password).
 * It counts toward the same limits as a sign-in (per account and per IP), so a stolen session cannot
 * be used to guess the password without limit; a right answer clears the account's count.
 */
export async function checkCurrentPassword(
  db: Database,
  storage: StorageSoftware,
  input: { accountId: number; tenantId: string; password: string; ip: string; now: Date },
): Promise<PasswordCheck> {
  const tenant = await storage.getTenant(input.tenantId);
  if (!tenant) return { ok: false, limited: false, message: CURRENT_PASSWORD_WRONG_MESSAGE };
  const accountKey = signInAccountKey(input.accountId, tenant.email);
  const ipKey = addressKey("signin", input.ip);
  const results = [
    await hitRateLimit(db, { key: accountKey, limit: SIGNIN_LIMIT_PER_ACCOUNT, windowMs: SIGNIN_WINDOW_MS, now: input.now }),
    await hitRateLimit(db, { key: ipKey, limit: SIGNIN_LIMIT_PER_IP, windowMs: SIGNIN_WINDOW_MS, now: input.now }),
  ];
  const blocked = results.filter((r) => !r.allowed);
  if (blocked.length) return { ok: false, limited: true, message: signInLimitedMessage(Math.max(...blocked.map((b) => b.retryAfterMinutes))) };
  if (!input.password || !(await storage.verifyTenantPassword(input.tenantId, input.password))) {
    return { ok: false, limited: false, message: CURRENT_PASSWORD_WRONG_MESSAGE };
  }
  await clearRateLimit(db, accountKey);
  await refundRateLimit(db, ipKey);
  return { ok: true };
}

const tokenHash = (token: string) => crypto.createHash("sha256").update(token).digest("hex");

/**
 * "Forgot password": when the email is a tenant's, emails a single-use link valid for one hour.
 * The caller shows the same confirmation either way, so the page never reveals who has an account.
 */
export async function requestPasswordReset(
  db: Database,
  storage: StorageSoftware,
  input: { email: string; ip: string; origin: string; now: Date; siteName: string },
): Promise<{ sent: boolean; limited: boolean; retryAfterMinutes?: number }> {
  const limit = await hitRateLimit(db, { key: addressKey("reset", input.ip), limit: RESET_LIMIT_PER_IP, windowMs: SIGNIN_WINDOW_MS, now: input.now });
  if (!limit.allowed) return { sent: false, limited: true, retryAfterMinutes: limit.retryAfterMinutes };
  // Per recipient too (whether or not it has an account, so the answer reveals nothing): no mailbox
  // is flooded with reset links from many IPs.
  const email = input.email.trim().toLowerCase();
  const perEmail = await hitRateLimit(db, { key: `reset:email:${email}`, limit: RESET_LIMIT_PER_EMAIL, windowMs: 60 * 60 * 1000, now: input.now });
  if (!perEmail.allowed) return { sent: false, limited: true, retryAfterMinutes: perEmail.retryAfterMinutes };
  const tenant = await storage.findTenantByEmail(input.email);
  if (!tenant) return { sent: false, limited: false };
  const token = crypto.randomBytes(32).toString("base64url");
  await db.insert(passwordResetTokens).values({
    tenantId: Number(tenant.id),
    tokenHash: tokenHash(token),
    expiresAt: new Date(input.now.getTime() + RESET_TOKEN_TTL_MS),
    createdAt: input.now,
  });
  const link = `${input.origin}/customer-portal/reset-password?token=${token}`;
  await sendEmail(db, {
    to: tenant.email,
    subject: `Reset your ${input.siteName} customer portal password`,
    secrets: [link, token],
    text: `Hello ${tenant.firstName},\n\nSomeone (we hope you) asked to reset the password of your customer portal account.\nTo choose a new password, open this link within one hour:\n\n${link}\n\nThe link works once. If you did not ask for this, you can ignore this email: your password has not changed.\n\n${input.siteName}`,
  });
  return { sent: true, limited: false };
}

/** True when the token is unused and unexpired (for showing the form; resetting checks again). */
export async function isResetTokenValid(db: Database, token: string, now: Date): Promise<boolean> {
  if (!token) return false;
  const row = await db.query.passwordResetTokens.findFirst({
    columns: { id: true },
    where: and(eq(passwordResetTokens.tokenHash, tokenHash(token)), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, now)),
  });
  return Boolean(row);
}

/**
 * Sets a new password from a reset link. The token is spent by one conditional UPDATE (unused and
 * unexpired), so it works once even when submitted twice at the same moment; every session of the
 * tenant ends, and the other reset links of the tenant are spent too.
 */
export async function resetPassword(
  db: Database,
  storage: StorageSoftware,
  input: { token: string; password: string; now: Date; accountId?: number },
): Promise<{ ok: true; tenantId: string } | { ok: false }> {
  if (!input.token) return { ok: false };
  const [spent] = await db
    .update(passwordResetTokens)
    .set({ usedAt: input.now })
    .where(and(eq(passwordResetTokens.tokenHash, tokenHash(input.token)), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, input.now)))
    .returning({ tenantId: passwordResetTokens.tenantId });
  if (!spent) return { ok: false };
  const tenantId = String(spent.tenantId);
  await storage.setTenantPassword(tenantId, input.password);
  await db
    .update(passwordResetTokens)
    .set({ usedAt: input.now })
    .where(and(eq(passwordResetTokens.tenantId, spent.tenantId), isNull(passwordResetTokens.usedAt)));
  await destroyTenantSessions(db, tenantId);
  // Whoever proved they own the mailbox is let in again: the account's sign-in lockout ends.
  const tenant = input.accountId === undefined ? null : await storage.getTenant(tenantId);
  if (tenant && input.accountId !== undefined) await clearRateLimit(db, signInAccountKey(input.accountId, tenant.email));
  return { ok: true, tenantId };
}

/** Deletes reset tokens that can no longer be used (called by the daily job). */
export async function pruneResetTokens(db: Database, now: Date): Promise<void> {
  await db.delete(passwordResetTokens).where(sql`${passwordResetTokens.expiresAt} < ${now.toISOString()}::timestamptz - interval '1 day'`);
}
