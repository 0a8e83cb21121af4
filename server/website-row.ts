/**
 * The website row, read once per page request (`res.locals.website`): it decides the CSP (analytics),
 * the hosts and the redirects, and the loaders reuse it (context.website). Read from the site cache;
 * a value kept from before a database outage says so (`res.locals.staleData`: the page is not stored).
 */
import type { NextFunction, Request, Response } from "express";
import type { Database } from "~/db/client.server";
import { readWebsite } from "~/db/queries/cached-reads.server";
import type { SiteCache } from "~/db/site-cache.server";
import { isDatabaseUnavailable, outageReason } from "~/db/unavailable";
import { logger } from "~/platform/logger.server";
import type { SendUnavailable } from "./error-answers";

export function readWebsiteRow(deps: { db: Database; siteCache: SiteCache; sendUnavailable: SendUnavailable }) {
  const { db, siteCache, sendUnavailable } = deps;
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const read: { db: Database; siteCache: SiteCache; staleData?: boolean } = { db, siteCache };
      res.locals.website = await readWebsite(read);
      res.locals.staleData = read.staleData === true;
      next();
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        logger.warn({ method: req.method, reason: outageReason(error) }, "[db] unavailable: answered 503");
        return sendUnavailable(req, res);
      }
      next(error);
    }
  };
}
