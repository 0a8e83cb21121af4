import { env } from "~/platform/env.server";

/**
 * The name of one of our own cookies (session, CSRF, rental). Under HTTPS it carries the
 * `__Host-` prefix: the browser then only accepts it when it is Secure, has Path=/ and no Domain, so
 * a sibling subdomain or a plain-HTTP page cannot plant or overwrite it (cookie tossing). Over plain
 * HTTP (development, tests, HTTPS=false) browsers refuse `__Host-` cookies, so the plain name is used.
 * Every cookie created with this name must set `secure: secureCookies`, `path: "/"` and no `domain`.
 */
export function cookieName(base: string, secure = env().secureCookies): string {
  return secure ? `__Host-${base}` : base;
}

/** The attributes a `__Host-` cookie needs (and our plain-HTTP cookies share, minus Secure). */
export function hostCookieOptions(secure = env().secureCookies) {
  return { httpOnly: true, sameSite: "lax" as const, secure, path: "/" };
}
