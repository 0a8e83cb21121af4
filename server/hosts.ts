/**
 * Which host a request names, and what each host may be asked (docs/decisions/060-configured-origin-and-hosts.md):
 * the console's own origin (issue 36, decision 450), the staging domain (never indexed, decision 093)
 * and the public site's hosts (old domains keep their 301s, any other host is sent to the canonical
 * origin or refused). Each reads the website row (`res.locals.website`).
 */
import type { NextFunction, Request, Response } from "express";
import type { Database } from "~/db/client.server";
import { readWebsite } from "~/db/queries/cached-reads.server";
import type { Website } from "~/db/queries/site.server";
import type { SiteCache } from "~/db/site-cache.server";
import { PREVIEW_CACHE_CONTROL, PREVIEW_ROBOTS } from "~/domain/content/preview";
import { isStagingHost, STAGING_ROBOTS_HEADER } from "~/domain/site/staging";
import { withDraftApplied } from "~/services/content/preview.server";
import { consoleOrigin, isConsoleHost, isSiteHost, publicOrigin, siteOriginFromConsole } from "~/services/site/origin.server";
import { resolveOldDomain } from "~/services/site/redirects.server";
import { consoleGate } from "./console-gate";
import { hostGuard } from "./guards";
import type { PreviewLocals } from "./preview-mode";

/**
 * The console on an origin of its own (issue 36, decision 450): the public hosts never see the staff
 * cookie and send /admin… to the console's origin; the console's host serves the console only and
 * refuses what its own pages did not ask for (fetch metadata).
 */
export function consoleOriginGate() {
  return consoleGate({
    consoleOrigin: (_req, res) => consoleOrigin(res.locals.website as Website | null),
    publicOrigin: (_req, res) => siteOriginFromConsole(res.locals.website as Website | null),
    isConsoleHost: (host, _req, res) => isConsoleHost(host, res.locals.website as Website | null),
    staffCookie: "gh_staff",
  });
}

/** The staging domain is never indexed: every response on it says so (decision 093). */
export function stagingNotIndexed(req: Request, res: Response, next: NextFunction) {
  const website = res.locals.website as Website | null;
  if (isStagingHost(req.headers.host, website?.stagingDomain)) res.set("X-Robots-Tag", STAGING_ROBOTS_HEADER);
  next();
}

/**
 * Only requests for this website (docs/decisions/060-configured-origin-and-hosts.md): old domains
 * keep their 301s, other hosts go to the same path on the canonical origin (or 400).
 */
export function siteHostGuard(deps: { db: Database; siteCache: SiteCache }) {
  const { db, siteCache } = deps;
  return hostGuard({
    isAllowed: (host, _req, res) => isSiteHost(host, res.locals.website as Website | null),
    canonicalOrigin: (_req, res) => {
      const website = res.locals.website as Website | null;
      return website ? publicOrigin(website) : null;
    },
    oldDomainRedirect: async (host, req, res) => {
      const search = req.originalUrl.includes("?") ? req.originalUrl.slice(req.originalUrl.indexOf("?")) : "";
      // In preview, the old domains as drafted (decision 351): read in a rolled-back transaction, no site cache.
      const draftId = (res.locals.previewOn as PreviewLocals | undefined)?.draftId;
      const found =
        draftId == null
          ? await resolveOldDomain(db, { host, search }, res.locals.website as Website | null, { siteCache })
          : await withDraftApplied(db, draftId, async (tx) => resolveOldDomain(tx, { host, search }, await readWebsite({ db: tx })));
      return found?.location ?? null;
    },
    oldDomainCacheControl: (res) => {
      if (!res.locals.previewOn) return "public, max-age=3600";
      res.set("X-Robots-Tag", PREVIEW_ROBOTS);
      return PREVIEW_CACHE_CONTROL;
    },
  });
}
