import crypto from "node:crypto";
import { data } from "react-router";
import { signedCookie } from "~/platform/signed-cookie.server";
import { env } from "~/platform/env.server";
import { CSRF_FIELD_NAME } from "~/domain/web/form-fields";
import { cookieName, hostCookieOptions } from "./cookie-names.server";
import { readSessionId } from "./session.server";
import { readStaffSessionId } from "../staff/session.server";

export const CSRF_FIELD = CSRF_FIELD_NAME;

/**
 * CSRF tokens (docs/decisions/077-csrf-bound-and-masked.md).
 *
 * - Signed-in tenant: the token is derived from the session (HMAC of the session id under
 *   SESSION_SECRET), so it is bound to that session: a token of another session is refused, and
 *   signing in (a new session id) rotates it — the pre-sign-in token no longer works.
 * - The back office (a path under /admin) with a staff session cookie: the token is derived from the
 *   staff session the same way (its own label), so a token of one staff session is refused in
 *   another, and in none (docs/decisions/283-console-csrf-bound-to-staff-session.md). Under /admin
 *   the tenant's session plays no part; elsewhere the staff session plays none.
 * - Anonymous visitor: double submit — a random token in a signed `__Host-` HttpOnly cookie and the
 *   same token in the form. Signing in clears that cookie (clearCsrfCookieHeader).
 * - Masked per response (BREACH): the hidden field holds base64url(mask ‖ token XOR mask) with a
 *   fresh random mask each time; validation unmasks it before comparing.
 */
const TOKEN_BYTES = 32;

export function csrfCookie(secure = env().secureCookies) {
  return signedCookie(cookieName("csrf", secure), { ...hostCookieOptions(secure), secrets: env().sessionSecrets });
}

function sessionToken(sessionId: string, secret: string, label = "csrf"): Buffer {
  return crypto.createHmac("sha256", secret).update(`${label}:${sessionId}`).digest();
}

const isConsole = (request: Request) => {
  const path = new URL(request.url).pathname;
  return path === "/admin" || path.startsWith("/admin/") || path.startsWith("/admin.");
};

/** The session a request's token is bound to: the staff session's under /admin, else the tenant's; null: anonymous. */
async function boundSession(request: Request): Promise<{ id: string; label: string } | null> {
  if (isConsole(request)) {
    const staffId = await readStaffSessionId(request);
    return staffId ? { id: staffId, label: "csrf-staff" } : null;
  }
  const sessionId = await readSessionId(request);
  return sessionId ? { id: sessionId, label: "csrf" } : null;
}

/** The mask step: a fresh random mask, then mask ‖ (token XOR mask), base64url. */
function maskToken(token: Buffer): string {
  const mask = crypto.randomBytes(token.length);
  const xored = Buffer.alloc(token.length);
  for (let i = 0; i < token.length; i++) xored[i] = token[i]! ^ mask[i]!;
  return Buffer.concat([mask, xored]).toString("base64url");
}

/** The token inside a masked field value, or null when it is not one. */
function unmaskToken(value: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]+$/.test(value)) return null;
  const raw = Buffer.from(value, "base64url");
  if (raw.length !== TOKEN_BYTES * 2) return null;
  const out = Buffer.alloc(TOKEN_BYTES);
  for (let i = 0; i < TOKEN_BYTES; i++) out[i] = raw[i]! ^ raw[i + TOKEN_BYTES]!;
  return out;
}

async function anonymousToken(request: Request): Promise<Buffer | null> {
  return anonymousTokenOfCookie(request.headers.get("Cookie"));
}

async function anonymousTokenOfCookie(cookieHeader: string | null): Promise<Buffer | null> {
  const v = await csrfCookie().parse(cookieHeader);
  if (typeof v !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(v)) return null;
  const b = Buffer.from(v, "base64url");
  return b.length === TOKEN_BYTES ? b : null;
}

/**
 * The CSRF token for a form page, masked afresh for this response, and (for an anonymous visitor
 * without one yet) the Set-Cookie header of the double-submit cookie.
 */
export async function getCsrfToken(request: Request): Promise<{ token: string; setCookie: string | null }> {
  const bound = await boundSession(request);
  if (bound) return { token: maskToken(sessionToken(bound.id, env().sessionSecrets[0]!, bound.label)), setCookie: null };
  const existing = await anonymousToken(request);
  if (existing) return { token: maskToken(existing), setCookie: null };
  const token = crypto.randomBytes(TOKEN_BYTES);
  return { token: maskToken(token), setCookie: await csrfCookie().serialize(token.toString("base64url")) };
}

/** Clears the anonymous double-submit cookie (at sign-in, so the pre-sign-in token dies with it). */
export function clearCsrfCookieHeader(): Promise<string> {
  return csrfCookie().serialize("", { maxAge: 0, expires: new Date(0) });
}

const same = (a: Buffer, b: Buffer) => a.length === b.length && crypto.timingSafeEqual(a, b);

/**
 * Refuses the form with 403 unless its (masked) token is this request's: derived from the session
 * cookie when there is one (every SESSION_SECRET verifies, for rotation), else the double-submit
 * cookie's.
 */
export async function validateCsrf(request: Request, formData: FormData): Promise<void> {
  const field = formData.get(CSRF_FIELD);
  const given = typeof field === "string" ? unmaskToken(field) : null;
  let ok = false;
  if (given) {
    const bound = await boundSession(request);
    if (bound) {
      ok = env().sessionSecrets.some((s) => same(sessionToken(bound.id, s, bound.label), given));
    } else {
      const expected = await anonymousToken(request);
      ok = expected !== null && same(expected, given);
    }
  }
  if (!ok) {
    throw data({ message: "This form has expired. Please reload the page and try again." }, { status: 403 });
  }
}

/**
 * For a visitor with no session (the server's kept "sold out" answer, decision 426): true when the
 * form's masked token is the one in the double-submit cookie of this Cookie header — the check
 * `validateCsrf` makes for an anonymous visitor — with the token masked afresh for the page sent back.
 */
export async function anonymousCsrfOfForm(cookieHeader: string | undefined, field: string | null): Promise<{ token: string } | null> {
  const given = field ? unmaskToken(field) : null;
  if (!given) return null;
  const expected = await anonymousTokenOfCookie(cookieHeader ?? null);
  return expected !== null && same(expected, given) ? { token: maskToken(expected) } : null;
}
