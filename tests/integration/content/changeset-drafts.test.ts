import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { auditEvents, changesetChanges, hoursBlocks, hoursItems, locations, websites } from "~/db/schema";
import { applyChanges, changesOf, listEffectiveRecords, readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

let handle: DatabaseHandle;
let owner: TestStaffMember;
let lumbertonManager: TestStaffMember;
let lumberton: number;
let other: number;

beforeAll(async () => {
  handle = await createTestDatabase({ seeded: true });
  const locs = await handle.db.select({ id: locations.id, slug: locations.urlSlug, accountId: locations.accountId }).from(locations);
  lumberton = locs.find((l) => l.slug.startsWith("lumberton"))!.id;
  other = locs.find((l) => l.id !== lumberton)!.id;
  owner = await signedInStaffMember(handle.db, { accountId: locs[0]!.accountId, role: "owner" });
  lumbertonManager = await signedInStaffMember(handle.db, { accountId: locs[0]!.accountId, role: "manager", locationIds: [lumberton] });
});
afterAll(async () => handle?.close());

describe("drafts (issue 24)", () => {
  it("keeps an edit in the draft, not on the live row, and flags has_new_changes", async () => {
    const before = await readEffectiveRecord(handle.db, owner.signedIn, "location", lumberton);
    const result = await saveDraftEdit(handle.db, owner.signedIn, {
      op: "update",
      entity: "location",
      recordId: lumberton,
      values: { metaTagline: "Now with drive-up units" },
      base: { metaTagline: before!.values.metaTagline },
    });
    expect(result.ok).toBe(true);
    const [live] = await handle.db.select({ t: locations.metaTagline }).from(locations).where(eq(locations.id, lumberton));
    expect(live!.t).toBe(before!.values.metaTagline);
    const after = await readEffectiveRecord(handle.db, owner.signedIn, "location", lumberton);
    expect(after!.values.metaTagline).toBe("Now with drive-up units");
    expect(after!.pending).toEqual(["metaTagline"]);
    const [site] = await handle.db.select({ f: websites.hasNewChanges }).from(websites);
    expect(site!.f).toBe(true);
    const audit = await handle.db.select().from(auditEvents).where(eq(auditEvents.action, "content.draft_update"));
    expect(audit.at(-1)!.changes).toEqual({ metaTagline: { before: before!.values.metaTagline, after: "Now with drive-up units" } });
  });

  it("refuses a stale second save of the same field, with both values", async () => {
    const base = { metaTagline: (await readEffectiveRecord(handle.db, owner.signedIn, "location", lumberton))!.live!.metaTagline };
    const result = await saveDraftEdit(handle.db, lumbertonManager.signedIn, { op: "update", entity: "location", recordId: lumberton, values: { metaTagline: "Mine" }, base });
    expect(result).toMatchObject({ ok: false, reason: "conflict", conflicts: [{ field: "metaTagline", yours: "Mine", theirs: "Now with drive-up units" }] });
  });

  it("says not found for a location outside the member's scope, and for account-wide records to a manager", async () => {
    expect(await saveDraftEdit(handle.db, lumbertonManager.signedIn, { op: "update", entity: "location", recordId: other, values: { metaTagline: "x" }, base: {} })).toEqual({ ok: false, reason: "not-found" });
    expect(await readEffectiveRecord(handle.db, lumbertonManager.signedIn, "location", other)).toBeNull();
    const [site] = await handle.db.select({ id: websites.id }).from(websites);
    expect(await saveDraftEdit(handle.db, lumbertonManager.signedIn, { op: "update", entity: "website", recordId: site!.id, values: { websiteName: "x" }, base: {} })).toEqual({ ok: false, reason: "not-found" });
  });

  it("validates with the registry's schema, field by field", async () => {
    const result = await saveDraftEdit(handle.db, owner.signedIn, { op: "update", entity: "location", recordId: lumberton, values: { facebook: "not a link", name: "" }, base: {} });
    expect(result).toMatchObject({ ok: false, reason: "invalid", errors: { facebook: expect.any(String), name: expect.any(String) } });
  });

  it("lists drafted creates with their parent and applies them", async () => {
    const [block] = await handle.db.select().from(hoursBlocks).where(eq(hoursBlocks.locationId, lumberton)).limit(1);
    const created = await saveDraftEdit(handle.db, lumbertonManager.signedIn, {
      op: "create",
      entity: "hoursItem",
      values: { hoursBlockId: block!.id, days: "Su", open: "10:00", close: "14:00", isOpen24Hours: false, isClosed: false, isDisplayText: false, displayText: "" },
    });
    expect(created.ok).toBe(true);
    const listed = await listEffectiveRecords(handle.db, lumbertonManager.signedIn, "hoursItem", { column: "hoursBlockId", value: block!.id });
    expect(listed.some((r) => r.id === null && r.values.days === "Su")).toBe(true);
    const [draft] = await handle.db.select({ id: changesetChanges.changesetId }).from(changesetChanges).limit(1);
    await expect(
      handle.db.transaction(async (tx) => {
        await applyChanges(tx, await changesOf(tx, draft!.id));
        const items = await tx.select().from(hoursItems).where(eq(hoursItems.hoursBlockId, block!.id));
        expect(items.some((i) => i.days === "Su" && i.open === "10:00")).toBe(true);
        const [loc] = await tx.select({ t: locations.metaTagline }).from(locations).where(eq(locations.id, lumberton));
        expect(loc!.t).toBe("Now with drive-up units");
        tx.rollback();
      }),
    ).rejects.toThrow();
  });
});
