/**
 * What a shared cache in front (nginx's proxy_cache, a CDN) is told about each answer (issue 41,
 * decisions 570 and 572), set just before the headers go out, whoever wrote the answer:
 *
 * - Personal answers are never stored by it: an answer that sets a cookie, or answers a request that
 *   carries a visitor's own cookie (a portal or staff session, a rental in progress, a flash, a preview),
 *   says `Cache-Control: private, no-store`, whatever the page asked for, and carries no cache tags.
 *   (Forms set their CSRF cookie, so a page with a form token is one of these; the console and the
 *   portal say `private, no-store` already.)
 * - An answer a shared cache may store (`public` or an `s-maxage`, no `private`/`no-store`) carries
 *   `Cache-Tag`: what it shows (app/domain/web/cache-tags.ts), so a purge drops exactly the pages a
 *   change touches. The page cache stores the header with the page, so its hits carry it too.
 * - An answer made while a change was notified (the site cache's generation moved) says `no-store`: it
 *   may show what was there before the change, after the change's purge has run. (A change this process
 *   has not heard of yet is the shared-cache guard's, server/shared-cache-guard.ts, decision 710.)
 */
import type { NextFunction, Request, Response } from "express";
import type { Database } from "~/db/client.server";
import { readTaggedPages } from "~/db/queries/tagged-pages.server";
import type { SiteCache } from "~/db/site-cache.server";
import { cacheTagHeader, EVERY_PAGE_TAGS, tagsForPath } from "~/domain/web/cache-tags";
import { NO_STORE } from "~/domain/web/cache";
import { logger } from "~/platform/logger.server";
import { isAnonymous } from "./page-cache";

/** Whether an answer's Cache-Control lets a shared cache store it. */
export function sharedCacheMayStore(cacheControl: string): boolean {
  if (/\b(?:no-store|private|no-cache)\b/i.test(cacheControl)) return false;
  return /\b(?:public|s-maxage)\b/i.test(cacheControl);
}

export function sharedCacheHeaders(deps: { db: Database; siteCache: SiteCache }) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const personal = !isAnonymous(req.headers.cookie);
    // A change notified while this answer was made: what it shows may be from before the change, and the
    // change's purge may already have run. No shared cache keeps it (the page cache does not either).
    const generation = deps.siteCache.generation;
    let tags: readonly string[] = EVERY_PAGE_TAGS;
    if (!personal && (req.method === "GET" || req.method === "HEAD")) {
      try {
        tags = tagsForPath(await readTaggedPages(deps), req.path);
      } catch (error) {
        // Tags are a help to the cache in front, never a reason to fail a page.
        logger.warn({ err: error }, "[shared-cache] page tags not read");
      }
    }
    const writeHead = res.writeHead;
    res.writeHead = function (this: Response, ...args: unknown[]) {
      if (!res.headersSent) {
        // Headers given to writeHead itself (an object) are set first, so the rules below see them.
        const last = args.at(-1);
        if (args.length > 1 && last && typeof last === "object" && !Array.isArray(last)) {
          for (const [name, value] of Object.entries(last as Record<string, string | number | string[]>)) res.setHeader(name, value);
          args.pop();
        }
        if (personal || res.getHeader("Set-Cookie") !== undefined) {
          const cacheControl = String(res.getHeader("Cache-Control") ?? "");
          if (!/\bno-store\b/i.test(cacheControl) || !/\bprivate\b/i.test(cacheControl)) res.setHeader("Cache-Control", NO_STORE);
          res.removeHeader("Cache-Tag");
        } else if (sharedCacheMayStore(String(res.getHeader("Cache-Control") ?? ""))) {
          if (deps.siteCache.generation === generation) res.setHeader("Cache-Tag", cacheTagHeader(tags));
          else res.setHeader("Cache-Control", "no-store").removeHeader("Cache-Tag");
        } else {
          res.removeHeader("Cache-Tag");
        }
      }
      return (writeHead as (...a: unknown[]) => Response).apply(this, args);
    } as typeof res.writeHead;
    next();
  };
}
