/**
 * The caches of this process, made and dropped together, and the page cache's answers.
 *
 * The page cache (issue 10, docs/decisions/081-page-cache.md): anonymous GETs of public pages are
 * served from memory without a database read. The site cache (decision 120): the layout, settings,
 * redirect rules and other operator-edited rows every render reads. The kept forms (decision 330):
 * the rental form as a visitor without cookies first sees it, rendered once for many. All three are
 * dropped whole on every write of this process and on the database's change notification (other
 * processes, scripts, the seed), and when the listening connection is made (again): a change may have
 * been missed meanwhile. A request the cache in front may store checks first that this process has
 * heard of every committed change (the shared-cache guard, decision 710).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { trackWrites, type Database, type DatabaseHandle } from "~/db/client.server";
import { pageChangesOfNotice, readPageChanges } from "~/db/page-changes.server";
import { readNextAvailabilityChange } from "~/db/queries/cached-reads.server";
import { SiteCache } from "~/db/site-cache.server";
import { testSwitchesAllowed, type Env } from "~/platform/env.server";
import { sharedCachePurger } from "~/services/web/shared-cache.server";
import { FormPageCache } from "./form-page-cache";
import { refuseBadRequestTarget } from "./guards";
import { PageCache, pageCacheMiddleware, serveHit } from "./page-cache";
import { ChangeWatch, sharedCacheGuard, sharedCacheMarked } from "./shared-cache-guard";

export function cachesOf(
  database: Pick<DatabaseHandle, "db" | "listen">,
  serverEnv: Pick<
    Env,
    | "PAGE_CACHE"
    | "CACHE_PURGE"
    | "CACHE_PURGE_NGINX_URL"
    | "CLOUDFLARE_ZONE_ID"
    | "CLOUDFLARE_API_TOKEN"
    | "CLOUDFLARE_API_BASE"
    | "PUBLIC_URL"
    | "NODE_ENV"
    | "GATEHOUSE_TEST_RUNNER"
    | "CHANGE_NOTICE_DELAY_MS"
  >,
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
  // What the caches reflect of the change counter (decision 710): a notification that carries the
  // counter's value (every change to what a page shows) records it as it drops them.
  const watch = new ChangeWatch(invalidateCaches);
  const onNotify = (payload: string) => {
    const count = pageChangesOfNotice(payload);
    if (count === null) invalidateCaches();
    else watch.caughtUpTo(count);
    sharedCache.changed();
  };
  // (Re)connected: something may have been missed meanwhile, and nothing says what it came to.
  const onReconnect = () => {
    invalidateCaches();
    sharedCache.changed();
  };
  // The fault tests' late listener (CHANGE_NOTICE_DELAY_MS, test runs only): a process that hears of
  // every change late, as one queued behind other work might.
  const delay = testSwitchesAllowed(serverEnv) ? (serverEnv.CHANGE_NOTICE_DELAY_MS ?? 0) : 0;
  const late =
    <A extends unknown[]>(f: (...args: A) => void) =>
    (...args: A) =>
      delay > 0 ? void setTimeout(() => f(...args), delay).unref() : f(...args);
  const stopNotifications = database.listen("gatehouse_changed", late(onNotify), late(onReconnect));
  // What was queued while no server ran (a script, the seed): purged now, by whichever process starts first.
  sharedCache.changed();
  const isMarked = (headers: IncomingMessage["headers"]) => sharedCacheMarked(headers, serverEnv.CACHE_PURGE);
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
    /**
     * The shared-cache guard in the stack, before the page cache (decision 710): a request the cache in
     * front may store is answered only once this process has caught up with every committed change, and
     * an answer made while one committed is not stored there.
     */
    sharedCacheGuard: () => sharedCacheGuard({ readCount: () => readPageChanges(db), watch, marked: isMarked }),
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
      // A request the cache in front may store goes through the guard first (decision 710).
      return pageCacheOn && !isMarked(req.headers) && serveHit(pageCache, req, res);
    },
  };
}
