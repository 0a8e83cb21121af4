/**
 * The site cache (issue 10, docs/decisions/120-site-cache.md) over real HTTP against the built
 * server: with the layout, settings and redirect rules kept in the process, a public page that is not
 * in the page cache sends at most two statements to the database; a change to the layout or to the
 * redirect rules shows on the very next request of this process. (Other processes: the fault test
 * tests/fault/processes.test.ts, two servers on one PostgreSQL.)
 */
import { expect, test, type APIRequestContext } from "@playwright/test";
import { testHook } from "../support/hooks";

test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "HTTP only: one browser project is enough");

interface Counted {
  count: number;
  statements: string[];
}

/** Statements each request for `url` sent, oldest first (the page cache's storing step included). */
async function queryCounts(request: APIRequestContext, url: string): Promise<Counted[]> {
  const r = await request.get(`/__test/query-count?url=${encodeURIComponent(url)}`);
  expect(r.ok()).toBe(true);
  return (await r.json()) as Counted[];
}

/** Requests `url` until the page cache serves it: its first answer's storing step has finished then. */
async function untilCached(request: APIRequestContext, url: string) {
  for (let i = 0; i < 40; i++) {
    const r = await request.get(url);
    if (r.headers()["x-page-cache"] === "hit") return "hit";
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

const PAGES = ["/locations/lumberton-nc-28358", "/", "/units", "/view-locations", "/about", "/faqs", "/storage-tips", "/portable-storage"];

test("a public page that is not in the page cache sends at most 2 statements (layout cache warm)", async ({ request }) => {
  // Warm: every page rendered once (the layout, settings, redirect rules, location list and each
  // location's storage-software choice, kept 30 s, are read then). A query string of its own, so the
  // page cache (filled by earlier specs, maybe minutes ago) cannot answer instead of a render.
  const run = Date.now();
  for (const path of PAGES) expect((await request.get(`${path}?warm=${run}`)).status()).toBe(200);
  for (const path of PAGES) {
    // A query string the page cache has never seen: rendered again, from the database and the site cache.
    const url = `${path}?miss=${run}`;
    const miss = await request.get(url);
    expect(miss.status()).toBe(200);
    expect(miss.headers()["x-page-cache"]).toBe("miss");
    expect(await untilCached(request, url)).toBe("hit");
    const [first] = await queryCounts(request, url);
    expect(first, `${url}: ${JSON.stringify(first?.statements)}`).toBeDefined();
    // /units reads each listed location's catalogue (one statement each): a location added from the
    // console by an earlier spec (content/new-location) is one more. Every other page: at most two.
    const listed = path === "/units" ? new Set((await miss.text()).match(/\/locations\/[a-z0-9-]+-\d{5}(?=[/"])/g) ?? []).size : 0;
    expect(first!.count, `${url}: ${first!.statements.join("\n")}`).toBeLessThanOrEqual(Math.max(2, listed));
  }
});

test("a page for a visitor with a session cookie (never stored) also reads the layout from the cache", async ({ request }) => {
  await request.get("/about");
  const url = `/about?visitor=${Date.now()}`;
  const r = await request.get(url, { headers: { Cookie: "flash=x" } });
  expect(r.status()).toBe(200);
  expect(r.headers()["x-page-cache"]).toBeUndefined();
  const [first] = await queryCounts(request, url);
  expect(first!.count, first!.statements.join("\n")).toBe(0);
});

test("a change to the layout shows on the very next request", async ({ request }) => {
  const label = `Unit sizes ${Date.now()}`;
  await request.get("/view-locations");
  expect(await untilCached(request, "/view-locations")).toBe("hit");
  const { renamed } = await testHook<{ renamed: number }>(request, "renameMenuItem", { from: "Size Guide", to: label });
  expect(renamed).toBeGreaterThan(0);
  try {
    expect(await (await request.get("/view-locations")).text()).toContain(label);
    // A page whose own loader reads nothing of the menus: the layout alone shows it.
    expect(await (await request.get(`/faqs?after=${Date.now()}`)).text()).toContain(label);
  } finally {
    await testHook(request, "renameMenuItem", { from: label, to: "Size Guide" });
  }
  const back = await (await request.get("/view-locations")).text();
  expect(back).not.toContain(label);
  expect(back).toContain("Size Guide");
});

test("a new or removed redirect rule applies on the very next request", async ({ request }) => {
  const from = `/old-page-${Date.now()}`;
  expect((await request.get(from, { maxRedirects: 0 })).status()).toBe(404);
  await testHook(request, "setRedirect", { fromPath: from, toPath: "/about" });
  try {
    const moved = await request.get(from, { maxRedirects: 0 });
    expect(moved.status()).toBe(301);
    expect(moved.headers()["location"]).toBe("/about");
  } finally {
    await testHook(request, "setRedirect", { fromPath: from, remove: true });
  }
  expect((await request.get(from, { maxRedirects: 0 })).status()).toBe(404);
});
