/**
 * The cache in front, purged by tag (issue 41, decisions 570–572), over real HTTP against the BUILT
 * server (tests/integration/support/built-server.ts) with CACHE_PURGE=cloudflare and the Cloudflare
 * fake (cloudflare-fake/) as its API, on both drivers:
 * - public pages carry the cache tags of what they show (`Cache-Tag`) and a shared-cache lifetime;
 * - anything personal (an answer setting a cookie, a request with a visitor's cookie, the console) says
 *   `private, no-store` and carries no tags;
 * - a publish through the console, a rollback, a price change and an inventory change each purge
 *   exactly the tags they touch; a draft edit purges nothing.
 */
// First: it gives this process and the built app one session secret.
import { freePort, startBuiltServer, type BuiltServer } from "../support/built-server";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCloudflareFake, type RunningCloudflareFake } from "../../../cloudflare-fake/server";
import type { DatabaseHandle } from "~/db/client.server";
import { readTaggedPages } from "~/db/queries/tagged-pages.server";
import { locations, unitTypes, units } from "~/db/schema";
import { CSRF_FIELD } from "~/services/web/csrf.server";
import { readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { restoreVersion } from "~/services/content/publish.server";
import { SETTLE_MS } from "~/services/web/shared-cache.server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

const SLUG = "lumberton-nc-28358";
let handle: DatabaseHandle;
let server: BuiltServer;
let fake: RunningCloudflareFake;
let owner: TestStaffMember;
let lumberton: number;
let lumbertonTypes: number[];

async function get(path: string, cookie?: string) {
  const r = await fetch(server.urlFor(path), { headers: cookie ? { Cookie: cookie } : {}, redirect: "manual" });
  return { status: r.status, headers: r.headers, body: await r.text() };
}

const tagsOf = (headers: Headers) => (headers.get("cache-tag") ?? "").split(",").filter(Boolean);

/** The tags purged once the purges settle (the notification reaches the server, which claims and sends them). */
async function purgedAfter(change: () => Promise<unknown>): Promise<string[]> {
  fake.reset();
  await change();
  let seen = -1;
  // Settled: something purged and nothing more for 300 ms (or nothing at all within 2 s).
  for (let waited = 0; waited < 2_000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    if (fake.purges.length > 0 && fake.purges.length === seen) break;
    seen = fake.purges.length;
  }
  // …and the second purge of the same tags (decision 578), so none lands in the next test.
  await new Promise((r) => setTimeout(r, SETTLE_MS + 300));
  return [...new Set(fake.purgedTags())].sort();
}

async function draftEdit(values: Record<string, string>) {
  const before = await readEffectiveRecord(handle.db, owner.signedIn, "location", lumberton);
  const base = Object.fromEntries(Object.keys(values).map((k) => [k, before!.values[k]]));
  const r = await saveDraftEdit(handle.db, owner.signedIn, { op: "update", entity: "location", recordId: lumberton, values, base });
  if (!r.ok) throw new Error(`draft edit refused: ${JSON.stringify(r)}`);
  return r.changesetId;
}

beforeAll(async () => {
  fake = await startCloudflareFake();
  process.env.CACHE_PURGE = "cloudflare";
  process.env.CLOUDFLARE_ZONE_ID = fake.zoneId;
  process.env.CLOUDFLARE_API_TOKEN = fake.apiToken;
  process.env.CLOUDFLARE_API_BASE = fake.url;
  handle = await createTestDatabase({ seeded: true });
  const [loc] = await handle.db.select().from(locations).where(eq(locations.urlSlug, SLUG));
  lumberton = loc!.id;
  lumbertonTypes = (await handle.db.select({ id: unitTypes.id }).from(unitTypes).where(eq(unitTypes.locationId, lumberton))).map((t) => t.id);
  owner = await signedInStaffMember(handle.db, { accountId: loc!.accountId, role: "owner" });
  server = await startBuiltServer(handle, { port: await freePort() });
  // At start the server purges what the seed queued while no server ran.
  for (let i = 0; i < 50 && fake.purges.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  expect(fake.purgedTags()).toContain("site");
  // …and its second purge (decision 578), before the tests count theirs.
  await new Promise((r) => setTimeout(r, SETTLE_MS + 300));
}, 600_000);

afterAll(async () => {
  await server?.close();
  await handle?.close();
  await fake?.close();
  for (const name of ["CACHE_PURGE", "CLOUDFLARE_ZONE_ID", "CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_BASE"]) delete process.env[name];
});

describe("the cache in front, purged by tag (issue 41)", () => {
  it("public pages carry the tags of what they show, and a shared-cache lifetime", async () => {
    const page = await get(`/locations/${SLUG}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toMatch(/^public, .*s-maxage=\d+/);
    const tags = tagsOf(page.headers);
    expect(tags).toEqual(expect.arrayContaining(["site", "locations", `location-${lumberton}`, ...lumbertonTypes.map((id) => `unit-type-${id}`)]));
    // Only this location's: no other location's or unit type's tag.
    expect(tags.filter((t) => t.startsWith("location-"))).toEqual([`location-${lumberton}`]);

    const home = tagsOf((await get("/")).headers);
    expect(home).toEqual(expect.arrayContaining(["site", "page-home", `location-${lumberton}`, "faqs"]));
    expect(tagsOf((await get("/faqs")).headers)).toEqual(["site", "locations", "page-faqs", "faqs"]);
    // A stored page (the page cache's hit) carries the same tags.
    let hit = await get("/faqs");
    for (let i = 0; i < 20 && hit.headers.get("x-page-cache") !== "hit"; i++) hit = await get("/faqs");
    expect(hit.headers.get("x-page-cache")).toBe("hit");
    expect(tagsOf(hit.headers)).toEqual(["site", "locations", "page-faqs", "faqs"]);
  });

  it("every page the sitemap lists is one the nginx purge knows, with the tags the page carries", async () => {
    const pages = await readTaggedPages({ db: handle.db });
    const sitemap = (await get("/sitemap.xml")).body;
    const listed = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => new URL(m[1]!).pathname);
    expect(listed.length).toBeGreaterThan(10);
    for (const path of listed) {
      const r = await get(path);
      if (!/public/.test(r.headers.get("cache-control") ?? "")) continue; // forms: never in a shared cache
      expect(pages.has(path), path).toBe(true);
      expect(tagsOf(r.headers), path).toEqual(pages.get(path));
    }
  }, 60_000);

  it("nothing personal is ever stored by a shared cache: private, no-store, and no tags", async () => {
    // A page with a form sets its CSRF cookie.
    const contact = await get("/contact");
    expect(contact.headers.getSetCookie().length).toBeGreaterThan(0);
    expect(contact.headers.get("cache-control")).toBe("private, no-store");
    expect(contact.headers.get("cache-tag")).toBeNull();
    // A public page asked for with a visitor's own cookie (a portal session, a flash message).
    for (const cookie of ["__Host-gh_portal=abc", "flash=hello"]) {
      const r = await get(`/locations/${SLUG}`, cookie);
      expect(r.status, cookie).toBe(200);
      expect(r.headers.get("cache-control"), cookie).toBe("private, no-store");
      expect(r.headers.get("cache-tag"), cookie).toBeNull();
    }
    // The console.
    const console = await get("/admin/changes", owner.cookie);
    expect(console.status).toBe(200);
    expect(console.headers.get("cache-control")).toMatch(/no-store/);
    expect(console.headers.get("cache-control")).toMatch(/private/);
    expect(console.headers.get("cache-tag")).toBeNull();
  });

  it("a draft edit purges nothing; its publish through the console purges exactly the location's tags; a rollback the same", async () => {
    let changesetId = 0;
    expect(await purgedAfter(async () => (changesetId = await draftEdit({ metaTagline: "Purged on publish" })))).toEqual([]);

    const page = await get("/admin/changes", owner.cookie);
    const token = new RegExp(`name="${CSRF_FIELD}" value="([^"]+)"`).exec(page.body)?.[1];
    expect(token).toBeTruthy();
    const published = await purgedAfter(async () => {
      const r = await fetch(server.urlFor("/admin/changes"), {
        method: "POST",
        redirect: "manual",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: owner.cookie, Origin: server.consoleOrigin },
        body: new URLSearchParams({ [CSRF_FIELD]: token!, changesetId: String(changesetId), intent: "publish" }),
      });
      expect(r.status).toBe(303);
      expect(r.headers.get("location")).toMatch(/done=published/);
    });
    // The location's own row changed: its pages, and the location list every page's layout shows.
    expect(published).toEqual([`location-${lumberton}`, "locations"].sort());
    expect((await get(`/locations/${SLUG}`)).body).toContain("Purged on publish");

    const rolledBack = await purgedAfter(async () => {
      const r = await restoreVersion(handle.db, owner.signedIn, 0);
      expect(r).toMatchObject({ ok: true });
    });
    expect(rolledBack).toEqual([`location-${lumberton}`, "locations"].sort());
    expect((await get(`/locations/${SLUG}`)).body).not.toContain("Purged on publish");
  });

  it("a price change and an inventory change purge their unit type and its location, once and once more when settled", async () => {
    const typeId = lumbertonTypes[0]!;
    const [type] = await handle.db.select().from(unitTypes).where(eq(unitTypes.id, typeId));
    const price = await purgedAfter(() => handle.db.update(unitTypes).set({ webRate: type!.webRate + 500 }).where(eq(unitTypes.id, typeId)));
    expect(price).toEqual([`location-${lumberton}`, `unit-type-${typeId}`].sort());
    // One purge for the change, and the same tags again SETTLE_MS later (decision 578).
    expect(fake.purges).toHaveLength(2);
    expect(fake.purges[1]!.tags).toEqual(fake.purges[0]!.tags);

    const [unit] = await handle.db.select().from(units).where(and(eq(units.locationId, lumberton), eq(units.status, "available")));
    const inventory = await purgedAfter(() => handle.db.update(units).set({ status: "rented" }).where(eq(units.id, unit!.id)));
    expect(inventory).toEqual([`location-${lumberton}`, `unit-type-${unit!.unitTypeId}`].sort());
    expect(fake.purges).toHaveLength(2);
    expect(fake.purges[1]!.tags).toEqual(fake.purges[0]!.tags);
  });

  it("a purge Cloudflare refuses is sent again", async () => {
    fake.reset();
    fake.failNext(1);
    const typeId = lumbertonTypes[1] ?? lumbertonTypes[0]!;
    await handle.db.update(unitTypes).set({ promotionKind: "percent", promotionPercent: 100 }).where(eq(unitTypes.id, typeId));
    for (let i = 0; i < 80 && fake.purges.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(fake.purgedTags().sort()).toEqual([`location-${lumberton}`, `unit-type-${typeId}`].sort());
  }, 15_000);
});
