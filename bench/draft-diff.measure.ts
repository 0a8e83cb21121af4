/**
 * The draft's diff page (/admin/changes/diff, issue 39): how long it takes for a draft of 20 records,
 * before and after the change of issue 39, side by side in one run.
 *
 *   npx vitest run --config bench/vitest.draft-diff.config.ts
 *   DIFF_ROUNDS=5 BENCH_PG_ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres …
 *
 * On a fresh PostgreSQL database (migrated and seeded, dropped at the end), the BUILT server (production
 * React, its site and page caches; tests/integration/support/built-server.ts builds it when stale) in
 * this process over real HTTP,
 * an owner drafts 20 records through `saveDraftEdit`, two drafts one after the other: "every location"
 * (FAQ and storage-tip titles, every location's description for search engines, unit types'
 * descriptions, amenities' descriptions) and "one location" (Lumberton's description, its unit types'
 * descriptions and amenities' descriptions, FAQ and storage-tip titles). Each round, in turn:
 * - "before": the diff as it was computed before issue 39 (`draftDiffBefore` below, a copy of
 *   app/services/content/page-diff.server.ts at commit 924ba31), in-process, with the built server's
 *   renderer (`renderPublicPage`);
 * - "after": `draftDiff` as it is now, in-process, with the same renderer;
 * - "page": GET /admin/changes/diff over HTTP as the owner (the loader, `draftDiff`, the render).
 * Both in-process results are checked equal (same pages, same lines, same fields). Prints each round
 * and the medians as JSON.
 */
// First: it sets the session secret the built app and this process share.
import { startBuiltServer } from "../tests/integration/support/built-server";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { asc, eq } from "drizzle-orm";
import { expect, it } from "vitest";
import { openDatabase, type Database } from "~/db/client.server";
import { amenities, contentItems, locations, unitTypes, websites } from "~/db/schema";
import { externalRedirectHost } from "~/domain/site/redirects";
import { changesOf, currentDraftId, readEffectiveRecord, saveDraftEdit, type ChangeRow } from "~/services/content/changesets.server";
import { discardChangeset } from "~/services/content/publish.server";
import { draftDiff, lineDiff, pageText, sitemapPaths, type RenderPublicPage } from "~/services/content/page-diff.server";
import { withDraftApplied } from "~/services/content/preview.server";
import { resolveRedirect } from "~/services/site/redirects.server";
import { signedInStaffMember } from "../tests/integration/support/staff-fixtures";

const ROUNDS = Number(process.env.DIFF_ROUNDS ?? 5);
const RECORDS = 20;
const ADMIN = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

// ---- before (commit 924ba31): every sitemap page rendered live, then in its own preview transaction ----

async function answerTextBefore(db: Database, path: string, render: RenderPublicPage, primaryHost?: string): Promise<string> {
  const url = new URL(path, "http://localhost");
  const redirect = await resolveRedirect(db, { host: undefined, pathname: url.pathname, search: url.search });
  const moved = (r: { status: number; location: string }) => {
    const host = externalRedirectHost(r.location, primaryHost);
    return `(redirects with ${r.status} to ${r.location}${host ? ` — external: leaves the site for ${host}` : ""})`;
  };
  if (redirect?.forced) return moved(redirect);
  const page = await render(path, db);
  if (redirect && page.status === 404) return moved(redirect);
  return page.status === 200 ? pageText(page.body) : `(answered ${page.status})`;
}

async function draftDiffBefore(db: Database, accountId: number, render: RenderPublicPage) {
  const changesetId = await currentDraftId(db, accountId);
  if (changesetId === null) return null;
  const changes: ChangeRow[] = await changesOf(db, changesetId);
  const livePaths = sitemapPaths((await render("/sitemap.xml", db)).body);
  const previewPaths = await withDraftApplied(db, changesetId, async (tx) => sitemapPaths((await render("/sitemap.xml", tx)).body));
  const ruled = changes
    .filter((c) => c.entity === "redirect")
    .flatMap((c) => [(c.base as Record<string, unknown> | null)?.fromPath, (c.values as Record<string, unknown>).fromPath])
    .filter((p): p is string => typeof p === "string" && p.startsWith("/"));
  const paths = [...new Set([...livePaths, ...previewPaths, ...ruled])];
  const [site] = await db.select({ domain: websites.domain }).from(websites).where(eq(websites.accountId, accountId));
  const pages: Array<{ path: string; change: string; lines: unknown }> = [];
  for (const path of paths) {
    const before = livePaths.includes(path) || ruled.includes(path) ? await answerTextBefore(db, path, render, site?.domain) : "";
    const after = previewPaths.includes(path) || ruled.includes(path) ? await withDraftApplied(db, changesetId, (tx) => answerTextBefore(tx, path, render, site?.domain)) : "";
    if (before === after) continue;
    pages.push({ path, change: before === "" ? "added" : after === "" ? "removed" : "changed", lines: lineDiff(before, after) });
  }
  return { changesetId, pages, compared: paths.length };
}

// ---- the measurement ------------------------------------------------------------------------------

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const time = async <T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> => {
  const t = performance.now();
  const value = await run();
  return { ms: Math.round(performance.now() - t), value };
};

it("measures the draft's diff page, before and after", async () => {
  const name = `gatehouse_diff_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  execFileSync("npx", ["tsx", "scripts/db-setup.ts"], { stdio: "ignore", env: { ...process.env, DATABASE_URL: url.href, NODE_ENV: "development" } });
  const handle = openDatabase({ url: url.href });
  const { db } = handle;
  const server = await startBuiltServer(handle);
  // The built server's own renderer (production React, the server's route modules): the same module instance.
  const built = (await import(/* @vite-ignore */ pathToFileURL(path.resolve("build/server/index.js")).href)) as { renderPublicPage: RenderPublicPage };
  const app = { renderPublicPage: built.renderPublicPage, close: () => server.close() };
  try {
    const [loc] = await db.select().from(locations).orderBy(asc(locations.id)).limit(1);
    const accountId = loc!.accountId;
    const owner = await signedInStaffMember(db, { accountId, role: "owner" });
    type Target = { entity: "contentItem" | "location" | "unitType" | "amenity"; id: number; field: string };
    const items = (await db.select({ id: contentItems.id }).from(contentItems).where(eq(contentItems.accountId, accountId)).orderBy(asc(contentItems.id))).map((r) => ({ entity: "contentItem" as const, id: r.id, field: "title" }));
    const allLocations = await db.select({ id: locations.id }).from(locations).where(eq(locations.accountId, accountId)).orderBy(asc(locations.id));
    const types = await db.select({ id: unitTypes.id, locationId: unitTypes.locationId }).from(unitTypes).orderBy(asc(unitTypes.id));
    const amenityRows = await db.select({ id: amenities.id, locationId: amenities.locationId }).from(amenities).orderBy(asc(amenities.id));
    const lumberton = (await db.select({ id: locations.id }).from(locations).where(eq(locations.urlSlug, "lumberton-nc-28358")))[0]!.id;
    const drafts: Record<string, Target[]> = {
      // Across the site: every location's record (a description: the layout's \`locations\` tag is not touched), unit types, amenities, FAQs.
      "every location": [
        ...items.slice(0, 8),
        ...allLocations.map((r) => ({ entity: "location" as const, id: r.id, field: "metaDescription" })),
        ...types.slice(0, 5).map((r) => ({ entity: "unitType" as const, id: r.id, field: "description" })),
        ...amenityRows.map((r) => ({ entity: "amenity" as const, id: r.id, field: "description" })),
      ].slice(0, RECORDS),
      // A manager's day: one location's record, unit types and amenities, and FAQs and storage tips.
      "one location": [
        { entity: "location" as const, id: lumberton, field: "metaDescription" },
        ...types.filter((t) => t.locationId === lumberton).map((r) => ({ entity: "unitType" as const, id: r.id, field: "description" })),
        ...amenityRows.filter((a) => a.locationId === lumberton).map((r) => ({ entity: "amenity" as const, id: r.id, field: "description" })),
        ...items,
      ].slice(0, RECORDS),
    };
    const summaries: unknown[] = [];
    for (const [label, targets] of Object.entries(drafts)) {
      expect(targets).toHaveLength(RECORDS);
      for (const [i, t] of targets.entries()) {
        const before = await readEffectiveRecord(db, owner.signedIn, t.entity, t.id);
        const r = await saveDraftEdit(db, owner.signedIn, { op: "update", entity: t.entity, recordId: t.id, values: { [t.field]: `Diff bench change ${i + 1}` }, base: { [t.field]: before!.values[t.field] } });
        expect(r.ok).toBe(true);
      }
      const draftId = (await currentDraftId(db, accountId))!;
      expect(await changesOf(db, draftId)).toHaveLength(RECORDS);

      // Warm-up: each once (module and statement caches), and the two computations agree.
      const warmBefore = await draftDiffBefore(db, accountId, app.renderPublicPage);
      const warmAfter = await draftDiff(db, accountId, app.renderPublicPage);
      expect(warmAfter!.pages).toEqual(warmBefore!.pages);
      expect(warmAfter!.compared).toBe(warmBefore!.compared);
      const rounds: Array<{ beforeMs: number; afterMs: number; pageMs: number }> = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const before = await time(() => draftDiffBefore(db, accountId, app.renderPublicPage));
        const after = await time(() => draftDiff(db, accountId, app.renderPublicPage));
        const page = await time(async () => {
          const res = await fetch(server.urlFor("/admin/changes/diff"), { headers: { Cookie: owner.cookie } });
          expect(res.status).toBe(200);
          return res.text();
        });
        expect(page.value).toContain("Diff bench change 1");
        rounds.push({ beforeMs: before.ms, afterMs: after.ms, pageMs: page.ms });
        console.log(JSON.stringify({ draft: label, round, ...rounds.at(-1) }));
      }
      summaries.push({
        draft: label,
        records: RECORDS,
        rounds: ROUNDS,
        pagesCompared: warmAfter!.compared,
        pagesChanged: warmAfter!.pages.length,
        medianBeforeMs: median(rounds.map((r) => r.beforeMs)),
        medianAfterMs: median(rounds.map((r) => r.afterMs)),
        medianPageMs: median(rounds.map((r) => r.pageMs)),
      });
      await discardChangeset(db, owner.signedIn, { changesetId: draftId });
    }
    for (const summary of summaries) console.log(JSON.stringify(summary));
  } finally {
    await app.close();
    await handle.close();
    const c = new pg.Client({ connectionString: ADMIN });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  }
});
