/**
 * Staff management (issue 23): invitations (from the console and from `npm run staff:invite`), the
 * staff list, role and location changes, ending a member's sessions, disabling and re-enabling. Every
 * change is written to the audit trail in the same transaction, with each field's value before and
 * after. Only owners (`staff.manage`, with a fresh second factor) reach these from the console.
 */
import crypto from "node:crypto";
import { and, asc, count, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { redirect } from "react-router";
import type { Database, Transaction } from "~/db/client.server";
import { locations, staffInvites, staffLocations, staffMembers, staffSessions } from "~/db/schema";
import { FRESH_FACTOR_MS, STAFF_INVITE_TTL_MS, STAFF_ROLE_LABELS, STAFF_ROLES, type StaffRole } from "~/domain/staff/roles";
import { recordAudit } from "../audit/events.server";
import { queueEmail, sendQueuedEmail } from "../mail/outbox.server";
import { hitRateLimit } from "../web/rate-limit.server";
import { inviteTokenHash, STAFF_SIGNIN_WINDOW_MS } from "./auth.server";
import { auditActor, type SignedInStaff } from "./context.server";
import { endStaffSessions } from "./session.server";
import { STAFF_EMAIL } from "~/domain/staff/forms";

/** Who invites: a signed-in owner, or the command line (the first owner on a fresh install). */
type Inviter = SignedInStaff | { commandLine: true; ip?: string | null };

export type InviteResult =
  /** `outboxId`: the invitation e-mail (an owner's invite from the console), sent after the commit. */
  | { ok: true; link: string; staffId: number; expiresAt: Date; outboxId: number | null }
  | { ok: false; errors: Partial<Record<"email" | "role" | "locations", string>> };


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
  const token = crypto.randomBytes(32).toString("base64url");
  const expiresAt = new Date(input.now.getTime() + STAFF_INVITE_TTL_MS);
  const inviter = "commandLine" in input.by ? null : input.by;
  const link = `${input.origin.replace(/\/$/, "")}/admin/invite/${token}`;
  const result = await db.transaction(async (tx) => {
    const existing = await tx.query.staffMembers.findFirst({ where: and(eq(staffMembers.accountId, input.accountId), sql`lower(${staffMembers.email}) = ${email}`) });
    if (existing?.passwordHash) return null;
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
    await tx.insert(staffInvites).values({ staffId, tokenHash: inviteTokenHash(token), expiresAt, invitedByStaffId: inviter?.staffId ?? null, createdAt: input.now });
    // An owner's invitation from the console is e-mailed (decision 284); the command prints its link.
    // The link is a secret of the outbox row (sealed until sent), never in the audit row.
    const mail = inviter
      ? await queueEmail(tx, {
          to: email,
          subject: "You are invited to the back office",
          secrets: [link, token],
          text: [
            "Hello,",
            "",
            `${inviter.name || inviter.email} invited you to the back office as ${STAFF_ROLE_LABELS[role].toLowerCase()}.`,
            "Open this link to set your password and your second factor. It works once, for 24 hours:",
            "",
            link,
            "",
            "If you did not expect this e-mail, you can ignore it.",
          ].join("\n"),
        })
      : null;
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
      detail: { expiresAt: expiresAt.toISOString(), reinvite: Boolean(existing), outboxId: mail?.id ?? null },
      at: input.now,
    });
    return { staffId, outboxId: mail?.id ?? null };
  });
  if (result === null) return { ok: false, errors: { email: "This person already has a staff account. Change their role or re-enable them in the list instead." } };
  if (result.outboxId !== null) await sendQueuedEmail(db, result.outboxId);
  return { ok: true, link, staffId: result.staffId, expiresAt, outboxId: result.outboxId };
}

interface StaffListRow {
  id: number;
  email: string;
  name: string;
  role: StaffRole;
  locationIds: number[];
  status: "invited" | "active" | "disabled";
  lastSignInAt: Date | null;
  sessions: number;
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
  return members.map((m) => ({
    id: m.id,
    email: m.email,
    name: m.name,
    role: m.role,
    locationIds: locs.filter((l) => l.staffId === m.id).map((l) => l.locationId).sort((a, b) => a - b),
    status: m.disabledAt ? "disabled" : m.passwordHash ? "active" : "invited",
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

/** The staff page's form limit: 60 changes per owner per 15 minutes. */
export function countStaffChange(db: Database, by: SignedInStaff, now: Date) {
  return hitRateLimit(db, { key: `staff-admin:staff:${by.staffId}`, limit: 60, windowMs: STAFF_SIGNIN_WINDOW_MS, now });
}

/** Whether the member gave a second factor within the last few minutes (decision 250). */
function hasFreshFactor(staff: SignedInStaff, now: Date): boolean {
  return now.getTime() - staff.factorAt.getTime() < FRESH_FACTOR_MS;
}

/**
 * For a sensitive page or action (staff changes, exports of personal data, refunds): unless the
 * member gave a second factor within the last ten minutes, a redirect to the re-authentication page,
 * which comes back here (a GET: this page; a POST: the page the form is on, to submit again).
 */
export function requireFreshFactor(staff: SignedInStaff, request: Request, now: Date): void {
  if (hasFreshFactor(staff, now)) return;
  const url = new URL(request.url);
  let back = `${url.pathname}${url.search}`;
  if (request.method !== "GET") {
    const referer = request.headers.get("Referer");
    try {
      const r = referer ? new URL(referer) : null;
      back = r && r.host === url.host ? `${r.pathname}${r.search}` : url.pathname;
    } catch {
      back = url.pathname;
    }
  }
  throw redirect(`/admin/reauth?next=${encodeURIComponent(back)}`, { status: 303, headers: { "Cache-Control": "no-store" } });
}
