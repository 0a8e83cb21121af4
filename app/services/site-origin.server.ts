import type { RouterContextProvider } from "react-router";
import { env } from "~/env.server";
import { requireSite } from "./site-context.server";
import { isAllowedHost, siteOrigin } from "~/domain/request-rules";

/**
 * The one place absolute URLs start from (docs/decisions/060-configured-origin-and-hosts.md): the
 * PUBLIC_URL setting when set, else https:// + the website's domain. Never the request's Host or
 * X-Forwarded-Host, which a visitor chooses.
 */
export function publicOrigin(website: { domain: string }): string {
  return siteOrigin({ publicUrl: env().PUBLIC_URL, domain: website.domain });
}

/** Whether a Host value names this website (its domain, staging domain, PUBLIC_URL, ALLOWED_HOSTS; localhost outside production). */
export function isSiteHost(host: string, website: { domain: string; stagingDomain: string | null } | null): boolean {
  const e = env();
  return isAllowedHost(host, {
    domain: website?.domain ?? "",
    stagingDomain: website?.stagingDomain,
    publicUrl: e.PUBLIC_URL,
    allowedHosts: e.allowedHosts,
    production: e.NODE_ENV === "production",
  });
}

/** The configured origin of this request's website (reads the website once per request). */
export async function siteOriginFor(context: Readonly<RouterContextProvider>): Promise<string> {
  const { website } = await requireSite(context);
  return publicOrigin(website);
}
