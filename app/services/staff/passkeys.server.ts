/**
 * Passkeys (WebAuthn) as a second factor for staff (issue 23; docs/decisions/270–273), with
 * @simplewebauthn/server. A passkey is an alternative to the TOTP code after the password, never
 * instead of the password; TOTP and the recovery codes stay (a page without JavaScript uses them).
 *
 * - The relying party is the console's configured origin (CONSOLE_URL, decision 450, from
 *   app/services/site/origin.server.ts) and its host name: never the request's Host header.
 * - Challenges live server-side in the member's staff session row (`webauthnChallenge`, with its
 *   purpose and a 5-minute expiry). The first response that names the session's challenge takes it,
 *   right or wrong: a challenge is answered once, so a replayed response is refused.
 * - A sign-in checks the signature against the stored public key, the origin and RP id, and the
 *   signature counter (a counter that does not go up, when the authenticator keeps one, is refused:
 *   a cloned authenticator); the counter and `lastUsedAt` are then updated with a conditional UPDATE.
 * - Attempts (registrations and sign-ins) are counted per member and per address; a right one gives
 *   its hit back. Every registration, removal, passkey sign-in and failed attempt is in the audit
 *   trail, in the same transaction as the change; never a challenge, a signature or a key.
 */
import crypto from "node:crypto";
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { and, asc, count, eq, gt, like } from "drizzle-orm";
import { z } from "zod";
import type { Database, Transaction } from "~/db/client.server";
import { staffMembers, staffPasskeys, staffSessions } from "~/db/schema";
import { recordAudit } from "../audit/events.server";
import { addressKey, clearRateLimit, hitRateLimits, refundRateLimit } from "../web/rate-limit.server";
import { consoleOrigin } from "../site/origin.server";
import { STAFF_SIGNIN_WINDOW_MS } from "./auth.server";
import { createStaffSession } from "./session.server";

/** How long a challenge may be answered. */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** The same 15-minute window as the password and code guesses. */
const PASSKEY_WINDOW_MS = STAFF_SIGNIN_WINDOW_MS;
export const PASSKEY_LIMIT_PER_MEMBER = 10;
const PASSKEY_LIMIT_PER_ADDRESS = 30;
/** At most this many passkeys per member. */
export const MAX_PASSKEYS = 10;
const PASSKEY_NAME_MAX = 60;

const PASSKEY_FAILED = "That passkey could not be checked. Try again, or enter the code from your app or one of your recovery codes.";
const PASSKEY_NOT_ADDED = "The passkey could not be added. Please try again.";
const PASSKEY_NONE = "There is no passkey for this account. Enter the code from your app or one of your recovery codes.";
const PASSKEY_TOO_MANY = `You have ${MAX_PASSKEYS} passkeys already. Remove one before adding another.`;
const limitedMessage = (minutes: number) =>
  `Too many attempts. For your security, please wait ${minutes} minute${minutes === 1 ? "" : "s"} and try again.`;

type PasskeyPurpose = "register" | "sign_in" | "reauth";

export interface RelyingParty {
  /** The RP id: the origin's host name. */
  id: string;
  /** The only origin a response may come from. */
  origin: string;
  /** The name an authenticator shows. */
  name: string;
}

/** The relying party of this website's back office: the console's configured origin (CONSOLE_URL, decision 450). */
export function relyingParty(website: { domain: string; websiteName: string }): RelyingParty {
  const origin = consoleOrigin(website);
  return { id: new URL(origin).hostname, origin, name: `${website.websiteName} back office` };
}

type PasskeyFailure = { ok: false; limited: boolean; message: string };

// ---------------------------------------------------------------------------------------------
// What the browser sends (checked before anything reaches the library)
// ---------------------------------------------------------------------------------------------

const b64url = z.string().max(16_000).regex(/^[A-Za-z0-9_-]*={0,2}$/);
const TRANSPORTS = ["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"] as const;
const transports = z
  .array(z.string().max(32))
  .max(10)
  .optional()
  .transform((list) => (list ?? []).filter((t): t is AuthenticatorTransport => (TRANSPORTS as readonly string[]).includes(t)));
const common = {
  id: b64url.min(1).max(1400),
  rawId: b64url.min(1).max(1400),
  type: z.literal("public-key"),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
};
const registrationSchema = z.object({
  ...common,
  response: z.object({
    clientDataJSON: b64url.min(1),
    attestationObject: b64url.min(1),
    authenticatorData: b64url.optional(),
    transports,
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url.optional(),
  }),
});
const authenticationSchema = z.object({
  ...common,
  response: z.object({
    clientDataJSON: b64url.min(1),
    authenticatorData: b64url.min(1),
    signature: b64url.min(1),
    userHandle: b64url.optional(),
  }),
});

/** The browser's response: a JSON string (a form field) or an object. Null when it is not one. */
function parseResponse<T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> | null {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.length > 64_000) return null;
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The challenge a response answers (from its client data), or null. */
function answeredChallenge(clientDataJSON: string): string | null {
  try {
    const client = JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8")) as { challenge?: unknown };
    return typeof client.challenge === "string" && client.challenge.length > 0 && client.challenge.length <= 200 ? client.challenge : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Challenges, kept in the staff session row
// ---------------------------------------------------------------------------------------------

async function keepChallenge(db: Database, sessionHash: string, purpose: PasskeyPurpose, challenge: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(staffSessions)
    .set({ webauthnChallenge: `${purpose}:${challenge}`, webauthnChallengeExpiresAt: new Date(now.getTime() + PASSKEY_CHALLENGE_TTL_MS) })
    .where(eq(staffSessions.id, sessionHash))
    .returning({ id: staffSessions.id });
  return rows.length > 0;
}

/**
 * Takes the session's challenge of this purpose when the response answers it and it has not lapsed
 * (one conditional UPDATE: two requests at once cannot both take it). Any other response spends the
 * pending challenge all the same. Returns the challenge taken, or null.
 */
async function takeChallenge(db: Database, sessionHash: string, purpose: PasskeyPurpose, clientDataJSON: string, now: Date): Promise<string | null> {
  const challenge = answeredChallenge(clientDataJSON);
  const clear = { webauthnChallenge: null, webauthnChallengeExpiresAt: null };
  if (challenge) {
    const [taken] = await db
      .update(staffSessions)
      .set(clear)
      .where(and(eq(staffSessions.id, sessionHash), eq(staffSessions.webauthnChallenge, `${purpose}:${challenge}`), gt(staffSessions.webauthnChallengeExpiresAt, now)))
      .returning({ id: staffSessions.id });
    if (taken) return challenge;
  }
  await db
    .update(staffSessions)
    .set(clear)
    .where(and(eq(staffSessions.id, sessionHash), like(staffSessions.webauthnChallenge, `${purpose}:%`)));
  return null;
}

// ---------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------

const memberKey = (staffId: number) => `staff-passkey:staff:${staffId}`;
const ipKey = (ip: string) => addressKey("staff-passkey", ip);

async function countAttempt(db: Database, staffId: number, ip: string, now: Date): Promise<PasskeyFailure | null> {
  const results = await hitRateLimits(
    db,
    [
      { key: memberKey(staffId), limit: PASSKEY_LIMIT_PER_MEMBER, windowMs: PASSKEY_WINDOW_MS },
      { key: ipKey(ip), limit: PASSKEY_LIMIT_PER_ADDRESS, windowMs: PASSKEY_WINDOW_MS },
    ],
    now,
  );
  const blocked = results.filter((r) => !r.allowed);
  if (!blocked.length) return null;
  return { ok: false, limited: true, message: limitedMessage(Math.max(...blocked.map((b) => b.retryAfterMinutes))) };
}

async function forgiveAttempt(db: Database, staffId: number, ip: string): Promise<void> {
  await clearRateLimit(db, memberKey(staffId));
  await refundRateLimit(db, ipKey(ip));
}

/** Why the library refused a response, in words for the audit trail (never the response itself). */
function refusalReason(error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  if (/counter/i.test(message)) return "signature counter did not increase";
  if (/origin/i.test(message)) return "wrong origin";
  if (/RP ?ID/i.test(message)) return "wrong relying party";
  if (/challenge/i.test(message)) return "wrong challenge";
  if (/type/i.test(message)) return "wrong response type";
  if (/user (was not )?present|user presence/i.test(message)) return "user not present";
  return "response not valid";
}

const toPublicKey = (base64url: string) => new Uint8Array(Buffer.from(base64url, "base64url"));

/** A stable, non-personal WebAuthn user handle for a member (the same member on one authenticator keeps one entry). */
function userHandle(accountId: number, staffId: number): Uint8Array<ArrayBuffer> {
  const bytes = crypto.createHash("sha256").update(`gatehouse-staff:${accountId}:${staffId}`).digest().subarray(0, 16);
  return new Uint8Array(bytes);
}

async function findMember(db: Database | Transaction, accountId: number, staffId: number) {
  return db.query.staffMembers.findFirst({ where: and(eq(staffMembers.id, staffId), eq(staffMembers.accountId, accountId)) });
}

// ---------------------------------------------------------------------------------------------
// The member's passkeys
// ---------------------------------------------------------------------------------------------

interface PasskeySummary {
  id: number;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export async function listPasskeys(db: Database, staffId: number): Promise<PasskeySummary[]> {
  return db
    .select({ id: staffPasskeys.id, name: staffPasskeys.name, createdAt: staffPasskeys.createdAt, lastUsedAt: staffPasskeys.lastUsedAt })
    .from(staffPasskeys)
    .where(eq(staffPasskeys.staffId, staffId))
    .orderBy(asc(staffPasskeys.id));
}

export async function hasPasskeys(db: Database, staffId: number): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(staffPasskeys).where(eq(staffPasskeys.staffId, staffId));
  return (row?.n ?? 0) > 0;
}

/** A passkey's name as typed: trimmed, control characters out, at most 60 characters; "Passkey" when empty. */
export function passkeyName(raw: unknown): string {
  const typed = typeof raw === "string" ? raw.replace(/[\p{Cc}\p{Cf}]/gu, " ").replace(/\s+/g, " ").trim() : "";
  return typed.slice(0, PASSKEY_NAME_MAX).trim() || "Passkey";
}

// ---------------------------------------------------------------------------------------------
// Registration (a signed-in member adds a passkey)
// ---------------------------------------------------------------------------------------------

type RegistrationOptionsResult = { ok: true; options: PublicKeyCredentialCreationOptionsJSON } | PasskeyFailure;

/** What the browser needs to create a passkey; the challenge is kept in the member's session. */
export async function passkeyRegistrationOptions(
  db: Database,
  input: { accountId: number; staffId: number; sessionHash: string; rp: RelyingParty; now: Date },
): Promise<RegistrationOptionsResult> {
  const member = await findMember(db, input.accountId, input.staffId);
  if (!member || member.disabledAt) return { ok: false, limited: false, message: PASSKEY_NOT_ADDED };
  const existing = await db
    .select({ credentialId: staffPasskeys.credentialId, transports: staffPasskeys.transports })
    .from(staffPasskeys)
    .where(eq(staffPasskeys.staffId, member.id));
  if (existing.length >= MAX_PASSKEYS) return { ok: false, limited: false, message: PASSKEY_TOO_MANY };
  const options = await generateRegistrationOptions({
    rpName: input.rp.name,
    rpID: input.rp.id,
    userName: member.email,
    userDisplayName: member.name || member.email,
    userID: userHandle(member.accountId, member.id),
    timeout: PASSKEY_CHALLENGE_TTL_MS,
    attestationType: "none",
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
  });
  if (!(await keepChallenge(db, input.sessionHash, "register", options.challenge, input.now))) return { ok: false, limited: false, message: PASSKEY_NOT_ADDED };
  return { ok: true, options };
}

type RegisterResult = { ok: true; passkey: PasskeySummary } | PasskeyFailure;

/**
 * Checks the browser's answer to the registration options (attestation "none" accepted) and keeps
 * the credential: its id, COSE public key, counter and transports, under the name given.
 */
export async function registerPasskey(
  db: Database,
  input: { accountId: number; staffId: number; sessionHash: string; response: unknown; name: unknown; rp: RelyingParty; ip: string; now: Date },
): Promise<RegisterResult> {
  const member = await findMember(db, input.accountId, input.staffId);
  if (!member || member.disabledAt) return { ok: false, limited: false, message: PASSKEY_NOT_ADDED };
  const name = passkeyName(input.name);
  const who = { accountId: input.accountId, staffId: member.id, actor: member.email, ip: input.ip || null };
  const fail = async (reason: string, message = PASSKEY_NOT_ADDED): Promise<PasskeyFailure> => {
    await recordAudit(db, { ...who, action: "staff.passkey_add_failed", entity: "staff_member", entityId: member.id, detail: { name, reason }, at: input.now });
    return { ok: false, limited: false, message };
  };
  const limited = await countAttempt(db, member.id, input.ip, input.now);
  if (limited) {
    await recordAudit(db, { ...who, action: "staff.passkey_add_failed", entity: "staff_member", entityId: member.id, detail: { name, reason: "too many attempts" }, at: input.now });
    return limited;
  }
  const response = parseResponse(registrationSchema, input.response);
  if (!response) return fail("malformed response");
  const challenge = await takeChallenge(db, input.sessionHash, "register", response.response.clientDataJSON, input.now);
  if (!challenge) return fail("challenge unknown, used or expired");
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: input.rp.origin,
      expectedRPID: input.rp.id,
      requireUserVerification: false,
    });
  } catch (error) {
    return fail(refusalReason(error));
  }
  if (!verified.verified) return fail("response not valid");
  const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
  const saved = await db.transaction(async (tx) => {
    const [n] = await tx.select({ n: count() }).from(staffPasskeys).where(eq(staffPasskeys.staffId, member.id));
    if ((n?.n ?? 0) >= MAX_PASSKEYS) return "too many" as const;
    const [row] = await tx
      .insert(staffPasskeys)
      .values({
        staffId: member.id,
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString("base64url"),
        counter: credential.counter,
        transports: credential.transports ?? response.response.transports,
        name,
        createdAt: input.now,
        updatedAt: input.now,
      })
      .onConflictDoNothing({ target: staffPasskeys.credentialId })
      .returning({ id: staffPasskeys.id, name: staffPasskeys.name, createdAt: staffPasskeys.createdAt, lastUsedAt: staffPasskeys.lastUsedAt });
    if (!row) return "duplicate" as const;
    await recordAudit(tx, {
      ...who,
      action: "staff.passkey_added",
      entity: "staff_passkey",
      entityId: row.id,
      changes: { name: { before: null, after: name } },
      detail: { deviceType: credentialDeviceType, backedUp: credentialBackedUp },
      at: input.now,
    });
    return row;
  });
  if (saved === "too many") return fail("too many passkeys", PASSKEY_TOO_MANY);
  if (saved === "duplicate") return fail("passkey already registered", "This passkey is registered already.");
  await forgiveAttempt(db, member.id, input.ip);
  return { ok: true, passkey: saved };
}

/** Counts a removal against the member's own limit (a form that changes state is rate-limited). */
export async function countPasskeyRemoval(db: Database, staffId: number, now: Date): Promise<PasskeyFailure | null> {
  const [r] = await hitRateLimits(db, [{ key: `staff-passkey-remove:staff:${staffId}`, limit: PASSKEY_LIMIT_PER_ADDRESS, windowMs: PASSKEY_WINDOW_MS }], now);
  return r && !r.allowed ? { ok: false, limited: true, message: limitedMessage(r.retryAfterMinutes) } : null;
}

/** Removes one of the member's own passkeys. False when it is not theirs (or gone). */
export async function removePasskey(
  db: Database,
  input: { accountId: number; staffId: number; passkeyId: number; ip: string | null; now: Date },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const member = await findMember(tx, input.accountId, input.staffId);
    if (!member) return false;
    const [gone] = await tx
      .delete(staffPasskeys)
      .where(and(eq(staffPasskeys.id, input.passkeyId), eq(staffPasskeys.staffId, member.id)))
      .returning({ id: staffPasskeys.id, name: staffPasskeys.name });
    if (!gone) return false;
    await recordAudit(tx, {
      accountId: input.accountId, staffId: member.id, actor: member.email, ip: input.ip || null,
      action: "staff.passkey_removed", entity: "staff_passkey", entityId: gone.id, changes: { name: { before: gone.name, after: null } }, at: input.now,
    });
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// Authentication (the second factor at sign-in, or a fresh one for a sensitive action)
// ---------------------------------------------------------------------------------------------

type AuthenticationOptionsResult = { ok: true; options: PublicKeyCredentialRequestOptionsJSON } | PasskeyFailure;

/** What the browser needs to sign with one of the member's passkeys; the challenge is kept in the session. */
export async function passkeyAuthenticationOptions(
  db: Database,
  input: { accountId: number; staffId: number; sessionHash: string; purpose: "sign_in" | "reauth"; rp: RelyingParty; now: Date },
): Promise<AuthenticationOptionsResult> {
  const member = await findMember(db, input.accountId, input.staffId);
  if (!member || member.disabledAt) return { ok: false, limited: false, message: PASSKEY_FAILED };
  const keys = await db
    .select({ credentialId: staffPasskeys.credentialId, transports: staffPasskeys.transports })
    .from(staffPasskeys)
    .where(eq(staffPasskeys.staffId, member.id));
  if (!keys.length) return { ok: false, limited: false, message: PASSKEY_NONE };
  const options = await generateAuthenticationOptions({
    rpID: input.rp.id,
    allowCredentials: keys.map((k) => ({ id: k.credentialId, transports: k.transports })),
    userVerification: "preferred",
    timeout: PASSKEY_CHALLENGE_TTL_MS,
  });
  if (!(await keepChallenge(db, input.sessionHash, input.purpose, options.challenge, input.now))) return { ok: false, limited: false, message: PASSKEY_FAILED };
  return { ok: true, options };
}

type PasskeyVerified<T> = { ok: true; passkeyId: number; value: T };

/**
 * Checks a passkey's answer to the session's challenge. Right: in one transaction the passkey's
 * counter and last use are updated, the member's last sign-in (sign_in) or the session's `factorAt`
 * (reauth) is now, the audit trail says so, and `then(tx)` runs (sign-in: replace the password-only
 * session by a full one). Wrong: the attempt is audited with the reason and counted.
 */
export async function verifyPasskey<T = undefined>(
  db: Database,
  input: {
    accountId: number;
    staffId: number;
    sessionHash: string;
    purpose: "sign_in" | "reauth";
    response: unknown;
    rp: RelyingParty;
    ip: string;
    now: Date;
    then?: (tx: Transaction) => Promise<T>;
  },
): Promise<PasskeyVerified<T> | PasskeyFailure> {
  const member = await findMember(db, input.accountId, input.staffId);
  if (!member) return { ok: false, limited: false, message: PASSKEY_FAILED };
  const who = { accountId: input.accountId, staffId: member.id, actor: member.email, ip: input.ip || null, entity: "staff_member", entityId: member.id };
  const failedAction = input.purpose === "sign_in" ? "staff.sign_in_failed" : "staff.reauthentication_failed";
  const fail = async (reason: string, passkeyId?: number): Promise<PasskeyFailure> => {
    await recordAudit(db, { ...who, action: failedAction, detail: { method: "passkey", step: "passkey", reason, ...(passkeyId ? { passkeyId } : {}) }, at: input.now });
    return { ok: false, limited: false, message: PASSKEY_FAILED };
  };
  if (member.disabledAt) return fail("account disabled");
  const limited = await countAttempt(db, member.id, input.ip, input.now);
  if (limited) {
    await recordAudit(db, { ...who, action: failedAction, detail: { method: "passkey", step: "passkey", reason: "too many attempts" }, at: input.now });
    return limited;
  }
  const response = parseResponse(authenticationSchema, input.response);
  if (!response) return fail("malformed response");
  const challenge = await takeChallenge(db, input.sessionHash, input.purpose, response.response.clientDataJSON, input.now);
  if (!challenge) return fail("challenge unknown, used or expired");
  const passkey = await db.query.staffPasskeys.findFirst({ where: and(eq(staffPasskeys.credentialId, response.id), eq(staffPasskeys.staffId, member.id)) });
  if (!passkey) return fail("passkey not registered to this member");
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: input.rp.origin,
      expectedRPID: input.rp.id,
      credential: { id: passkey.credentialId, publicKey: toPublicKey(passkey.publicKey), counter: passkey.counter, transports: passkey.transports as AuthenticatorTransport[] },
      requireUserVerification: false,
    });
  } catch (error) {
    return fail(refusalReason(error), passkey.id);
  }
  if (!verified.verified) return fail("signature not valid", passkey.id);
  const newCounter = verified.authenticationInfo.newCounter;
  const done = await db.transaction(async (tx) => {
    const [used] = await tx
      .update(staffPasskeys)
      .set({ counter: newCounter, lastUsedAt: input.now, updatedAt: input.now })
      .where(and(eq(staffPasskeys.id, passkey.id), eq(staffPasskeys.counter, passkey.counter)))
      .returning({ id: staffPasskeys.id });
    if (!used) return null;
    if (input.purpose === "sign_in") await tx.update(staffMembers).set({ lastSignInAt: input.now }).where(eq(staffMembers.id, member.id));
    else await tx.update(staffSessions).set({ factorAt: input.now }).where(eq(staffSessions.id, input.sessionHash));
    await recordAudit(tx, {
      ...who,
      action: input.purpose === "sign_in" ? "staff.sign_in" : "staff.reauthenticated",
      detail: { method: "passkey", passkeyId: passkey.id, passkey: passkey.name, userVerified: verified.authenticationInfo.userVerified },
      at: input.now,
    });
    return { value: input.then ? await input.then(tx) : (undefined as T) };
  });
  if (!done) return fail("passkey used twice at once", passkey.id);
  await forgiveAttempt(db, member.id, input.ip);
  return { ok: true, passkeyId: passkey.id, value: done.value };
}

/**
 * The second step of sign-in with a passkey, for a password-only session: right, the password-only
 * session is replaced by a full one (a new id) in the same transaction as the audit row; returns its
 * Set-Cookie header.
 */
export async function passkeySignIn(
  db: Database,
  input: { accountId: number; staffId: number; sessionHash: string; response: unknown; rp: RelyingParty; ip: string; now: Date; userAgent?: string | null },
): Promise<PasskeyVerified<string> | PasskeyFailure> {
  return verifyPasskey(db, {
    ...input,
    purpose: "sign_in",
    then: async (tx) => {
      await tx.delete(staffSessions).where(eq(staffSessions.id, input.sessionHash));
      return createStaffSession(tx, { staffId: input.staffId, now: input.now, passwordOnly: false, ip: input.ip, userAgent: input.userAgent });
    },
  });
}
