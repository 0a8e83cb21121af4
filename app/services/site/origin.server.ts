import type { RouterContextProvider } from "react-router";
import { env } from "~/platform/env.server";
import { requireSite } from "./context.server";
import { isAllowedHost, siteOrigin } from "~/domain/web/request-rules";
import { consoleOriginOf, isConsoleHostOf } from "~/domain/console/origin";

/**
 * The one place absolute URLs start from (docs/decisions/060-configured-origin-and-hosts.md): the
 * PUBLIC_URL setting when set, else https:// + the website's domain. Never the request's Host or
 * X-Forwarded-Host, which a visitor chooses.
 */
export function publicOrigin(website: { domain: string }): string {
  return siteOrigin({ publicUrl: env().PUBLIC_URL, domain: website.domain });
}

/**
 * The back office's origin (issue 36, docs/decisions/450-console-origin.md): CONSOLE_URL, else derived
 * from PUBLIC_URL or the website's domain (`consoleOriginOf`). Never the request's Host. Every console
 * link that leaves the console (invitations, passkeys' relying party, the staff command) starts here.
 */
export function consoleOrigin(website: { domain: string } | null = null): string {
  const e = env();
  return consoleOriginOf({ consoleUrl: e.CONSOLE_URL, publicUrl: e.PUBLIC_URL, domain: website?.domain ?? "", production: e.NODE_ENV === "production", plainHttp: e.HTTPS === "false", port: e.PORT });
}

/**
 * The console's origin as `npm run staff:invite` prints it when it opens the database itself, no
 * server having answered (issue 39, docs/decisions/506-staff-invite-command-origin.md): CONSOLE_URL,
 * else beside PUBLIC_URL, else the address a server started on this machine with these settings
 * serves by default (http://admin.localhost:PORT). Never the website's domain read from the
 * database: on a local copy that is the production site's, where the link leads nowhere useful.
 * `configured`: whether CONSOLE_URL or PUBLIC_URL said so (the command says when neither did).
 */
export function commandConsoleOrigin(): { origin: string; configured: boolean } {
  const e = env();
  const configured = Boolean(e.CONSOLE_URL || e.PUBLIC_URL);
  return { origin: consoleOriginOf({ consoleUrl: e.CONSOLE_URL, publicUrl: e.PUBLIC_URL, domain: "", production: false, port: e.PORT }), configured };
}

/**
 * The public site's origin as the console links to it (its redirects, preview): PUBLIC_URL, or in
 * production the website's configured origin; in development and tests without PUBLIC_URL, the
 * console's origin without its "admin." (http://admin.localhost:3000 → http://localhost:3000), where
 * the same server answers as the public site.
 */
export function siteOriginFromConsole(website: { domain: string } | null): string | null {
  const e = env();
  if (e.PUBLIC_URL || e.NODE_ENV === "production") return website || e.PUBLIC_URL ? siteOrigin({ publicUrl: e.PUBLIC_URL, domain: website?.domain ?? "" }) : null;
  const url = new URL(consoleOrigin(website));
  url.hostname = url.hostname.replace(/^admin\./, "");
  return url.origin;
}

/** Whether a Host value names the console's origin (its host name). */
export function isConsoleHost(host: string | null | undefined, website: { domain: string } | null = null): boolean {
  return isConsoleHostOf(host, consoleOrigin(website));
}

/** Whether a Host value names this website (its domain, staging domain, PUBLIC_URL, ALLOWED_HOSTS; localhost outside production). */
export function isSiteHost(host: string, website: { domain: string; stagingDomain: string | null } | null): boolean {
  const e = env();
  if (isConsoleHost(host, website)) return true;
  return isAllowedHost(host, {
    domain: website?.domain ?? "",
    stagingDomain: website?.stagingDomain,
    publicUrl: e.PUBLIC_URL,
    allowedHosts: e.allowedHosts,
    production: e.NODE_ENV === "production",
  });
}

/** The console's configured origin for this request's website (reads the website once per request). */
export async function consoleOriginFor(context: Readonly<RouterContextProvider>): Promise<string> {
  const { website } = await requireSite(context);
  return consoleOrigin(website);
}

/** The configured origin of this request's website (reads the website once per request). */
export async function siteOriginFor(context: Readonly<RouterContextProvider>): Promise<string> {
  const { website } = await requireSite(context);
  return publicOrigin(website);
}
