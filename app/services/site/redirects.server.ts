import { asc, eq } from "drizzle-orm";
import { cachedRead, type CacheContext } from "~/db/site-cache.server";
import { redirect } from "react-router";
import type { Database } from "~/db/client.server";
import { locations, oldDomains, redirects } from "~/db/schema";
import { bareHostname, isSafeRedirectTarget, matchRedirect, redirectTarget } from "~/domain/site/redirects";
import { getWebsite, type Website } from "~/db/queries/site.server";
import { publicOrigin } from "./origin.server";

export interface RedirectDecision {
  status: number;
  location: string;
  /** False for a rule that applies only where no page answers (redirects.is_forced false): the caller renders first, and redirects a 404. */
  forced: boolean;
}

/**
 * An old domain (with or without www, either protocol) answers 301 to its location page on the
 * website's configured origin (siteOrigin: PUBLIC_URL, else https:// + domain).
 */
export async function resolveOldDomain(
  db: Database,
  request: { host: string | undefined; search: string },
  website: Website | null,
  /** The server's site cache (absent: read from the database). */
  cache: CacheContext = {},
): Promise<RedirectDecision | null> {
  const host = bareHostname(request.host);
  if (!host || !website || host === bareHostname(website.domain)) return null;
  // Every old domain at once (a handful of rows), so a cached list answers any Host without a query.
  const all = await cachedRead(cache, "oldDomains", () =>
    db
      .select({ hostname: oldDomains.hostname, slug: locations.urlSlug })
      .from(oldDomains)
      .innerJoin(locations, eq(locations.id, oldDomains.locationId))
      .orderBy(asc(oldDomains.id)),
  );
  const old = all.find((o) => o.hostname === host);
  if (!old) return null;
  return { status: 301, location: redirectTarget(`${publicOrigin(website)}/locations/${old.slug}`, request.search), forced: true };
}

/**
 * Decides whether a request is redirected: an old domain (with or without www, either protocol)
 * goes to its location page on the primary domain; a redirected path goes to its target with the
 * query string kept. A rule that is not forced (`forced: false`) applies only where no page answers:
 * the caller renders the page and redirects only a 404.
 */
export async function resolveRedirect(
  db: Database,
  request: { host: string | undefined; pathname: string; search: string },
  /** The website row when the caller has already read it (undefined: read it here). */
  knownWebsite?: Website | null,
  /** The server's site cache (absent: read from the database). */
  cache: CacheContext = {},
): Promise<RedirectDecision | null> {
  let website = knownWebsite;
  const loadWebsite = async () => (website === undefined ? (website = await getWebsite(db)) : website);
  const old = await resolveOldDomain(db, request, await loadWebsite(), cache);
  if (old) return old;
  if (request.pathname === "/") return null;
  const site = await loadWebsite();
  if (!site) return null;
  const rules = await cachedRead(cache, `redirects:${site.id}`, () =>
    db
      .select({ fromPath: redirects.fromPath, toPath: redirects.toPath, statusCode: redirects.statusCode, isForced: redirects.isForced })
      .from(redirects)
      .where(eq(redirects.websiteId, site.id))
      .orderBy(asc(redirects.id)),
  );
  const rule = matchRedirect(rules, request.pathname);
  // A target saved before the stricter check (issue 36), or written around the console: never followed
  // where a browser would read it as another host.
  if (!rule || !isSafeRedirectTarget(rule.toPath)) return null;
  return { status: rule.statusCode, location: redirectTarget(rule.toPath, request.search), forced: rule.isForced !== false };
}

/**
 * Location and unit type addresses are lowercase (docs/decisions/003-location-slugs.md). A request
 * for the same page with capitals (/locations/Lumberton-NC-28358) answers 301 to the lowercase
 * address, query kept, so search engines and shared links see one URL per page.
 */
export function redirectToLowercasePath(request: Request): void {
  const url = new URL(request.url);
  const lower = url.pathname.toLowerCase();
  if (lower !== url.pathname && (request.method === "GET" || request.method === "HEAD")) {
    throw redirect(`${lower}${url.search}`, { status: 301, headers: { "Cache-Control": "public, max-age=3600" } });
  }
}
