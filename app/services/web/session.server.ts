import crypto from "node:crypto";
import { and, eq, lt, ne } from "drizzle-orm";
import { redirect } from "react-router";
import { signedCookie } from "~/platform/signed-cookie.server";
import type { Database } from "~/db/client.server";
import { tenantSessions } from "~/db/schema";
import { env } from "~/platform/env.server";
import { cookieName, hostCookieOptions } from "./cookie-names.server";

/**
 * Tenant sessions (docs/decisions/051-portal-sessions.md). The cookie holds a random id, signed with
 * the SESSION_SECRET list (the first signs, all verify) — HttpOnly, SameSite=Lax, Secure and named
 * `__Host-gh_portal` under HTTPS (docs/decisions/076), no Max-Age (it ends with the browser). The server keeps only the id's SHA-256 in
 * tenant_sessions with an idle expiry that slides while the tenant is active; signing out or a
 * password change deletes the rows, so a copied cookie stops working at once.
 */
const SESSION_IDLE_MS = 60 * 60 * 1000; // one hour without a request ends the session
const SESSION_MAX_MS = 12 * 60 * 60 * 1000; // and twelve hours after sign-in in any case

export function sessionCookie() {
  const e = env();
  return signedCookie(cookieName("gh_portal", e.secureCookies), {
    ...hostCookieOptions(e.secureCookies),
    secrets: e.sessionSecrets,
  });
}

/** The raw session id from the signed cookie (not checked against the database), or null. */
export async function readSessionId(request: Request): Promise<string | null> {
  const id = await sessionCookie().parse(request.headers.get("Cookie"));
  return typeof id === "string" && id.length >= 32 ? id : null;
}

const hash = (id: string) => crypto.createHash("sha256").update(id).digest("hex");

export interface PortalSession {
  tenantId: string;
  sessionHash: string;
}

/** Starts a session for the tenant; returns the Set-Cookie header. */
export async function createTenantSession(
  db: Database,
  input: { tenantId: string; now: Date; userAgent?: string | null; ip?: string | null },
): Promise<string> {
  const id = crypto.randomBytes(32).toString("base64url");
  await db.insert(tenantSessions).values({
    id: hash(id),
    tenantId: Number(input.tenantId),
    expiresAt: new Date(input.now.getTime() + SESSION_IDLE_MS),
    userAgent: input.userAgent?.slice(0, 300) ?? null,
    ip: input.ip ?? null,
    createdAt: input.now,
  });
  return sessionCookie().serialize(id);
}

/** The signed-in tenant, or null. Expired rows are deleted; an active session's expiry slides. */
export async function getTenantSession(db: Database, request: Request, now: Date): Promise<PortalSession | null> {
  const id = await sessionCookie().parse(request.headers.get("Cookie"));
  if (typeof id !== "string" || id.length < 32) return null;
  const h = hash(id);
  const row = await db.query.tenantSessions.findFirst({ where: eq(tenantSessions.id, h) });
  if (!row) return null;
  const hardEnd = row.createdAt.getTime() + SESSION_MAX_MS;
  if (row.expiresAt.getTime() <= now.getTime() || hardEnd <= now.getTime()) {
    await db.delete(tenantSessions).where(eq(tenantSessions.id, h));
    return null;
  }
  // Slide the idle expiry, at most once a minute per session.
  const wanted = Math.min(hardEnd, now.getTime() + SESSION_IDLE_MS);
  if (wanted - row.expiresAt.getTime() > 60_000) {
    await db.update(tenantSessions).set({ expiresAt: new Date(wanted), updatedAt: now }).where(eq(tenantSessions.id, h));
  }
  return { tenantId: String(row.tenantId), sessionHash: h };
}

/** The tenant of this request, or a redirect to sign in (coming back here afterwards). */
export async function requireTenantSession(db: Database, request: Request, now: Date): Promise<PortalSession> {
  const session = await getTenantSession(db, request, now);
  if (session) return session;
  const url = new URL(request.url);
  const back = request.method === "GET" ? `${url.pathname}${url.search}` : "/customer-portal";
  throw redirect(`/customer-portal/login?redirectTo=${encodeURIComponent(back)}`, 303);
}

/** Ends this request's session; returns the Set-Cookie header that clears the cookie. */
export async function destroyTenantSession(db: Database, request: Request): Promise<string> {
  const cookie = sessionCookie();
  const id = await cookie.parse(request.headers.get("Cookie"));
  if (typeof id === "string") await db.delete(tenantSessions).where(eq(tenantSessions.id, hash(id)));
  return cookie.serialize("", { maxAge: 0, expires: new Date(0) });
}

/** Ends every session of the tenant except, optionally, the current one (after a password change or reset). */
export async function destroyTenantSessions(db: Database, tenantId: string, exceptHash?: string): Promise<void> {
  const t = Number(tenantId);
  await db
    .delete(tenantSessions)
    .where(exceptHash ? and(eq(tenantSessions.tenantId, t), ne(tenantSessions.id, exceptHash)) : eq(tenantSessions.tenantId, t));
}

/** Deletes expired sessions (called by the daily job). */
export async function pruneTenantSessions(db: Database, now: Date): Promise<void> {
  await db.delete(tenantSessions).where(lt(tenantSessions.expiresAt, now));
}

