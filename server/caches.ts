/**
 * The caches of this process, made and dropped together, and the page cache's answers.
 *
 * The page cache (issue 10, docs/decisions/081-page-cache.md): anonymous GETs of public pages are
 * served from memory without a database read. The site cache (decision 120): the layout, settings,
 * redirect rules and other operator-edited rows every render reads. The kept forms (decision 330):
 * the rental form as a visitor without cookies first sees it, rendered once for many. All three are
 * dropped whole on every write of this process and on the database's change notification (other
 * processes, scripts, the seed), and when the listening connection is made (again): a change may have
 * been missed meanwhile.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { trackWrites, type Database, type DatabaseHandle } from "~/db/client.server";
import { readNextAvailabilityChange } from "~/db/queries/cached-reads.server";
import { SiteCache } from "~/db/site-cache.server";
import type { Env } from "~/platform/env.server";
import { sharedCachePurger } from "~/services/web/shared-cache.server";
import { FormPageCache } from "./form-page-cache";
import { refuseBadRequestTarget } from "./guards";
import { PageCache, pageCacheMiddleware, serveHit } from "./page-cache";

export function cachesOf(
  database: Pick<DatabaseHandle, "db" | "listen">,
  serverEnv: Pick<Env, "PAGE_CACHE" | "CACHE_PURGE" | "CACHE_PURGE_NGINX_URL" | "CLOUDFLARE_ZONE_ID" | "CLOUDFLARE_API_TOKEN" | "CLOUDFLARE_API_BASE" | "PUBLIC_URL">,
) {
  const db: Database = database.db;
  const pageCache = new PageCache();
  const siteCache = new SiteCache();
  const formPages = new FormPageCache();
  const pageCacheOn = serverEnv.PAGE_CACHE !== "off";
  // The shared cache in front (issue 41, decision 570): the change's queued tags, purged once by
  // whichever process claims them first.
  const sharedCache = sharedCachePurger({ db, siteCache }, serverEnv);
  const invalidateCaches = () => {
    pageCache.invalidate();
    siteCache.invalidate();
    formPages.invalidate();
  };
  const onChange = () => {
    invalidateCaches();
    sharedCache.changed();
  };
  const stopNotifications = database.listen("gatehouse_changed", onChange, onChange);
  // What was queued while no server ran (a script, the seed): purged now, by whichever process starts first.
  sharedCache.changed();
  const stopListening = async () => {
    sharedCache.stop();
    await stopNotifications();
  };

  return {
    pageCache,
    siteCache,
    formPages,
    pageCacheOn,
    sharedCache,
    /** Stops listening for the database's change notification. */
    stopListening,
    /**
     * This process's own writes, seen by its next request: a form request that sent a statement changing
     * a table a public page reads drops the caches when it finishes (issue 19, decision 191). A refused
     * request (405, 415, 400, a form with errors) wrote nothing and drops nothing; the notification
     * above still covers every write, this process's included. `alwaysDrops`: the browser tests' hooks
     * (test builds only) may change what a page shows outside the database (the clock, a simulator):
     * they always drop the caches, as every POST used to.
     */
    dropAfterWrites(alwaysDrops: (path: string) => boolean) {
      return (req: Request, res: Response, next: NextFunction) => {
        // A GET that writes (a rental page releasing expired reservations) is left to the notification,
        // which comes only for rows that really changed (migration 0006): its sweep statement is sent on
        // every view, mostly changing nothing.
        if (req.method === "GET" || req.method === "HEAD") return next();
        const tracker = { wrote: alwaysDrops(req.path) };
        res.on("finish", () => {
          if (tracker.wrote) invalidateCaches();
        });
        trackWrites.run(tracker, next);
      };
    },
    /** The page cache in the stack: a stored page for an anonymous GET, else a page to store once rendered. */
    storedPages: () =>
      pageCacheMiddleware(pageCache, {
        enabled: () => pageCacheOn,
        nextChange: () => readNextAvailabilityChange({ db, siteCache }),
      }),
    /**
     * server.js calls this first for every request, before Express, compression and the static files:
     * a stored page is answered straight from memory (true), anything else goes on through the stack.
     */
    servePageCacheHit: (req: IncomingMessage, res: ServerResponse): boolean => {
      if (refuseBadRequestTarget(req, res)) return true;
      return pageCacheOn && serveHit(pageCache, req, res);
    },
  };
}
