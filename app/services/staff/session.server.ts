import crypto from "node:crypto";
import { and, eq, lt, or } from "drizzle-orm";
import { redirect, type RouterContextProvider } from "react-router";
import { signedCookie } from "~/platform/signed-cookie.server";
import type { Database, Transaction } from "~/db/client.server";
import { staffLocations, staffMembers, staffSessions } from "~/db/schema";
import { scopeFor, STAFF_SESSION_IDLE_MS, STAFF_SESSION_MAX_MS } from "~/domain/staff/roles";
import { isSafeLocalPath } from "~/domain/web/safe-redirect";
import { env } from "~/platform/env.server";
import { now as clockNow } from "~/platform/clock.server";
import { recordAudit } from "../audit/events.server";
import { cookieName, hostCookieOptions } from "../web/cookie-names.server";
import { requireSite } from "../site/context.server";
import { consoleCookieSecure } from "~/domain/console/origin";
import { consoleOrigin } from "../site/origin.server";
import { signedInStaffContext, type SignedInStaff } from "./context.server";

/**
 * Staff sessions (issue 23, docs/decisions/247-staff-sessions.md). Like the tenants' (decision 051)
 * but separate: the cookie `__Host-gh_staff` (`gh_staff` on a plain-HTTP console that is not
 * *.localhost), set by the console's own origin only (decision 450), holds a random id signed with
 * the SESSION_SECRET list; HttpOnly, SameSite=Lax, Path=/, no Max-Age. The server keeps the id's
 * SHA-256 in staff_sessions. A session ends after 30 minutes without a request (the expiry slides)
 * and 12 hours after sign-in in any case; disabling a member deletes every session of theirs.
 *
 * A session made by the password step alone (`passwordOnly`) opens only the second-factor page;
 * the second factor turns it into a full session (a new id, so the pre-factor cookie dies).
 */
function staffSessionCookie() {
  const e = env();
  // The console's own origin (decision 450): `__Host-gh_staff` wherever the browser keeps a Secure
  // cookie (https, and http://*.localhost in development and tests); host-only, so never sent to the public site.
  const secure = consoleCookieSecure(consoleOrigin());
  return signedCookie(cookieName("gh_staff", secure), { ...hostCookieOptions(secure), secrets: e.sessionSecrets });
}

const staffSessionHash = (id: string) => crypto.createHash("sha256").update(id).digest("hex");

/** The staff session id of the request's cookie (signature checked; not whether the session still exists). */
export async function readStaffSessionId(request: Request): Promise<string | null> {
  const id = await staffSessionCookie().parse(request.headers.get("Cookie"));
  return typeof id === "string" && id.length >= 32 ? id : null;
}

/** Starts a session; returns the Set-Cookie header. */
export async function createStaffSession(
  db: Database | Transaction,
  input: { staffId: number; now: Date; passwordOnly: boolean; ip?: string | null; userAgent?: string | null },
): Promise<string> {
  const id = crypto.randomBytes(32).toString("base64url");
  await db.insert(staffSessions).values({
    id: staffSessionHash(id),
    staffId: input.staffId,
    expiresAt: new Date(input.now.getTime() + (input.passwordOnly ? 10 * 60 * 1000 : STAFF_SESSION_IDLE_MS)),
    factorAt: input.passwordOnly ? null : input.now,
    passwordOnly: input.passwordOnly,
    ip: input.ip ?? null,
    userAgent: input.userAgent?.slice(0, 300) ?? null,
    createdAt: input.now,
  });
  return staffSessionCookie().serialize(id);
}

interface StaffSessionRow {
  sessionHash: string;
  staffId: number;
  passwordOnly: boolean;
  factorAt: Date | null;
  createdAt: Date;
}

/**
 * The session of this request, or null: unknown, expired (idle or past 12 hours: the row is deleted)
 * or its member disabled. An active session's idle expiry slides (at most once a minute).
 */
export async function getStaffSession(db: Database, request: Request, now: Date): Promise<StaffSessionRow | null> {
  const id = await readStaffSessionId(request);
  if (!id) return null;
  return getStaffSessionByHash(db, staffSessionHash(id), now);
}

/** The same, for a session known by its hash (the preview cookie of the public site, decision 450). */
async function getStaffSessionByHash(db: Database, h: string, now: Date): Promise<StaffSessionRow | null> {
  const row = await db.query.staffSessions.findFirst({ where: eq(staffSessions.id, h) });
  if (!row) return null;
  const hardEnd = row.createdAt.getTime() + STAFF_SESSION_MAX_MS;
  if (row.expiresAt.getTime() <= now.getTime() || hardEnd <= now.getTime()) {
    await db.delete(staffSessions).where(eq(staffSessions.id, h));
    return null;
  }
  if (!row.passwordOnly) {
    const wanted = Math.min(hardEnd, now.getTime() + STAFF_SESSION_IDLE_MS);
    if (wanted - row.expiresAt.getTime() > 60_000) {
      await db.update(staffSessions).set({ expiresAt: new Date(wanted) }).where(eq(staffSessions.id, h));
    }
  }
  return { sessionHash: h, staffId: row.staffId, passwordOnly: row.passwordOnly, factorAt: row.factorAt, createdAt: row.createdAt };
}

/**
 * Ends this request's session; returns the Set-Cookie header that clears the cookie. A session that
 * existed is ended with its audit row (`staff.sign_out`, decision 282) in the same transaction; a
 * cookie of no session (already ended, expired) signs nobody out and records nothing.
 */
export async function destroyStaffSession(db: Database, request: Request, input: { ip: string | null; now: Date }): Promise<string> {
  const id = await readStaffSessionId(request);
  if (id) {
    await db.transaction(async (tx) => {
      const [ended] = await tx.delete(staffSessions).where(eq(staffSessions.id, staffSessionHash(id))).returning({ staffId: staffSessions.staffId, passwordOnly: staffSessions.passwordOnly });
      if (!ended) return;
      const member = await tx.query.staffMembers.findFirst({ columns: { accountId: true, email: true }, where: eq(staffMembers.id, ended.staffId) });
      if (!member) return;
      await recordAudit(tx, {
        accountId: member.accountId,
        staffId: ended.staffId,
        actor: member.email,
        ip: input.ip,
        action: "staff.sign_out",
        entity: "staff_member",
        entityId: ended.staffId,
        detail: ended.passwordOnly ? { beforeSecondFactor: true } : null,
        at: input.now,
      });
    });
  }
  return staffSessionCookie().serialize("", { maxAge: 0, expires: new Date(0) });
}

/** Deletes expired staff sessions (the daily job may call it). */
export async function pruneStaffSessions(db: Database, now: Date): Promise<void> {
  await db
    .delete(staffSessions)
    .where(or(lt(staffSessions.expiresAt, now), lt(staffSessions.createdAt, new Date(now.getTime() - STAFF_SESSION_MAX_MS))));
}

/** The signed-in member of a full (second factor given) session, with role and locations; null otherwise. */
export async function loadSignedInStaff(db: Database, request: Request, input: { accountId: number; now: Date; ip: string | null }): Promise<SignedInStaff | null> {
  return signedInStaffOf(db, await getStaffSession(db, request, input.now), input);
}

/** The signed-in member of the full session with this hash (the public site's preview, decision 450); null otherwise. */
export async function loadSignedInStaffBySessionHash(db: Database, sessionHash: string, input: { accountId: number; now: Date; ip: string | null }): Promise<SignedInStaff | null> {
  return signedInStaffOf(db, await getStaffSessionByHash(db, sessionHash, input.now), input);
}

async function signedInStaffOf(db: Database, session: StaffSessionRow | null, input: { accountId: number; ip: string | null }): Promise<SignedInStaff | null> {
  if (!session || session.passwordOnly || !session.factorAt) return null;
  const member = await db.query.staffMembers.findFirst({
    where: and(eq(staffMembers.id, session.staffId), eq(staffMembers.accountId, input.accountId)),
  });
  if (!member || member.disabledAt || !member.passwordHash) {
    await db.delete(staffSessions).where(eq(staffSessions.id, session.sessionHash));
    return null;
  }
  const locs = await db.select({ id: staffLocations.locationId }).from(staffLocations).where(eq(staffLocations.staffId, member.id));
  return {
    staffId: member.id,
    accountId: member.accountId,
    email: member.email,
    name: member.name || member.email,
    role: member.role,
    scope: scopeFor(member.role, locs.map((l) => l.id)),
    factorAt: session.factorAt,
    sessionHash: session.sessionHash,
    ip: input.ip,
  };
}

/** Where to go after signing in: a safe local path under /admin (not the sign-in pages), else /admin. */
export function safeAdminPath(value: unknown): string {
  if (typeof value !== "string" || !isSafeLocalPath(value)) return "/admin";
  const path = value.split(/[?#]/, 1)[0]!;
  if (path !== "/admin" && !path.startsWith("/admin/")) return "/admin";
  if (path.startsWith("/admin/sign-in") || path.startsWith("/admin/sign-out") || path.startsWith("/admin/invite") || path.startsWith("/admin/forgot-password") || path.startsWith("/admin/reset-password")) return "/admin";
  return value;
}

/** The sign-in page's URL that comes back to this request's page (a GET's own path; else the home). */
function signInUrlFor(request: Request): string {
  const url = new URL(request.url);
  const back = request.method === "GET" ? safeAdminPath(`${url.pathname}${url.search}`) : "/admin";
  return back === "/admin" ? "/admin/sign-in" : `/admin/sign-in?next=${encodeURIComponent(back)}`;
}

type Context = Readonly<RouterContextProvider>;

/**
 * The console layout's middleware (routes/admin.layout.tsx): before any loader or action under it
 * runs, the staff session; not signed in (or only half: password without a second factor) → the
 * sign-in page, coming back here afterwards.
 */
export async function staffSessionMiddleware({ request, context }: { request: Request; context: Context }): Promise<void> {
  const { account } = await requireSite(context);
  const staff = await loadSignedInStaff(context.db, request, { accountId: account.id, now: clockNow(), ip: context.clientIp || null });
  if (!staff) throw redirect(signInUrlFor(request), { status: 303, headers: { "Cache-Control": "no-store" } });
  context.set(signedInStaffContext, staff);
}

/** Ends every session of a member (disabling, "end sessions", a role change). */
export async function endStaffSessions(db: Database | Transaction, staffId: number): Promise<number> {
  const ended = await db.delete(staffSessions).where(eq(staffSessions.staffId, staffId)).returning({ id: staffSessions.id });
  return ended.length;
}
