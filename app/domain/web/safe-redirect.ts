/**
 * Where a visitor may be sent after signing in (docs/decisions/062-redirect-after-sign-in.md): a
 * path on our own origin, already in its normal form, under the portal. Anything that a browser or
 * a proxy could read differently is refused rather than repaired: control characters (a tab inside
 * "/\t/evil.example" is dropped by browsers, leaving "//evil.example"), backslashes, encoded slashes
 * or backslashes, "//", dot segments, and anything that does not resolve on our origin.
 */
const BASE = "https://gatehouse.invalid";
const MAX_LENGTH = 2048;

export function isSafeLocalPath(value: string): boolean {
  if (value.length === 0 || value.length > MAX_LENGTH) return false;
  if (!value.startsWith("/")) return false;
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u0020\u007F-\u009F\\]/.test(value)) return false;
  if (/%(2f|5c|00|09|0a|0d|2e)/i.test(value)) return false;
  if (value.includes("//")) return false;
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return false;
  }
  if (url.origin !== BASE) return false;
  // Already normal: no "." or ".." segments, nothing the parser changed.
  return `${url.pathname}${url.search}${url.hash}` === value;
}

/** The path after sign-in: a safe path under /customer-portal (not sign-in or sign-out), else the fallback. */
export function safeRedirectTo(value: unknown, fallback = "/customer-portal"): string {
  if (typeof value !== "string" || !isSafeLocalPath(value)) return fallback;
  const path = value.split(/[?#]/, 1)[0]!;
  if (path !== "/customer-portal" && !path.startsWith("/customer-portal/")) return fallback;
  if (path.startsWith("/customer-portal/login") || path.startsWith("/customer-portal/logout")) return fallback;
  return value;
}
