import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { CONTENT_CACHE, NO_STORE, SHARED_CACHE_UNCHECKED } from "~/domain/web/cache";
import { PageCache, pageCacheMiddleware } from "./page-cache";
import { ChangeWatch, sharedCacheGuard, sharedCacheMarked } from "./shared-cache-guard";

describe("which requests the shared cache may store (decision 710)", () => {
  it("nginx's mark, or Cloudflare's CDN-Loop when Cloudflare is the cache; nothing without a purge configured", () => {
    expect(sharedCacheMarked({ "x-shared-cache": "nginx" }, "nginx")).toBe(true);
    expect(sharedCacheMarked({}, "nginx")).toBe(false);
    expect(sharedCacheMarked({ "cdn-loop": "cloudflare" }, "nginx")).toBe(false);
    expect(sharedCacheMarked({ "cdn-loop": "cloudflare" }, "cloudflare")).toBe(true);
    expect(sharedCacheMarked({ "cdn-loop": "Fastly, cloudflare" }, "cloudflare")).toBe(true);
    expect(sharedCacheMarked({ "x-shared-cache": "cloudflare" }, "cloudflare")).toBe(true);
    expect(sharedCacheMarked({ "x-shared-cache": "nginx" }, "off")).toBe(false);
    expect(sharedCacheMarked({ "x-shared-cache": "nginx" }, undefined)).toBe(false);
  });
});

/**
 * A process in miniature over real HTTP: the guard and the page cache as server/app.ts stacks them
 * (server.js's compression around them: tests/fault/shared-cache-late-notice.test.ts), and a page
 * whose content and change counter the test moves without "notifying" the process (its notice late).
 */
describe("the guard in front of the page cache, over HTTP", () => {
  let server: http.Server;
  let base = "";
  const pageCache = new PageCache();
  const watch = new ChangeWatch(() => pageCache.invalidate());
  let counter = 0;
  let reads = 0;
  let unreadable = false;
  let content = "v1";
  let cacheControl = CONTENT_CACHE;
  /** Runs while the page renders (a change committed meanwhile). */
  let duringRender: () => void = () => undefined;

  beforeAll(async () => {
    const app = express();
    app.use(
      sharedCacheGuard({
        readCount: async () => {
          reads++;
          if (unreadable) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
          return counter;
        },
        watch,
        marked: (headers) => sharedCacheMarked(headers, "nginx"),
      }),
    );
    app.use(pageCacheMiddleware(pageCache, { enabled: () => true, nextChange: async () => null }));
    app.get("/page", async (_req, res) => {
      const shown = content;
      await new Promise((r) => setTimeout(r, 5));
      duringRender();
      res.set("Cache-Control", cacheControl).set("Cache-Tag", "site").type("html");
      // In pieces, as a streamed page is written.
      res.write(`<p>${shown}</p>`);
      res.end(`<p>${"padding ".repeat(200)}</p>`);
    });
    app.get("/cookie", (_req, res) => {
      res.cookie("csrf", "x").set("Cache-Control", NO_STORE).type("html").send("<p>form</p>");
    });
    server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  beforeEach(() => {
    counter = 0;
    reads = 0;
    unreadable = false;
    content = "v1";
    cacheControl = CONTENT_CACHE;
    duringRender = () => undefined;
    pageCache.invalidate();
    watch.caughtUp = 0;
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const r = await fetch(`${base}${path}`, { headers: { "Accept-Encoding": "gzip", ...headers } });
    return { status: r.status, headers: r.headers, text: await r.text() };
  };
  const marked = { "X-Shared-Cache": "nginx" };
  /** The process has the page stored (a hit), then a change commits that it has not heard of. */
  async function storedThenChangedUnheard() {
    await get("/page");
    expect((await get("/page")).headers.get("x-page-cache")).toBe("hit");
    content = "v2";
    counter = 1;
    // Behind: its own visitors still get the page it stored.
    const unmarked = await get("/page");
    expect(unmarked.headers.get("x-page-cache")).toBe("hit");
    expect(unmarked.text).toContain("v1");
  }

  it("a request without the mark reads nothing: the process alone pays nothing", async () => {
    await get("/page");
    await get("/page");
    expect(reads).toBe(0);
  });

  it("a process behind on a change catches up before answering the cache: the new page, storable", async () => {
    await storedThenChangedUnheard();
    const r = await get("/page", marked);
    expect(r.status).toBe(200);
    expect(r.text).toContain("v2");
    expect(r.headers.get("cache-control")).toBe(CONTENT_CACHE);
    expect(r.headers.get("cache-tag")).toBe("site");
    expect(watch.caughtUp).toBe(1);
    // Caught up: its own visitors get the new page too, and the next marked request finds it stored.
    expect((await get("/page")).text).toContain("v2");
    const hit = await get("/page", marked);
    expect(hit.headers.get("x-page-cache")).toBe("hit");
    expect(hit.text).toContain("v2");
    expect(hit.headers.get("cache-control")).toBe(CONTENT_CACHE);
  });

  it("an answer during which a change committed is not stored by the cache", async () => {
    duringRender = () => {
      counter = 7;
    };
    const r = await get("/page", marked);
    expect(r.status).toBe(200);
    expect(r.text).toContain("v1");
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.headers.get("cache-tag")).toBeNull();
    // …and the process caught up with it on the way out.
    expect(watch.caughtUp).toBe(7);
  });

  it("the counter cannot be read: the answer as the process can give it, kept one second at most, never an error", async () => {
    await storedThenChangedUnheard();
    unreadable = true;
    const r = await get("/page", marked);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe(SHARED_CACHE_UNCHECKED);
  });

  it("an answer the cache may not store anyway is not held for a second read", async () => {
    cacheControl = NO_STORE;
    const r = await get("/page", marked);
    expect(r.headers.get("cache-control")).toBe(NO_STORE);
    expect(reads).toBe(1);
    reads = 0;
    const form = await get("/cookie", marked);
    expect(form.status).toBe(200);
    expect(form.headers.get("set-cookie")).toContain("csrf=x");
    expect(reads).toBe(1);
    // A visitor's own cookie: no check at all (the answer is private).
    reads = 0;
    await get("/page", { ...marked, Cookie: "__Host-gh_portal=someone" });
    expect(reads).toBe(0);
  });
});
