/**
 * The page cache over real HTTP against the built server (issue 10, docs/decisions/081): anonymous
 * public pages are served from memory, precompressed, with an ETag; a change shows on the next
 * request; per-visitor pages and forms are never stored; stored pages carry no nonce.
 */
import { expect, test, type APIRequestContext } from "@playwright/test";
import { testHook } from "../support/hooks";

test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "HTTP only: one browser project is enough");

/** Requests `path` until it is served from the cache (a page is stored just after its first answer). */
async function untilCached(request: APIRequestContext, path: string) {
  for (let i = 0; i < 40; i++) {
    const r = await request.get(path);
    if (r.headers()["x-page-cache"] === "hit") return "hit";
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

test("a public page is stored, served again without rendering, with gzip, brotli, ETag and 304", async ({ request }) => {
  const first = await request.get("/about", { headers: { "Accept-Encoding": "identity" } });
  expect(first.status()).toBe(200);
  expect(await untilCached(request, "/about")).toBe("hit");
  const again = await request.get("/about", { headers: { "Accept-Encoding": "br" } });
  expect(again.headers()["x-page-cache"]).toBe("hit");
  expect(again.headers()["content-encoding"]).toBe("br");
  expect(await again.text()).toContain("About ");
  const gz = await request.get("/about", { headers: { "Accept-Encoding": "gzip" } });
  expect(gz.headers()["content-encoding"]).toBe("gzip");
  // One ETag per encoding (decision 193): the brotli body's does not validate the gzip one.
  const etag = again.headers()["etag"]!;
  expect(etag).toMatch(/^W\/"[\w-]+-br"$/);
  expect(gz.headers()["etag"]).not.toBe(etag);
  expect(first.headers()["etag"] ?? (await request.get("/about", { headers: { "Accept-Encoding": "identity" } })).headers()["etag"]).toMatch(/^"[\w-]+"$/);
  const notModified = await request.get("/about", { headers: { "If-None-Match": etag, "Accept-Encoding": "br" } });
  expect(notModified.status()).toBe(304);
  expect((await request.get("/about", { headers: { "If-None-Match": etag, "Accept-Encoding": "gzip" } })).status()).toBe(200);
  expect((await request.get("/about", { headers: { "If-None-Match": "*" } })).status()).toBe(304);
  const ranged = await request.get("/about", { headers: { Range: "bytes=0-9", "Accept-Encoding": "identity" } });
  expect(ranged.status()).toBe(200);
  expect(ranged.headers()["accept-ranges"]).toBe("none");
  // Security headers come along; the CSP is enforced with hashes instead of a nonce.
  const csp = again.headers()["content-security-policy"]!;
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain("'nonce-");
  expect(again.headers()["x-content-type-options"]).toBe("nosniff");
  expect(await again.text()).not.toMatch(/\snonce="/);
});

test("a refused request drops nothing: 405, 415, 400, a form that changed nothing and rental page views leave the stored page (issue 19)", async ({ request }) => {
  // A stored page ends at the next whole minute by itself: if one passed meanwhile, try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    expect(await untilCached(request, "/about")).toBe("hit");
    const minute = () => Math.floor(Date.now() / 60_000);
    const startedIn = minute();
    expect((await request.fetch("/about", { method: "PUT", maxRedirects: 0 })).status()).toBe(405);
    expect((await request.fetch("/contact", { method: "DELETE", maxRedirects: 0 })).status()).toBe(405);
    expect((await request.post("/contact", { data: { name: "x" }, maxRedirects: 0 })).status()).toBe(415);
    expect((await request.post("/contact", { headers: { "content-length": "0" }, maxRedirects: 0 })).status()).toBe(400);
    expect((await request.post("/faqs", { form: { a: "b" }, maxRedirects: 0 })).status()).toBe(405);
    // The contact form without its CSRF token or with errors: refused, nothing written.
    expect((await request.post("/contact", { form: { name: "", email: "not-an-email" }, maxRedirects: 0 })).status()).toBeGreaterThanOrEqual(400);
    // Views of the rental and reservation pages (each sends a reservation sweep that changes nothing).
    const rentPath = /href="(\/rent\/\d+)"/.exec(await (await request.get("/locations/lumberton-nc-28358/units/5x10-drive-up")).text())![1]!;
    expect((await request.get(rentPath)).status()).toBe(200);
    expect((await request.get(rentPath.replace("/rent/", "/reserve/"))).status()).toBeLessThan(500);
    const after = await request.get("/about");
    if (after.headers()["x-page-cache"] !== "hit" && minute() !== startedIn) continue;
    expect(after.headers()["x-page-cache"]).toBe("hit");
    return;
  }
  throw new Error("a minute boundary passed in each of three attempts");
});

test("a change shows on the very next request", async ({ request }) => {
  expect(await untilCached(request, "/about")).toBe("hit");
  const tagline = `Cached until it changes ${Date.now()}`;
  const { previous } = await testHook<{ previous: string }>(request, "setTagline", { tagline });
  try {
    const after = await request.get("/about");
    expect(after.headers()["x-page-cache"]).toBe("miss");
    expect(await after.text()).toContain(tagline);
  } finally {
    await testHook(request, "setTagline", { tagline: previous });
  }
  expect(await (await request.get("/about")).text()).not.toContain(tagline);
});

test("pages with a form and per-visitor requests are never stored", async ({ request }) => {
  for (let i = 0; i < 3; i++) {
    const contact = await request.get("/contact");
    expect(contact.headers()["x-page-cache"]).toBe("miss");
    expect(contact.headers()["cache-control"]).toContain("no-store");
  }
  await request.get("/view-locations");
  const signedIn = await request.get("/view-locations", { headers: { Cookie: "gh_portal=whatever" } });
  expect(signedIn.headers()["x-page-cache"]).toBeUndefined();
});

// Issue 36, finding 6 (decision 461): the first answer of a page any cache may store (a cache miss)
// carried a nonce with `Cache-Control: public, s-maxage`, so a shared cache would hand that one nonce
// to everyone. It carries hashes from its first answer, and its inline scripts still run.
test("a cacheable page's first answer (a miss) carries hashes, never a nonce, and its inline scripts run", async ({ page, request }) => {
  // The operator's custom JS is an inline script of every content page (and a write: the next answer is a miss).
  const previous = await testHook<Record<string, unknown>>(request, "setWebsiteCode", { customJs: "window.__firstAnswerScriptRan = 1;" });
  try {
    const violations: string[] = [];
    await page.exposeFunction("reportViolation", (v: string) => violations.push(v));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (e) => (window as unknown as { reportViolation: (v: string) => void }).reportViolation(`${e.violatedDirective} ${e.blockedURI}`));
    });
    const response = await page.goto("/about");
    const headers = response!.headers();
    expect(headers["x-page-cache"]).toBe("miss");
    expect(headers["cache-control"]).toMatch(/public/);
    const csp = headers["content-security-policy"]!;
    expect(csp).not.toContain("'nonce-");
    expect(csp).toMatch(/script-src [^;]*'sha256-/);
    const html = await response!.text();
    expect(html).toContain("window.__firstAnswerScriptRan = 1;");
    expect(html).not.toMatch(/\snonce="/);
    // The inline script ran (its hash is in the policy), and nothing was blocked.
    expect(await page.evaluate(() => (window as unknown as { __firstAnswerScriptRan?: number }).__firstAnswerScriptRan)).toBe(1);
    expect(violations).toEqual([]);
  } finally {
    await testHook(request, "setWebsiteCode", previous);
  }
});
