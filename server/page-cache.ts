/**
 * The page cache (issue 10): rendered public pages for anonymous GET requests, kept in memory with
 * their gzip and brotli forms, served without rendering or querying. See
 * docs/decisions/081-page-cache.md for the rules; in short:
 *
 * - Only a 200 answer to an anonymous GET (no session, checkout or flash cookie) whose
 *   Cache-Control is `public` and that sets no cookie is stored. Pages with a form carry a CSRF
 *   token and set its cookie, so they are never stored.
 * - A stored page carries no nonce: its inline scripts and styles are allowed by their SHA-256
 *   hashes in the stored page's own Content-Security-Policy.
 * - Everything is dropped at once when anything a page shows changes (`invalidate()`): after every
 *   non-GET request of this process, and on the database's `gatehouse_changed` notification (a
 *   trigger on every table a public page reads, so other processes and scripts count too). An entry
 *   also ends at the next whole minute (open/closed now) and when the next unit hold or reservation
 *   runs out (availability changes with time, without a write).
 */
import crypto from "node:crypto";
import zlib from "node:zlib";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { logger } from "~/logger.server";

export interface CachedPage {
  body: Buffer;
  gzip: Buffer;
  br: Buffer;
  etag: string;
  headers: Record<string, string>;
  /** Epoch ms after which the entry is not served. */
  expiresAt: number;
  generation: number;
}

/** Cookies that make a request per-visitor: a signed-in tenant, a rental in progress, a flash message. */
const PER_VISITOR_COOKIE = /(?:^|;\s*)(?:__Host-)?(?:gh_portal|checkout|flash)[^=;]*=/;

export function isAnonymous(cookieHeader: string | undefined): boolean {
  return !cookieHeader || !PER_VISITOR_COOKIE.test(cookieHeader);
}

export function cacheKey(host: string | undefined, originalUrl: string): string {
  return `${(host ?? "").toLowerCase()}${originalUrl}`;
}

/** The next whole minute after `now` (opening hours change on minute boundaries). */
export function nextMinute(now: number): number {
  return Math.floor(now / 60_000) * 60_000 + 60_000;
}

const sha256 = (text: string) => `'sha256-${crypto.createHash("sha256").update(text, "utf8").digest("base64")}'`;

/**
 * Removes the per-response nonce from a page and returns the CSP that allows its inline scripts and
 * styles by hash instead. External scripts keep the sources the CSP already allows ('self', the
 * analytics hosts).
 */
export function withoutNonce(html: string, csp: string): { html: string; csp: string } {
  const scriptHashes = new Set<string>();
  const styleHashes = new Set<string>();
  const out = html.replace(/<(script|style)\b([^>]*)>([\s\S]*?)<\/\1>/gi, (_m, tag: string, attrs: string, content: string) => {
    const hasSrc = /\ssrc=/i.test(attrs);
    const cleaned = attrs.replace(/\snonce="[^"]*"/gi, "");
    if (!hasSrc && content.length > 0) (tag.toLowerCase() === "script" ? scriptHashes : styleHashes).add(sha256(content));
    return `<${tag}${cleaned}>${content}</${tag}>`;
  });
  const replaceNonce = (directive: string, hashes: Set<string>) => (policy: string) =>
    policy.replace(new RegExp(`(^|;)(\\s*)${directive}\\s+([^;]*)`), (_m, lead: string, space: string, sources: string) => {
      const kept = sources
        .split(/\s+/)
        .filter((s) => s && !s.startsWith("'nonce-"));
      return `${lead}${space}${directive} ${[...kept, ...hashes].join(" ")}`;
    });
  const policy = replaceNonce("style-src", styleHashes)(replaceNonce("script-src", scriptHashes)(csp));
  // Other elements (stylesheet and preload links) are allowed by their sources.
  return { html: out.replace(/(<[a-z][^>]*?)\snonce="[^"]*"/gi, "$1"), csp: policy };
}

export function preferredEncoding(acceptEncoding: string | undefined): "br" | "gzip" | null {
  const a = (acceptEncoding ?? "").toLowerCase();
  const accepts = (name: string) => new RegExp(`(?:^|,)\\s*${name}\\s*(?:;\\s*q=(?!0(?:\\.0*)?\\s*(?:,|$))[0-9.]+)?\\s*(?:,|$)`).test(a);
  if (accepts("br")) return "br";
  if (accepts("gzip")) return "gzip";
  return null;
}

/** How long a request waits for the same page's render in progress before rendering it itself. */
export const COALESCE_WAIT_MS = 2_000;

export class PageCache {
  private entries = new Map<string, CachedPage>();
  private bytes = 0;
  /** Bumped by every invalidation: a render that started before it is not stored. */
  generation = 0;
  hits = 0;
  misses = 0;
  /** Misses answered from a render another request was doing. */
  coalesced = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  /**
   * The stored page if still fresh. `stale: true` also returns one past its expiry (never one from
   * before an invalidation): what is served while the database cannot be reached.
   */
  get(key: string, now: number, options: { stale?: boolean } = {}): CachedPage | null {
    const page = this.entries.get(key);
    if (!page) return null;
    if (page.generation !== this.generation) {
      this.delete(key);
      return null;
    }
    if (page.expiresAt <= now && !options.stale) return null;
    // Least recently used last out: move to the end.
    this.entries.delete(key);
    this.entries.set(key, page);
    return page;
  }

  set(key: string, page: CachedPage): void {
    if (page.generation !== this.generation) return;
    this.delete(key);
    const size = page.body.length + page.gzip.length + page.br.length;
    if (size > this.maxBytes / 8) return;
    this.entries.set(key, page);
    this.bytes += size;
    for (const [k] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(k);
    }
  }

  invalidate(): void {
    this.generation++;
    this.entries.clear();
    this.bytes = 0;
    this.unstorable.clear();
  }

  /**
   * Renders in progress, by key: a request that misses while the same page is being rendered for
   * the current generation waits for that render (at most `COALESCE_WAIT_MS`) and is answered from
   * the cache, instead of rendering it once more. Without this, every concurrent visitor of a page
   * renders it at the same moment whenever it expires (each whole minute) or the cache is dropped
   * (each write): 32 renders at once where one would do, and the slowest answers of the minute.
   */
  readonly rendering = new Map<string, { generation: number; done: Promise<void> }>();
  /** Keys whose last render could not be stored (a form, a cookie, not public): nobody waits for them. */
  readonly unstorable = new Map<string, number>();

  get size(): number {
    return this.entries.size;
  }

  private delete(key: string) {
    const old = this.entries.get(key);
    if (!old) return;
    this.bytes -= old.body.length + old.gzip.length + old.br.length;
    this.entries.delete(key);
  }
}

/** Response headers a stored page keeps (security headers included); never cookies or framing ones. */
const DROPPED_HEADERS = new Set(["set-cookie", "date", "connection", "keep-alive", "content-length", "transfer-encoding", "content-encoding", "x-page-cache", "etag", "vary"]);

export function buildEntry(input: {
  body: Buffer;
  headers: Record<string, string>;
  expiresAt: number;
  generation: number;
}): CachedPage {
  let body = input.body;
  const kept = Object.fromEntries(Object.entries(input.headers).filter(([name]) => !DROPPED_HEADERS.has(name.toLowerCase())));
  const cspName = Object.keys(kept).find((n) => n.toLowerCase() === "content-security-policy");
  const contentType = Object.entries(kept).find(([n]) => n.toLowerCase() === "content-type")?.[1] ?? "";
  let csp = cspName ? kept[cspName]! : null;
  if (contentType.startsWith("text/html") && csp) {
    const cleaned = withoutNonce(body.toString("utf8"), csp);
    body = Buffer.from(cleaned.html, "utf8");
    csp = cleaned.csp;
  }
  const etag = `"${crypto.createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  const headers: Record<string, string> = { ...kept, ETag: etag, Vary: "Accept-Encoding" };
  if (cspName && csp) headers[cspName] = csp;
  return {
    body,
    gzip: zlib.gzipSync(body, { level: 9 }),
    br: zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    etag,
    headers,
    expiresAt: input.expiresAt,
    generation: input.generation,
  };
}

export function sendCached(req: Request, res: Response, page: CachedPage, options: { stale?: boolean } = {}): void {
  for (const [name, value] of Object.entries(page.headers)) res.setHeader(name, value);
  res.setHeader("X-Page-Cache", options.stale ? "stale" : "hit");
  // A copy served during an outage is never stored downstream.
  if (options.stale) res.setHeader("Cache-Control", "no-store");
  const inm = req.headers["if-none-match"];
  if (inm && inm.split(/\s*,\s*/).some((t) => t === page.etag || t === `W/${page.etag}`)) {
    res.removeHeader("Content-Type");
    res.status(304).end();
    return;
  }
  const encoding = preferredEncoding(req.headers["accept-encoding"] as string | undefined);
  const body = encoding === "br" ? page.br : encoding === "gzip" ? page.gzip : page.body;
  if (encoding) res.setHeader("Content-Encoding", encoding);
  res.setHeader("Content-Length", String(body.length));
  res.status(200);
  if (req.method === "HEAD") res.end();
  else res.end(body);
}

/**
 * Answers a request from the cache if it can, on the bare Node request and response (no Express, no
 * compression or helmet middleware): what server.js calls first for every request, so a hit costs a
 * map lookup and one write. Returns false (nothing sent) for anything else, which then goes through
 * the whole stack (where `pageCacheMiddleware` stores it). The stored headers already hold the
 * security headers the page was rendered with.
 */
export function serveHit(cache: PageCache, req: IncomingMessage, res: ServerResponse, now: number = Date.now()): boolean {
  if ((req.method !== "GET" && req.method !== "HEAD") || !isAnonymous(req.headers.cookie)) return false;
  const page = cache.get(cacheKey(req.headers.host, req.url ?? "/"), now);
  if (!page) return false;
  cache.hits++;
  const inm = req.headers["if-none-match"];
  if (inm && inm.split(/\s*,\s*/).some((t) => t === page.etag || t === `W/${page.etag}`)) {
    const headers: Record<string, string> = { ...page.headers, "X-Page-Cache": "hit" };
    for (const name of Object.keys(headers)) if (name.toLowerCase() === "content-type") delete headers[name];
    res.writeHead(304, headers);
    res.end();
    return true;
  }
  const encoding = preferredEncoding(req.headers["accept-encoding"]);
  const body = encoding === "br" ? page.br : encoding === "gzip" ? page.gzip : page.body;
  const headers: Record<string, string> = { ...page.headers, "X-Page-Cache": "hit", "Content-Length": String(body.length) };
  if (encoding) headers["Content-Encoding"] = encoding;
  res.writeHead(200, headers);
  if (req.method === "HEAD") res.end();
  else res.end(body);
  return true;
}

/**
 * The Express middleware. `nextChange()` gives the epoch ms at which availability next changes
 * without a write (a hold or reservation running out), or null.
 */
export function pageCacheMiddleware(cache: PageCache, options: { enabled: () => boolean; nextChange: () => Promise<number | null>; now?: () => number }) {
  const now = options.now ?? Date.now;
  return (req: Request, res: Response, next: NextFunction) => {
    if (!options.enabled()) return next();
    if (req.method !== "GET" && req.method !== "HEAD") {
      // Every write goes through a non-GET request of some process; this process's own writes are
      // seen by its next request at once (other processes learn of them through the notification).
      res.on("finish", () => cache.invalidate());
      return next();
    }
    if (!isAnonymous(req.headers.cookie)) return next();
    const key = cacheKey(req.headers.host, req.originalUrl);
    const hit = cache.get(key, now());
    if (hit) {
      cache.hits++;
      return sendCached(req, res, hit);
    }
    cache.misses++;
    if (req.method !== "GET") return next();
    const inFlight = cache.rendering.get(key);
    if (inFlight && inFlight.generation === cache.generation && cache.unstorable.get(key) !== cache.generation) {
      // The same page is being rendered for another visitor: wait for it, then answer from the cache.
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((r) => (timer = setTimeout(r, COALESCE_WAIT_MS)));
      void Promise.race([inFlight.done, timeout]).then(() => {
        clearTimeout(timer);
        const page = cache.get(key, now());
        if (page) {
          cache.coalesced++;
          return sendCached(req, res, page);
        }
        render();
      });
      return;
    }
    render();

    function render() {
      res.setHeader("X-Page-Cache", "miss");
      const generation = cache.generation;
      let finished!: () => void;
      const done = new Promise<void>((r) => (finished = r));
      const current = cache.rendering.get(key);
      if (!current || current.generation !== generation) {
        cache.rendering.set(key, { generation, done });
        void done.then(() => {
          if (cache.rendering.get(key)?.done === done) cache.rendering.delete(key);
        });
      }
      // A render that ends without storing (an error, a closed connection) releases its waiters too.
      res.on("close", () => setTimeout(finished, 50).unref());
      const chunks: Buffer[] = [];
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      const end = res.end.bind(res) as (...args: unknown[]) => Response;
      let tooBig = false;
      const collect = (chunk: unknown, encoding?: unknown) => {
        if (chunk == null || tooBig || typeof chunk === "function") return;
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
        chunks.push(buf);
        if (chunks.reduce((s, c) => s + c.length, 0) > 2 * 1024 * 1024) tooBig = true;
      };
      res.write = ((chunk: unknown, ...rest: unknown[]) => {
        collect(chunk, rest[0]);
        return write(chunk, ...rest);
      }) as typeof res.write;
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        collect(chunk, rest[0]);
        const result = end(chunk, ...rest);
        void store();
        return result;
      }) as typeof res.end;

      async function store() {
        let stored = false;
        try {
          if (tooBig || res.statusCode !== 200) return;
          const cacheControl = String(res.getHeader("Cache-Control") ?? "");
          const contentType = String(res.getHeader("Content-Type") ?? "");
          // (The bytes were collected before the compression middleware, which wraps this one: a
          // Content-Encoding header set by it does not mean the collected body is compressed.)
          if (!/\bpublic\b/.test(cacheControl) || res.getHeader("Set-Cookie")) return;
          if (!/^(?:text\/html|application\/xml|text\/xml|text\/plain)/.test(contentType)) return;
          const body = Buffer.concat(chunks);
          // A form's CSRF token is per visitor: such a page is never stored, whatever its headers say.
          if (body.includes('name="csrf"')) return;
          const t = now();
          const change = await options.nextChange();
          const expiresAt = Math.min(nextMinute(t), change && change > t ? change : Number.POSITIVE_INFINITY);
          const headers = Object.fromEntries(
            Object.entries(res.getHeaders()).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : String(value)]),
          );
          cache.set(key, buildEntry({ body, headers, expiresAt, generation }));
          stored = true;
        } catch (error) {
          // Not storing a page is always safe.
          logger.warn({ err: error }, "[page-cache] page not stored");
        } finally {
          if (!stored) {
            if (cache.unstorable.size > 10_000) cache.unstorable.clear();
            cache.unstorable.set(key, generation);
          }
          finished();
        }
      }
      next();
    }
  };
}

/** During an outage: the last stored copy of this anonymous GET, however old, or null. */
export function staleCopy(cache: PageCache, req: Request): CachedPage | null {
  if ((req.method !== "GET" && req.method !== "HEAD") || !isAnonymous(req.headers.cookie)) return null;
  return cache.get(cacheKey(req.headers.host, req.originalUrl), Date.now(), { stale: true });
}
