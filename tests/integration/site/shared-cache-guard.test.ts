/**
 * The shared-cache guard (issue 41, decision 710), over real HTTP against the BUILT server
 * (tests/integration/support/built-server.ts) on both drivers: a process that has not heard of a
 * committed change (its change notification held back by the test-only CHANGE_NOTICE_DELAY_MS, as on a
 * loaded machine) still answers its own visitors from its page cache, but gives a request the cache in
 * front may store (`X-Shared-Cache: nginx`, or Cloudflare's `CDN-Loop`) the new page, never the old one
 * with a lifetime a shared cache would keep.
 */
// First: it gives this process and the built app one session secret.
import { freePort, startBuiltServer, type BuiltServer } from "../support/built-server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCloudflareFake, type RunningCloudflareFake } from "../../../cloudflare-fake/server";
import type { DatabaseHandle } from "~/db/client.server";
import { readPageChanges } from "~/db/page-changes.server";
import { locations } from "~/db/schema";
import { createTestDatabase } from "../support/db";

const SLUG = "lumberton-nc-28358";
const PAGE = `/locations/${SLUG}`;
let handle: DatabaseHandle;
let server: BuiltServer;
let fake: RunningCloudflareFake;
let lumberton = 0;

async function get(path: string, headers: Record<string, string> = {}) {
  const r = await fetch(server.urlFor(path), { headers: { "Accept-Encoding": "gzip", ...headers }, redirect: "manual" });
  return { status: r.status, headers: r.headers, body: await r.text() };
}

/** Asks (without the mark) until the process answers from its page cache. */
async function untilStored(path: string) {
  for (let i = 0; i < 20; i++) {
    const r = await get(path);
    if (r.headers.get("x-page-cache") === "hit") return r;
  }
  throw new Error(`${path} was never stored`);
}

/** A committed change to what the page shows, made beside the server (it hears of it 10 minutes late). */
async function changeDescription(text: string) {
  const before = await readPageChanges(handle.db);
  await handle.db.update(locations).set({ metaDescription: text }).where(eq(locations.id, lumberton));
  // Counted once, at its commit.
  expect(await readPageChanges(handle.db)).toBe(before + 1);
}

beforeAll(async () => {
  fake = await startCloudflareFake();
  process.env.CACHE_PURGE = "cloudflare";
  process.env.CLOUDFLARE_ZONE_ID = fake.zoneId;
  process.env.CLOUDFLARE_API_TOKEN = fake.apiToken;
  process.env.CLOUDFLARE_API_BASE = fake.url;
  // This process hears of every change ten minutes late (NODE_ENV=test: the switch acts).
  process.env.CHANGE_NOTICE_DELAY_MS = "600000";
  handle = await createTestDatabase({ seeded: true });
  const [loc] = await handle.db.select().from(locations).where(eq(locations.urlSlug, SLUG));
  lumberton = loc!.id;
  server = await startBuiltServer(handle, { port: await freePort() });
}, 600_000);

afterAll(async () => {
  await server?.close();
  await handle?.close();
  await fake?.close();
  for (const name of ["CACHE_PURGE", "CLOUDFLARE_ZONE_ID", "CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_BASE", "CHANGE_NOTICE_DELAY_MS"]) delete process.env[name];
});

describe("a process behind on changes never hands the shared cache the old page (decision 710)", () => {
  it("answers the cache's request with the new page, storable, while its own visitors still get the stored one", async () => {
    await changeDescription("Before the guard test.");
    // The process has the page stored (it has caught up once, through the cache's first request).
    expect((await get(PAGE, { "X-Shared-Cache": "nginx" })).body).toContain("Before the guard test.");
    await untilStored(PAGE);

    await changeDescription("Published, heard of late.");
    // Behind: not notified, so its own page cache still answers with the old page.
    const own = await get(PAGE);
    expect(own.headers.get("x-page-cache")).toBe("hit");
    expect(own.body).not.toContain("Published, heard of late.");

    // The cache in front asks: the new page, with the lifetime and tags a shared cache keeps.
    const forCache = await get(PAGE, { "X-Shared-Cache": "nginx" });
    expect(forCache.status).toBe(200);
    expect(forCache.body).toContain("Published, heard of late.");
    expect(forCache.headers.get("cache-control")).toMatch(/^public, .*s-maxage=\d+/);
    expect(forCache.headers.get("cache-tag")).toContain(`location-${lumberton}`);
    // Caught up: its own visitors get the new page too.
    expect((await get(PAGE)).body).toContain("Published, heard of late.");
  });

  it("Cloudflare's requests (CDN-Loop) are the cache's too", async () => {
    await untilStored(PAGE);
    await changeDescription("Published again, heard of late again.");
    expect((await get(PAGE)).body).not.toContain("Published again, heard of late again.");
    const forCloudflare = await get(PAGE, { "CDN-Loop": "cloudflare" });
    expect(forCloudflare.body).toContain("Published again, heard of late again.");
    expect(forCloudflare.headers.get("cache-control")).toMatch(/^public, .*s-maxage=\d+/);
  });

  it("a request the cache in front does not store (a query string, a visitor's cookie) is not checked, and answered as before", async () => {
    await untilStored(PAGE);
    await changeDescription("Not yet for visitors of this process.");
    // Without the mark: the stored page, as before the guard (the notification would drop it).
    expect((await get(PAGE)).body).not.toContain("Not yet for visitors of this process.");
    const personal = await get(PAGE, { "X-Shared-Cache": "nginx", Cookie: "__Host-gh_portal=someone" });
    expect(personal.headers.get("cache-control")).toBe("private, no-store");
  });
});
