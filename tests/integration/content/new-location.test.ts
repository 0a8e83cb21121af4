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
 *   passed with its settings;
 * - photos come with the form (multipart, decision 680): saved with the location in the form's order;
 *   a refused photo saves nothing, its message beside its field, what was typed kept, and a good file
 *   already received sent back so it need not be chosen again;
 * - an owner runs the go-live check from the location's settings page against the SiteLink
 *   simulator over SOAP (decision 681): each item in words with what to fix, the settings it proposes
 *   saved, a pass recorded and audited so the publish goes through; a check that cannot reach
 *   SiteLink says so and decides nothing; managers see the state only; one check at a time.
 */
import { and, asc, desc, eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { getWebsite } from "~/db/queries/site.server";
import { listLocations } from "~/db/queries/locations.server";
import { addresses, auditEvents, cachePurges, changesetChanges, hoursBlocks, hoursItems, jobRuns, locationImages, locations, mediaFiles, paymentTypes, sitelinkGoLiveChecks, sitelinkSites, unitTypes, units } from "~/db/schema";
import { DEMO_CORP, startSiteLinkSimulator, type RunningSimulator } from "../../../sitelink-simulator/index";
import { bodyLimitFor } from "~/domain/web/request-rules";
import { ALT_MESSAGES, MAX_UPLOAD_BYTES, UPLOAD_MESSAGES } from "~/domain/content/media";
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

type Upload = { name: string; type: string; bytes: Uint8Array };

/** The form posted as a browser posts it with files (multipart/form-data). */
async function postMultipart(path: string, fields: Record<string, string>, files: Record<string, Upload>, member: TestStaffMember) {
  const body = new FormData();
  body.set(CSRF_FIELD, (await getCsrfToken(new Request(app.origin + path, { headers: { Cookie: member.cookie } }))).token);
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  for (const [k, f] of Object.entries(files)) body.set(k, new File([new Uint8Array(f.bytes)], f.name, { type: f.type }));
  const res = await fetch(app.origin + path, { method: "POST", redirect: "manual", headers: { Cookie: `${csrf.cookie}; ${member.cookie}`, Referer: app.origin + path }, body });
  return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
}

const png = async (r: number, name: string): Promise<Upload> => ({
  name,
  type: "image/png",
  bytes: await sharp({ create: { width: 640, height: 360, channels: 3, background: { r, g: 90, b: 140 } } }).png().toBuffer(),
});

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
    expect(decode(page.body)).toContain("the go-live check has not passed with these settings, so publishing is refused");
    expect(page.body).toContain(`href="/admin/content/locations/${loc!.id}/settings#go-live-check"`);

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

  it("takes the API key in a field of its own, never in the user name, and keeps it encrypted, never echoed", async () => {
    process.env.SITELINK_SECRET_KEY ??= "ab".repeat(32);
    const fairBluff = () => ({ ...sitelink(), name: "Fair Bluff", city: "Fair Bluff", postal: "28439" });
    const before = await locationCount();
    const inUser = await post(PATH, { ...fairBluff(), sitelinkUser: "gatehouse:::K3Y-in-the-user" }, who.owner);
    expect(inUser.status).toBe(400);
    expect(decode(inUser.body)).toContain("Enter the user name alone, without :::. An API key goes in its own field below, where it is kept encrypted.");
    expect(inUser.body).toMatch(/aria-describedby="[^"]*field-sitelinkUser-error/);
    const both = await post(PATH, { ...fairBluff(), sitelinkApiKeyEnv: "SITELINK_TABOR_API_KEY", sitelinkApiKey: "K3Y-typed-too" }, who.owner);
    expect(both.status).toBe(400);
    expect(decode(both.body)).toContain("Give the SiteLink API key one way");
    expect(both.body).not.toContain("K3Y-typed-too");
    const badName = await post(PATH, { ...fairBluff(), sitelinkApiKeyEnv: "SESSION_SECRET" }, who.owner);
    expect(badName.status).toBe(400);
    expect(decode(badName.body)).toContain("SITELINK_API_KEY or SITELINK_<SITE>_API_KEY");
    expect(badName.body).toMatch(/aria-describedby="[^"]*field-sitelinkApiKeyEnv-error/);
    expect(await locationCount()).toBe(before);

    const saved = await post(PATH, { ...fairBluff(), sitelinkApiKey: "K3Y-sealed-0042" }, who.owner);
    expect(saved.status).toBe(303);
    const [loc] = await handle.db.select().from(locations).where(eq(locations.urlSlug, "fair-bluff-nc-28439"));
    const [site] = await handle.db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, loc!.id));
    expect({ user: site!.corpUser, keyEnv: site!.apiKeyEnv, sealed: site!.apiKeyEncrypted?.startsWith("v") }).toEqual({ user: "gatehouse", keyEnv: null, sealed: true });
    expect(site!.apiKeyEncrypted).not.toContain("K3Y-sealed-0042");
    const audits = await handle.db.select().from(auditEvents).where(eq(auditEvents.entityId, String(loc!.id)));
    expect(audits.length).toBeGreaterThan(0);
    expect(JSON.stringify(audits)).not.toContain("K3Y-sealed-0042");
    // Out of the draft again, so that the files below publish only what they add.
    const draftId = String((await currentDraftId(handle.db, accountId))!);
    expect((await post("/admin/changes", { intent: "discard", changesetId: draftId, confirmed: "yes" }, who.owner)).status).toBe(303);
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

describe("photos on the form (decision 680)", () => {
  const chadwick = (overrides: Record<string, string> = {}) => whiteville({ name: "Chadwick", street1: "9 Oak St", city: "Chadwick", postal: "28499", ...overrides });

  it("the form is multipart, and its body may carry a file per photo field", async () => {
    expect(bodyLimitFor(PATH)).toBeGreaterThanOrEqual(3 * MAX_UPLOAD_BYTES);
    expect((await get(PATH, who.owner)).body).toMatch(/<form id="new-location"[^>]*enctype="multipart\/form-data"/i);
  });

  it("a refused photo saves nothing: its message beside it, what was typed kept, the good photo sent back to be kept", async () => {
    const before = await locationCount();
    const gate = await png(20, "front-gate.png");
    const r = await postMultipart(
      PATH,
      chadwick({ photo1_alt: "The front gate", photo2_alt: "The office" }),
      { photo1_file: gate, photo2_file: { name: "office.png", type: "image/png", bytes: new TextEncoder().encode("not an image at all") } },
      who.owner,
    );
    expect(r.status).toBe(400);
    const body = decode(r.body);
    expect(body).toContain(UPLOAD_MESSAGES.notImage);
    expect(r.body).toContain('id="field-photo2-file-error"');
    expect(r.body).toMatch(/id="field-photo2-file"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="field-photo2-file"/);
    // The error summary links to the photo's field.
    expect(r.body).toContain('href="#field-photo2-file"');
    // What was typed is kept, the location is not saved.
    expect(body).toContain('value="Chadwick"');
    expect(body).toContain('value="The front gate"');
    expect(body).toContain('value="The office"');
    expect(await locationCount()).toBe(before);
    // The good photo was received: sent back as photo1_media, so it need not be chosen again.
    const media = /name="photo1_media" value="(\/media\/[0-9a-f]{64}-\d+\.webp)"/.exec(r.body)?.[1];
    expect(media, "the first photo sent back").toBeTruthy();
    expect(body.replaceAll("<!-- -->", "")).toContain("“front-gate.png” is received");

    // A good file without its description: the description's message beside it, the file kept too.
    const plain = await postMultipart(PATH, chadwick({ photo1_media: media!, photo1_alt: "The front gate" }), { photo2_file: await png(200, "units.png") }, who.owner);
    expect(plain.status).toBe(400);
    expect(decode(plain.body)).toContain(ALT_MESSAGES.missing);
    expect(plain.body).toContain('id="field-photo2-alt-error"');
    const units = /name="photo2_media" value="(\/media\/[^"]+)"/.exec(plain.body)?.[1];
    expect(units).toBeTruthy();
    expect(await locationCount()).toBe(before);

    // Sent again with the files kept and the description given (the second marked decorative): saved, in order.
    const ok = await postMultipart(PATH, chadwick({ photo1_media: media!, photo1_alt: "The front gate", photo2_media: units!, photo2_decorative: "1" }), {}, who.owner);
    expect(ok.status).toBe(303);
    const [loc] = await handle.db.select({ id: locations.id }).from(locations).where(eq(locations.urlSlug, "chadwick-nc-28499"));
    const photos = await handle.db.select().from(locationImages).where(eq(locationImages.locationId, loc!.id)).orderBy(asc(locationImages.index));
    expect(photos.map((p) => ({ index: p.index, alt: p.alt, src: p.src }))).toEqual([
      { index: 0, alt: "The front gate", src: media },
      { index: 1, alt: "", src: units },
    ]);
    const [created] = await handle.db.select({ detail: auditEvents.detail }).from(auditEvents).where(and(eq(auditEvents.action, "location.created"), eq(auditEvents.entityId, String(loc!.id))));
    expect((created!.detail as { photos: string[] }).photos).toEqual([media, units]);
    // Each upload was processed and audited as the photos page's are (media.upload), the refused one not stored.
    expect((await handle.db.select({ id: mediaFiles.id }).from(mediaFiles).where(eq(mediaFiles.originalName, "office.png"))).length).toBe(0);
    // The photos page lists them for later changes; preview and publish show them with the location (the browser test).
    const page = await get(`/admin/content/locations/${loc!.id}/photos`, who.owner);
    expect(decode(page.body)).toContain("Description: The front gate");
  });

  it("the same file twice is refused the second time", async () => {
    const gate = await png(60, "gate.png");
    const r = await postMultipart(PATH, chadwick({ name: "Chadwick two", city: "Chadwick Two", photo1_alt: "Gate", photo2_alt: "Gate again" }), { photo1_file: gate, photo2_file: gate }, who.owner);
    expect(r.status).toBe(400);
    expect(decode(r.body)).toContain("This photo is already one of the location's photos.");
    expect(r.body).toContain('id="field-photo2-file-error"');
  });
});

describe("the go-live check from the console (decision 681), over SOAP against the SiteLink simulator", () => {
  let sim: RunningSimulator;
  const PASSWORD_VAR = "SITELINK_NEWLOC_TEST_PASSWORD";

  beforeAll(async () => {
    sim = await startSiteLinkSimulator({ port: 0, log: () => {} });
    process.env[PASSWORD_VAR] = DEMO_CORP.password;
    // A site of its own, with free units and the demo corp's payment types (Master Card 5, Visa 6, Discover 8).
    sim.control.seedSite({ name: "Loris", sLocationCode: "L077", SiteID: 41077, unitIdBase: 7000, unitTypes: [{ typeName: "Drive-Up", width: 10, length: 10, stdRate: 9200, statuses: Array(4).fill("available") }] });
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
  });

  const atSiteLink = (overrides: Record<string, string>) =>
    whiteville({
      software: "sitelink",
      sitelinkEndpoint: sim.url,
      sitelinkCorpCode: DEMO_CORP.corpCode,
      sitelinkLocationCode: "L077",
      // The API key in its own field, kept encrypted; SiteLink gets it as user:::key.
      sitelinkUser: DEMO_CORP.userName,
      sitelinkApiKey: DEMO_CORP.apiKey,
      sitelinkPasswordEnv: PASSWORD_VAR,
      sitelinkPassword: "",
      ...overrides,
    });

  async function addAt(overrides: Record<string, string>, slug: string): Promise<number> {
    const r = await post(PATH, atSiteLink(overrides), who.owner);
    expect(r.status, decode(r.body).slice(0, 400)).toBe(303);
    const [loc] = await handle.db.select({ id: locations.id }).from(locations).where(eq(locations.urlSlug, slug));
    return loc!.id;
  }
  const settingsPath = (id: number) => `/admin/content/locations/${id}/settings`;
  const checks = (id: number) => handle.db.select().from(sitelinkGoLiveChecks).where(eq(sitelinkGoLiveChecks.locationId, id)).orderBy(asc(sitelinkGoLiveChecks.id));
  const audits = (id: number, action: string) =>
    handle.db.select().from(auditEvents).where(and(eq(auditEvents.action, action), eq(auditEvents.entityId, String(id)))).orderBy(asc(auditEvents.id));
  const publishDraft = async () => post("/admin/changes", { intent: "publish", changesetId: String((await currentDraftId(handle.db, accountId))!) }, who.owner);

  it("an owner runs it: each item in words with what to fix, saves the card types it proposes, runs it again, and the location can be published", async () => {
    const id = await addAt({ name: "Loris", street1: "5 Main St", city: "Loris", stateProvince: "SC", postal: "29569" }, "loris-sc-29569");
    const page = decode((await get(settingsPath(id), who.owner)).body);
    expect(page).toContain("SiteLink go-live check");
    expect(page).toContain("Not live: no go-live check has passed yet.");
    expect(page).toContain("No go-live check has run for this location yet.");
    expect(page).not.toContain(DEMO_CORP.password);

    // Its publish is refused, naming where to run the check.
    const refused = await publishDraft();
    expect(refused.status).toBe(400);
    expect(decode(refused.body)).toContain(`Run the check on its settings page in the console (/admin/content/locations/${id}/settings)`);

    // A tenant id that is not a number: refused beside its field, nothing run.
    const bad = await post(settingsPath(id), { intent: "go-live-check", tenantId: "Dana", unitId: "" }, who.owner);
    expect(bad.status).toBe(400);
    expect(decode(bad.body)).toContain("Enter the tenant's SiteLink TenantID, a number such as 10452, or leave it empty.");
    expect(bad.body).toContain('id="field-tenantId-error"');
    expect(await checks(id)).toEqual([]);

    // First run: the site's answers are read, but no card type is set, so no test move-in is sent.
    sim.control.clearCalls();
    const first = await post(settingsPath(id), { intent: "go-live-check", tenantId: "", unitId: "" }, who.owner);
    expect(first.status).toBe(303);
    expect(first.location).toBe(`${settingsPath(id)}?done=go-live-checked#go-live-check`);
    expect(sim.control.calls({ location: "L077" }).map((c) => c.operation)).toEqual(expect.arrayContaining(["SiteInformation", "UnitTypePriceList_v2", "PaymentTypesRetrieve"]));
    const [one] = await checks(id);
    expect({ passed: one!.passed, ranFrom: one!.saw.ranFrom, ranBy: one!.saw.ranBy }).toEqual({ passed: false, ranFrom: "console", ranBy: who.owner.signedIn.name });
    const afterFirst = decode((await get(`${settingsPath(id)}?done=go-live-checked`, who.owner)).body).replaceAll("<!-- -->", "");
    expect(afterFirst).toContain("The go-live check has run: its result is below.");
    expect(afterFirst).toMatch(/The latest check: .*, by .*: did not pass/);
    expect(afterFirst).toContain("<strong>Unit types and their prices</strong>: Passed");
    expect(afterFirst).toContain("<strong>Card types</strong>: Failed");
    expect(afterFirst).toContain("What to do: Use the card types SiteLink lists (Visa = 6, Master Card = 5, Discover = 8) with the button below, then run the check again.");
    expect(afterFirst).toContain("The check proposes what this SiteLink site uses: card types Visa = 6, Master Card = 5, Discover = 8.");
    expect(afterFirst).not.toContain(DEMO_CORP.password);
    expect(afterFirst).not.toContain(DEMO_CORP.apiKey);
    const [audited] = await audits(id, "sitelink.go_live_checked");
    expect(audited).toMatchObject({ staffId: who.owner.signedIn.staffId, locationId: id });
    expect(audited!.detail).toMatchObject({ passed: false, reachedSiteLink: true });
    expect((await publishDraft()).status).toBe(400);

    // The proposed card types saved, audited with what they were.
    const use = await post(settingsPath(id), { intent: "use-go-live-suggestions" }, who.owner);
    expect(use.status).toBe(303);
    const [site] = await handle.db.select({ cardTypeIds: sitelinkSites.cardTypeIds }).from(sitelinkSites).where(eq(sitelinkSites.locationId, id));
    expect(site!.cardTypeIds).toEqual({ visa: 6, mastercard: 5, discover: 8 });
    const [changed] = await audits(id, "sitelink.settings_changed");
    expect(JSON.stringify(changed!.changes)).toContain('"visa":6');

    // Second run: the test move-in goes through in test mode; every item passes; the location is live.
    const second = await post(settingsPath(id), { intent: "go-live-check", tenantId: "", unitId: "" }, who.owner);
    expect(second.status).toBe(303);
    const last = (await checks(id)).at(-1)!;
    expect({ passed: last.passed, differs: last.saw.differs, notChecked: last.saw.notChecked }).toEqual({ passed: true, differs: [], notChecked: [] });
    expect(sim.control.calls({ operation: "MoveInWithDiscount_v7", location: "L077" }).at(-1)?.params.bTestMode).toBe("true");
    const passedPage = decode((await get(settingsPath(id), who.owner)).body).replaceAll("<!-- -->", "");
    expect(passedPage).toContain("Live: the go-live check passed with these settings");
    expect(passedPage).toMatch(/The latest check: .*: passed/);
    expect(passedPage).not.toContain(": Failed");
    expect((await audits(id, "sitelink.go_live_checked")).at(-1)!.detail).toMatchObject({ passed: true });

    // The draft now publishes it.
    expect((await publishDraft()).status).toBe(303);
    const [published] = await handle.db.select({ isPublished: locations.isPublished }).from(locations).where(eq(locations.id, id));
    expect(published!.isPublished).toBe(true);
  });

  it("a check that cannot reach SiteLink says so, is kept and audited, and decides nothing: a pass before it still holds", async () => {
    const id = await addAt({ name: "Aynor", street1: "7 Main St", city: "Aynor", stateProvince: "SC", postal: "29511", sitelinkEndpoint: "http://127.0.0.1:9/CCWs_3.5/CallCenterWs.asmx" }, "aynor-sc-29511");
    await recordSimulatorPass(handle.db, id, new Date());
    const r = await post(settingsPath(id), { intent: "go-live-check", tenantId: "", unitId: "" }, who.owner);
    expect(r.status).toBe(303);
    const last = (await checks(id)).at(-1)!;
    expect(last.passed).toBe(false);
    expect(last.saw.unreachable).toMatch(/did not answer as SiteLink \(network\)/);
    const page = decode((await get(settingsPath(id), who.owner)).body).replaceAll("<!-- -->", "");
    expect(page).toMatch(/The latest check: .*: SiteLink could not be reached/);
    expect(page).toContain("Reaching SiteLink at http://127.0.0.1:9/CCWs_3.5/CallCenterWs.asmx</strong>: Failed");
    expect(page).toContain("Nothing else was checked, and the location's go-live state is as it was.");
    // Never "ready" without checking, and never "not live" because SiteLink was away: the pass before stands.
    expect(page).toContain("Live: the go-live check passed with these settings");
    expect((await audits(id, "sitelink.go_live_checked")).at(-1)!.detail).toMatchObject({ passed: false, reachedSiteLink: false });
  });

  it("only owners run it: a manager of the location sees its state, no button, and is refused; one check of a location at a time", async () => {
    const [loris] = await handle.db.select({ id: locations.id }).from(locations).where(eq(locations.urlSlug, "loris-sc-29569"));
    const manager = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [loris!.id] });
    const page = decode((await get(settingsPath(loris!.id), manager)).body);
    expect(page).toContain("SiteLink go-live check");
    expect(page).toContain("An owner runs the go-live check.");
    expect(page).not.toContain("Run the go-live check</button>");
    const before = (await checks(loris!.id)).length;
    expect((await post(settingsPath(loris!.id), { intent: "go-live-check", tenantId: "", unitId: "" }, manager)).status).toBe(403);
    expect((await post(settingsPath(loris!.id), { intent: "use-go-live-suggestions" }, manager)).status).toBe(403);
    // A check already under way (its lease in job_runs): a second one is refused.
    await handle.db.insert(jobRuns).values({ job: `go-live-check:${loris!.id}`, periodStart: new Date(0), holder: "another process", startedAt: new Date() });
    const busy = await post(settingsPath(loris!.id), { intent: "go-live-check", tenantId: "", unitId: "" }, who.owner);
    expect(busy.status).toBe(409);
    expect(decode(busy.body)).toContain("A go-live check of Loris is running already.");
    await handle.db.delete(jobRuns).where(eq(jobRuns.job, `go-live-check:${loris!.id}`));
    expect((await checks(loris!.id)).length).toBe(before);
  });
});
