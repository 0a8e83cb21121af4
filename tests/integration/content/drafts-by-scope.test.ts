/**
 * Drafts that do not block each other (issue 39, decision 630), over real HTTP against the app with
 * an owner and a manager scoped to Lumberton:
 * - the owner's edits elsewhere (another location, the whole website) no longer make the manager's own
 *   change unpublishable: the manager publishes the changes at their locations, the owner's stay in
 *   the draft, untouched, and go live only when the owner publishes;
 * - "Discard" asks first, naming what goes and what stays, and discards only what the member may
 *   change; the owner's discard asks too;
 * - scheduling takes the member's own changes; unscheduling brings them back into the open draft;
 * - restore, the field-level audit trail and versions keep working on the split changesets.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import type { DatabaseHandle } from "~/db/client.server";
import { pinClockForTests } from "~/platform/clock.server";
import { auditEvents, changesetChanges, changesets, locations, websites } from "~/db/schema";
import { changesOf, currentDraftId, readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { restoreVersion } from "~/services/content/publish.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

let handle: DatabaseHandle;
let app: AppServer;
let owner: TestStaffMember;
let manager: TestStaffMember;
let lumberton: number;
let other: { id: number; slug: string };
let websiteId: number;
let accountId: number;
let csrf: { cookie: string; token: string };
const LUMBERTON_PAGE = "/locations/lumberton-nc-28358";

async function edit(member: TestStaffMember, entity: "location" | "website", recordId: number, values: Record<string, unknown>) {
  const before = await readEffectiveRecord(handle.db, member.signedIn, entity, recordId);
  const base = Object.fromEntries(Object.keys(values).map((k) => [k, before!.values[k]]));
  const r = await saveDraftEdit(handle.db, member.signedIn, { op: "update", entity, recordId, values, base });
  expect(r.ok).toBe(true);
  return r as { ok: true; changesetId: number };
}

const page = async (path: string) => {
  const res = await fetch(app.origin + path);
  expect(res.status, path).toBe(200);
  return res.text();
};
const post = async (member: TestStaffMember, fields: Record<string, string>) =>
  fetch(app.origin + "/admin/changes", {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: `${csrf.cookie}; ${member.cookie}`, Referer: app.origin + "/admin/changes" },
    body: new URLSearchParams({ [CSRF_FIELD]: (await getCsrfToken(new Request(app.origin + "/admin/changes", { headers: { Cookie: member.cookie } }))).token, ...fields }),
  });
const html = async (member: TestStaffMember) =>
  (await (await fetch(app.origin + "/admin/changes", { headers: { Cookie: `${csrf.cookie}; ${member.cookie}` } })).text()).replaceAll("<!-- -->", "");
const draftChanges = async () => {
  const id = await currentDraftId(handle.db, accountId);
  return id ? (await changesOf(handle.db, id)).map((c) => `${c.entity}:${c.recordId}:${Object.keys(c.values).join(",")}`).sort() : [];
};

beforeAll(async () => {
  pinClockForTests(new Date());
  handle = await createTestDatabase({ seeded: true });
  const locs = await handle.db.select({ id: locations.id, slug: locations.urlSlug, accountId: locations.accountId }).from(locations).orderBy(asc(locations.id));
  lumberton = locs.find((l) => l.slug.startsWith("lumberton"))!.id;
  const o = locs.find((l) => l.id !== lumberton)!;
  other = { id: o.id, slug: o.slug };
  accountId = locs[0]!.accountId;
  websiteId = (await handle.db.select({ id: websites.id }).from(websites).where(eq(websites.accountId, accountId)))[0]!.id;
  owner = await signedInStaffMember(handle.db, { accountId, role: "owner" });
  manager = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [lumberton] });
  app = await startAppServer(handle.db);
  const minted = await getCsrfToken(new Request("http://localhost/admin"));
  csrf = { cookie: minted.setCookie!.split(";")[0]!, token: minted.token };
});
afterAll(async () => {
  await app?.close();
  await handle?.close();
  pinClockForTests(null);
});

describe("each member publishes the changes within their scope (issue 39, decision 630)", () => {
  it("an owner's changes elsewhere do not block the manager's own: the manager publishes theirs, the owner's stay in the draft untouched", async () => {
    const draftId = (await edit(owner, "location", other.id, { metaTagline: "Owner's tagline elsewhere" })).changesetId;
    await edit(owner, "website", websiteId, { websiteName: "Owner's new site name" });
    const mine = await edit(manager, "location", lumberton, { metaDescription: "Manager's own Lumberton description." });
    expect(mine.changesetId).toBe(draftId);

    const seen = await html(manager);
    expect(seen).toContain("Manager&#x27;s own Lumberton description.");
    expect(seen).not.toContain("Owner&#x27;s tagline elsewhere");
    expect(seen).toContain("2 more changes are at other locations or on the whole website");
    expect(seen).toContain("Publish your changes now");

    const published = await post(manager, { intent: "publish", changesetId: String(draftId) });
    expect(published.status).toBe(303);
    expect(published.headers.get("location")).toMatch(/done=published&version=\d+/);
    expect(await page(LUMBERTON_PAGE)).toContain("Manager&#x27;s own Lumberton description.");
    // The owner's edits are still the draft's, as they were, and not live.
    expect(await currentDraftId(handle.db, accountId)).toBe(draftId);
    expect(await draftChanges()).toEqual([`location:${other.id}:metaTagline`, `website:${websiteId}:websiteName`]);
    expect(await page("/")).not.toContain("Owner&#x27;s new site name");

    // The manager's publish is a version of its own, audited with where it came from.
    const [audit] = await handle.db.select().from(auditEvents).where(eq(auditEvents.action, "content.published")).orderBy(asc(auditEvents.id));
    expect(audit!.detail).toMatchObject({ fromDraft: draftId, updates: 1, records: 1 });
    const [version] = await handle.db.select().from(changesets).where(eq(changesets.id, Number(audit!.entityId)));
    expect(version).toMatchObject({ status: "published", publishedBy: manager.staffId });
    expect(version!.snapshot!.location![String(lumberton)]!.metaDescription).toBe("Manager's own Lumberton description.");

    // The owner then publishes the rest: the whole draft.
    expect(await html(owner)).toContain(">Publish now<");
    const rest = await post(owner, { intent: "publish", changesetId: String(draftId) });
    expect(rest.status).toBe(303);
    expect(await page("/")).toContain("Owner&#x27;s new site name");
    expect(await currentDraftId(handle.db, accountId)).toBeNull();

    // Restore still brings the content back: before the owner's publish, the manager's change is live, the owner's not.
    const versions = await handle.db.select({ version: changesets.version }).from(changesets).where(and(eq(changesets.accountId, accountId), eq(changesets.status, "published")));
    const last = Math.max(...versions.map((v) => v.version!));
    expect(await restoreVersion(handle.db, owner.signedIn, last - 1)).toMatchObject({ ok: true });
    expect(await page("/")).not.toContain("Owner&#x27;s new site name");
    expect(await page(LUMBERTON_PAGE)).toContain("Manager&#x27;s own Lumberton description.");
  });

  it("Discard asks first, naming what goes and what stays, and discards only the manager's changes", async () => {
    const draftId = (await edit(owner, "location", other.id, { metaTagline: "Owner keeps this" })).changesetId;
    await edit(manager, "location", lumberton, { metaTagline: "Manager throws this away" });

    const asked = await post(manager, { intent: "discard", changesetId: String(draftId) });
    expect(asked.status).toBe(200);
    const question = (await asked.text()).replaceAll("<!-- -->", "");
    expect(question).toContain("Discard 1 change?");
    expect(question).toMatch(/Location: Lumberton/);
    expect(question).toContain("1 change by others, at other locations or on the whole website, stays in the draft.");
    expect(question).toContain('name="confirmed" value="yes"');
    // Nothing was discarded by asking.
    expect(await draftChanges()).toEqual([`location:${lumberton}:metaTagline`, `location:${other.id}:metaTagline`].sort());

    const done = await post(manager, { intent: "discard", changesetId: String(draftId), confirmed: "yes" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/admin/changes?done=discarded");
    expect(await currentDraftId(handle.db, accountId)).toBe(draftId);
    expect(await draftChanges()).toEqual([`location:${other.id}:metaTagline`]);
    // The discarded change is kept as a discarded changeset of its own (audited), not lost.
    const [audit] = await handle.db.select().from(auditEvents).where(eq(auditEvents.action, "content.discarded")).orderBy(asc(auditEvents.id));
    expect(audit!.detail).toMatchObject({ fromDraft: draftId, keptInDraft: 1, updates: 1 });
    const [gone] = await handle.db.select().from(changesetChanges).where(eq(changesetChanges.changesetId, Number(audit!.entityId)));
    expect(gone).toMatchObject({ recordId: lumberton, values: { metaTagline: "Manager throws this away" } });

    // Nothing of theirs left: the manager is told so, and the owner's change stays.
    const nothing = await post(manager, { intent: "discard", changesetId: String(draftId), confirmed: "yes" });
    expect(nothing.status).toBe(400);
    expect(await draftChanges()).toEqual([`location:${other.id}:metaTagline`]);
    expect((await post(manager, { intent: "publish", changesetId: String(draftId) })).status).toBe(400);

    // The owner is asked too, then the whole draft goes.
    const ownerAsked = await post(owner, { intent: "discard", changesetId: String(draftId) });
    expect(ownerAsked.status).toBe(200);
    expect((await ownerAsked.text()).replaceAll("<!-- -->", "")).toContain("Discard 1 change?");
    expect((await post(owner, { intent: "discard", changesetId: String(draftId), confirmed: "yes" })).status).toBe(303);
    expect(await currentDraftId(handle.db, accountId)).toBeNull();
    const [flag] = await handle.db.select({ n: websites.hasNewChanges }).from(websites).where(eq(websites.id, websiteId));
    expect(flag!.n).toBe(false);
  });

  it("a manager schedules their own changes; unscheduling brings them back into the open draft", async () => {
    const draftId = (await edit(owner, "location", other.id, { metaTagline: "Owner's, not scheduled" })).changesetId;
    await edit(manager, "location", lumberton, { metaTagline: "Manager's, scheduled" });
    const scheduled = await post(manager, { intent: "schedule", changesetId: String(draftId), date: "2031-05-01", time: "09:30", timeZone: "America/New_York" });
    expect(scheduled.status).toBe(303);
    expect(await draftChanges()).toEqual([`location:${other.id}:metaTagline`]);
    const [row] = await handle.db.select().from(changesets).where(eq(changesets.status, "scheduled"));
    expect((await changesOf(handle.db, row!.id)).map((c) => c.recordId)).toEqual([lumberton]);

    const back = await post(manager, { intent: "unschedule", changesetId: String(row!.id) });
    expect(back.status).toBe(303);
    expect(await currentDraftId(handle.db, accountId)).toBe(draftId);
    expect(await draftChanges()).toEqual([`location:${lumberton}:metaTagline`, `location:${other.id}:metaTagline`].sort());
    expect((await post(owner, { intent: "discard", changesetId: String(draftId), confirmed: "yes" })).status).toBe(303);
  });
});
