/**
 * Preview mode and the draft's diff (issue 24, decisions 315–318), over real HTTP against the BUILT
 * server (tests/integration/support/built-server.ts: server/app.ts with its page cache, on this test's
 * database), on both drivers:
 * - a draft (Lumberton's Saturday office hours, its tagline) shows in preview for a staff member who
 *   turned preview on, and never for a visitor: no cookie, a preview cookie alone, another member's
 *   session with it, an expired session;
 * - the page cache never serves a preview to a visitor, and never serves the live page to a preview;
 * - a preview writes nothing: the live rows are unchanged and no change notification is sent;
 * - a form sent in preview is refused with a message, and nothing is stored;
 * - the diff lists the location page with its text before and after, and the fields changed, and
 *   leaves out the pages that do not change; the pages it does not render (decision 661: a change at a
 *   location reaches only the pages that read what it changes) are the pages that would not change.
 */
// First: it gives this process and the built app one session secret.
import { startBuiltServer, type BuiltServer } from "../support/built-server";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { and, asc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { amenities, auditEvents, contactMessages, hoursBlocks, hoursItems, locations, staffSessions, unitTypes, websites } from "~/db/schema";
import { PREVIEW_BANNER_TEXT, PREVIEW_FORM_REFUSED } from "~/domain/content/preview";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { currentDraftId, draftLocationPublication, readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { draftDiff, type RenderPublicPage } from "~/services/content/page-diff.server";
import { discardChangeset } from "~/services/content/publish.server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

const LOCATION_PATH = "/locations/lumberton-nc-28358";
const LIVE_SATURDAY = "9:00 AM – 2:00 PM";
const DRAFT_SATURDAY = "9:00 AM – 4:00 PM";
/** The office's Saturday hours as the location page shows them (its row of the hours table), or null. */
const saturday = (html: string) => /<th scope="row">Sat(?:<span[^>]*>[^<]*<\/span>)?<\/th><td>([^<]*)<\/td>/.exec(html)?.[1] ?? null;
const DRAFT_TAGLINE = "Now open later on Saturdays";

let handle: DatabaseHandle;
let server: BuiltServer;
let owner: TestStaffMember;
let otherManager: TestStaffMember;
let desk: TestStaffMember;
let saturdayItemId: number;
let lumberton: number;
let liveTagline: string;
let csrf: { cookie: string; token: string };

/** The console's paths on its own origin, the public site's on its own (decision 450). */
const originOf = (path: string) => (path.startsWith("/admin") ? server.consoleOrigin : server.origin);

async function get(path: string, cookie?: string) {
  const r = await fetch(originOf(path) + path, { headers: cookie ? { Cookie: cookie } : {}, redirect: "manual" });
  return { status: r.status, headers: r.headers, body: await r.text() };
}

async function post(path: string, cookie: string, form: Record<string, string>) {
  const r = await fetch(originOf(path) + path, {
    method: "POST",
    headers: { Cookie: `${cookie}; ${csrf.cookie}`, "Content-Type": "application/x-www-form-urlencoded", Origin: originOf(path) },
    body: new URLSearchParams({ [CSRF_FIELD]: (await getCsrfToken(new Request(originOf(path) + path, { headers: { Cookie: `${cookie}; ${csrf.cookie}` } }))).token, ...form }).toString(),
    redirect: "manual",
  });
  return { status: r.status, headers: r.headers, body: await r.text() };
}

/**
 * Turns preview on for a member's session: the console (its own origin) hands a grant to the public
 * site's /preview/start (decision 450), which sets the site's own cookie. Returns the `gh_preview=…` pair.
 */
async function previewOn(member: TestStaffMember): Promise<string> {
  const r = await post("/admin/preview", member.cookie, { intent: "on", returnTo: LOCATION_PATH });
  expect(r.status).toBe(303);
  const start = new URL(r.headers.get("location")!);
  expect(start.origin).toBe(server.origin);
  expect(start.pathname).toBe("/preview/start");
  expect(r.headers.getSetCookie().some((c) => c.startsWith("gh_preview="))).toBe(false);
  const taken = await get(`${start.pathname}${start.search}`);
  expect(taken.status).toBe(303);
  expect(taken.headers.get("location")).toBe(LOCATION_PATH);
  const cookie = taken.headers.getSetCookie().find((c) => c.startsWith("gh_preview="));
  expect(cookie).toBeDefined();
  return cookie!.split(";")[0]!;
}

/** Requests `path` anonymously until the page cache serves it (it is stored just after its first answer). */
async function untilCached(path: string) {
  for (let i = 0; i < 40; i++) {
    const r = await get(path);
    if (r.headers.get("x-page-cache") === "hit") return r;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${path} was never served from the page cache`);
}

const clearsPreview = (headers: Headers) => headers.getSetCookie().some((c) => /^gh_preview=;/.test(c) && /Expires=Thu, 01 Jan 1970/i.test(c));

beforeAll(async () => {
  handle = await createTestDatabase({ seeded: true });
  const db = handle.db;
  const [loc] = await db.select().from(locations).where(eq(locations.urlSlug, "lumberton-nc-28358"));
  lumberton = loc!.id;
  liveTagline = loc!.metaTagline ?? "";
  const other = (await db.select({ id: locations.id }).from(locations)).find((l) => l.id !== lumberton)!.id;
  const [office] = await db.select().from(hoursBlocks).where(and(eq(hoursBlocks.locationId, lumberton), eq(hoursBlocks.type, "office")));
  const [saturday] = await db.select().from(hoursItems).where(and(eq(hoursItems.hoursBlockId, office!.id), eq(hoursItems.days, "Sa")));
  saturdayItemId = saturday!.id;
  owner = await signedInStaffMember(db, { accountId: loc!.accountId, role: "owner" });
  otherManager = await signedInStaffMember(db, { accountId: loc!.accountId, role: "manager", locationIds: [other] });
  desk = await signedInStaffMember(db, { accountId: loc!.accountId, role: "front_desk", locationIds: [lumberton] });
  const manager = await signedInStaffMember(db, { accountId: loc!.accountId, role: "manager", locationIds: [lumberton] });
  expect(await saveDraftEdit(db, manager.signedIn, { op: "update", entity: "hoursItem", recordId: saturdayItemId, values: { close: "16:00" }, base: { close: "14:00" } })).toMatchObject({ ok: true });
  expect(await saveDraftEdit(db, manager.signedIn, { op: "update", entity: "location", recordId: lumberton, values: { metaTagline: DRAFT_TAGLINE }, base: { metaTagline: liveTagline } })).toMatchObject({ ok: true });
  const token = await getCsrfToken(new Request("http://localhost/"));
  csrf = { cookie: token.setCookie!.split(";")[0]!, token: token.token };
  server = await startBuiltServer(handle);
}, 600_000);

afterAll(async () => {
  await server?.close();
  await handle?.close();
});

describe("preview mode (issue 24)", () => {
  it("shows the draft to the staff member in preview, with the banner, never stored and never indexed; the live page to everyone else", async () => {
    const preview = await previewOn(owner);
    const seen = await get(LOCATION_PATH, `${owner.cookie}; ${preview}`);
    expect(seen.status).toBe(200);
    expect(saturday(seen.body)).toBe(DRAFT_SATURDAY);
    expect(seen.body).toContain(DRAFT_TAGLINE);
        expect(seen.body).toContain(PREVIEW_BANNER_TEXT);
    expect(seen.body).toContain('action="/preview/end"');
    expect(seen.body).toContain('href="/admin/changes"');
    expect(seen.headers.get("cache-control")).toBe("no-store, private");
    expect(seen.headers.get("x-robots-tag")).toBe("noindex");
    expect(seen.headers.get("x-page-cache")).toBeNull();
    // The banner is plain HTML: no script more than the live page has.
    const scripts = (html: string) => html.match(/<script\b/g)?.length ?? 0;
    expect(scripts(seen.body)).toBe(scripts((await get(LOCATION_PATH)).body));
    // The sitemap and every content page are previewed; the audit trail says who turned it on.
    expect((await get("/about", `${owner.cookie}; ${preview}`)).body).toContain(PREVIEW_BANNER_TEXT);
    const [audit] = await handle.db.select().from(auditEvents).where(and(eq(auditEvents.action, "content.preview_on"), eq(auditEvents.staffId, owner.staffId)));
    expect(audit).toBeDefined();

    // A visitor: no cookie.
    const visitor = await get(LOCATION_PATH);
    expect(saturday(visitor.body)).toBe(LIVE_SATURDAY);
        expect(visitor.body).not.toContain(PREVIEW_BANNER_TEXT);
    // The public site never sees the staff cookie (decision 450): the preview cookie alone is the preview.
    expect(saturday((await get(LOCATION_PATH, preview)).body)).toBe(DRAFT_SATURDAY);
    // A grant that is made up or changed sets no cookie.
    const grant = new URL((await post("/admin/preview", owner.cookie, { intent: "on", returnTo: "/" })).headers.get("location")!).searchParams.get("grant")!;
    for (const bad of ["x", `${grant.slice(0, -2)}AA`, grant.replace(/\.(\d+)\./, (_m, t: string) => `.${Number(t) + 1}.`)]) {
      const r = await get(`/preview/start?grant=${encodeURIComponent(bad)}&returnTo=/`);
      expect(r.status).toBe(303);
      expect(r.headers.getSetCookie().some((c) => c.startsWith("gh_preview="))).toBe(false);
    }
    // A made-up value: ignored and cleared.
    const madeUp = await get(LOCATION_PATH, `${owner.cookie}; gh_preview=on`);
    expect(saturday(madeUp.body)).toBe(LIVE_SATURDAY);
    expect(clearsPreview(madeUp.headers)).toBe(true);
    // The staff member without the preview cookie sees the live site too.
    expect(saturday((await get(LOCATION_PATH, owner.cookie)).body)).toBe(LIVE_SATURDAY);
    // The rental flows and the console are never previewed.
    const rentLink = /href="(\/rent\/[^"?]+)/.exec(seen.body)?.[1];
    if (rentLink) expect((await get(rentLink, `${owner.cookie}; ${preview}`)).body).not.toContain(PREVIEW_BANNER_TEXT);
    expect((await get("/admin/preview", owner.cookie)).body).toContain("Preview the site");
  });

  it("shows a manager the whole draft, changes of other locations included (the draft is the account's)", async () => {
    const preview = await previewOn(otherManager);
    const seen = await get(LOCATION_PATH, `${otherManager.cookie}; ${preview}`);
    expect(saturday(seen.body)).toBe(DRAFT_SATURDAY);
  });

  it("ignores and clears the preview cookie once the staff session has expired, and needs content.edit to turn it on", async () => {
    const member = await signedInStaffMember(handle.db, { accountId: owner.signedIn.accountId, role: "manager", locationIds: [lumberton] });
    const preview = await previewOn(member);
    expect(saturday((await get(LOCATION_PATH, `${member.cookie}; ${preview}`)).body)).toBe(DRAFT_SATURDAY);
    await handle.db.update(staffSessions).set({ expiresAt: new Date(Date.now() - 60_000) }).where(eq(staffSessions.staffId, member.staffId));
    const after = await get(LOCATION_PATH, `${member.cookie}; ${preview}`);
    expect(saturday(after.body)).toBe(LIVE_SATURDAY);
    expect(after.body).not.toContain(PREVIEW_BANNER_TEXT);
    expect(clearsPreview(after.headers)).toBe(true);
    // A front-desk member may not turn it on.
    const refused = await post("/admin/preview", desk.cookie, { intent: "on", returnTo: "/" });
    expect(refused.status).toBe(403);
    expect(refused.headers.getSetCookie().some((c) => c.startsWith("gh_preview=") && !c.startsWith("gh_preview=;"))).toBe(false);
  });

  it("never lets the page cache serve a preview to a visitor, nor the live page to a preview", async () => {
    const preview = await previewOn(owner);
    const staff = `${owner.cookie}; ${preview}`;
    // Preview first: asked several times, never stored.
    for (let i = 0; i < 3; i++) {
      const r = await get("/view-locations", staff);
      expect(r.headers.get("x-page-cache")).toBeNull();
      expect(r.body).toContain(PREVIEW_BANNER_TEXT);
    }
    const first = await get("/view-locations");
    expect(first.headers.get("x-page-cache")).toBe("miss");
    expect(first.body).not.toContain(PREVIEW_BANNER_TEXT);
    const cached = await untilCached("/view-locations");
    expect(cached.body).not.toContain(PREVIEW_BANNER_TEXT);
    // The location page: a visitor stores the live page; the preview still gets the draft.
    const live = await untilCached(LOCATION_PATH);
    expect(saturday(live.body)).toBe(LIVE_SATURDAY);
    const previewed = await get(LOCATION_PATH, staff);
    expect(previewed.headers.get("x-page-cache")).toBeNull();
    expect(saturday(previewed.body)).toBe(DRAFT_SATURDAY);
    // And the stored live page is still what a visitor gets; the preview cookie alone (the public site
    // never sees the staff cookie, decision 450) is never answered from the cache.
    expect(saturday((await get(LOCATION_PATH)).body)).toBe(LIVE_SATURDAY);
    const again = await get(LOCATION_PATH, preview);
    expect(again.headers.get("x-page-cache")).toBeNull();
    expect(saturday(again.body)).toBe(DRAFT_SATURDAY);
      });

  it("writes nothing: the live rows are unchanged and no change notification is sent", async () => {
    const preview = await previewOn(owner);
    let notified = 0;
    const stop = handle.listen("gatehouse_changed", () => notified++);
    try {
      const generation = server.pageCache.generation;
      for (let i = 0; i < 3; i++) expect(saturday((await get(LOCATION_PATH, `${owner.cookie}; ${preview}`)).body)).toBe(DRAFT_SATURDAY);
      const [item] = await handle.db.select().from(hoursItems).where(eq(hoursItems.id, saturdayItemId));
      expect(item!.close).toBe("14:00");
      const [loc] = await handle.db.select().from(locations).where(eq(locations.id, lumberton));
      expect(loc!.metaTagline ?? "").toBe(liveTagline);
      // A control notification: it comes after any the previews could have sent (in commit order).
      await handle.db.execute(sql`select pg_notify('gatehouse_changed', 'control')`);
      for (let i = 0; i < 200 && notified === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(notified).toBe(1);
      expect(server.pageCache.generation).toBeGreaterThanOrEqual(generation);
    } finally {
      await stop();
    }
  });

  it("refuses a form sent in preview, with a message, and stores nothing", async () => {
    const preview = await previewOn(owner);
    const before = await handle.db.select({ n: sql<number>`count(*)::int` }).from(contactMessages);
    const r = await post("/contact", `${owner.cookie}; ${preview}`, { name: "Preview Tester", email: "preview@example.com", phone: "", message: "Hello from the preview" });
    expect(r.status).toBe(409);
    expect(r.body).toContain(PREVIEW_FORM_REFUSED);
    expect(r.body).toContain('href="/admin/preview"');
    expect(r.headers.get("cache-control")).toBe("no-store, private");
    const after = await handle.db.select({ n: sql<number>`count(*)::int` }).from(contactMessages);
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it("leaves preview: the banner's button clears the cookie and goes back to the page, live", async () => {
    const preview = await previewOn(owner);
    const left = await get(`/preview/end?returnTo=${encodeURIComponent(LOCATION_PATH)}`, preview);
    expect(left.status).toBe(303);
    expect(left.headers.get("location")).toBe(LOCATION_PATH);
    expect(clearsPreview(left.headers)).toBe(true);
    // The console's "Leave preview" goes there too, then back to the console.
    const fromConsole = await post("/admin/preview", owner.cookie, { intent: "off" });
    expect(fromConsole.headers.get("location")).toBe(`${server.origin}/preview/end`);
    expect((await get("/preview/end", preview)).headers.get("location")).toBe(`${server.consoleOrigin}/admin/preview`);
    expect(saturday((await get(LOCATION_PATH, owner.cookie)).body)).toBe(LIVE_SATURDAY);
    const [audit] = await handle.db.select().from(auditEvents).where(and(eq(auditEvents.action, "content.preview_off"), eq(auditEvents.staffId, owner.staffId)));
    expect(audit).toBeDefined();
  });
});

describe("the draft's diff (issue 24)", () => {
  it("lists the location page with its text before and after, and the fields changed; not the pages that stay the same", async () => {
    const r = await get("/admin/changes/diff", owner.cookie);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toContain("no-store");
    // Each cell's column name (data-label, for stacked rows on a phone) aside, the table as read.
    const body = r.body.replace(/ data-label="[^"]*"/g, "");
    expect(body).toContain(`href="${LOCATION_PATH}"`);
    expect(body).toMatch(new RegExp(`<del><span class="visually-hidden">Removed: </span>Sat(?: \\(today\\))? · ${LIVE_SATURDAY}</del>`));
    expect(body).toMatch(new RegExp(`<ins><span class="visually-hidden">Added: </span>Sat(?: \\(today\\))? · ${DRAFT_SATURDAY}</ins>`));
    expect(body).toContain(DRAFT_TAGLINE);
    expect(body).not.toContain('href="/about"');
    expect(body).not.toContain('href="/faqs"');
    // The fields: entity, record, field, before → after.
    expect(body).toMatch(/<td>Hours line<\/td><td>Lumberton[^<]*, #\d+<\/td><td>Closes<\/td><td>14:00<\/td><td>16:00<\/td>/);
    expect(body).toMatch(new RegExp(`<td>Location</td><td>Lumberton[^<]*, #${lumberton}</td><td>Tagline</td><td>[^<]*</td><td>${DRAFT_TAGLINE}</td>`));
    // Computing the diff wrote nothing either.
    const [item] = await handle.db.select().from(hoursItems).where(eq(hoursItems.id, saturdayItemId));
    expect(item!.close).toBe("14:00");
  });

  it("lists a path whose redirect the draft adds, with the answer before and after, and the unit type's pages for its promotion", async () => {
    const db = handle.db;
    const [website] = await db.select({ id: websites.id }).from(websites);
    const saved = await saveDraftEdit(db, owner.signedIn, {
      op: "create",
      entity: "redirect",
      values: { websiteId: website!.id, fromPath: "/winter-specials", toPath: "/units", statusCode: 301, isForced: true },
    });
    expect(saved).toMatchObject({ ok: true });
    const [type] = await db.select({ id: unitTypes.id, kind: unitTypes.promotionKind, percent: unitTypes.promotionPercent }).from(unitTypes).where(eq(unitTypes.locationId, lumberton));
    expect(
      await saveDraftEdit(db, owner.signedIn, { op: "update", entity: "unitType", recordId: type!.id, values: { promotionKind: "percent", promotionPercent: 100 }, base: { promotionKind: type!.kind, promotionPercent: type!.percent } }),
    ).toMatchObject({ ok: true });

    const body = (await get("/admin/changes/diff", owner.cookie)).body.replace(/ data-label="[^"]*"/g, "");
    expect(body).toContain('href="/winter-specials"');
    expect(body).toContain("(answered 404)");
    expect(body).toContain("(redirects with 301 to /units)");
    // The promotion shows on the unit type's own page (and the location page), so both are listed.
    expect(body).toContain('href="/locations/lumberton-nc-28358/units/5x5-climate-controlled"');
    expect(body).toContain("Promotion: First month free");
    // A record's owner column (set by the server) is not a field the staff member changed.
    expect(body).not.toContain("<td>Website</td>");
  });

  it("finds the same pages and lines as when it renders every page of the site, for changes at locations, unit types, amenities and hours (decision 661)", async () => {
    const db = handle.db;
    // A draft of its own: the redirect above touches every page.
    await discardChangeset(db, owner.signedIn, { changesetId: (await currentDraftId(db, owner.signedIn.accountId))! });
    const [type] = await db.select({ id: unitTypes.id }).from(unitTypes).where(eq(unitTypes.locationId, lumberton)).orderBy(asc(unitTypes.id));
    const [amenity] = await db.select({ id: amenities.id }).from(amenities).where(eq(amenities.locationId, lumberton));
    const otherLocation = (await db.select({ id: locations.id, slug: locations.urlSlug }).from(locations).orderBy(asc(locations.id))).find((l) => l.id !== lumberton)!;
    const other = otherLocation.id;
    const edits: Array<{ entity: "location" | "unitType" | "amenity" | "hoursItem"; id: number; field: string; value: string }> = [
      { entity: "location", id: lumberton, field: "metaDescription", value: "Diff check: a new description for search engines." },
      { entity: "hoursItem", id: saturdayItemId, field: "close", value: "17:00" },
      { entity: "location", id: other, field: "metaTagline", value: "Diff check: a new tagline at another location" },
      { entity: "unitType", id: type!.id, field: "description", value: "Diff check: a new unit type description." },
      { entity: "amenity", id: amenity!.id, field: "description", value: "Diff check: a new amenity description." },
    ];
    for (const e of edits) {
      const live = await readEffectiveRecord(db, owner.signedIn, e.entity, e.id);
      expect(await saveDraftEdit(db, owner.signedIn, { op: "update", entity: e.entity, recordId: e.id, values: { [e.field]: e.value }, base: { [e.field]: live!.values[e.field] } })).toMatchObject({ ok: true });
    }
    // The built server's own renderer (the module instance the server runs).
    const built = (await import(/* @vite-ignore */ pathToFileURL(path.resolve("build/server/index.js")).href)) as { renderPublicPage: RenderPublicPage };
    const reached = await draftDiff(db, owner.signedIn.accountId, built.renderPublicPage);
    const everyPage = await draftDiff(db, owner.signedIn.accountId, built.renderPublicPage, { everyPage: true });
    expect(reached!.pages).toEqual(everyPage!.pages);
    expect(reached!.compared).toBe(everyPage!.compared);
    expect(reached!.fields).toEqual(everyPage!.fields);
    const listed = reached!.pages.map((p) => p.path);
    // The location page (its description, its unit list, its amenities), the unit type's own page, the other location's page (its tagline).
    expect(listed).toContain(LOCATION_PATH);
    expect(listed).toContain(`/locations/${otherLocation.slug}`);
    expect(listed.filter((p) => p.startsWith(`${LOCATION_PATH}/units/`))).toHaveLength(1);

    // And over HTTP, the page shows the same.
    const body = (await get("/admin/changes/diff", owner.cookie)).body;
    for (const e of edits) expect(body).toContain(e.value);
    expect(body).toContain("5:00 PM");
  });

  it("finds the same pages as when it renders every page, for a location the draft puts on the website (the layout and the lists of locations show it)", async () => {
    const db = handle.db;
    await discardChangeset(db, owner.signedIn, { changesetId: (await currentDraftId(db, owner.signedIn.accountId))! });
    const other = (await db.select({ id: locations.id, slug: locations.urlSlug }).from(locations).orderBy(asc(locations.id))).find((l) => l.id !== lumberton)!;
    await db.update(locations).set({ isPublished: false }).where(eq(locations.id, other.id));
    try {
      await db.transaction((tx) => draftLocationPublication(tx, owner.signedIn, other.id));
      const built = (await import(/* @vite-ignore */ pathToFileURL(path.resolve("build/server/index.js")).href)) as { renderPublicPage: RenderPublicPage };
      const reached = await draftDiff(db, owner.signedIn.accountId, built.renderPublicPage);
      const everyPage = await draftDiff(db, owner.signedIn.accountId, built.renderPublicPage, { everyPage: true });
      expect(reached!.pages).toEqual(everyPage!.pages);
      const listed = reached!.pages.map((p) => p.path);
      expect(listed).toContain(`/locations/${other.slug}`);
      expect(listed).toContain("/view-locations");
    } finally {
      await discardChangeset(db, owner.signedIn, { changesetId: (await currentDraftId(db, owner.signedIn.accountId))! });
      await db.update(locations).set({ isPublished: true }).where(eq(locations.id, other.id));
    }
  });
});
