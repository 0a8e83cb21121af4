/**
 * Issue 40, "a new location from the console" (decisions 620–623), over real HTTP
 * (tests/integration/support/app-server.ts), posted as a browser without JavaScript posts the form:
 * - only an owner may open and post "Add a location" (a manager and the front desk get 403 and nothing
 *   is made); the CSRF token is required;
 * - a bad value is answered 400 beside its field, the typed values kept (never the SiteLink password);
 *   an address whose slug another location has is refused beside the ZIP code;
 * - a demo-units location is saved unpublished with its address, hours, cards, demo units and the
 *   draft's change, audited in the same transaction: not on /view-locations, its page and its rental
 *   pages 404, the sitemap leaves it out; preview (the draft applied) shows it;
 * - publishing the draft puts it on /view-locations, its page, the sitemap and the rental pages, and
 *   queues the `locations` purge (decision 570);
 * - a SiteLink location's publish is refused, with the command that checks it, until a go-live check
 *   passed with its settings.
 */
import { and, asc, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { getWebsite } from "~/db/queries/site.server";
import { listLocations } from "~/db/queries/locations.server";
import { addresses, auditEvents, cachePurges, changesetChanges, hoursBlocks, hoursItems, locations, paymentTypes, sitelinkSites, unitTypes, units } from "~/db/schema";
import { currentDraftId } from "~/services/content/changesets.server";
import { publishDueChangesets, scheduleChangeset } from "~/services/content/publish.server";
import { changesets, rateLimitHits } from "~/db/schema";
import { withDraftApplied } from "~/services/content/preview.server";
import { recordSimulatorPass } from "~/storage-software/index.server";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

let handle: DatabaseHandle;
let app: AppServer;
let csrf: { cookie: string; token: string };
let accountId: number;
const who = {} as Record<"owner" | "manager" | "desk", TestStaffMember>;
const PATH = "/admin/content/locations/new";

beforeAll(async () => {
  handle = await createTestDatabase({ seeded: true });
  const { db } = handle;
  const site = (await getWebsite(db))!;
  accountId = site.accountId;
  const [lumberton] = await db.select({ id: locations.id }).from(locations).where(eq(locations.urlSlug, "lumberton-nc-28358"));
  who.owner = await signedInStaffMember(db, { accountId, role: "owner" });
  who.manager = await signedInStaffMember(db, { accountId, role: "manager", locationIds: [lumberton!.id] });
  who.desk = await signedInStaffMember(db, { accountId, role: "front_desk", locationIds: [lumberton!.id] });
  const minted = await getCsrfToken(new Request("http://localhost/admin"));
  csrf = { cookie: minted.setCookie!.split(";")[0]!, token: minted.token };
  app = await startAppServer(db);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await handle?.close();
});

async function get(path: string, member?: TestStaffMember) {
  const res = await fetch(app.origin + path, { redirect: "manual", headers: member ? { Cookie: member.cookie } : {} });
  return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
}

async function post(path: string, fields: Record<string, string>, member: TestStaffMember, options: { token?: boolean } = {}) {
  const token = (await getCsrfToken(new Request(app.origin + path, { headers: { Cookie: member.cookie } }))).token;
  const body = new URLSearchParams([...(options.token === false ? [] : [[CSRF_FIELD, token] as [string, string]]), ...Object.entries(fields)]);
  const res = await fetch(app.origin + path, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: `${csrf.cookie}; ${member.cookie}`, Referer: app.origin + path },
    body,
  });
  return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
}

const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** What an owner types for a demo-units location in Whiteville, NC. */
function whiteville(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    name: "Whiteville",
    status: "Live",
    street1: "410 S Madison St",
    street2: "",
    city: "Whiteville",
    stateProvince: "NC",
    postal: "28472",
    timeZone: "America/New_York",
    phoneNumber: "910 555 0188",
    sms: "(910) 555-0189",
    gate_weekdays: "hours",
    gate_weekdays_open: "06:00",
    gate_weekdays_close: "22:00",
    gate_saturday: "hours",
    gate_saturday_open: "06:00",
    gate_saturday_close: "22:00",
    gate_sunday: "24h",
    office_weekdays: "hours",
    office_weekdays_open: "09:00",
    office_weekdays_close: "18:00",
    office_saturday: "hours",
    office_saturday_open: "09:00",
    office_saturday_close: "14:00",
    office_sunday: "closed",
    software: "demo",
    ...overrides,
  };
}

async function locationCount() {
  return (await handle.db.select({ id: locations.id }).from(locations)).length;
}

describe("who may add a location", () => {
  it("an owner sees the form; a manager and the front desk get 403, and their post makes nothing", async () => {
    const page = await get(PATH, who.owner);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Add a location");
    expect(page.body).toContain('name="sitelinkEndpoint"');
    expect((await get("/admin/content", who.owner)).body).toContain(`href="${PATH}"`);
    expect((await get("/admin/content", who.manager)).body).not.toContain(`href="${PATH}"`);
    const before = await locationCount();
    for (const member of [who.manager, who.desk]) {
      expect((await get(PATH, member)).status).toBe(403);
      expect((await post(PATH, whiteville(), member)).status).toBe(403);
    }
    expect(await locationCount()).toBe(before);
  });

  it("a post without the CSRF token is refused and makes nothing", async () => {
    const before = await locationCount();
    const r = await post(PATH, whiteville(), who.owner, { token: false });
    expect(r.status).toBe(403);
    expect(await locationCount()).toBe(before);
  });
});

describe("the rate limit", () => {
  it("past 20 locations an hour an owner is told to wait, and nothing is made; a refused form does not count", async () => {
    const key = `location-add:staff:${who.owner.signedIn.staffId}`;
    await handle.db.insert(rateLimitHits).values({ key, count: 20, resetAt: new Date(Date.now() + 30 * 60_000) });
    const before = await locationCount();
    expect((await post(PATH, whiteville({ postal: "x" }), who.owner)).status).toBe(400);
    const r = await post(PATH, whiteville(), who.owner);
    expect(r.status).toBe(429);
    expect(decode(r.body)).toMatch(/Too many locations added in a short time\. Please wait \d+ minutes/);
    expect(await locationCount()).toBe(before);
    await handle.db.delete(rateLimitHits).where(eq(rateLimitHits.key, key));
  });
});

describe("validation", () => {
  it("answers each bad value beside its field, keeps what was typed, never echoes the SiteLink password", async () => {
    const before = await locationCount();
    const r = await post(
      PATH,
      whiteville({
        name: "",
        postal: "2847",
        phoneNumber: "555",
        office_weekdays_close: "08:00",
        software: "sitelink",
        sitelinkEndpoint: "",
        sitelinkPassword: "hunter2-secret",
        street1: "410 S Madison St & Co",
      }),
      who.owner,
    );
    expect(r.status).toBe(400);
    const body = decode(r.body);
    expect(body).toContain("Enter the location's name.");
    expect(body).toContain("Enter a ZIP code such as 28358.");
    expect(body).toContain("Enter a US phone number such as (910) 555-0134.");
    expect(body).toContain("The closing time must be after the opening time (09:00).");
    expect(body).toContain("Enter the SiteLink web service address");
    // Beside the field: the error has the id the field points at.
    expect(r.body).toMatch(/aria-describedby="field-postal-error"/);
    expect(r.body).toContain('id="field-postal-error"');
    // What was typed is kept (escaped), the password is not.
    expect(body).toContain('value="410 S Madison St & Co"');
    expect(body).toContain('value="2847"');
    expect(r.body).not.toContain("hunter2-secret");
    expect(await locationCount()).toBe(before);
  });

  it("refuses an address whose slug another location has, beside the ZIP code", async () => {
    const r = await post(PATH, whiteville({ name: "Lumberton two", city: "Lumberton", postal: "28358" }), who.owner);
    expect(r.status).toBe(400);
    expect(decode(r.body)).toContain("Lumberton is already at /locations/lumberton-nc-28358");
  });
});

describe("a demo-units location through the draft", () => {
  let id: number;

  it("is saved unpublished with its records, its units and the draft's change, audited", async () => {
    const r = await post(PATH, whiteville(), who.owner);
    expect(r.status).toBe(303);
    const [loc] = await handle.db.select().from(locations).where(eq(locations.urlSlug, "whiteville-nc-28472"));
    expect(loc).toBeDefined();
    id = loc!.id;
    expect(r.location).toBe(`/admin/content/locations/${id}?done=location-added`);
    expect({ name: loc!.name, status: loc!.status, software: loc!.software, isPublished: loc!.isPublished, phone: loc!.phoneNumber, sms: loc!.sms, tz: loc!.timeZone.timeZoneId }).toEqual({
      name: "Whiteville",
      status: "Live",
      software: "no_api",
      isPublished: false,
      phone: "(910) 555-0188",
      sms: "(910) 555-0189",
      tz: "America/New_York",
    });
    const [address] = await handle.db.select().from(addresses).where(eq(addresses.locationId, id));
    expect({ street1: address!.street1, city: address!.city, state: address!.stateProvince, postal: address!.postal }).toEqual({ street1: "410 S Madison St", city: "Whiteville", state: "NC", postal: "28472" });
    const lines = await handle.db
      .select({ type: hoursBlocks.type, days: hoursItems.days, open: hoursItems.open, close: hoursItems.close, h24: hoursItems.isOpen24Hours, closed: hoursItems.isClosed })
      .from(hoursItems)
      .innerJoin(hoursBlocks, eq(hoursBlocks.id, hoursItems.hoursBlockId))
      .where(eq(hoursBlocks.locationId, id))
      .orderBy(asc(hoursItems.id));
    expect(lines).toEqual([
      { type: "gate", days: "Mo,Tu,We,Th,Fr,Sa", open: "06:00", close: "22:00", h24: false, closed: false },
      { type: "gate", days: "Su", open: null, close: null, h24: true, closed: false },
      { type: "office", days: "Mo,Tu,We,Th,Fr", open: "09:00", close: "18:00", h24: false, closed: false },
      { type: "office", days: "Sa", open: "09:00", close: "14:00", h24: false, closed: false },
      { type: "office", days: "Su", open: null, close: null, h24: false, closed: true },
    ]);
    expect((await handle.db.select({ c: paymentTypes.category }).from(paymentTypes).where(eq(paymentTypes.locationId, id))).map((p) => p.c).sort()).toEqual(["discover", "mastercard", "visa"]);
    expect((await handle.db.select({ id: unitTypes.id }).from(unitTypes).where(eq(unitTypes.locationId, id))).length).toBe(12);
    expect((await handle.db.select({ id: units.id }).from(units).where(and(eq(units.locationId, id), eq(units.status, "available")))).length).toBeGreaterThan(0);
    const draftId = await currentDraftId(handle.db, accountId);
    const [change] = await handle.db.select().from(changesetChanges).where(and(eq(changesetChanges.changesetId, draftId!), eq(changesetChanges.entity, "location"), eq(changesetChanges.recordId, id)));
    expect({ op: change!.op, values: change!.values }).toEqual({ op: "update", values: { isPublished: true } });
    const [created] = await handle.db.select().from(auditEvents).where(and(eq(auditEvents.action, "location.created"), eq(auditEvents.entityId, String(id))));
    expect(created).toMatchObject({ staffId: who.owner.signedIn.staffId, locationId: id });
    expect(JSON.stringify(created!.detail)).toContain("demo units");
    const page = await get(r.location!, who.owner);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Not on the website yet");
    expect(page.body).toContain("/locations/whiteville-nc-28472");
    // The changes waiting show the new location going on the website.
    const changes = await get("/admin/changes", who.owner);
    expect(changes.status).toBe(200);
    expect(changes.body).toContain("Shown on the website");
  });

  it("is not public before the publish; preview (the draft applied) shows it", async () => {
    expect((await get("/view-locations")).body).not.toContain("Whiteville");
    expect((await get("/locations/whiteville-nc-28472")).status).toBe(404);
    expect((await get("/sitemap.xml")).body).not.toContain("whiteville-nc-28472");
    const [type] = await handle.db.select({ id: unitTypes.id }).from(unitTypes).where(eq(unitTypes.locationId, id)).orderBy(asc(unitTypes.id)).limit(1);
    expect((await get(`/rent/${type!.id}`)).status).toBe(404);
    const draftId = (await currentDraftId(handle.db, accountId))!;
    const previewed = await withDraftApplied(handle.db, draftId, (db) => listLocations(db, accountId));
    expect(previewed.map((l) => l.urlSlug)).toContain("whiteville-nc-28472");
    // Rolled back: still not public.
    expect((await listLocations(handle.db, accountId)).map((l) => l.urlSlug)).not.toContain("whiteville-nc-28472");
  });

  it("publishing the draft puts it on the website, its units up for rent, and purges the `locations` tag", async () => {
    await handle.db.delete(cachePurges);
    const draftId = (await currentDraftId(handle.db, accountId))!;
    const published = await post("/admin/changes", { intent: "publish", changesetId: String(draftId) }, who.owner);
    expect(published.status).toBe(303);
    const tags = (await handle.db.select({ tag: cachePurges.tag }).from(cachePurges)).map((t) => t.tag);
    expect(tags).toContain("locations");
    expect(tags).toContain(`location-${id}`);
    expect((await get("/view-locations")).body).toContain("/locations/whiteville-nc-28472");
    const page = await get("/locations/whiteville-nc-28472");
    expect(page.status).toBe(200);
    expect(page.body).toContain("410 S Madison St");
    expect((await get("/sitemap.xml")).body).toContain("/locations/whiteville-nc-28472");
    const [available] = await handle.db
      .select({ typeId: units.unitTypeId })
      .from(units)
      .where(and(eq(units.locationId, id), eq(units.status, "available")))
      .orderBy(asc(units.id))
      .limit(1);
    expect((await get(`/rent/${available!.typeId}`)).status).toBe(200);
  });
});

describe("a SiteLink location", () => {
  const sitelink = () =>
    whiteville({
      name: "Tabor City",
      street1: "1 Main St",
      city: "Tabor City",
      postal: "28463",
      software: "sitelink",
      sitelinkEndpoint: "http://127.0.0.1:9/CCWs_3.5/CallCenterWs.asmx",
      sitelinkCorpCode: "CCTST",
      sitelinkLocationCode: "L099",
      sitelinkUser: "gatehouse",
      sitelinkPasswordEnv: "SITELINK_TABOR_PASSWORD",
      sitelinkPassword: "",
    });

  it("asks for the password one way only", async () => {
    const r = await post(PATH, { ...sitelink(), sitelinkPassword: "x" }, who.owner);
    expect(r.status).toBe(400);
    expect(decode(r.body)).toContain("Give the SiteLink password one way");
  });

  it("is saved with its settings; its publish is refused until the go-live check passed, then goes through", async () => {
    const r = await post(PATH, sitelink(), who.owner);
    expect(r.status).toBe(303);
    const [loc] = await handle.db.select().from(locations).where(eq(locations.urlSlug, "tabor-city-nc-28463"));
    expect({ software: loc!.software, isPublished: loc!.isPublished }).toEqual({ software: "sitelink", isPublished: false });
    const [site] = await handle.db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, loc!.id));
    expect({ corp: site!.corpCode, code: site!.locationCode, env: site!.passwordEnv, sealed: site!.passwordEncrypted }).toEqual({ corp: "CCTST", code: "L099", env: "SITELINK_TABOR_PASSWORD", sealed: null });
    const page = await get(`/admin/content/locations/${loc!.id}`, who.owner);
    expect(page.body).toContain("sitelink:verify has not passed for this location yet");

    const draftId = (await currentDraftId(handle.db, accountId))!;
    const refused = await post("/admin/changes", { intent: "publish", changesetId: String(draftId) }, who.owner);
    expect(refused.status).toBe(400);
    expect(decode(refused.body)).toContain("Tabor City cannot go on the website yet: its SiteLink settings have not passed the go-live check");
    expect(decode(refused.body)).toContain("npm run sitelink:verify -- --location tabor-city-nc-28463 --test-mode-move-in");
    const [still] = await handle.db.select({ isPublished: locations.isPublished }).from(locations).where(eq(locations.id, loc!.id));
    expect(still!.isPublished).toBe(false);
    expect((await get("/locations/tabor-city-nc-28463")).status).toBe(404);

    // A scheduled publish is refused the same way, recorded as a failed publish; the draft stays.
    const now = new Date();
    const day = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(now.getTime() + 2 * 86_400_000));
    const scheduled = await scheduleChangeset(handle.db, who.owner.signedIn, { changesetId: draftId, date: day, time: "10:00", timeZone: "America/New_York", now });
    expect(scheduled.ok).toBe(true);
    expect(await publishDueChangesets(handle.db, new Date(now.getTime() + 4 * 86_400_000))).toEqual([]);
    const [failed] = await handle.db.select({ status: changesets.status, failure: changesets.failure }).from(changesets).where(eq(changesets.id, draftId));
    expect(failed!.status).toBe("draft");
    expect(failed!.failure).toContain("Tabor City cannot go on the website yet");
    expect((await get("/locations/tabor-city-nc-28463")).status).toBe(404);

    await recordSimulatorPass(handle.db, loc!.id, new Date());
    const published = await post("/admin/changes", { intent: "publish", changesetId: String(draftId) }, who.owner);
    expect(published.status).toBe(303);
    expect((await get("/locations/tabor-city-nc-28463")).status).toBe(200);
    const [last] = await handle.db.select({ action: auditEvents.action }).from(auditEvents).orderBy(desc(auditEvents.id)).limit(1);
    expect(last!.action).toBe("content.published");
  });
});

describe("a new location whose draft is discarded", () => {
  it("stays off the website, and its page puts it in the draft again", async () => {
    const r = await post(PATH, whiteville({ name: "Chadbourn", street1: "2 Elm St", city: "Chadbourn", postal: "28431" }), who.owner);
    expect(r.status).toBe(303);
    const [loc] = await handle.db.select({ id: locations.id }).from(locations).where(eq(locations.urlSlug, "chadbourn-nc-28431"));
    const draftId = (await currentDraftId(handle.db, accountId))!;
    // Discard asks first (decision 630): the question, then the confirmed discard.
    expect((await post("/admin/changes", { intent: "discard", changesetId: String(draftId) }, who.owner)).status).toBe(200);
    expect((await post("/admin/changes", { intent: "discard", changesetId: String(draftId), confirmed: "yes" }, who.owner)).status).toBe(303);
    const page = await get(`/admin/content/locations/${loc!.id}`, who.owner);
    expect(page.body).toContain("Put it in the draft again");
    expect((await get("/locations/chadbourn-nc-28431")).status).toBe(404);
    const again = await post(`/admin/content/locations/${loc!.id}`, { intent: "draft-publication", recordId: String(loc!.id) }, who.owner);
    expect(again.status).toBe(303);
    const newDraft = (await currentDraftId(handle.db, accountId))!;
    const [change] = await handle.db.select({ values: changesetChanges.values }).from(changesetChanges).where(and(eq(changesetChanges.changesetId, newDraft), eq(changesetChanges.recordId, loc!.id), eq(changesetChanges.entity, "location")));
    expect(change!.values).toEqual({ isPublished: true });
    // A manager outside it cannot (404, as for any record outside their locations).
    expect((await post(`/admin/content/locations/${loc!.id}`, { intent: "draft-publication", recordId: String(loc!.id) }, who.manager)).status).toBe(404);
  });
});
