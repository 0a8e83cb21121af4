import { env } from "~/platform/env.server";

/**
 * The password reset token leaves the URL before the page renders (issue 36, decision 464): the
 * e-mailed link `/customer-portal/reset-password?token=…` is answered with a redirect to the bare
 * page that keeps the token in this cookie — HttpOnly, sent only to the reset page's path, for
 * `RESET_COOKIE_SECONDS` — so no URL the page shows, sends as a Referer or reports to anyone carries it.
 * Under HTTPS its name has the `__Secure-` prefix (a `__Host-` cookie must have Path=/).
 */
export const RESET_PAGE_PATH = "/customer-portal/reset-password";
const RESET_COOKIE_SECONDS = 20 * 60;
const BASE_NAME = "gh_reset";

function cookieNameFor(secure: boolean): string {
  return secure ? `__Secure-${BASE_NAME}` : BASE_NAME;
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,200}$/;

/** The Set-Cookie header that keeps `token` for the reset page. */
export function resetTokenCookie(token: string, secure = env().secureCookies): string {
  return [`${cookieNameFor(secure)}=${token}`, `Path=${RESET_PAGE_PATH}`, `Max-Age=${RESET_COOKIE_SECONDS}`, "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : [])].join("; ");
}

/** The Set-Cookie header that forgets it (after the password was changed). */
export function clearResetTokenCookie(secure = env().secureCookies): string {
  return [`${cookieNameFor(secure)}=`, `Path=${RESET_PAGE_PATH}`, "Max-Age=0", "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : [])].join("; ");
}

/** The token kept in the request's cookie, or "" (none, or not the shape of a token). */
export function resetTokenFromCookie(request: Request, secure = env().secureCookies): string {
  const name = cookieNameFor(secure);
  for (const part of (request.headers.get("Cookie") ?? "").split(/;\s*/)) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq) === name) {
      const value = part.slice(eq + 1);
      return TOKEN_SHAPE.test(value) ? value : "";
    }
  }
  return "";
}

/** A token in a URL's query, when it has the shape of one ("" otherwise). */
export function resetTokenOfQuery(url: URL): string | null {
  if (!url.searchParams.has("token")) return null;
  const token = url.searchParams.get("token") ?? "";
  return TOKEN_SHAPE.test(token) ? token : "";
}
