/**
 * Staff sign-in, two-factor codes and invitations (issue 23; docs/decisions/247–250).
 *
 * - The password step (bcrypt, on the password worker pool) opens a password-only session that leads
 *   to the code page and nothing else; a TOTP code or a recovery code then gives a full session.
 * - Guesses are counted per account and per address (app/services/web/rate-limit.server.ts), the
 *   password and the code separately. A TOTP code is accepted once: its time step is kept
 *   (`totpLastStep`) and a conditional UPDATE takes it, so the same code (or an older one) is refused
 *   even by two requests at once. A recovery code is spent by a conditional UPDATE too.
 * - Every sign-in and failed sign-in is in the audit trail: the e-mail typed, the address and the
 *   reason; never the password or the code.
 */
import crypto from "node:crypto";
import { and, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import { generateSecret, generateURI, verify as verifyTotp } from "otplib";
import QRCode from "qrcode";
import type { Database } from "~/db/client.server";
import { staffInvites, staffMembers, staffRecoveryCodes, staffSessions } from "~/db/schema";
import { RECOVERY_CODE_COUNT } from "~/domain/staff/roles";
import { commonStaffPasswordError } from "~/domain/shared/common-passwords";
import { staffPasswordProblem } from "~/domain/staff/password";
import { env } from "~/platform/env.server";
import { dummyPasswordHash, hashPassword, PASSWORD_CHECK_MAX_WAIT_MS, PasswordBusyError, passwordChecksBusy, verifyPassword } from "~/platform/password.server";
import { PASSWORD_BUSY_MESSAGE } from "../web/form-outage.server";
import { openSealed, seal, SealedBoxError } from "~/platform/sealed-box.server";
import { recordAudit } from "../audit/events.server";
import { addressKey, clearRateLimit, hitRateLimit, refundRateLimit } from "../web/rate-limit.server";
import { createStaffSession } from "./session.server";

export const STAFF_SIGNIN_WINDOW_MS = 15 * 60 * 1000;
const STAFF_PASSWORD_LIMIT_PER_ACCOUNT = 5;
const STAFF_PASSWORD_LIMIT_PER_ADDRESS = 20;
const STAFF_CODE_LIMIT_PER_ACCOUNT = 5;
const STAFF_CODE_LIMIT_PER_ADDRESS = 20;
/** A TOTP code is accepted one time step either side of now (clock drift), never twice. */
const TOTP_TOLERANCE_S = 30;
const TOTP_SEAL_PURPOSE = "staff-totp";
const ENROL_SEAL_PURPOSE = "staff-totp-enrolment";

const STAFF_SIGNIN_FAILED = "The e-mail address or password is not right. Please check them and try again.";
const STAFF_DISABLED = "This staff account is disabled. Ask an owner of the business to re-enable it.";
const STAFF_CODE_WRONG = "That code is not right, or it has been used already. Enter the current 6-digit code from your app, or an unused recovery code.";
const limitedMessage = (minutes: number) =>
  `Too many attempts. For your security, please wait ${minutes} minute${minutes === 1 ? "" : "s"} and try again.`;

const normalEmail = (email: string) => email.trim().toLowerCase();
/** The rate-limit key of a member's password guesses (by the e-mail typed, whether or not it is a member's). */
export const passwordAccountKey = (accountId: number, email: string) => `staff-password:account:${accountId}:${normalEmail(email)}`;
const codeAccountKey = (staffId: number) => `staff-code:staff:${staffId}`;

/**
 * A member's lockout (issue 39, decision 505): the password's and the code's per-member limits, as
 * keys of rate_limit_hits with the number of guesses each allows in a window. Over either, the member
 * cannot sign in until the window ends or an owner lifts it.
 */
export function staffLockoutKeys(accountId: number, member: { id: number; email: string }): Array<{ key: string; limit: number; step: "password" | "code" }> {
  return [
    { key: passwordAccountKey(accountId, member.email), limit: STAFF_PASSWORD_LIMIT_PER_ACCOUNT, step: "password" },
    { key: codeAccountKey(member.id), limit: STAFF_CODE_LIMIT_PER_ACCOUNT, step: "code" },
  ];
}

function sealingSecrets(): string[] {
  const own = (env().EMAIL_SECRET_KEY ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  return [...own, ...env().sessionSecrets];
}

/** The time step a valid TOTP result matched (otplib's TOTP result carries it; else from its delta). */
function matchedStep(result: { delta: number }, epoch: number): number {
  const step = (result as { timeStep?: unknown }).timeStep;
  return typeof step === "number" ? step : Math.floor(epoch / 30) + result.delta;
}

type Limited = { ok: false; limited: true; message: string };

async function countGuess(db: Database, keys: Array<{ key: string; limit: number }>, now: Date): Promise<Limited | null> {
  const results = [];
  for (const k of keys) results.push(await hitRateLimit(db, { key: k.key, limit: k.limit, windowMs: STAFF_SIGNIN_WINDOW_MS, now }));
  const blocked = results.filter((r) => !r.allowed);
  if (!blocked.length) return null;
  return { ok: false, limited: true, message: limitedMessage(Math.max(...blocked.map((b) => b.retryAfterMinutes))) };
}

type PasswordStepResult = { ok: true; cookie: string } | { ok: false; limited: boolean; message: string };

/**
 * The password step. Over either limit the attempt is refused before the password is checked.
 * Right: a password-only session (its cookie) that opens only the code page.
 */
export async function staffPasswordStep(
  db: Database,
  input: { accountId: number; email: string; password: string; ip: string; now: Date; userAgent?: string | null },
): Promise<PasswordStepResult> {
  const email = normalEmail(input.email);
  const accountKey = passwordAccountKey(input.accountId, email);
  const ipKey = addressKey("staff-password", input.ip);
  const audit = (reason: string, staffId: number | null) =>
    recordAudit(db, { accountId: input.accountId, staffId, actor: email, ip: input.ip || null, action: "staff.sign_in_failed", entity: staffId ? "staff_member" : null, entityId: staffId, detail: { step: "password", reason }, at: input.now });
  // Too busy to check a password within the bound (decision 427): told at once, nothing counted.
  if (passwordChecksBusy()) return { ok: false, limited: true, message: PASSWORD_BUSY_MESSAGE };
  const limited = await countGuess(db, [{ key: accountKey, limit: STAFF_PASSWORD_LIMIT_PER_ACCOUNT }, { key: ipKey, limit: STAFF_PASSWORD_LIMIT_PER_ADDRESS }], input.now);
  if (limited) {
    await audit("too many attempts", null);
    return limited;
  }
  const member = await db.query.staffMembers.findFirst({
    where: and(eq(staffMembers.accountId, input.accountId), sql`lower(${staffMembers.email}) = ${email}`),
  });
  let right: boolean;
  try {
    right = await verifyPassword(input.password, member?.passwordHash ?? dummyPasswordHash(), { maxWaitMs: PASSWORD_CHECK_MAX_WAIT_MS });
  } catch (error) {
    if (!(error instanceof PasswordBusyError)) throw error;
    // Too busy to check the password (decision 331): not a guess, so neither limit counts it.
    await refundRateLimit(db, accountKey);
    await refundRateLimit(db, ipKey);
    return { ok: false, limited: true, message: PASSWORD_BUSY_MESSAGE };
  }
  if (!member || !member.passwordHash || !member.totpSecretSealed || !right) {
    await audit(!member ? "unknown e-mail" : !member.passwordHash ? "invitation not accepted" : "wrong password", member?.id ?? null);
    return { ok: false, limited: false, message: STAFF_SIGNIN_FAILED };
  }
  if (member.disabledAt) {
    await audit("account disabled", member.id);
    return { ok: false, limited: false, message: STAFF_DISABLED };
  }
  await clearRateLimit(db, accountKey);
  await refundRateLimit(db, ipKey);
  const cookie = await createStaffSession(db, { staffId: member.id, now: input.now, passwordOnly: true, ip: input.ip, userAgent: input.userAgent });
  return { ok: true, cookie };
}

/** A recovery code as typed ("abcde-12345", any case, spaces) in its stored form. */
function normalRecoveryCode(code: string): string {
  return code.replace(/[\s-]/g, "").toLowerCase();
}

const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
/** Ten random codes, shown as "xxxxx-xxxxx" (about 49 bits each). */
function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    const chars = Array.from({ length: 10 }, () => RECOVERY_ALPHABET[crypto.randomInt(RECOVERY_ALPHABET.length)]).join("");
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

type CodeCheck = { ok: true; method: "totp" | "recovery_code"; remainingRecoveryCodes?: number } | { ok: false };

/** Checks a code (6 digits: TOTP; otherwise a recovery code) and spends it when right. */
async function checkAndSpendCode(db: Database, member: typeof staffMembers.$inferSelect, code: string, now: Date): Promise<CodeCheck> {
  const typed = code.replace(/\s/g, "");
  if (/^\d{6}$/.test(typed)) {
    if (!member.totpSecretSealed) return { ok: false };
    let secret: string;
    try {
      secret = openSealed(member.totpSecretSealed, sealingSecrets(), TOTP_SEAL_PURPOSE);
    } catch (error) {
      if (error instanceof SealedBoxError) return { ok: false };
      throw error;
    }
    const epoch = Math.floor(now.getTime() / 1000);
    const result = await verifyTotp({
      secret,
      token: typed,
      epoch,
      epochTolerance: TOTP_TOLERANCE_S,
      ...(member.totpLastStep != null ? { afterTimeStep: member.totpLastStep } : {}),
    });
    if (!result.valid) return { ok: false };
    const step = matchedStep(result, epoch);
    const [taken] = await db
      .update(staffMembers)
      .set({ totpLastStep: step })
      .where(and(eq(staffMembers.id, member.id), or(isNull(staffMembers.totpLastStep), lt(staffMembers.totpLastStep, step))))
      .returning({ id: staffMembers.id });
    return taken ? { ok: true, method: "totp" } : { ok: false };
  }
  const normal = normalRecoveryCode(typed);
  if (!/^[a-z0-9]{10}$/.test(normal)) return { ok: false };
  const unused = await db
    .select({ id: staffRecoveryCodes.id, codeHash: staffRecoveryCodes.codeHash })
    .from(staffRecoveryCodes)
    .where(and(eq(staffRecoveryCodes.staffId, member.id), isNull(staffRecoveryCodes.usedAt)));
  for (const row of unused) {
    if (!(await verifyPassword(normal, row.codeHash))) continue;
    const [spent] = await db
      .update(staffRecoveryCodes)
      .set({ usedAt: now })
      .where(and(eq(staffRecoveryCodes.id, row.id), isNull(staffRecoveryCodes.usedAt)))
      .returning({ id: staffRecoveryCodes.id });
    return spent ? { ok: true, method: "recovery_code", remainingRecoveryCodes: unused.length - 1 } : { ok: false };
  }
  return { ok: false };
}

type CodeStepResult = { ok: true; cookie: string; method: string; remainingRecoveryCodes?: number } | { ok: false; limited: boolean; message: string };

/**
 * The code step, for a password-only session: a TOTP code or a recovery code. Right: the
 * password-only session is replaced by a full one (a new id) and the sign-in is audited.
 */
export async function staffCodeStep(
  db: Database,
  input: { accountId: number; sessionHash: string; staffId: number; code: string; ip: string; now: Date; userAgent?: string | null },
): Promise<CodeStepResult> {
  const member = await db.query.staffMembers.findFirst({ where: and(eq(staffMembers.id, input.staffId), eq(staffMembers.accountId, input.accountId)) });
  if (!member) return { ok: false, limited: false, message: STAFF_CODE_WRONG };
  const fail = (reason: string) =>
    recordAudit(db, { accountId: input.accountId, staffId: member.id, actor: member.email, ip: input.ip || null, action: "staff.sign_in_failed", entity: "staff_member", entityId: member.id, detail: { step: "code", reason }, at: input.now });
  if (member.disabledAt) {
    await db.delete(staffSessions).where(eq(staffSessions.staffId, member.id));
    await fail("account disabled");
    return { ok: false, limited: false, message: STAFF_DISABLED };
  }
  const check = await checkCode(db, member, { code: input.code, ip: input.ip, now: input.now });
  if (!check.ok) {
    await fail(check.limited ? "too many attempts" : "wrong code");
    return check;
  }
  const cookie = await db.transaction(async (tx) => {
    await tx.delete(staffSessions).where(eq(staffSessions.id, input.sessionHash));
    await tx.update(staffMembers).set({ lastSignInAt: input.now }).where(eq(staffMembers.id, member.id));
    await recordAudit(tx, {
      accountId: input.accountId, staffId: member.id, actor: member.email, ip: input.ip || null, action: "staff.sign_in", entity: "staff_member", entityId: member.id,
      detail: { method: check.method, ...(check.remainingRecoveryCodes !== undefined ? { recoveryCodesLeft: check.remainingRecoveryCodes } : {}) }, at: input.now,
    });
    return createStaffSession(tx, { staffId: member.id, now: input.now, passwordOnly: false, ip: input.ip, userAgent: input.userAgent });
  });
  return { ok: true, cookie, method: check.method, remainingRecoveryCodes: check.remainingRecoveryCodes };
}

/** A code counted against the member's and the address's limits, then checked and spent. */
async function checkCode(
  db: Database,
  member: typeof staffMembers.$inferSelect,
  input: { code: string; ip: string; now: Date },
): Promise<({ ok: true } & Exclude<CodeCheck, { ok: false }>) | { ok: false; limited: boolean; message: string }> {
  const accountKey = codeAccountKey(member.id);
  const ipKey = addressKey("staff-code", input.ip);
  const limited = await countGuess(db, [{ key: accountKey, limit: STAFF_CODE_LIMIT_PER_ACCOUNT }, { key: ipKey, limit: STAFF_CODE_LIMIT_PER_ADDRESS }], input.now);
  if (limited) return limited;
  const check = await checkAndSpendCode(db, member, input.code, input.now);
  if (!check.ok) return { ok: false, limited: false, message: STAFF_CODE_WRONG };
  await clearRateLimit(db, accountKey);
  await refundRateLimit(db, ipKey);
  return check;
}

/**
 * Re-authentication for actions that need a fresh second factor (decision 250): a code, counted
 * against the same limits as sign-in; right: the session's `factorAt` is now.
 */
export async function confirmFreshFactor(
  db: Database,
  input: { accountId: number; staffId: number; sessionHash: string; code: string; ip: string; now: Date },
): Promise<{ ok: true } | { ok: false; limited: boolean; message: string }> {
  const member = await db.query.staffMembers.findFirst({ where: and(eq(staffMembers.id, input.staffId), eq(staffMembers.accountId, input.accountId)) });
  if (!member || member.disabledAt) return { ok: false, limited: false, message: STAFF_CODE_WRONG };
  const check = await checkCode(db, member, input);
  await db.transaction(async (tx) => {
    if (check.ok) await tx.update(staffSessions).set({ factorAt: input.now }).where(eq(staffSessions.id, input.sessionHash));
    await recordAudit(tx, {
      accountId: input.accountId, staffId: member.id, actor: member.email, ip: input.ip || null,
      action: check.ok ? "staff.reauthenticated" : "staff.reauthentication_failed", entity: "staff_member", entityId: member.id,
      detail: check.ok ? { method: check.method } : { reason: check.limited ? "too many attempts" : "wrong code" }, at: input.now,
    });
  });
  return check.ok ? { ok: true } : check;
}

// ---------------------------------------------------------------------------------------------
// Invitations
// ---------------------------------------------------------------------------------------------

export const inviteTokenHash = (token: string) => crypto.createHash("sha256").update(token).digest("hex");

export type InviteState =
  | { state: "open"; inviteId: number; staffId: number; email: string; role: string; expiresAt: Date }
  | { state: "expired" | "used" | "unknown" };

/** What an invitation link's token leads to. */
export async function readInvite(db: Database, token: string, now: Date): Promise<InviteState> {
  if (!token || token.length < 20) return { state: "unknown" };
  const [row] = await db
    .select({ invite: staffInvites, member: staffMembers })
    .from(staffInvites)
    .innerJoin(staffMembers, eq(staffMembers.id, staffInvites.staffId))
    .where(eq(staffInvites.tokenHash, inviteTokenHash(token)))
    .limit(1);
  if (!row) return { state: "unknown" };
  if (row.invite.usedAt) return { state: "used" };
  if (row.invite.expiresAt.getTime() <= now.getTime() || row.member.disabledAt) return { state: "expired" };
  return { state: "open", inviteId: row.invite.id, staffId: row.member.id, email: row.member.email, role: row.member.role, expiresAt: row.invite.expiresAt };
}

interface TotpEnrolment {
  /** base32, as typed into an authenticator app. */
  secret: string;
  uri: string;
  /** The QR code of the URI, as an SVG document (server-rendered). */
  qrSvg: string;
  /** The secret sealed for the form's hidden field, bound to this invitation. */
  sealed: string;
}

/** A TOTP secret for an invitation's enrolment page, or the one the form sent back (sealed) when it opens. */
export async function totpEnrolment(input: { inviteId: number; email: string; issuer: string; sealed?: string | null }): Promise<TotpEnrolment> {
  const purpose = `${ENROL_SEAL_PURPOSE}:${input.inviteId}`;
  let secret: string | null = null;
  if (input.sealed) {
    try {
      secret = openSealed(input.sealed, sealingSecrets(), purpose);
    } catch {
      secret = null;
    }
  }
  secret ??= generateSecret();
  const uri = generateURI({ issuer: input.issuer, label: input.email, secret });
  const qrSvg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return { secret, uri, qrSvg, sealed: seal(secret, sealingSecrets(), purpose) };
}

type AcceptResult =
  | { ok: true; recoveryCodes: string[]; cookie: string }
  | { ok: false; reason: "link"; state: "expired" | "used" | "unknown" }
  | { ok: false; reason: "code"; message: string; limited: boolean }
  /** The password breaks the staff rule (issue 36): the form checks it first; this is the service's own check. */
  | { ok: false; reason: "password"; message: string };

/**
 * Accepts an invitation: the first TOTP code must be right for the secret shown; then, in one
 * transaction, the invitation is spent (a conditional UPDATE: it works once), the name, password and
 * sealed TOTP secret are saved, ten new recovery codes replace any old ones, and the audit trail says
 * so. The member is signed in (they have just given the password and a code).
 */
export async function acceptInvite(
  db: Database,
  input: { accountId: number; token: string; name: string; password: string; sealedSecret: string; code: string; ip: string; now: Date; userAgent?: string | null; companyName?: string | null },
): Promise<AcceptResult> {
  const invite = await readInvite(db, input.token, input.now);
  if (invite.state !== "open") return { ok: false, reason: "link", state: invite.state };
  const weak = staffPasswordProblem(input.password, { name: input.name, email: invite.email, companyName: input.companyName }) ?? commonStaffPasswordError(input.password);
  if (weak) return { ok: false, reason: "password", message: weak };
  const limited = await countGuess(db, [{ key: codeAccountKey(invite.staffId), limit: STAFF_CODE_LIMIT_PER_ACCOUNT }, { key: addressKey("staff-code", input.ip), limit: STAFF_CODE_LIMIT_PER_ADDRESS }], input.now);
  if (limited) return { ok: false, reason: "code", message: limited.message, limited: true };
  let secret: string;
  try {
    secret = openSealed(input.sealedSecret, sealingSecrets(), `${ENROL_SEAL_PURPOSE}:${invite.inviteId}`);
  } catch {
    return { ok: false, reason: "code", message: "The page has expired. Please reload it, add the new key to your app and try again.", limited: false };
  }
  const typed = input.code.replace(/\s/g, "");
  const check = /^\d{6}$/.test(typed) ? await verifyTotp({ secret, token: typed, epoch: Math.floor(input.now.getTime() / 1000), epochTolerance: TOTP_TOLERANCE_S }) : { valid: false as const };
  if (!check.valid) return { ok: false, reason: "code", message: "That code is not right. Enter the 6-digit code your app shows now for this account.", limited: false };
  await clearRateLimit(db, codeAccountKey(invite.staffId));
  await refundRateLimit(db, addressKey("staff-code", input.ip));
  const codes = newRecoveryCodes();
  const [passwordHash, ...codeHashes] = await Promise.all([hashPassword(input.password), ...codes.map((c) => hashPassword(normalRecoveryCode(c)))]);
  const done = await db.transaction(async (tx) => {
    const [spent] = await tx
      .update(staffInvites)
      .set({ usedAt: input.now })
      .where(and(eq(staffInvites.id, invite.inviteId), isNull(staffInvites.usedAt), gt(staffInvites.expiresAt, input.now)))
      .returning({ id: staffInvites.id });
    if (!spent) return null;
    const before = await tx.query.staffMembers.findFirst({ where: eq(staffMembers.id, invite.staffId) });
    await tx
      .update(staffMembers)
      .set({ name: input.name, passwordHash: passwordHash!, totpSecretSealed: seal(secret, sealingSecrets(), TOTP_SEAL_PURPOSE), totpLastStep: matchedStep(check, Math.floor(input.now.getTime() / 1000)), lastSignInAt: input.now, updatedAt: input.now })
      .where(eq(staffMembers.id, invite.staffId));
    await tx.update(staffInvites).set({ usedAt: input.now }).where(and(eq(staffInvites.staffId, invite.staffId), isNull(staffInvites.usedAt)));
    await tx.delete(staffRecoveryCodes).where(eq(staffRecoveryCodes.staffId, invite.staffId));
    await tx.insert(staffRecoveryCodes).values(codeHashes.map((codeHash) => ({ staffId: invite.staffId, codeHash: codeHash!, createdAt: input.now })));
    await recordAudit(tx, {
      accountId: input.accountId, staffId: invite.staffId, actor: invite.email, ip: input.ip || null, action: "staff.invite_accepted", entity: "staff_member", entityId: invite.staffId,
      changes: { name: { before: before?.name ?? "", after: input.name }, password: { before: null, after: "set" }, totp: { before: null, after: "enrolled" } },
      at: input.now,
    });
    return createStaffSession(tx, { staffId: invite.staffId, now: input.now, passwordOnly: false, ip: input.ip, userAgent: input.userAgent });
  });
  if (!done) return { ok: false, reason: "link", state: "used" };
  return { ok: true, recoveryCodes: codes, cookie: done };
}
