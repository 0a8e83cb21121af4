/**
 * Redirects before any page renders: the website's permanent redirects (spec §2: old paths) and one
 * spelling per page (decision 190). A previewed page's are the draft's, decided in its transaction
 * (server/preview-mode.ts, decision 351).
 */
import type { NextFunction, Request, Response } from "express";
import type { Database } from "~/db/client.server";
import type { Website } from "~/db/queries/site.server";
import type { SiteCache } from "~/db/site-cache.server";
import { resolveRedirect } from "~/services/site/redirects.server";
import type { MatchedPage } from "./route-match";

/**
 * Permanent redirects (spec §2): old paths, before any page renders. A rule that is not forced leaves
 * `res.locals.unforcedRedirect`: the page at this path wins; only a 404 is redirected (after rendering).
 */
export function redirectRules(deps: { db: Database; siteCache: SiteCache }) {
  const { db, siteCache } = deps;
  return async (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== "GET" && req.method !== "HEAD") || res.locals.preview) return next();
    try {
      const url = new URL(req.originalUrl, "http://placeholder");
      const found = await resolveRedirect(
        db,
        { host: req.headers.host, pathname: url.pathname, search: url.search },
        res.locals.website as Website | null,
        { siteCache },
      );
      if (!found) return next();
      // Not forced: the page at this path wins; only a 404 is redirected (after rendering, below).
      if (!found.forced) {
        res.locals.unforcedRedirect = found;
        return next();
      }
      res.set("Cache-Control", "public, max-age=3600");
      return res.redirect(found.status, found.location);
    } catch (error) {
      next(error);
    }
  };
}

/**
 * One spelling per page (decision 190): a path React Router would render under another spelling
 * ("/RENT/12/", "/Customer-Portal/units/2/pay") is sent to the route table's own, query kept: 301 for
 * GET and HEAD, 308 (method and body kept) for a form.
 */
export function canonicalRedirect(req: Request, res: Response): { status: number; location: string } | null {
  const canonical = (res.locals.page as MatchedPage | undefined)?.canonicalPath;
  if (!canonical) return null;
  const q = req.originalUrl.indexOf("?");
  const read = req.method === "GET" || req.method === "HEAD";
  return { status: read ? 301 : 308, location: canonical + (q === -1 ? "" : req.originalUrl.slice(q)) };
}

/** The same, in the stack. A previewed page: after the draft's redirects, in sendPreview. */
export function oneSpelling(req: Request, res: Response, next: NextFunction) {
  const found = res.locals.preview ? null : canonicalRedirect(req, res);
  if (!found) return next();
  res.set("Cache-Control", found.status === 301 ? "public, max-age=3600" : "no-store");
  return res.redirect(found.status, found.location);
}
