/**
 * The shared-cache guard (issue 41, decision 710): a process never gives the shared cache in front (nginx's
 * proxy_cache, a CDN) an answer it may store while the process is behind on committed changes.
 *
 * The purge of a change runs once its first process has heard of it; a process that hears of it later
 * (its notification queued behind other work, or missed while its listening connection was lost)
 * would answer the cache's next miss from its old page cache, and the cache would keep that old page
 * for its whole lifetime (60–300 s). So:
 *
 * - `ChangeWatch` knows the value of the change counter (app/db/page-changes.server.ts) this process
 *   has caught up to: every drop of the caches on a notification that carries the value records it
 *   (the value was committed before the notification came, and every load after the drop sees it).
 * - A request the shared cache may store is marked by it (`sharedCacheMarked`: nginx sets
 *   `X-Shared-Cache` on the requests it may store; Cloudflare's `CDN-Loop`). For one, the process reads
 *   the counter first (one primary-key read); if it is ahead of what the process has caught up to, the
 *   process drops its caches as if notified, and renders fresh.
 * - Before the answer's headers go out it reads the counter again: if it moved, a change committed
 *   while the answer was made (it may show what was there before), and the answer says `no-store`.
 * - If the counter cannot be read (the database down, its pool full), the process answers as it can
 *   (its page cache, the outage rules), never worse than before, and a shared cache keeps the answer one
 *   second at most (`SHARED_CACHE_UNCHECKED`).
 *
 * A request without the mark (the process alone, the bench without a cache in front) pays nothing.
 */
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { SHARED_CACHE_UNCHECKED } from "~/domain/web/cache";
import type { Env } from "~/platform/env.server";
import { logger } from "~/platform/logger.server";
import { isAnonymous } from "./page-cache";
import { sharedCacheMayStore } from "./shared-cache";

/**
 * Whether the shared cache in front may store this request's answer (decision 710): only with a purge
 * configured (CACHE_PURGE; without one no shared cache should keep the site's pages, and nothing is
 * checked). deploy/nginx.conf sends `X-Shared-Cache: nginx` on the requests its cache may store (not
 * on a visitor's own cookie, nor a query string); Cloudflare adds `CDN-Loop: cloudflare` (RFC 8586) to
 * every request it forwards, and an operator may add `X-Shared-Cache` with a request header rule too.
 */
export function sharedCacheMarked(headers: IncomingHttpHeaders, cachePurge: Env["CACHE_PURGE"]): boolean {
  if (!cachePurge || cachePurge === "off") return false;
  if (headers["x-shared-cache"]) return true;
  return cachePurge === "cloudflare" && /\bcloudflare\b/i.test(String(headers["cdn-loop"] ?? ""));
}

/** What the process's caches reflect of the change counter (decision 710). */
export class ChangeWatch {
  /** Every change up to this value is in what the caches hold (-1: not known yet). */
  caughtUp = -1;

  constructor(private readonly drop: () => void) {}

  /**
   * `count` was read (or notified) before this call: the caches are dropped now, so every load after
   * this sees every change up to it.
   */
  caughtUpTo(count: number): void {
    this.drop();
    if (count > this.caughtUp) this.caughtUp = count;
  }
}

/**
 * Holds what is written to `res` (writeHead, write, end) until `decide()` has run, so that it can still
 * change the headers; then writes it all, in order, and lets everything after it through. Headers
 * given to writeHead are set on the response at once (`decide` sees them, and may change them).
 */
function holdAnswer(res: ServerResponse, decide: () => Promise<void>): void {
  const writeHead = res.writeHead;
  const write = res.write;
  const end = res.end;
  const held: Array<() => void> = [];
  let state: "open" | "holding" | "released" = "open";
  const hold = (replay: () => void) => {
    held.push(replay);
    if (state !== "open") return;
    state = "holding";
    void decide()
      .catch((error: unknown) => logger.warn({ err: error }, "[shared-cache-guard] the answer could not be checked"))
      .finally(() => {
        state = "released";
        // A visitor who left meanwhile: nothing to write.
        if (res.destroyed) return;
        for (const replay of held.splice(0)) replay();
      });
  };
  res.writeHead = function (this: ServerResponse, statusCode: number, ...rest: unknown[]) {
    if (state === "released") return (writeHead as (...a: unknown[]) => ServerResponse).call(this, statusCode, ...rest);
    const last = rest.at(-1);
    if (last && typeof last === "object") {
      rest.pop();
      if (Array.isArray(last)) {
        for (let i = 0; i + 1 < last.length; i += 2) this.setHeader(String(last[i]), last[i + 1] as string);
      } else {
        for (const [name, value] of Object.entries(last as Record<string, string | number | string[]>)) this.setHeader(name, value);
      }
    }
    this.statusCode = statusCode;
    hold(() => (writeHead as (...a: unknown[]) => ServerResponse).call(this, statusCode, ...rest));
    return this;
  } as typeof res.writeHead;
  res.write = function (this: ServerResponse, ...args: unknown[]) {
    if (state === "released") return (write as (...a: unknown[]) => boolean).apply(this, args);
    hold(() => (write as (...a: unknown[]) => boolean).apply(this, args));
    return true;
  } as typeof res.write;
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    if (state === "released") return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    hold(() => (end as (...a: unknown[]) => ServerResponse).apply(this, args));
    return this;
  } as typeof res.end;
}

/** An answer a shared cache may store: nothing personal, no cookie set, and its Cache-Control allows it. */
function storable(res: ServerResponse): boolean {
  return res.getHeader("Set-Cookie") === undefined && sharedCacheMayStore(String(res.getHeader("Cache-Control") ?? ""));
}

/** At most one warning a minute while the counter cannot be read (an outage would write one per request). */
const WARN_EVERY_MS = 60_000;

/**
 * The guard in the stack, before the page cache: `readCount` reads the change counter, `watch` is this
 * process's, `marked` says whether a request's answer may be stored by the shared cache.
 */
export function sharedCacheGuard(deps: { readCount: () => Promise<number>; watch: ChangeWatch; marked: (headers: IncomingHttpHeaders) => boolean }) {
  const { readCount, watch, marked } = deps;
  let lastWarning = 0;
  const read = async (): Promise<number | null> => {
    try {
      return await readCount();
    } catch (error) {
      if (Date.now() - lastWarning > WARN_EVERY_MS) {
        lastWarning = Date.now();
        logger.warn({ err: error }, "[shared-cache-guard] the change counter could not be read: answers kept by the shared cache one second at most");
      }
      return null;
    }
  };
  return async (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== "GET" && req.method !== "HEAD") || !marked(req.headers) || !isAnonymous(req.headers.cookie)) return next();
    const before = await read();
    if (before !== null && before > watch.caughtUp) {
      // Behind: a change committed that this process has not heard of yet. Dropped now, as if notified.
      if (watch.caughtUp >= 0) logger.info({ behindBy: before - watch.caughtUp }, "[shared-cache-guard] behind on changes: caches dropped before answering");
      watch.caughtUpTo(before);
    }
    holdAnswer(res, async () => {
      if (!storable(res)) return;
      const after = before === null ? null : await read();
      if (after === null) {
        res.setHeader("Cache-Control", SHARED_CACHE_UNCHECKED);
      } else if (after !== before) {
        // A change committed while this answer was made: it may show what was there before.
        res.setHeader("Cache-Control", "no-store");
        res.removeHeader("Cache-Tag");
        if (after > watch.caughtUp) watch.caughtUpTo(after);
      }
    });
    next();
  };
}
