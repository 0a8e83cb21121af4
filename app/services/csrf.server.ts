import crypto from "node:crypto";
import { createCookie, data } from "react-router";
import { env } from "~/env.server";

import { CSRF_FIELD_NAME } from "~/domain/form-fields";

export const CSRF_FIELD = CSRF_FIELD_NAME;

function csrfCookie() {
  const e = env();
  return createCookie("csrf", {
    httpOnly: true,
    sameSite: "lax",
    secure: e.secureCookies,
    path: "/",
    secrets: e.sessionSecrets,
  });
}

/**
 * The CSRF token for a form page (double-submit: the same random token in a signed HttpOnly cookie
 * and in a hidden field). Returns the token and, when a new one was made, the Set-Cookie header.
 */
export async function getCsrfToken(request: Request): Promise<{ token: string; setCookie: string | null }> {
  const cookie = csrfCookie();
  const existing = await cookie.parse(request.headers.get("Cookie"));
  if (typeof existing === "string" && existing.length >= 32) return { token: existing, setCookie: null };
  const token = crypto.randomBytes(32).toString("base64url");
  return { token, setCookie: await cookie.serialize(token) };
}

/** Refuses the form with 403 unless its token matches the cookie's. */
export async function validateCsrf(request: Request, formData: FormData): Promise<void> {
  const cookieToken = await csrfCookie().parse(request.headers.get("Cookie"));
  const formToken = formData.get(CSRF_FIELD);
  const ok =
    typeof cookieToken === "string" &&
    typeof formToken === "string" &&
    cookieToken.length === formToken.length &&
    crypto.timingSafeEqual(Buffer.from(cookieToken), Buffer.from(formToken));
  if (!ok) {
    throw data(
      { message: "This form has expired. Please reload the page and try again." },
      { status: 403 },
    );
  }
}
