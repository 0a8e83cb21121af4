/**
 * The back office's own origin (issue 36, docs/decisions/450-console-origin.md), pure so it can be
 * tested without a server. The console is never served from the public site's origin, where the
 * operator's code and the tag manager run: a script there must not be able to read a console page.
 */
import { hostnameOf } from "../web/request-rules";

interface ConsoleOriginRules {
  /** CONSOLE_URL: the console's address, when set. */
  consoleUrl?: string | null;
  /** PUBLIC_URL: the public site's address, when set. */
  publicUrl?: string | null;
  /** The website's domain (the public site's host when PUBLIC_URL is not set). */
  domain: string;
  production: boolean;
  /** HTTPS=false: production served over plain HTTP (the derived address is http:// then). */
  plainHttp?: boolean;
  /** The port the server listens on (the development default's port). */
  port?: number | null;
}

/**
 * The console's origin:
 * - CONSOLE_URL's origin when set;
 * - else beside PUBLIC_URL: the same scheme and port, the host with "admin." in front of it (a
 *   leading "www." dropped): http://localhost:3000 → http://admin.localhost:3000,
 *   https://www.example.com → https://admin.example.com; an IP address has no such name:
 *   http://127.0.0.1:3000 → http://admin.localhost:3000 (set CONSOLE_URL to reach it from elsewhere);
 * - else in production https://admin.<domain> (a leading "www." dropped);
 * - else (development, tests) http://admin.localhost:<port, 3000>: browsers resolve every
 *   *.localhost name to the loopback address (RFC 6761 §6.3), so it is the same server on its own host.
 */
export function consoleOriginOf(rules: ConsoleOriginRules): string {
  if (rules.consoleUrl) return new URL(rules.consoleUrl).origin;
  if (rules.publicUrl) {
    const url = new URL(rules.publicUrl);
    const publicHost = url.hostname;
    url.hostname = `admin.${publicHost.replace(/^www\./, "")}`;
    // An address (http://127.0.0.1:3000) has no "admin." name: the console is then on admin.localhost
    // at the same port (reachable from this machine only), never on the public site's own origin.
    if (url.hostname === publicHost) url.hostname = "admin.localhost";
    return url.origin;
  }
  const domain = rules.domain.trim().toLowerCase().replace(/\.$/, "").replace(/^www\./, "");
  if (rules.production && domain) return `${rules.plainHttp ? "http" : "https"}://admin.${domain}`;
  return `http://admin.localhost:${rules.port ?? 3000}`;
}

/**
 * Whether the console's cookie can be a `__Host-` cookie (Secure, Path=/, no Domain): on an https
 * origin, and on http://localhost and http://*.localhost, where Chromium and Firefox accept Secure
 * cookies (a potentially trustworthy origin); elsewhere over plain HTTP no browser keeps it.
 */
export function consoleCookieSecure(consoleOrigin: string): boolean {
  const url = new URL(consoleOrigin);
  return url.protocol === "https:" || url.hostname === "localhost" || url.hostname.endsWith(".localhost");
}

/** Whether a Host value names the console's origin (its host name; the port is the listener's business). */
export function isConsoleHostOf(host: string | null | undefined, consoleOrigin: string): boolean {
  const name = hostnameOf(host);
  return name !== "" && name === new URL(consoleOrigin).hostname;
}

/** Paths of the console: /admin and everything under it. */
export function isConsolePath(pathname: string): boolean {
  return pathname === "/admin" || pathname.startsWith("/admin/") || pathname === "/admin.data";
}

/**
 * Whether the browser's fetch metadata allow a request to the console (defence in depth, issue 36):
 * `Sec-Fetch-Site: same-origin` always; any other site (or `none`, a typed address or a bookmark) only
 * for a top-level navigation to a page (GET or HEAD, `Sec-Fetch-Mode: navigate`,
 * `Sec-Fetch-Dest: document`). Without fetch metadata (an old browser, a command-line client), an
 * `Origin` header naming another origin gets the same rule; no Origin at all is allowed.
 */
export function consoleRequestAllowed(input: {
  method: string;
  secFetchSite?: string | null;
  secFetchMode?: string | null;
  secFetchDest?: string | null;
  origin?: string | null;
  consoleOrigin: string;
}): boolean {
  const site = input.secFetchSite?.trim().toLowerCase();
  const topLevelPage = () =>
    (input.method === "GET" || input.method === "HEAD") && input.secFetchMode?.trim().toLowerCase() === "navigate" && input.secFetchDest?.trim().toLowerCase() === "document";
  if (site) return site === "same-origin" || topLevelPage();
  const origin = input.origin?.trim();
  if (!origin) return true;
  return origin.toLowerCase() === input.consoleOrigin.toLowerCase();
}
