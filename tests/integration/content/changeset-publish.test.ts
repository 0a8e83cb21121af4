/**
 * Publishing changesets (issue 24, decisions 310–314), on the real database (both drivers) and the
 * pages over real HTTP (tests/integration/support/app-server.ts):
 * - a publish applies the whole draft at once, versions and snapshots it (version 0 = before the first
 *   publish), audits it once, and clears the flags;
 * - a changeset refused in its last record changes nothing: the pages are byte-identical, the draft
 *   keeps its changes and says what failed;
 * - publish, then restore the version before: the pages are byte-identical to before (records removed
 *   and added are put back / taken away, with their ids and positions);
 * - a manager publishes their own changes out of a mixed draft (decision 630);
 * - a scheduled publish goes live at the moment entered in the location's time zone, once, even with
 *   two schedulers running at once;
 * - discard and unschedule.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { openDatabase, type DatabaseHandle } from "~/db/client.server";
import { pinClockForTests } from "~/platform/clock.server";
import { auditEvents, changesetChanges, changesets, contentItems, hoursBlocks, hoursItems, locations, websites } from "~/db/schema";
import { currentDraftId, listEffectiveRecords, readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import {
  discardChangeset,
  instantIn,
  listVersions,
  publishDraft,
  publishDueChangesets,
  restoreVersion,
  scheduleChangeset,
  unscheduleChangeset,
} from "~/services/content/publish.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase, isPostgres } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

let handle: DatabaseHandle;
let app: AppServer;
let owner: TestStaffMember;
let manager: TestStaffMember;
let lumberton: number;
let other: number;
let accountId: number;
const LOCATION_PAGE = "/locations/lumberton-nc-28358";
const PAGES = ["/", LOCATION_PAGE, "/faqs", "/storage-tips", "/about", "/view-locations"];

/** A page's HTML without what differs on every request (the CSP nonce, CSRF tokens). */
async function page(path: string): Promise<string> {
  const res = await fetch(app.origin + path);
  expect(res.status, path).toBe(200);
  return (await res.text()).replace(/nonce="[^"]*"/g, 'nonce=""').replace(/(name="csrf[^"]*"\s+value=")[^"]*"/gi, '$1"').replace(/(value=")[^"]*("\s+name="csrf)/gi, '$1$2');
}
const allPages = async () => Object.fromEntries(await Promise.all(PAGES.map(async (p) => [p, await page(p)] as const)));

async function edit(member: TestStaffMember, entity: "location", recordId: number, values: Record<string, unknown>) {
  const before = await readEffectiveRecord(handle.db, member.signedIn, entity, recordId);
  const base = Object.fromEntries(Object.keys(values).map((k) => [k, before!.values[k]]));
  const r = await saveDraftEdit(handle.db, member.signedIn, { op: "update", entity, recordId, values, base });
  expect(r.ok).toBe(true);
  return r as { ok: true; changesetId: number };
}

async function flags() {
  const [w] = await handle.db.select({ n: websites.hasNewChanges, r: websites.hasRedeployStarted }).from(websites).where(eq(websites.accountId, accountId));
  return w!;
}

/** The test database's URL (PostgreSQL): the server's with this database's name. */
async function sameDatabaseUrl(): Promise<string> {
  const result = (await handle.db.execute(sql`select current_database() as name`)) as unknown as { rows: Array<{ name: string }> };
  const u = new URL(process.env.TEST_DATABASE_URL!);
  u.pathname = `/${result.rows[0]!.name}`;
  return u.toString();
}

beforeAll(async () => {
  // The clock stands still for this file: the location page says "Open now · closes at 2:00 PM", so
  // a run that crossed a closing time between two renders would see pages differ for that reason.
  pinClockForTests(new Date());
  handle = await createTestDatabase({ seeded: true });
  const locs = await handle.db.select({ id: locations.id, slug: locations.urlSlug, accountId: locations.accountId }).from(locations).orderBy(asc(locations.id));
  lumberton = locs.find((l) => l.slug.startsWith("lumberton"))!.id;
  other = locs.find((l) => l.id !== lumberton)!.id;
  accountId = locs[0]!.accountId;
  owner = await signedInStaffMember(handle.db, { accountId, role: "owner" });
  manager = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [lumberton] });
  app = await startAppServer(handle.db);
});
afterAll(async () => {
  await app?.close();
  await handle?.close();
  pinClockForTests(null);
});

describe("publishing the draft (issue 24)", () => {
  it("the same page twice is byte-identical (so the comparisons below mean something)", async () => {
    expect(await page(LOCATION_PAGE)).toBe(await page(LOCATION_PAGE));
  });

  it("applies the whole draft in one go, as version 1 (version 0 = before), audited once, flags cleared", async () => {
    const before = await page(LOCATION_PAGE);
    const { changesetId } = await edit(owner, "location", lumberton, { metaTagline: "Version one tagline", metaDescription: "Version one description for the Lumberton page." });
    expect((await flags()).n).toBe(true);
    expect(await page(LOCATION_PAGE)).toBe(before);

    const result = await publishDraft(handle.db, owner.signedIn, { changesetId });
    expect(result).toMatchObject({ ok: true, version: 1, counts: { updates: 1, creates: 0, deletes: 0 } });
    expect(await page(LOCATION_PAGE)).toContain("Version one description for the Lumberton page.");
    expect(await flags()).toEqual({ n: false, r: false });
    expect(await currentDraftId(handle.db, accountId)).toBeNull();

    const versions = await listVersions(handle.db, accountId);
    expect(versions.map((v) => v.version)).toEqual([1, 0]);
    const [v1] = await handle.db.select().from(changesets).where(eq(changesets.id, changesetId));
    expect(v1).toMatchObject({ status: "published", version: 1, publishedBy: owner.staffId });
    expect(v1!.snapshot!.location![String(lumberton)]!.metaTagline).toBe("Version one tagline");
    const [v0] = await handle.db.select().from(changesets).where(and(eq(changesets.accountId, accountId), eq(changesets.version, 0)));
    expect(v0!.snapshot!.location![String(lumberton)]!.metaTagline).not.toBe("Version one tagline");

    const audit = await handle.db.select().from(auditEvents).where(eq(auditEvents.action, "content.published"));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.detail).toMatchObject({ changesetId, version: 1, updates: 1, creates: 0, deletes: 0 });
  });

  it("a changeset refused in its last record changes nothing: pages byte-identical, the draft kept with what failed", async () => {
    const pagesBefore = await allPages();
    const { changesetId } = await edit(owner, "location", lumberton, { metaTagline: "Never published" });
    // The last record breaks a constraint (a location's name may not be empty: NOT NULL).
    await handle.db.insert(changesetChanges).values({ changesetId, entity: "location", op: "update", recordId: other, locationId: other, values: { name: null }, base: {} });

    const result = await publishDraft(handle.db, owner.signedIn, { changesetId });
    expect(result).toMatchObject({ ok: false, reason: "failed" });
    expect((result as { message: string }).message).toMatch(/Publishing failed and nothing was changed\. Location: .*name/);
    expect(await allPages()).toEqual(pagesBefore);

    const [row] = await handle.db.select().from(changesets).where(eq(changesets.id, changesetId));
    expect(row).toMatchObject({ status: "draft", version: null });
    expect(row!.failure).toContain("nothing was changed");
    expect(await handle.db.select().from(changesetChanges).where(eq(changesetChanges.changesetId, changesetId))).toHaveLength(2);
    expect((await readEffectiveRecord(handle.db, owner.signedIn, "location", lumberton))!.values.metaTagline).toBe("Never published");
    expect(await flags()).toEqual({ n: true, r: false });
    expect(await handle.db.select().from(auditEvents).where(eq(auditEvents.action, "content.publish_failed"))).toHaveLength(1);
    expect(await handle.db.select().from(auditEvents).where(eq(auditEvents.action, "content.published"))).toHaveLength(1);

    // Fixed (the bad change removed), it publishes.
    await handle.db.delete(changesetChanges).where(and(eq(changesetChanges.changesetId, changesetId), eq(changesetChanges.recordId, other)));
    expect(await publishDraft(handle.db, owner.signedIn, { changesetId })).toMatchObject({ ok: true, version: 2 });
    const [published] = await handle.db.select().from(changesets).where(eq(changesets.id, changesetId));
    expect(published!.failure).toBeNull();
  });

  it("publish, then restore the version before: every page byte-identical to before (removed records back with their ids)", async () => {
    const pagesBefore = await allPages();
    const versionBefore = (await listVersions(handle.db, accountId))[0]!.version;
    const faqsBefore = await handle.db.select().from(contentItems).where(eq(contentItems.accountId, accountId)).orderBy(asc(contentItems.id));
    const [block] = await handle.db.select().from(hoursBlocks).where(eq(hoursBlocks.locationId, lumberton)).limit(1);
    const itemsBefore = await handle.db.select().from(hoursItems).where(eq(hoursItems.hoursBlockId, block!.id)).orderBy(asc(hoursItems.id));
    expect(itemsBefore.length).toBeGreaterThan(0);
    const faq = faqsBefore.find((f) => f.tag === "FAQ")!;

    await edit(owner, "location", lumberton, { metaTagline: "Spring promotion", metaDescription: "Spring promotion at Lumberton." });
    // Remove an FAQ and an hours line; add an hours line; move an FAQ.
    expect((await saveDraftEdit(handle.db, owner.signedIn, { op: "delete", entity: "contentItem", recordId: faq.id })).ok).toBe(true);
    expect((await saveDraftEdit(handle.db, owner.signedIn, { op: "delete", entity: "hoursItem", recordId: itemsBefore[0]!.id })).ok).toBe(true);
    const created = await saveDraftEdit(handle.db, owner.signedIn, {
      op: "create",
      entity: "hoursItem",
      values: { hoursBlockId: block!.id, days: "Su", open: "10:00", close: "14:00", isOpen24Hours: false, isClosed: false, isDisplayText: false, displayText: "" },
    });
    expect(created.ok).toBe(true);
    const second = faqsBefore.filter((f) => f.tag === "FAQ")[1];
    if (second) expect((await saveDraftEdit(handle.db, owner.signedIn, { op: "update", entity: "contentItem", recordId: second.id, values: { index: 999 }, base: { index: second.index } })).ok).toBe(true);
    const draftId = (await currentDraftId(handle.db, accountId))!;
    const published = await publishDraft(handle.db, owner.signedIn, { changesetId: draftId });
    expect(published.ok).toBe(true);
    const pagesAfter = await allPages();
    expect(pagesAfter["/faqs"]).not.toEqual(pagesBefore["/faqs"]);
    expect(pagesAfter[LOCATION_PAGE]).toContain("Spring promotion at Lumberton.");

    const restored = await restoreVersion(handle.db, owner.signedIn, versionBefore);
    expect(restored).toMatchObject({ ok: true, version: (published as { version: number }).version + 1 });
    expect(await allPages()).toEqual(pagesBefore);
    // The same rows, ids and positions (only `updatedAt` of the record moved and moved back differs; no page shows it).
    const noUpdatedAt = <T extends { updatedAt?: unknown }>(rows: T[]) => rows.map(({ updatedAt: _, ...r }) => r);
    expect(noUpdatedAt(await handle.db.select().from(contentItems).where(eq(contentItems.accountId, accountId)).orderBy(asc(contentItems.id)))).toEqual(noUpdatedAt(faqsBefore));
    expect(noUpdatedAt(await handle.db.select().from(hoursItems).where(eq(hoursItems.hoursBlockId, block!.id)).orderBy(asc(hoursItems.id)))).toEqual(noUpdatedAt(itemsBefore));
    const [v] = await listVersions(handle.db, accountId);
    expect(v).toMatchObject({ restoresVersion: versionBefore, publishedBy: owner.email });
    // Nothing left to restore.
    expect(await restoreVersion(handle.db, owner.signedIn, versionBefore)).toMatchObject({ ok: false, reason: "empty" });
    // Back to before the very first publish.
    expect(await restoreVersion(handle.db, owner.signedIn, 0)).toMatchObject({ ok: true });
    expect(await page(LOCATION_PAGE)).not.toContain("Version one description");
    // Managers may not restore (it touches every record).
    expect(await restoreVersion(handle.db, manager.signedIn, 1)).toMatchObject({ ok: false, reason: "forbidden" });
  });

  it("a manager publishes their own changes out of a mixed draft (decision 630); another's stay, and a scheduled changeset not wholly theirs is refused naming no record", async () => {
    const mine = await edit(manager, "location", lumberton, { metaTagline: "Manager's own tagline" });
    expect(await publishDraft(handle.db, manager.signedIn, { changesetId: mine.changesetId })).toMatchObject({ ok: true });
    await edit(manager, "location", lumberton, { metaTagline: "Manager's second tagline" });
    const theirs = await edit(owner, "location", other, { metaTagline: "Elsewhere" });
    const published = await publishDraft(handle.db, manager.signedIn, { changesetId: theirs.changesetId });
    expect(published).toMatchObject({ ok: true, counts: { updates: 1 } });
    expect(await page(LOCATION_PAGE)).toContain("Manager&#x27;s second tagline");
    // The owner's change stays in the draft; the manager has nothing left to publish there.
    expect(await currentDraftId(handle.db, accountId)).toBe(theirs.changesetId);
    const nothing = await publishDraft(handle.db, manager.signedIn, { changesetId: theirs.changesetId });
    expect(nothing).toMatchObject({ ok: false, reason: "empty" });
    expect(JSON.stringify(nothing)).not.toContain("Elsewhere");
    // A scheduled changeset holding the owner's change: the manager may not unschedule or discard it.
    expect((await scheduleChangeset(handle.db, owner.signedIn, { changesetId: theirs.changesetId, date: "2031-07-01", time: "09:00", timeZone: "America/New_York", now: new Date("2031-06-01T00:00:00Z") })).ok).toBe(true);
    expect(await discardChangeset(handle.db, manager.signedIn, { changesetId: theirs.changesetId })).toMatchObject({ ok: false, status: 403 });
    // The owner discards it (audited); the flag follows.
    expect(await discardChangeset(handle.db, owner.signedIn, { changesetId: theirs.changesetId })).toEqual({ ok: true });
    expect(await currentDraftId(handle.db, accountId)).toBeNull();
    expect((await flags()).n).toBe(false);
    const [audit] = await handle.db.select().from(auditEvents).where(eq(auditEvents.action, "content.discarded"));
    expect(audit!.detail).toMatchObject({ changesetId: theirs.changesetId, was: "scheduled", updates: 1 });
  });
});

describe("scheduled publishing", () => {
  it("goes live at Monday 00:00 in the location's time zone, not a minute before; a new draft meanwhile; unschedule refused while it is open", async () => {
    const { changesetId } = await edit(owner, "location", lumberton, { metaDescription: "Scheduled for Monday midnight in New York." });
    // Monday 2031-03-03 00:00 America/New_York = 05:00 UTC.
    const at = instantIn("2031-03-03", "00:00", "America/New_York");
    expect(at.toISOString()).toBe("2031-03-03T05:00:00.000Z");
    const now = new Date("2031-03-01T12:00:00Z");
    expect(await scheduleChangeset(handle.db, owner.signedIn, { changesetId, date: "2031-03-03", time: "00:00", timeZone: "Europe/Paris", now })).toMatchObject({ ok: false, errors: { timeZone: expect.any(String) } });
    expect(await scheduleChangeset(handle.db, owner.signedIn, { changesetId, date: "2031-02-30", time: "25:00", timeZone: "America/New_York", now })).toMatchObject({ ok: false, errors: { date: expect.any(String), time: expect.any(String) } });
    expect(await scheduleChangeset(handle.db, owner.signedIn, { changesetId, date: "2031-03-03", time: "00:00", timeZone: "America/New_York", now })).toEqual({ ok: true, at });
    expect((await flags()).n).toBe(false);

    // Another edit opens a new draft meanwhile.
    const next = await edit(owner, "location", lumberton, { metaTagline: "A later draft" });
    expect(next.changesetId).not.toBe(changesetId);
    expect(await unscheduleChangeset(handle.db, owner.signedIn, { changesetId })).toMatchObject({ ok: false, status: 400 });

    expect(await publishDueChangesets(handle.db, new Date(at.getTime() - 60_000))).toEqual([]);
    expect(await page(LOCATION_PAGE)).not.toContain("Scheduled for Monday midnight in New York.");
    const published = await publishDueChangesets(handle.db, at);
    expect(published).toHaveLength(1);
    expect(await page(LOCATION_PAGE)).toContain("Scheduled for Monday midnight in New York.");
    const [row] = await handle.db.select().from(changesets).where(eq(changesets.id, changesetId));
    expect(row).toMatchObject({ status: "published", publishedBy: null, version: published[0] });
    // The later draft is still a draft, untouched.
    expect(await currentDraftId(handle.db, accountId)).toBe(next.changesetId);
    expect(await discardChangeset(handle.db, owner.signedIn, { changesetId: next.changesetId })).toEqual({ ok: true });
  });

  it("unschedule returns it to the draft when none is open", async () => {
    const { changesetId } = await edit(owner, "location", lumberton, { metaTagline: "Unscheduled later" });
    const now = new Date("2031-04-01T12:00:00Z");
    expect((await scheduleChangeset(handle.db, owner.signedIn, { changesetId, date: "2031-05-01", time: "09:30", timeZone: "America/New_York", now })).ok).toBe(true);
    expect(await currentDraftId(handle.db, accountId)).toBeNull();
    expect(await unscheduleChangeset(handle.db, owner.signedIn, { changesetId })).toEqual({ ok: true });
    expect(await currentDraftId(handle.db, accountId)).toBe(changesetId);
    expect((await flags()).n).toBe(true);
    expect(await discardChangeset(handle.db, owner.signedIn, { changesetId })).toEqual({ ok: true });
  });

  it("two schedulers at once (two connection pools on PostgreSQL) publish a due changeset once", async () => {
    const { changesetId } = await edit(owner, "location", lumberton, { metaDescription: "Published once by two schedulers." });
    const now = new Date("2031-06-01T12:00:00Z");
    expect((await scheduleChangeset(handle.db, owner.signedIn, { changesetId, date: "2031-06-02", time: "08:00", timeZone: "America/New_York", now })).ok).toBe(true);
    const due = instantIn("2031-06-02", "08:00", "America/New_York");
    const second = isPostgres() ? openDatabase({ url: await sameDatabaseUrl(), poolSize: 2 }) : null;
    try {
      const runs = await Promise.all([publishDueChangesets(handle.db, due), publishDueChangesets(second?.db ?? handle.db, due), publishDueChangesets(handle.db, due)]);
      expect(runs.flat()).toHaveLength(1);
    } finally {
      await second?.close();
    }
    const audits = (await handle.db.select().from(auditEvents).where(eq(auditEvents.action, "content.published"))).filter((a) => (a.detail as { changesetId?: number }).changesetId === changesetId);
    expect(audits).toHaveLength(1);
    expect((await listEffectiveRecords(handle.db, owner.signedIn, "location", null)).length).toBeGreaterThan(0);
  });
});

describe("the console's pages, without JavaScript (plain forms over HTTP)", () => {
  let csrf: { cookie: string; token: string };
  beforeAll(async () => {
    const minted = await getCsrfToken(new Request("http://localhost/admin"));
    csrf = { cookie: minted.setCookie!.split(";")[0]!, token: minted.token };
  });
  const post = async (path: string, fields: Record<string, string>, member: TestStaffMember) =>
    fetch(app.origin + path, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: `${csrf.cookie}; ${member.cookie}`, Referer: app.origin + path },
      body: new URLSearchParams({ [CSRF_FIELD]: (await getCsrfToken(new Request(app.origin + path, { headers: { Cookie: member.cookie } }))).token, ...fields }),
    });
  /** The page's HTML without React's text separators (`<!-- -->`). */
  const html = async (path: string, member: TestStaffMember) => (await (await fetch(app.origin + path, { headers: { Cookie: `${csrf.cookie}; ${member.cookie}` } })).text()).replaceAll("<!-- -->", "");

  it("/admin/changes lists each changed field before → after and who; a schedule in the past is answered beside the date; Publish goes live", async () => {
    const live = (await readEffectiveRecord(handle.db, owner.signedIn, "location", lumberton))!.values.metaTagline as string;
    const { changesetId } = await edit(manager, "location", lumberton, { metaTagline: "Console tagline" });
    const body = await html("/admin/changes", owner);
    expect(body).toContain("Location: <strong>Lumberton</strong>");
    expect(body).toContain(`Tagline: <del>${live.replaceAll("'", "&#x27;")}</del> → <ins>Console tagline</ins>`);
    expect(body).toContain(manager.email.split("@")[0]!.split(".")[0]!);
    expect(body).toContain('href="/admin/changes/diff"');

    const past = await post("/admin/changes", { intent: "schedule", changesetId: String(changesetId), date: "2001-01-01", time: "00:00", timeZone: "America/New_York" }, owner);
    expect(past.status).toBe(400);
    const answered = await past.text();
    expect(answered).toMatch(/id="field-date-error"[^>]*>Choose a moment in the future/);
    expect(answered).toContain('value="2001-01-01"');

    const published = await post("/admin/changes", { intent: "publish", changesetId: String(changesetId) }, owner);
    expect(published.status).toBe(303);
    expect(published.headers.get("location")).toMatch(/^\/admin\/changes\?done=published&version=\d+$/);
    expect(await page(LOCATION_PAGE)).toContain("Console tagline");
    expect(await html("/admin/changes", owner)).toContain("Restore this version");
  });

  it("the audit trail's Revert puts the field's earlier value in the draft; a second revert of a stale entry is refused beside its button", async () => {
    const [event] = await handle.db.select().from(auditEvents).where(eq(auditEvents.action, "content.draft_update")).orderBy(desc(auditEvents.id)).limit(1);
    expect(event!.changes!.metaTagline!.after).toBe("Console tagline");
    const audit = await html("/admin/audit", owner);
    expect(audit).toContain("Revert \u201cTagline\u201d");
    // Offered for field edits of live records only, not for a drafted delete.
    expect(audit).not.toMatch(/Deleted a record in the draft<\/td><td[^>]*>[^<]*<\/td><td[^>]*>[^<]*<form/);
    const r = await post("/admin/audit", { eventId: String(event!.id), field: "metaTagline" }, owner);
    expect(r.status).toBe(303);
    expect((await readEffectiveRecord(handle.db, owner.signedIn, "location", lumberton))!.values.metaTagline).toBe(event!.changes!.metaTagline!.before);
    // An older entry whose `after` is no longer the field's value: refused, with the value it holds now.
    const older = (await handle.db.select().from(auditEvents).where(eq(auditEvents.action, "content.draft_update")).orderBy(asc(auditEvents.id))).find(
      (e) => e.entityId === String(lumberton) && e.changes?.metaTagline && e.changes.metaTagline.after !== event!.changes!.metaTagline!.before,
    )!;
    const refused = await post("/admin/audit", { eventId: String(older.id), field: "metaTagline" }, owner);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(new RegExp(`id="revert-${older.id}-metaTagline-error"[^>]*>It changed again since`));
    await discardChangeset(handle.db, owner.signedIn, { changesetId: (await currentDraftId(handle.db, accountId))! });
  });
});
