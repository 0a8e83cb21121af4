import { eq } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { locations, oldDomains, redirects, websites } from "~/db/schema";
import { bareHostname, findRedirectLoop, normalizePath, validateRedirectRule } from "~/domain/site/redirects";

/** A redirect row that cannot be saved; `message` is plain words for the operator. */
export class RedirectRuleError extends Error {
  override name = "RedirectRuleError";
}

/** The row would make a redirect loop (including one that points at itself). */
export class RedirectLoopError extends RedirectRuleError {
  override name = "RedirectLoopError";
}

const PERMANENT_OR_TEMPORARY = new Set([301, 302, 307, 308]);

/**
 * Saves a redirect for a website (a new row, or a new target for an existing source path). The
 * source path is stored normalised (lowercase, no trailing slash); a malformed row is refused with
 * RedirectRuleError and a row that would make a loop with the existing ones with RedirectLoopError,
 * so nothing is written in either case.
 */
export async function saveRedirect(
  db: Database | Transaction,
  input: { websiteId: number; fromPath: string; toPath: string; statusCode?: number },
) {
  const invalid = validateRedirectRule(input);
  if (invalid) throw new RedirectRuleError(invalid);
  const statusCode = input.statusCode ?? 301;
  if (!PERMANENT_OR_TEMPORARY.has(statusCode)) throw new RedirectRuleError("A redirect answers 301, 302, 307 or 308.");
  const fromPath = normalizePath(input.fromPath);
  const toPath = input.toPath.trim();
  const [website] = await db
    .select({ domain: websites.domain })
    .from(websites)
    .where(eq(websites.id, input.websiteId))
    .limit(1);
  if (!website) throw new RedirectRuleError(`There is no website ${input.websiteId}.`);
  const existing = await db
    .select({ fromPath: redirects.fromPath, toPath: redirects.toPath })
    .from(redirects)
    .where(eq(redirects.websiteId, input.websiteId));
  const loop = findRedirectLoop(existing, { fromPath, toPath }, { primaryHost: website.domain });
  if (loop) throw new RedirectLoopError(loop);
  const [row] = await db
    .insert(redirects)
    .values({ websiteId: input.websiteId, fromPath, toPath, statusCode })
    .onConflictDoUpdate({
      target: [redirects.websiteId, redirects.fromPath],
      set: { toPath, statusCode },
    })
    .returning();
  return row!;
}

/**
 * Saves an old domain that now redirects to a location page. The hostname is stored bare (lowercase,
 * no "www.", no port): requests for it with or without "www." and over either protocol all match.
 * Saving the same hostname again points it at the new location.
 */
export async function saveOldDomain(
  db: Database | Transaction,
  input: { websiteId: number; hostname: string; locationId: number },
) {
  const hostname = bareHostname(input.hostname.replace(/^[a-z]+:\/\//i, "").split("/")[0]);
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(hostname)) {
    throw new RedirectRuleError(`"${input.hostname}" is not a domain name like oldstorage.com.`);
  }
  const [website] = await db
    .select({ domain: websites.domain, accountId: websites.accountId })
    .from(websites)
    .where(eq(websites.id, input.websiteId))
    .limit(1);
  if (!website) throw new RedirectRuleError(`There is no website ${input.websiteId}.`);
  if (hostname === bareHostname(website.domain)) {
    throw new RedirectRuleError("The website's own domain cannot redirect to one of its pages.");
  }
  const [location] = await db
    .select({ accountId: locations.accountId })
    .from(locations)
    .where(eq(locations.id, input.locationId))
    .limit(1);
  if (!location || location.accountId !== website.accountId) {
    throw new RedirectRuleError("Choose one of the website's locations.");
  }
  const [row] = await db
    .insert(oldDomains)
    .values({ websiteId: input.websiteId, hostname, locationId: input.locationId })
    .onConflictDoUpdate({ target: oldDomains.hostname, set: { locationId: input.locationId, websiteId: input.websiteId } })
    .returning();
  return row!;
}
