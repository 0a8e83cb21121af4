/**
 * The page cache (issue 10): rendered public pages for anonymous GET requests, kept in memory with
 * their gzip and brotli forms, served without rendering or querying. See
 * docs/decisions/081-page-cache.md for the rules; in short:
 *
 * - Only a 200 answer to an anonymous GET (no session, rental or flash cookie) whose
 *   Cache-Control is `public` and that sets no cookie is stored. Pages with a form carry a CSRF
 *   token and set its cookie, so they are never stored.
 * - A stored page carries no nonce: the inline scripts and styles that carried the request's nonce
 *   (and only those) are allowed by their SHA-256 hashes in the stored page's own Content-Security-Policy.
 * - Everything is dropped at once when anything a page shows changes (`invalidate()`): after a
 *   request of this process that wrote to a table a public page reads (server/caches.ts; a refused
 *   request drops nothing, decision 191), and on the database's `gatehouse_changed` notification (a
 *   trigger on every such table, so other processes and scripts count too). An entry also ends at
 *   the next whole minute (open/closed now) and when the next unit hold or reservation runs out
 *   (availability changes with time, without a write).
 * - At most `MAX_VARIANTS_PER_PATH` query strings of one path are stored at a time (decision 192).
 * - Compression is cheap when a page is stored (gzip 6, brotli 5); a page asked for again is
 *   compressed at the best settings on the thread pool, off the event loop, and that result is kept
 *   for the same bytes rendered again (decision 192).
 * - Each encoding has its own ETag; `If-None-Match: *` answers 304; `Range` is ignored and said so
 *   (`Accept-Ranges: none`, decision 193).
 */
import crypto from "node:crypto";
import zlib from "node:zlib";
import { promisify } from "node:util";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { logger } from "~/platform/logger.server";

interface CachedPage {
  body: Buffer;
  gzip: Buffer;
  br: Buffer;
  /** The identity body's strong ETag; the encoded forms' are derived from it (`etagFor`). */
  etag: string;
  /** Whether gzip and brotli are already at their best settings (else upgraded after a few hits). */
  bestCompression: boolean;
  /** Times served from the cache. */
  hits: number;
  /** The best compression has been started for it (on the thread pool). */
  upgrading?: boolean;
  headers: Record<string, string>;
  /**
   * The response headers of a hit, per encoding, made on the first hit with that encoding (the
   * stored headers, its ETag, X-Page-Cache, Content-Length and Content-Encoding): a hit then writes
   * them as they are. Dropped when the compressed forms are replaced.
   */
  prepared?: Map<Encoding, Record<string, string>>;
  /** Epoch ms after which the entry is not served. */
  expiresAt: number;
  generation: number;
}

/**
 * Cookies that make a request per-visitor: a signed-in tenant or staff member, a rental in progress, a
 * flash message, a preview (on the public site the preview cookie alone is one, decision 450).
 */
const PER_VISITOR_COOKIE = /(?:^|;\s*)(?:__Host-)?(?:gh_portal|gh_staff|gh_preview|checkout|flash)[^=;]*=/;

export function isAnonymous(cookieHeader: string | undefined): boolean {
  return !cookieHeader || !PER_VISITOR_COOKIE.test(cookieHeader);
}

export function cacheKey(host: string | undefined, originalUrl: string): string {
  return `${(host ?? "").toLowerCase()}${originalUrl}`;
}

/** The key without its query string: the entries one path may have are counted by it. */
function pathOfKey(key: string): string {
  const q = key.indexOf("?");
  return q === -1 ? key : key.slice(0, q);
}

/**
 * How many query strings of one path are stored at a time (decision 192). The site's own links use a
 * handful per path (`/units?size=10x10&type=…`); a visitor who sends a new query string on every
 * request can fill these slots, then their pages are rendered and not stored, without compressing
 * anything, while the stored ones are still served. The path without a query string never counts,
 * and a query string asked for a second time takes the place of the oldest one.
 */
export const MAX_VARIANTS_PER_PATH = 32;

/** A page served this many times from the cache is compressed again at the best settings. */
const UPGRADE_AFTER_HITS = 2;

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
  // Only what carried this response's nonce was allowed to run: only that is allowed by hash (issue
  // 19). An inline script or style without it (or with another value) stays blocked, as it was.
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
  const carriesNonce = (attrs: string) => nonce !== undefined && [...attrs.matchAll(/\snonce="([^"]*)"/gi)].some((m) => m[1] === nonce);
  const out = html.replace(/<(script|style)\b([^>]*)>([\s\S]*?)<\/\1>/gi, (_m, tag: string, attrs: string, content: string) => {
    const hasSrc = /\ssrc=/i.test(attrs);
    const cleaned = attrs.replace(/\snonce="[^"]*"/gi, "");
    if (!hasSrc && content.length > 0 && carriesNonce(attrs)) (tag.toLowerCase() === "script" ? scriptHashes : styleHashes).add(sha256(content));
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

/** A coding named in Accept-Encoding with a q-value above 0 (compiled once, not per request). */
const acceptsCoding = (name: string) => new RegExp(`(?:^|,)\\s*${name}\\s*(?:;\\s*q=(?!0(?:\\.0*)?\\s*(?:,|$))[0-9.]+)?\\s*(?:,|$)`);
const ACCEPTS_BR = acceptsCoding("br");
const ACCEPTS_GZIP = acceptsCoding("gzip");
/** The answers for the Accept-Encoding values seen (browsers send a handful of spellings), bounded. */
const encodingByHeader = new Map<string, "br" | "gzip" | null>();

export function preferredEncoding(acceptEncoding: string | undefined): "br" | "gzip" | null {
  const header = acceptEncoding ?? "";
  const known = encodingByHeader.get(header);
  if (known !== undefined) return known;
  const a = header.toLowerCase();
  const encoding = ACCEPTS_BR.test(a) ? "br" : ACCEPTS_GZIP.test(a) ? "gzip" : null;
  if (encodingByHeader.size >= 64) encodingByHeader.clear();
  if (header.length <= 200) encodingByHeader.set(header, encoding);
  return encoding;
}

/** How long a request waits for the same page's render in progress before rendering it itself. */
const COALESCE_WAIT_MS = 2_000;

const brotliAsync = promisify(zlib.brotliCompress);
const gzipAsync = promisify(zlib.gzip);

/** Brotli at `quality` (5: about 1 ms for a page, 11: about 100 ms; docs/performance.md). */
const brotliOptions = (quality: number, size: number): zlib.BrotliOptions => ({
  params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size },
});
const QUICK_COMPRESSION = { gzipLevel: 6, brotliQuality: 5 };
const BEST_COMPRESSION = { gzipLevel: 9, brotliQuality: 11 };

export class PageCache {
  private entries = new Map<string, CachedPage>();
  /** The keys stored for each path (host + path, no query): at most MAX_VARIANTS_PER_PATH. */
  private variants = new Map<string, Set<string>>();
  private bytes = 0;
  /**
   * The best-compressed forms of bodies seen lately, by ETag: a page rendered again with the same
   * bytes (each minute, after each write) gets them at once instead of being compressed again.
   */
  private compressed = new Map<string, { gzip: Buffer; br: Buffer }>();
  /** Upgrades running on the thread pool (at most a few at a time). */
  private upgrading = 0;
  /** Bumped by every invalidation: a render that started before it is not stored. */
  generation = 0;
  hits = 0;
  misses = 0;
  /** Misses answered from a render another request was doing. */
  coalesced = 0;
  /** Renders not stored because their path already had MAX_VARIANTS_PER_PATH query strings stored. */
  refusedVariants = 0;
  /** Pages compressed again at the best settings (on the thread pool). */
  upgrades = 0;

  constructor(
    private readonly maxBytes = 64 * 1024 * 1024,
    private readonly maxVariantsPerPath = MAX_VARIANTS_PER_PATH,
  ) {}

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

  /**
   * Whether a render for `key` may be stored: always for a path's known query string; a new one only
   * while the path has fewer than its limit of fresh entries (an expired one makes room). Asked
   * before anything is compressed, so a refused render costs nothing more.
   */
  admits(key: string, now: number): boolean {
    if (this.entries.has(key)) return true;
    const path = pathOfKey(key);
    if (path === key) return true;
    const keys = this.variants.get(path);
    if (!keys || keys.size < this.maxVariantsPerPath) return true;
    for (const k of keys) {
      const page = this.entries.get(k);
      if (!page || page.expiresAt <= now || page.generation !== this.generation) {
        this.delete(k);
        return true;
      }
    }
    // A query string asked for before (a link people follow, not a one-off) replaces the oldest.
    if (this.refusedOnce.has(key)) {
      this.refusedOnce.delete(key);
      this.delete(keys.values().next().value!);
      return true;
    }
    if (this.refusedOnce.size >= 10_000) this.refusedOnce.clear();
    this.refusedOnce.add(key);
    this.refusedVariants++;
    return false;
  }

  /** Query strings refused once because their path was full (a second ask is admitted). */
  private refusedOnce = new Set<string>();

  set(key: string, page: CachedPage): void {
    if (page.generation !== this.generation) return;
    this.delete(key);
    const size = page.body.length + page.gzip.length + page.br.length;
    if (size > this.maxBytes / 8) return;
    const path = pathOfKey(key);
    if (path !== key) {
      const keys = this.variants.get(path) ?? new Set<string>();
      if (keys.size >= this.maxVariantsPerPath) return;
      keys.add(key);
      this.variants.set(path, keys);
    }
    this.entries.set(key, page);
    this.bytes += size;
    for (const [k] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(k);
    }
  }

  /** The best-compressed forms kept for this body, if any. */
  compressedFor(etag: string): { gzip: Buffer; br: Buffer } | undefined {
    return this.compressed.get(etag);
  }

  /**
   * Counts a hit; the second one of a quickly compressed page starts its compression at the best
   * settings on the thread pool (never on the event loop, never for a page nobody asks for twice).
   * The result replaces the quick forms if the entry is still the one stored, and is kept by ETag.
   */
  noteHit(key: string, page: CachedPage): void {
    page.hits++;
    if (page.bestCompression || page.upgrading || page.hits < UPGRADE_AFTER_HITS || this.upgrading >= 2) return;
    page.upgrading = true;
    this.upgrading++;
    void Promise.all([
      gzipAsync(page.body, { level: BEST_COMPRESSION.gzipLevel }),
      brotliAsync(page.body, brotliOptions(BEST_COMPRESSION.brotliQuality, page.body.length)),
    ])
      .then(([gzip, br]) => {
        this.upgrades++;
        this.remember(page.etag, { gzip, br });
        if (this.entries.get(key) !== page) return;
        this.bytes += gzip.length + br.length - page.gzip.length - page.br.length;
        Object.assign(page, { gzip, br, bestCompression: true, prepared: undefined });
      })
      .catch((error: unknown) => logger.warn({ err: error }, "[page-cache] compression failed"))
      .finally(() => this.upgrading--);
  }

  /** Resolves when the upgrades started so far have finished (tests, the bench). */
  async settled(): Promise<void> {
    while (this.upgrading > 0) await new Promise((r) => setTimeout(r, 5));
  }

  private remember(etag: string, forms: { gzip: Buffer; br: Buffer }) {
    const size = (f: { gzip: Buffer; br: Buffer }) => f.gzip.length + f.br.length;
    const old = this.compressed.get(etag);
    if (old) this.compressedBytes -= size(old);
    this.compressed.delete(etag);
    this.compressed.set(etag, forms);
    this.compressedBytes += size(forms);
    // The 256 most recent bodies, within an eighth of the cache's budget.
    for (const [k, f] of this.compressed) {
      if (this.compressed.size <= 256 && this.compressedBytes <= this.maxBytes / 8) break;
      this.compressed.delete(k);
      this.compressedBytes -= size(f);
    }
  }
  private compressedBytes = 0;

  invalidate(): void {
    this.generation++;
    this.entries.clear();
    this.variants.clear();
    this.refusedOnce.clear();
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
    const path = pathOfKey(key);
    const keys = this.variants.get(path);
    keys?.delete(key);
    if (keys?.size === 0) this.variants.delete(path);
  }
}

/** Response headers a stored page keeps (security headers included); never cookies or framing ones. */
const DROPPED_HEADERS = new Set(["set-cookie", "date", "connection", "keep-alive", "content-length", "transfer-encoding", "content-encoding", "x-page-cache", "etag", "vary", "accept-ranges"]);

export function buildEntry(
  input: {
    body: Buffer;
    headers: Record<string, string>;
    expiresAt: number;
    generation: number;
  },
  cache?: PageCache,
): CachedPage {
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
  const headers: Record<string, string> = { ...kept, Vary: "Accept-Encoding", "Accept-Ranges": "none" };
  if (cspName && csp) headers[cspName] = csp;
  // The same bytes compressed at the best settings before (the same page, rendered again): reused.
  const best = cache?.compressedFor(etag);
  return {
    body,
    gzip: best?.gzip ?? zlib.gzipSync(body, { level: QUICK_COMPRESSION.gzipLevel }),
    br: best?.br ?? zlib.brotliCompressSync(body, brotliOptions(QUICK_COMPRESSION.brotliQuality, body.length)),
    etag,
    bestCompression: best !== undefined,
    hits: 0,
    headers,
    expiresAt: input.expiresAt,
    generation: input.generation,
  };
}

type Encoding = "br" | "gzip" | null;

/**
 * Each encoding is its own representation with its own ETag (decision 193): the identity body's is
 * strong; the compressed forms' are weak (their bytes change when a page is compressed again at the
 * best settings, the content does not).
 */
export function etagFor(page: CachedPage, encoding: Encoding): string {
  return encoding ? `W/"${page.etag.slice(1, -1)}-${encoding}"` : page.etag;
}

/** If-None-Match (weak comparison, RFC 9110 §13.1.2): `*` (the page exists) or a tag of this representation. */
export function notModified(ifNoneMatch: string | string[] | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (t: string) => t.trim().replace(/^W\//, "");
  const list = (Array.isArray(ifNoneMatch) ? ifNoneMatch.join(",") : ifNoneMatch).split(",");
  return list.some((t) => t.trim() === "*" || opaque(t) === opaque(etag));
}

/**
 * Writes a stored page (both paths: server.js's `serveHit` and the Express middleware). `Range` is
 * ignored (the whole page, 200, `Accept-Ranges: none`): pages are small and change each minute.
 */
function writeStored(req: IncomingMessage, res: ServerResponse, page: CachedPage, extra: Record<string, string> | null): void {
  const encoding = preferredEncoding(req.headers["accept-encoding"]);
  const etag = etagFor(page, encoding);
  const body = encoding === "br" ? page.br : encoding === "gzip" ? page.gzip : page.body;
  if (notModified(req.headers["if-none-match"], etag)) {
    const headers = storedHeaders(page, etag, extra);
    for (const name of Object.keys(headers)) if (name.toLowerCase() === "content-type") delete headers[name];
    res.removeHeader("Content-Type");
    res.writeHead(304, headers);
    res.end();
    return;
  }
  // A hit (no extra headers): the same headers object every time, made once per encoding.
  let headers = extra === null ? page.prepared?.get(encoding) : undefined;
  if (!headers) {
    headers = storedHeaders(page, etag, extra ?? HIT);
    headers["Content-Length"] = String(body.length);
    if (encoding) headers["Content-Encoding"] = encoding;
    if (extra === null) (page.prepared ??= new Map()).set(encoding, headers);
  }
  res.writeHead(200, headers);
  if (req.method === "HEAD") res.end();
  else res.end(body);
}

const HIT = { "X-Page-Cache": "hit" };

/** The stored headers with the ETag and `extra` (header names are case-insensitive: an extra one replaces the stored one, never doubles it). */
function storedHeaders(page: CachedPage, etag: string, extra: Record<string, string> | null): Record<string, string> {
  const headers: Record<string, string> = { ...page.headers };
  for (const [name, value] of Object.entries({ ETag: etag, ...(extra ?? HIT) })) {
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    headers[name] = value;
  }
  return headers;
}

export function sendCached(req: Request, res: Response, page: CachedPage, options: { stale?: boolean } = {}): void {
  // A copy served during an outage is never stored downstream.
  writeStored(req, res, page, options.stale ? { "X-Page-Cache": "stale", "Cache-Control": "no-store" } : null);
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
  const key = cacheKey(req.headers.host, req.url ?? "/");
  const page = cache.get(key, now);
  if (!page) return false;
  cache.hits++;
  cache.noteHit(key, page);
  writeStored(req, res, page, null);
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
    // (What a request wrote drops the cache in server/caches.ts, decision 191: not every request that is not a GET.)
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    if (!isAnonymous(req.headers.cookie)) return next();
    const key = cacheKey(req.headers.host, req.originalUrl);
    const hit = cache.get(key, now());
    if (hit) {
      cache.hits++;
      cache.noteHit(key, hit);
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
          // One more query string of a path that has its fill: not stored, nothing compressed.
          if (!cache.admits(key, t)) return;
          const change = await options.nextChange();
          const expiresAt = Math.min(nextMinute(t), change && change > t ? change : Number.POSITIVE_INFINITY);
          const headers = Object.fromEntries(
            Object.entries(res.getHeaders()).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : String(value)]),
          );
          cache.set(key, buildEntry({ body, headers, expiresAt, generation }, cache));
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
