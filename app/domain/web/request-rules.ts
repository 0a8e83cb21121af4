/**
 * Rules about requests themselves, pure so they can be tested without a server
 * (docs/decisions/060-configured-origin-and-hosts.md, 063-request-guards.md).
 */
import { uploadBodyLimitFor } from "../content/media";

/** The website's public origin: PUBLIC_URL's origin when set, else https:// + the website's domain. */
export function siteOrigin(input: { publicUrl?: string | null; domain: string }): string {
  if (input.publicUrl) return new URL(input.publicUrl).origin;
  return `https://${input.domain.trim().toLowerCase().replace(/\.$/, "")}`;
}

/** "Example.COM:8080" → "example.com" ("[::1]:3000" → "[::1]"). Empty for a missing or malformed host. */
export function hostnameOf(host: string | null | undefined): string {
  if (!host) return "";
  const h = host.trim().toLowerCase();
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/.test(h)) return "";
  return h.replace(/:\d{1,5}$/, "").replace(/\.$/, "");
}

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

interface HostRules {
  domain: string;
  stagingDomain?: string | null;
  publicUrl?: string | null;
  /** ALLOWED_HOSTS: extra host names (no ports). */
  allowedHosts?: readonly string[];
  /** Outside production, localhost, 127.0.0.1 and [::1] on any port are allowed too. */
  production: boolean;
}

/** Whether a Host (or X-Forwarded-Host) value names this website. */
export function isAllowedHost(host: string | null | undefined, rules: HostRules): boolean {
  const name = hostnameOf(host);
  if (!name) return false;
  if (!rules.production && LOCAL_HOSTS.has(name)) return true;
  const allowed = [rules.domain, rules.stagingDomain ?? "", rules.publicUrl ? new URL(rules.publicUrl).host : "", ...(rules.allowedHosts ?? [])]
    .map(hostnameOf)
    .filter(Boolean);
  return allowed.includes(name);
}

/** "//faq///x" → "/faq/x" (null when the path has no doubled slash). */
export function collapseSlashes(pathname: string): string | null {
  if (!pathname.includes("//")) return null;
  return pathname.replace(/\/{2,}/g, "/");
}

/**
 * Stripe's webhook endpoint (decisions 382, 431): the one public path whose POST is JSON (what Stripe
 * sends), within the default body limit; a form there is refused.
 */
export const STRIPE_WEBHOOK_PATH = "/webhooks/stripe";

const DEFAULT_BODY_LIMIT = 16 * 1024;
/** Forms with a free-text message (5,000 characters, up to 9 bytes each once UTF-8 and percent-encoded). */
const MESSAGE_BODY_LIMIT = 64 * 1024;

/** The largest request body a path accepts, in bytes. */
export function bodyLimitFor(pathname: string): number {
  const path = pathname.replace(/\.data$/, "");
  if (path === "/contact" || /^\/locations\/[^/]+$/.test(path)) return MESSAGE_BODY_LIMIT;
  return uploadBodyLimitFor(path) ?? DEFAULT_BODY_LIMIT;
}

/** Methods the site answers; everything else is 405 with this list in Allow. */
export const ALLOWED_METHODS = ["GET", "HEAD", "POST"] as const;

/** Form encodings the actions read; any other POST body is 415. */
export function isFormContentType(contentType: string | null | undefined): boolean {
  const type = (contentType ?? "").split(";", 1)[0]!.trim().toLowerCase();
  return type === "application/x-www-form-urlencoded" || type === "multipart/form-data";
}
