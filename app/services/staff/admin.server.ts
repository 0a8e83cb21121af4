/**
 * Staff management (issue 23): invitations (from the console and from `npm run staff:invite`), the
 * staff list, role and location changes, ending a member's sessions, disabling and re-enabling. Every
 * change is written to the audit trail in the same transaction, with each field's value before and
 * after. Only owners (`staff.manage`, with a fresh second factor) reach these from the console.
 */
import crypto from "node:crypto";
import { and, asc, count, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { locations, rateLimitHits, staffInvites, staffLocations, staffMembers, staffPasskeys, staffPasswordResets, staffRecoveryCodes, staffSessions } from "~/db/schema";
import { STAFF_INVITE_TTL_MS, STAFF_ROLE_LABELS, STAFF_ROLES, type StaffRole } from "~/domain/staff/roles";
import { recordAudit } from "../audit/events.server";
import { auditTimeZone } from "../audit/trail.server";
import { queueEmail, sendQueuedEmail } from "../mail/outbox.server";
import { hitRateLimit } from "../web/rate-limit.server";
import { inviteTokenHash, staffLockoutKeys, STAFF_SIGNIN_WINDOW_MS } from "./auth.server";
import { auditActor, type SignedInStaff } from "./context.server";
import { endStaffSessions } from "./session.server";
import { STAFF_EMAIL } from "~/domain/staff/forms";
import { formatDeskTime } from "~/domain/desk/time";

/** Who invites: a signed-in owner, or the command line (the first owner on a fresh install). */
type Inviter = SignedInStaff | { commandLine: true; ip?: string | null };

export type InviteResult =
  /** `outboxId`: the invitation e-mail (an owner's invite from the console), sent after the commit. */
  | { ok: true; link: string; staffId: number; expiresAt: Date; outboxId: number | null }
  /** `existingStaffId`: the address is a member's who has signed up already (their row's "Reset sign-in"). */
  | { ok: false; errors: Partial<Record<"email" | "role" | "locations", string>>; existingStaffId?: number };

/**
 * A new invitation link for a member (in the caller's transaction): 24 hours, once, on the console's
 * configured origin; e-mailed when an owner made it (decision 284), the command prints it. The link
 * is a secret of the outbox row (sealed until sent), never in the audit row.
 */
async function issueInvitation(
  tx: Transaction,
  input: { staffId: number; email: string; role: StaffRole; origin: string; now: Date; inviter: SignedInStaff | null; resetSignIn?: boolean },
): Promise<{ link: string; expiresAt: Date; outboxId: number | null }> {
  const token = crypto.randomBytes(32).toString("base64url");
  const expiresAt = new Date(input.now.getTime() + STAFF_INVITE_TTL_MS);
  const link = `${input.origin.replace(/\/$/, "")}/admin/invite/${token}`;
  await tx.insert(staffInvites).values({ staffId: input.staffId, tokenHash: inviteTokenHash(token), expiresAt, invitedByStaffId: input.inviter?.staffId ?? null, createdAt: input.now });
  const who = input.inviter ? input.inviter.name || input.inviter.email : "";
  const mail = input.inviter
    ? await queueEmail(tx, {
        to: input.email,
        subject: input.resetSignIn ? "Set up your back office sign-in again" : "You are invited to the back office",
        secrets: [link, token],
        text: [
          "Hello,",
          "",
          input.resetSignIn
            ? `${who} reset your sign-in to the back office: your old password, authenticator app, passkeys and recovery codes no longer work.`
            : `${who} invited you to the back office as ${STAFF_ROLE_LABELS[input.role].toLowerCase()}.`,
          "Open this link to set your password and your second factor. It works once, for 24 hours:",
          "",
          link,
          "",
          input.resetSignIn ? "If you did not expect this e-mail, tell the owner of the business." : "If you did not expect this e-mail, you can ignore it.",
        ].join("\n"),
      })
    : null;
  return { link, expiresAt, outboxId: mail?.id ?? null };
}


/** The account's locations (for the role's location choices), by name. */
export async function accountLocations(db: Database, accountId: number): Promise<Array<{ id: number; name: string }>> {
  return db.select({ id: locations.id, name: locations.name }).from(locations).where(eq(locations.accountId, accountId)).orderBy(asc(locations.name));
}

async function accountLocationIds(db: Database | Transaction, accountId: number): Promise<number[]> {
  const rows = await db.select({ id: locations.id }).from(locations).where(eq(locations.accountId, accountId));
  return rows.map((r) => r.id);
}

function checkAccess(role: string, locationIds: readonly number[], known: readonly number[]): Partial<Record<"role" | "locations", string>> {
  if (!(STAFF_ROLES as readonly string[]).includes(role)) return { role: "Choose a role from the list." };
  if (role === "owner") return {};
  if (!locationIds.length) return { locations: "Choose at least one location: this role sees only the locations given." };
  if (locationIds.some((id) => !known.includes(id))) return { locations: "Choose locations from the list." };
  return {};
}

/**
 * Invites a member (a new one, or one who has not accepted yet: a fresh link, the older ones spent).
 * The link works once, for 24 hours, from the configured origin.
 */
export async function inviteStaff(
  db: Database,
  input: { accountId: number; email: string; role: string; locationIds: readonly number[]; origin: string; now: Date; by: Inviter },
): Promise<InviteResult> {
  const email = input.email.trim().toLowerCase();
  if (!STAFF_EMAIL.test(email) || email.length > 254) return { ok: false, errors: { email: "Enter an e-mail address like name@example.com." } };
  const known = await accountLocationIds(db, input.accountId);
  const role = input.role as StaffRole;
  const locationIds = role === "owner" ? [] : [...new Set(input.locationIds)].sort((a, b) => a - b);
  const accessErrors = checkAccess(input.role, locationIds, known);
  if (Object.keys(accessErrors).length) return { ok: false, errors: accessErrors };
  const inviter = "commandLine" in input.by ? null : input.by;
  const result = await db.transaction(async (tx) => {
    const existing = await tx.query.staffMembers.findFirst({ where: and(eq(staffMembers.accountId, input.accountId), sql`lower(${staffMembers.email}) = ${email}`) });
    if (existing?.passwordHash) return { existing: existing as NonNullable<typeof existing> };
    let staffId: number;
    let beforeLocations: number[] = [];
    if (existing) {
      staffId = existing.id;
      beforeLocations = (await tx.select({ id: staffLocations.locationId }).from(staffLocations).where(eq(staffLocations.staffId, staffId))).map((r) => r.id).sort((a, b) => a - b);
      await tx.update(staffMembers).set({ role, disabledAt: null, updatedAt: input.now }).where(eq(staffMembers.id, staffId));
      await tx.delete(staffLocations).where(eq(staffLocations.staffId, staffId));
      await tx.update(staffInvites).set({ usedAt: input.now }).where(and(eq(staffInvites.staffId, staffId), isNull(staffInvites.usedAt)));
    } else {
      const [row] = await tx.insert(staffMembers).values({ accountId: input.accountId, email, role, createdAt: input.now, updatedAt: input.now }).returning({ id: staffMembers.id });
      staffId = row!.id;
    }
    if (locationIds.length) await tx.insert(staffLocations).values(locationIds.map((locationId) => ({ staffId, locationId })));
    const invitation = await issueInvitation(tx, { staffId, email, role, origin: input.origin, now: input.now, inviter });
    await recordAudit(tx, {
      ...(inviter ? auditActor(inviter) : { accountId: input.accountId, staffId: null, actor: "command line", ip: "commandLine" in input.by ? (input.by.ip ?? null) : null }),
      action: "staff.invited",
      entity: "staff_member",
      entityId: staffId,
      changes: {
        email: { before: existing?.email ?? null, after: email },
        role: { before: existing?.role ?? null, after: role },
        locations: { before: existing ? beforeLocations : null, after: locationIds },
      },
      detail: { expiresAt: invitation.expiresAt.toISOString(), reinvite: Boolean(existing), outboxId: invitation.outboxId },
      at: input.now,
    });
    return { staffId, ...invitation };
  });
  if ("existing" in result && result.existing) {
    // Not a dead end (issue 39): the member's own row resets their sign-in with a new invitation.
    const message = result.existing.disabledAt
      ? "This person already has a staff account, which is disabled. Re-enable it in the list of staff members; if they cannot sign in, use “Reset sign-in” there to send them a new invitation."
      : "This person already has a staff account. If they cannot sign in, use “Reset sign-in” beside their name in the list of staff members: it sends them a new invitation and their old password and second factor stop working.";
    return { ok: false, errors: { email: message }, existingStaffId: result.existing.id };
  }
  if (result.outboxId !== null) await sendQueuedEmail(db, result.outboxId);
  return { ok: true, link: result.link, staffId: result.staffId, expiresAt: result.expiresAt, outboxId: result.outboxId };
}

interface StaffListRow {
  id: number;
  email: string;
  name: string;
  role: StaffRole;
  locationIds: number[];
  status: "invited" | "active" | "disabled";
  /** Until when the member cannot sign in (too many wrong passwords or codes), or null. */
  lockedUntil: Date | null;
  lastSignInAt: Date | null;
  sessions: number;
}

type MemberLockout = { lockedUntil: Date | null; failed: { password: number; code: number }; keys: string[] };

/**
 * A member's lockout now (decision 505): locked while either per-member limit is used up in its
 * window (the next guess would be refused), until the latest such window ends.
 */
async function lockoutsOf(db: Database | Transaction, accountId: number, members: Array<{ id: number; email: string }>, now: Date): Promise<Map<number, MemberLockout>> {
  const byMember = new Map(members.map((m) => [m.id, staffLockoutKeys(accountId, m)]));
  const allKeys = [...byMember.values()].flat().map((k) => k.key);
  const hits = allKeys.length ? await db.select().from(rateLimitHits).where(inArray(rateLimitHits.key, allKeys)) : [];
  const out = new Map<number, MemberLockout>();
  for (const [id, keys] of byMember) {
    let lockedUntil: Date | null = null;
    const failed = { password: 0, code: 0 };
    for (const k of keys) {
      const hit = hits.find((h) => h.key === k.key);
      const resetAt = hit ? new Date(hit.resetAt) : null;
      if (!hit || !resetAt || resetAt.getTime() <= now.getTime()) continue;
      failed[k.step] = hit.count;
      if (hit.count >= k.limit && (!lockedUntil || resetAt > lockedUntil)) lockedUntil = resetAt;
    }
    out.set(id, { lockedUntil, failed, keys: keys.map((k) => k.key) });
  }
  return out;
}

/** Every staff member of the account, by e-mail. */
export async function listStaff(db: Database, accountId: number, now: Date): Promise<StaffListRow[]> {
  const members = await db.select().from(staffMembers).where(eq(staffMembers.accountId, accountId)).orderBy(asc(staffMembers.email));
  if (!members.length) return [];
  const ids = members.map((m) => m.id);
  const locs = await db.select().from(staffLocations).where(inArray(staffLocations.staffId, ids));
  const sessions = await db
    .select({ staffId: staffSessions.staffId, n: count() })
    .from(staffSessions)
    .where(and(inArray(staffSessions.staffId, ids), gt(staffSessions.expiresAt, now), eq(staffSessions.passwordOnly, false)))
    .groupBy(staffSessions.staffId);
  const lockouts = await lockoutsOf(db, accountId, members, now);
  return members.map((m) => ({
    id: m.id,
    email: m.email,
    name: m.name,
    role: m.role,
    locationIds: locs.filter((l) => l.staffId === m.id).map((l) => l.locationId).sort((a, b) => a - b),
    status: m.disabledAt ? "disabled" : m.passwordHash ? "active" : "invited",
    lockedUntil: lockouts.get(m.id)?.lockedUntil ?? null,
    lastSignInAt: m.lastSignInAt,
    sessions: Number(sessions.find((s) => s.staffId === m.id)?.n ?? 0),
  }));
}

type StaffChangeResult = { ok: true } | { ok: false; message: string; field?: "role" | "locations" };

async function memberOf(tx: Database | Transaction, accountId: number, staffId: number) {
  return tx.query.staffMembers.findFirst({ where: and(eq(staffMembers.id, staffId), eq(staffMembers.accountId, accountId)) });
}

const NOT_FOUND: StaffChangeResult = { ok: false, message: "That staff member was not found." };
const NOT_SELF: StaffChangeResult = { ok: false, message: "You cannot do this to your own account. Ask another owner." };

/** Changes a member's role and locations (not one's own), audited with both fields before and after. */
export async function changeStaffAccess(db: Database, by: SignedInStaff, input: { staffId: number; role: string; locationIds: readonly number[]; now: Date }): Promise<StaffChangeResult> {
  if (input.staffId === by.staffId) return NOT_SELF;
  const known = await accountLocationIds(db, by.accountId);
  const role = input.role as StaffRole;
  const locationIds = role === "owner" ? [] : [...new Set(input.locationIds)].sort((a, b) => a - b);
  const errors = checkAccess(input.role, locationIds, known);
  const field = (Object.keys(errors) as Array<"role" | "locations">)[0];
  if (field) return { ok: false, message: errors[field]!, field };
  return db.transaction(async (tx) => {
    const member = await memberOf(tx, by.accountId, input.staffId);
    if (!member) return NOT_FOUND;
    const before = (await tx.select({ id: staffLocations.locationId }).from(staffLocations).where(eq(staffLocations.staffId, member.id))).map((r) => r.id).sort((a, b) => a - b);
    await tx.update(staffMembers).set({ role, updatedAt: input.now }).where(eq(staffMembers.id, member.id));
    await tx.delete(staffLocations).where(eq(staffLocations.staffId, member.id));
    if (locationIds.length) await tx.insert(staffLocations).values(locationIds.map((locationId) => ({ staffId: member.id, locationId })));
    await recordAudit(tx, {
      ...auditActor(by), action: "staff.access_changed", entity: "staff_member", entityId: member.id,
      changes: { role: { before: member.role, after: role }, locations: { before, after: locationIds } }, at: input.now,
    });
    return { ok: true } as const;
  });
}

/** Ends every session of a member at once. */
export async function endMemberSessions(db: Database, by: SignedInStaff, input: { staffId: number; now: Date }): Promise<StaffChangeResult> {
  return db.transaction(async (tx) => {
    const member = await memberOf(tx, by.accountId, input.staffId);
    if (!member) return NOT_FOUND;
    const ended = await endStaffSessions(tx, member.id);
    await recordAudit(tx, { ...auditActor(by), action: "staff.sessions_ended", entity: "staff_member", entityId: member.id, detail: { sessionsEnded: ended }, at: input.now });
    return { ok: true } as const;
  });
}

/** Disables (and ends every session of) a member, or re-enables one; never one's own account. */
export async function setStaffDisabled(db: Database, by: SignedInStaff, input: { staffId: number; disabled: boolean; now: Date }): Promise<StaffChangeResult> {
  if (input.staffId === by.staffId) return NOT_SELF;
  return db.transaction(async (tx) => {
    const member = await memberOf(tx, by.accountId, input.staffId);
    if (!member) return NOT_FOUND;
    if (Boolean(member.disabledAt) === input.disabled) return { ok: true } as const;
    const disabledAt = input.disabled ? input.now : null;
    await tx.update(staffMembers).set({ disabledAt, updatedAt: input.now }).where(eq(staffMembers.id, member.id));
    const ended = input.disabled ? await endStaffSessions(tx, member.id) : 0;
    await recordAudit(tx, {
      ...auditActor(by), action: input.disabled ? "staff.disabled" : "staff.enabled", entity: "staff_member", entityId: member.id,
      changes: { disabledAt: { before: member.disabledAt?.toISOString() ?? null, after: disabledAt?.toISOString() ?? null } },
      ...(input.disabled ? { detail: { sessionsEnded: ended } } : {}), at: input.now,
    });
    return { ok: true } as const;
  });
}

/**
 * Lifts a member's lockout (decision 505): their failed passwords and codes are forgotten, so they can
 * sign in again at once (the per-address limits stay). Not one's own. Audited with the lockout's end
 * and the failed attempts before.
 */
export async function liftStaffLockout(db: Database, by: SignedInStaff, input: { staffId: number; now: Date }): Promise<StaffChangeResult> {
  if (input.staffId === by.staffId) return NOT_SELF;
  const timeZone = await auditTimeZone(db, by.accountId);
  return db.transaction(async (tx) => {
    const member = await memberOf(tx, by.accountId, input.staffId);
    if (!member) return NOT_FOUND;
    const lockout = (await lockoutsOf(tx, by.accountId, [member], input.now)).get(member.id)!;
    await tx.delete(rateLimitHits).where(inArray(rateLimitHits.key, lockout.keys));
    await recordAudit(tx, {
      ...auditActor(by), action: "staff.lockout_lifted", entity: "staff_member", entityId: member.id,
      changes: {
        lockedUntil: { before: lockout.lockedUntil?.toISOString() ?? null, after: null },
        failedSignIns: { before: lockout.failed.password, after: 0 },
        failedCodes: { before: lockout.failed.code, after: 0 },
      },
      detail: {
        summary: lockout.lockedUntil
          ? `Lifted the lockout of ${member.email} (locked out until ${formatDeskTime(lockout.lockedUntil, timeZone)}): they can sign in again.`
          : `Cleared the failed sign-ins of ${member.email} (they were not locked out).`,
      },
      at: input.now,
    });
    return { ok: true } as const;
  });
}

type ResetSignInResult = { ok: true; link: string; email: string; expiresAt: Date } | { ok: false; message: string };

/**
 * An owner's "Reset sign-in" for a member who cannot sign in (decision 504): in one transaction the
 * member's password, TOTP secret, recovery codes and passkeys are removed, every session ends, every
 * open invitation and reset link is spent, the lockout is lifted, and a new invitation (24 hours,
 * once) is made and e-mailed; the owner also sees the link to give it another way. The member keeps
 * their role, locations and history. Not one's own; not a disabled member (re-enable first).
 */
export async function resetStaffSignIn(db: Database, by: SignedInStaff, input: { staffId: number; origin: string; now: Date }): Promise<ResetSignInResult> {
  if (input.staffId === by.staffId) return NOT_SELF as { ok: false; message: string };
  const result = await db.transaction(async (tx) => {
    const member = await memberOf(tx, by.accountId, input.staffId);
    if (!member) return NOT_FOUND as { ok: false; message: string };
    if (member.disabledAt) return { ok: false as const, message: "This account is disabled. Re-enable it first, then reset its sign-in." };
    const lockout = (await lockoutsOf(tx, by.accountId, [member], input.now)).get(member.id)!;
    await tx.update(staffMembers).set({ passwordHash: null, totpSecretSealed: null, totpLastStep: null, updatedAt: input.now }).where(eq(staffMembers.id, member.id));
    const codes = await tx.delete(staffRecoveryCodes).where(and(eq(staffRecoveryCodes.staffId, member.id), isNull(staffRecoveryCodes.usedAt))).returning({ id: staffRecoveryCodes.id });
    await tx.delete(staffRecoveryCodes).where(eq(staffRecoveryCodes.staffId, member.id));
    const passkeys = await tx.delete(staffPasskeys).where(eq(staffPasskeys.staffId, member.id)).returning({ name: staffPasskeys.name });
    const sessionsEnded = await endStaffSessions(tx, member.id);
    await tx.update(staffInvites).set({ usedAt: input.now }).where(and(eq(staffInvites.staffId, member.id), isNull(staffInvites.usedAt)));
    await tx.update(staffPasswordResets).set({ usedAt: input.now }).where(and(eq(staffPasswordResets.staffId, member.id), isNull(staffPasswordResets.usedAt)));
    await tx.delete(rateLimitHits).where(inArray(rateLimitHits.key, lockout.keys));
    const invitation = await issueInvitation(tx, { staffId: member.id, email: member.email, role: member.role, origin: input.origin, now: input.now, inviter: by, resetSignIn: true });
    const removed = [
      member.passwordHash ? "password" : null,
      member.totpSecretSealed ? "authenticator app" : null,
      passkeys.length ? `${passkeys.length} passkey${passkeys.length === 1 ? "" : "s"}` : null,
      codes.length ? `${codes.length} recovery code${codes.length === 1 ? "" : "s"}` : null,
    ].filter(Boolean);
    await recordAudit(tx, {
      ...auditActor(by), action: "staff.sign_in_reset", entity: "staff_member", entityId: member.id,
      changes: {
        password: { before: member.passwordHash ? "set" : null, after: null },
        totp: { before: member.totpSecretSealed ? "enrolled" : null, after: null },
        passkeys: { before: passkeys.length, after: 0 },
        unusedBackupCodes: { before: codes.length, after: 0 },
      },
      detail: {
        summary: `Reset the sign-in of ${member.email}: ${removed.length ? `${removed.join(", ")} removed` : "nothing was set up yet"}; ${sessionsEnded} session${sessionsEnded === 1 ? "" : "s"} ended; a new invitation e-mailed (it works once, for 24 hours).`,
        sessionsEnded,
        expiresAt: invitation.expiresAt.toISOString(),
        outboxId: invitation.outboxId,
      },
      at: input.now,
    });
    return { ok: true as const, email: member.email, ...invitation };
  });
  if (!result.ok) return result;
  if (result.outboxId !== null) await sendQueuedEmail(db, result.outboxId);
  return { ok: true, link: result.link, email: result.email, expiresAt: result.expiresAt };
}

/** The staff page's form limit: 60 changes per owner per 15 minutes. */
export function countStaffChange(db: Database, by: SignedInStaff, now: Date) {
  return hitRateLimit(db, { key: `staff-admin:staff:${by.staffId}`, limit: 60, windowMs: STAFF_SIGNIN_WINDOW_MS, now });
}
