import { describe, expect, it } from "vitest";
import crypto from "node:crypto";
import zlib from "node:zlib";
import http from "node:http";
import express from "express";
import type { AddressInfo } from "node:net";
import { buildEntry, cacheKey, etagFor, sendCached, isAnonymous, MAX_VARIANTS_PER_PATH, nextMinute, notModified, PageCache, preferredEncoding, pageCacheMiddleware, serveHit, withoutNonce } from "./page-cache";

const entry = (generation: number, expiresAt = Number.POSITIVE_INFINITY, body = "<p>hi</p>") =>
  buildEntry({ body: Buffer.from(body), headers: { "content-type": "text/html; charset=utf-8", "cache-control": "public, max-age=0" }, expiresAt, generation });

describe("page cache rules", () => {
  it("only anonymous requests: a portal session, a rental or a flash message is per visitor", () => {
    expect(isAnonymous(undefined)).toBe(true);
    expect(isAnonymous("csrf=abc; _ga=1")).toBe(true);
    expect(isAnonymous("gh_portal=s%3Aabc")).toBe(false);
    expect(isAnonymous("a=1; checkout=xyz")).toBe(false);
    expect(isAnonymous("__Host-gh_preview=s%3Aabc")).toBe(false);
    expect(isAnonymous("__Host-checkout=xyz")).toBe(false);
    expect(isAnonymous("flash=1")).toBe(false);
  });

  it("keys by host, path and query", () => {
    expect(cacheKey("WWW.Example.com", "/units?size=10x10")).toBe("www.example.com/units?size=10x10");
    expect(cacheKey("a.example", "/units")).not.toBe(cacheKey("b.example", "/units"));
  });

  it("entries end at the next whole minute", () => {
    expect(nextMinute(Date.UTC(2026, 10, 24, 9, 59, 30))).toBe(Date.UTC(2026, 10, 24, 10, 0, 0));
    expect(nextMinute(Date.UTC(2026, 10, 24, 10, 0, 0))).toBe(Date.UTC(2026, 10, 24, 10, 1, 0));
  });

  it("prefers brotli, then gzip, honouring q=0", () => {
    expect(preferredEncoding("gzip, deflate, br")).toBe("br");
    expect(preferredEncoding("gzip")).toBe("gzip");
    expect(preferredEncoding("br;q=0, gzip")).toBe("gzip");
    expect(preferredEncoding(undefined)).toBeNull();
    expect(preferredEncoding("identity")).toBeNull();
  });

  it("a stored page carries no nonce: its inline scripts and styles are allowed by hash", () => {
    const html =
      '<link nonce="N1" rel="stylesheet" href="/a.css"><style nonce="N1">body{color:red}</style><script nonce="N1">go()</script><script src="/assets/a.js" nonce="N1"></script>';
    const csp = "default-src 'self'; script-src 'self' 'nonce-N1' https://www.googletagmanager.com; style-src 'self' 'nonce-N1'";
    const out = withoutNonce(html, csp);
    expect(out.html).not.toContain("nonce");
    const hash = (s: string) => `'sha256-${crypto.createHash("sha256").update(s).digest("base64")}'`;
    expect(out.csp).toBe(
      `default-src 'self'; script-src 'self' https://www.googletagmanager.com ${hash("go()")}; style-src 'self' ${hash("body{color:red}")}`,
    );
  });

  it("keeps gzip and brotli forms, with one ETag per encoding (decision 193)", () => {
    const e = entry(0, Number.POSITIVE_INFINITY, "<p>hello</p>".repeat(100));
    expect(zlib.gunzipSync(e.gzip).toString()).toBe("<p>hello</p>".repeat(100));
    expect(zlib.brotliDecompressSync(e.br).toString()).toBe("<p>hello</p>".repeat(100));
    expect(e.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const tags = [etagFor(e, null), etagFor(e, "gzip"), etagFor(e, "br")];
    expect(new Set(tags).size).toBe(3);
    expect(tags[0]).toBe(e.etag);
    expect(tags[1]).toMatch(/^W\/"[A-Za-z0-9_-]{27}-gzip"$/);
    expect(e.headers["Accept-Ranges"]).toBe("none");
    // If-None-Match: weak comparison, a list, and "*".
    expect(notModified(`"x", ${tags[1]}`, tags[1]!)).toBe(true);
    expect(notModified(tags[1], tags[2]!)).toBe(false);
    expect(notModified("*", tags[2]!)).toBe(true);
    expect(notModified(undefined, tags[2]!)).toBe(false);
  });

  it("hashes only the inline scripts and styles that carried this response's nonce (issue 19)", () => {
    const html =
      '<style nonce="N1">a{}</style><style>b{}</style><script nonce="N1">ok()</script><script>injected()</script><script nonce="other">forged()</script>';
    const out = withoutNonce(html, "script-src 'self' 'nonce-N1'; style-src 'self' 'nonce-N1'");
    const hash = (s: string) => `'sha256-${crypto.createHash("sha256").update(s).digest("base64")}'`;
    expect(out.csp).toBe(`script-src 'self' ${hash("ok()")}; style-src 'self' ${hash("a{}")}`);
    for (const never of ["injected()", "forged()", "b{}"]) expect(out.csp).not.toContain(hash(never));
    // Without a nonce in the policy nothing is allowed by hash.
    expect(withoutNonce(html, "script-src 'self'").csp).toBe("script-src 'self'");
  });

  it("stores at most MAX_VARIANTS_PER_PATH query strings of one path; an expired one makes room (decision 192)", () => {
    const cache = new PageCache();
    const key = (i: number) => cacheKey("h", `/units?junk=${i}`);
    for (let i = 0; i < MAX_VARIANTS_PER_PATH; i++) {
      expect(cache.admits(key(i), 0)).toBe(true);
      cache.set(key(i), entry(cache.generation, i === 0 ? 500 : 10_000));
    }
    // Full: a new query string is refused before anything is compressed; known ones and other paths are not.
    expect(cache.admits(key(999), 100)).toBe(false);
    expect(cache.refusedVariants).toBe(1);
    cache.set(key(999), entry(cache.generation));
    expect(cache.get(key(999), 100)).toBeNull();
    expect(cache.admits(key(3), 100)).toBe(true);
    expect(cache.admits(cacheKey("h", "/faqs?x=1"), 100)).toBe(true);
    // The path without a query string never counts.
    expect(cache.admits(cacheKey("h", "/units"), 100)).toBe(true);
    cache.set(cacheKey("h", "/units"), entry(cache.generation, 10_000));
    expect(cache.get(cacheKey("h", "/units"), 100)).not.toBeNull();
    // The first one has expired: it makes room.
    expect(cache.admits(key(1000), 600)).toBe(true);
    cache.set(key(1000), entry(cache.generation, 10_000));
    expect(cache.get(key(1000), 600)).not.toBeNull();
    expect(cache.size).toBe(MAX_VARIANTS_PER_PATH + 1);
    // Full again: a query string asked for a second time replaces the oldest one; a one-off never does.
    expect(cache.admits(key(2000), 700)).toBe(false);
    expect(cache.admits(key(2001), 700)).toBe(false);
    expect(cache.admits(key(2000), 700)).toBe(true);
    cache.set(key(2000), entry(cache.generation, 10_000));
    expect(cache.get(key(2000), 700)).not.toBeNull();
    expect(cache.get(key(1), 700)).toBeNull();
    expect(cache.size).toBe(MAX_VARIANTS_PER_PATH + 1);
  });

  it("compresses quickly when storing; a page asked for twice is compressed at the best settings off the event loop, and kept for the same bytes", async () => {
    const cache = new PageCache();
    const html = Array.from({ length: 400 }, (_, i) => `<li class="unit">Unit ${i} <b>10x10</b> climate controlled</li>`).join("");
    const first = entry(cache.generation, Number.POSITIVE_INFINITY, html);
    expect(first.bestCompression).toBe(false);
    cache.set("k", first);
    cache.noteHit("k", first);
    cache.noteHit("k", first);
    await cache.settled();
    expect(cache.upgrades).toBe(1);
    const best = zlib.brotliCompressSync(Buffer.from(html), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } });
    expect(first.bestCompression).toBe(true);
    expect(first.br.length).toBe(best.length);
    expect(zlib.brotliDecompressSync(first.br).toString()).toBe(html);
    // The same page rendered again (next minute, after a write) starts with the best forms.
    cache.invalidate();
    const again = buildEntry({ body: Buffer.from(html), headers: { "content-type": "text/html" }, expiresAt: Infinity, generation: cache.generation }, cache);
    expect(again.bestCompression).toBe(true);
    expect(again.br).toBe(first.br);
  });

  it("invalidation drops everything, and a render started before it is not stored", () => {
    const cache = new PageCache();
    cache.set("k", entry(cache.generation));
    expect(cache.get("k", 0)).not.toBeNull();
    const startedAt = cache.generation;
    cache.invalidate();
    expect(cache.get("k", 0)).toBeNull();
    cache.set("k", entry(startedAt));
    expect(cache.get("k", 0)).toBeNull();
  });

  it("an expired entry is not served, except as a stale copy (database outage)", () => {
    const cache = new PageCache();
    cache.set("k", entry(cache.generation, 1000));
    expect(cache.get("k", 999)).not.toBeNull();
    expect(cache.get("k", 1000)).toBeNull();
    expect(cache.get("k", 5000, { stale: true })).not.toBeNull();
  });

  it("stays within its memory budget, least recently used out first", () => {
    const cache = new PageCache(64 * 1024);
    for (let i = 0; i < 50; i++) cache.set(`k${i}`, entry(0, Number.POSITIVE_INFINITY, crypto.randomBytes(1500).toString("hex")));
    expect(cache.size).toBeLessThan(50);
    expect(cache.get("k49", 0)).not.toBeNull();
    expect(cache.get("k0", 0)).toBeNull();
  });
});

describe("serveHit (server.js answers stored pages before Express)", () => {
  it("answers a stored page with its headers and gzip body, 304 on its ETag, and passes everything else on", async () => {
    const cache = new PageCache();
    const page = buildEntry({
      body: Buffer.from("<html><body>Stored</body></html>"),
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "public, max-age=0, s-maxage=300", "x-content-type-options": "nosniff" },
      expiresAt: Date.now() + 60_000,
      generation: cache.generation,
    });
    const server = http.createServer((req, res) => {
      if (!serveHit(cache, req, res)) res.writeHead(299).end("passed on");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    cache.set(cacheKey(`127.0.0.1:${port}`, "/units"), page);
    const raw = (path: string, headers: Record<string, string> = {}, method = "GET") =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = http.request({ host: "127.0.0.1", port, path, method, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on("error", reject);
        req.end();
      });
    try {
      const hit = await raw("/units", { "Accept-Encoding": "gzip" });
      expect(hit.status).toBe(200);
      expect(hit.headers["content-encoding"]).toBe("gzip");
      expect(hit.headers["x-page-cache"]).toBe("hit");
      expect(hit.headers["x-content-type-options"]).toBe("nosniff");
      expect(hit.headers["content-length"]).toBe(String(page.gzip.length));
      expect(zlib.gunzipSync(hit.body).toString()).toContain("Stored");
      const plain = await raw("/units");
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(plain.body.toString()).toContain("Stored");
      const unchanged = await raw("/units", { "If-None-Match": page.etag });
      expect(unchanged.status).toBe(304);
      expect(unchanged.body.length).toBe(0);
      // One ETag per encoding: the gzip body's tag does not validate the identity body, and back.
      expect(hit.headers["etag"]).toBe(etagFor(page, "gzip"));
      expect(plain.headers["etag"]).toBe(page.etag);
      expect((await raw("/units", { "If-None-Match": page.etag, "Accept-Encoding": "gzip" })).status).toBe(200);
      expect((await raw("/units", { "If-None-Match": etagFor(page, "gzip"), "Accept-Encoding": "gzip" })).status).toBe(304);
      expect((await raw("/units", { "If-None-Match": "*" })).status).toBe(304);
      // Range is ignored, and said so: the whole page.
      const ranged = await raw("/units", { Range: "bytes=0-4" });
      expect(ranged.status).toBe(200);
      expect(ranged.headers["accept-ranges"]).toBe("none");
      expect(ranged.body.toString()).toContain("Stored");
      const head = await raw("/units", {}, "HEAD");
      expect(head.status).toBe(200);
      // Not stored, signed in, or not a GET: the rest of the stack answers.
      expect((await raw("/view-locations")).status).toBe(299);
      expect((await raw("/units", { Cookie: "__Host-gh_portal=abc" })).status).toBe(299);
      expect((await raw("/units", {}, "DELETE")).status).toBe(299);
      cache.invalidate();
      expect((await raw("/units")).status).toBe(299);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe("serveHit: a hit's headers, made once per encoding", () => {
  it("follow the best compression when it replaces the bytes (Content-Length of the new body)", async () => {
    const cache = new PageCache();
    const words = Array.from({ length: 400 }, (_, i) => `unit${(i * 7919) % 1000} ${["small", "medium", "large", "climate"][i % 4]}`);
    const page = buildEntry({
      body: Buffer.from(`<html><body>Stored ${words.join(" ")}</body></html>`),
      headers: { "content-type": "text/html; charset=utf-8" },
      expiresAt: Date.now() + 60_000,
      generation: cache.generation,
    });
    const server = http.createServer((req, res) => {
      if (!serveHit(cache, req, res)) res.writeHead(299).end("passed on");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    cache.set(cacheKey(`127.0.0.1:${port}`, "/units"), page);
    const brHit = () =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        http
          .get({ host: "127.0.0.1", port, path: "/units", headers: { "Accept-Encoding": "br" } }, (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .on("error", reject);
      });
    try {
      const quick = page.br.length;
      expect((await brHit()).headers["content-length"]).toBe(String(quick));
      await brHit(); // the second hit starts the best compression
      await cache.settled();
      expect(page.bestCompression).toBe(true);
      expect(page.br.length).not.toBe(quick);
      const upgraded = await brHit();
      expect(upgraded.headers["content-length"]).toBe(String(page.br.length));
      expect(zlib.brotliDecompressSync(upgraded.body).toString()).toContain("Stored unit0");
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe("pageCacheMiddleware: concurrent misses of one page", () => {
  it("renders a page once for visitors who ask for it at the same moment; a page that cannot be stored is rendered for each", async () => {
    const cache = new PageCache();
    const renders: Record<string, number> = {};
    const app = express();
    app.use(pageCacheMiddleware(cache, { enabled: () => true, nextChange: async () => null }));
    app.get("/{*path}", async (req, res) => {
      renders[req.path] = (renders[req.path] ?? 0) + 1;
      await new Promise((r) => setTimeout(r, 150));
      res.set("Cache-Control", "public, max-age=0, s-maxage=300").type("html");
      if (req.path === "/form") res.cookie("csrf", "per-visitor");
      res.send(`<html><body>${req.path}</body></html>`);
    });
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const pages = await Promise.all(Array.from({ length: 10 }, () => fetch(`${base}/units`).then(async (r) => ({ status: r.status, text: await r.text(), cache: r.headers.get("x-page-cache") }))));
      expect(renders["/units"]).toBe(1);
      expect(pages.every((p) => p.status === 200 && p.text.includes("/units"))).toBe(true);
      expect(pages.filter((p) => p.cache === "miss")).toHaveLength(1);
      expect(cache.coalesced).toBe(9);
      // Not storable (it sets a cookie): after the first render, nobody waits for another's.
      await fetch(`${base}/form`).then((r) => r.text());
      await Promise.all(Array.from({ length: 5 }, () => fetch(`${base}/form`).then((r) => r.text())));
      expect(renders["/form"]).toBe(6);
      expect(cache.coalesced).toBe(9);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe("sendCached (the Express path)", () => {
  it("a stale copy during an outage says no-store once, replacing the stored Cache-Control", async () => {
    const page = buildEntry({
      body: Buffer.from("<p>old</p>"),
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "public, max-age=0, s-maxage=60" },
      expiresAt: 0,
      generation: 0,
    });
    const server = http.createServer((req, res) => sendCached(req as never, res as never, page, { stale: true }));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    try {
      const answer = await new Promise<http.IncomingMessage>((resolve, reject) => http.get({ host: "127.0.0.1", port, path: "/" }, resolve).on("error", reject));
      answer.resume();
      expect(answer.headers["cache-control"]).toBe("no-store");
      expect(answer.headers["x-page-cache"]).toBe("stale");
      expect(answer.rawHeaders.filter((h) => h.toLowerCase() === "cache-control")).toHaveLength(1);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
