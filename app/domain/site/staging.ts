/**
 * The website's staging_domain (spec §3): a copy of the site that search engines must not index
 * (docs/decisions/093). Pure.
 */

/** "Staging.Example.com:3000." → "staging.example.com" */
function normaliseHost(host: string | null | undefined): string {
  return (host ?? "").trim().toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
}

/** True when the request's host is the website's staging domain (with or without "www."). */
export function isStagingHost(host: string | null | undefined, stagingDomain: string | null | undefined): boolean {
  const staging = normaliseHost(stagingDomain).replace(/^www\./, "");
  if (!staging) return false;
  return normaliseHost(host).replace(/^www\./, "") === staging;
}

/** The header that keeps every response of the staging host (pages, files) out of search results. */
export const STAGING_ROBOTS_HEADER = "noindex, nofollow";

/** robots.txt on the staging host: nothing may be crawled. */
export const STAGING_ROBOTS_TXT = "User-agent: *\nDisallow: /\n";
