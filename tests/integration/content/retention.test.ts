/**
 * Housekeeping of the content's history (issue 24, decision 361), on the real database (both
 * drivers): real publishes at chosen times, uploaded images named by versions, the draft, the live
 * site and the audit trail. Old snapshots beyond the kept versions are pruned (listed, no longer
 * restorable); a kept version still restores; an image is deleted only when nothing kept names it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { auditEvents, changesets, locations, mediaFiles, mediaVariants } from "~/db/schema";
import { readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { listVersions, publishDraft, restoreVersion } from "~/services/content/publish.server";
import { pruneContentHistory } from "~/services/content/retention.server";
import { runHousekeeping } from "~/services/jobs/housekeeping.server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

const DAY = 86_400_000;
/** "Now" for the pruning: far enough ahead that the edits' own audit rows (written at the real time) are old. */
const T = new Date(Date.now() + 400 * DAY);
const before = (days: number) => new Date(T.getTime() - days * DAY);
const RULE = { keepVersions: 2, keepDays: 30 };

let handle: DatabaseHandle;
let owner: TestStaffMember;
let accountId: number;
let lumberton: number;
const sha: Record<"old" | "kept" | "live" | "draft" | "audit" | "unused" | "fresh", string> = {} as never;

const image = (hash: string) => ({ width: 960, height: 640, alt: "The gate", src: `/media/${hash}-960.webp`, src_webp: null, title: null });

async function edit(values: Record<string, unknown>) {
  const current = await readEffectiveRecord(handle.db, owner.signedIn, "location", lumberton);
  const base = Object.fromEntries(Object.keys(values).map((k) => [k, current!.values[k]]));
  const r = await saveDraftEdit(handle.db, owner.signedIn, { op: "update", entity: "location", recordId: lumberton, values, base });
  expect(r.ok).toBe(true);
  return (r as { changesetId: number }).changesetId;
}
async function publishAt(values: Record<string, unknown>, at: Date) {
  const r = await publishDraft(handle.db, owner.signedIn, { changesetId: await edit(values), now: at });
  expect(r.ok).toBe(true);
}
const mediaLeft = async () =>
  new Set((await handle.db.select({ sha: mediaFiles.sha256 }).from(mediaFiles).where(eq(mediaFiles.accountId, accountId))).map((m) => m.sha));

beforeAll(async () => {
  handle = await createTestDatabase({ seeded: true });
  const locs = await handle.db.select({ id: locations.id, slug: locations.urlSlug, accountId: locations.accountId }).from(locations).orderBy(asc(locations.id));
  lumberton = locs.find((l) => l.slug.startsWith("lumberton"))!.id;
  accountId = locs[0]!.accountId;
  owner = await signedInStaffMember(handle.db, { accountId, role: "owner" });
  for (const [n, key] of (["old", "kept", "live", "draft", "audit", "unused", "fresh"] as const).entries()) {
    sha[key] = String(n + 1).repeat(64);
    const [row] = await handle.db
      .insert(mediaFiles)
      .values({ accountId, sha256: sha[key], originalName: `${key}.jpg`, format: "jpeg", size: 1000, width: 960, height: 640, createdAt: key === "fresh" ? before(1) : before(150) })
      .returning({ id: mediaFiles.id });
    await handle.db.insert(mediaVariants).values({ mediaId: row!.id, width: 960, height: 640, contentType: "image/webp", bytes: new Uint8Array([1, 2, 3]) });
  }
  // v0 (before the first publish) and v1 at 100 days, v2 at 60, v3 at 50, v4 yesterday.
  await publishAt({ mainImage: image(sha.old) }, before(100));
  await publishAt({ mainImage: image(sha.kept) }, before(60));
  await publishAt({ metaTagline: "Version three" }, before(50));
  await publishAt({ mainImage: image(sha.live) }, before(1));
  await edit({ mainLogo: image(sha.draft) });
  await handle.db.insert(auditEvents).values({
    accountId,
    actor: "owner@example.com",
    action: "content.draft_updated",
    at: before(2),
    changes: { mainLogo: { before: image(sha.audit), after: null } },
  });
});
afterAll(async () => {
  await handle?.close();
});

describe("pruning the content's history (decision 361)", () => {
  it("keeps the last versions and the recent ones restorable, and prunes the snapshots of the rest", async () => {
    const outcome = await pruneContentHistory(handle.db, T, RULE);
    expect(outcome.snapshotsPruned).toBe(3);
    const versions = await listVersions(handle.db, accountId);
    expect(versions.map((v) => [v.version, v.restorable])).toEqual([
      [4, true],
      [3, true],
      [2, false],
      [1, false],
      [0, false],
    ]);
    const refused = await restoreVersion(handle.db, owner.signedIn, 1, { now: T });
    expect(refused).toMatchObject({ ok: false, reason: "not-found" });
  });

  it("deletes only the images nothing kept names (with their sizes); the live, kept, draft, audited and fresh ones stay", async () => {
    const left = await mediaLeft();
    expect(left.has(sha.old)).toBe(false);
    expect(left.has(sha.unused)).toBe(false);
    for (const key of ["kept", "live", "draft", "audit", "fresh"] as const) expect(left.has(sha[key]), key).toBe(true);
    const variants = await handle.db.select({ id: mediaVariants.mediaId }).from(mediaVariants).innerJoin(mediaFiles, eq(mediaFiles.id, mediaVariants.mediaId)).where(eq(mediaFiles.accountId, accountId));
    expect(variants).toHaveLength(5);
  });

  it("a kept version still restores, its image still there; the next run prunes what fell out of the rule, then nothing", async () => {
    const restored = await restoreVersion(handle.db, owner.signedIn, 3, { now: T });
    expect(restored).toMatchObject({ ok: true });
    const [loc] = await handle.db.select({ mainImage: locations.mainImage }).from(locations).where(eq(locations.id, lumberton));
    expect(loc!.mainImage?.src).toBe(`/media/${sha.kept}-960.webp`);
    expect((await mediaLeft()).has(sha.kept)).toBe(true);
    // The restore is version 5: version 3 is no longer one of the last two, and is 50 days old.
    expect(await pruneContentHistory(handle.db, T, RULE)).toEqual({ snapshotsPruned: 1, mediaDeleted: 0 });
    expect(await pruneContentHistory(handle.db, T, RULE)).toEqual({ snapshotsPruned: 0, mediaDeleted: 0 });
    expect((await mediaLeft()).has(sha.kept)).toBe(true);
  });

  it("runs in the server's housekeeping with the documented rule (20 versions, 90 days): nothing here is old enough", async () => {
    const [v] = await handle.db.select({ n: changesets.id }).from(changesets).where(eq(changesets.version, 4));
    expect(v).toBeDefined();
    expect(await runHousekeeping(handle.db, T)).toMatchObject({ snapshotsPruned: 0, mediaDeleted: 0 });
  });
});
