/**
 * Publishing (issue 24): how long a publish of a 50-record changeset takes, and how long after it
 * every server process serves the new pages.
 *
 *   npx react-router build && npx tsx bench/publish.ts
 *
 * On a fresh PostgreSQL database (bench/lib/postgres.mjs; BENCH_DATABASE_URL to give one), migrated
 * and seeded, with two built server processes (page cache on, BENCH_PORT and BENCH_PORT+1, default
 * 3440/3441). Each round drafts 50 records (FAQ and storage-tip titles, unit types' descriptions,
 * amenities' descriptions, locations' descriptions — one change per record, through `saveDraftEdit`),
 * makes both processes cache /faqs and the location page, publishes with `publishDraft` (timed), then
 * polls both processes (every 5 ms) until each serves the new /faqs and location page (timed from the
 * end of the publish). BENCH_ROUNDS rounds (default 5). Prints one line of JSON per round and a
 * summary. Not part of `npm test`.
 */
import { execFileSync } from "node:child_process";
import { eq } from "drizzle-orm";
import { openDatabase } from "~/db/client.server";
import { amenities, contentItems, locations, staffMembers, unitTypes } from "~/db/schema";
import { scopeFor } from "~/domain/staff/roles";
import { readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { publishDraft } from "~/services/content/publish.server";
import type { SignedInStaff } from "~/services/staff/context.server";
// @ts-expect-error -- plain ES modules of the bench
import { benchDatabase } from "./lib/postgres.mjs";
// @ts-expect-error -- plain ES modules of the bench
import { startApp } from "./lib/app-server.mjs";

const RECORDS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PORT = Number(process.env.BENCH_PORT ?? 3440);
const LOCATION_PAGE = "/locations/lumberton-nc-28358";

const database = (await benchDatabase()) as { url: string; drop(): Promise<void> } | null;
if (!database) throw new Error("bench/publish.ts needs PostgreSQL (two processes share it)");
const childEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: "production",
  PAYMENT_GATEWAY: "test",
  HTTPS: "false",
  HOST: "127.0.0.1",
  BUILD_DIR: process.env.BUILD_DIR ?? "build",
  BILLING_SCHEDULE: "off",
  HOUSEKEEPING: "off",
  PUBLISH_SCHEDULE: "off",
  SESSION_SECRET: "bench-only-session-secret-not-for-production-0000",
  DATABASE_URL: database.url,
};
execFileSync("npx", ["tsx", "scripts/db-setup.ts"], { stdio: ["ignore", "ignore", "inherit"], env: childEnv });
type App = { url: string; stop(): Promise<void> };
const apps = (await Promise.all([0, 1].map((i) => startApp({ env: { ...childEnv, PUBLIC_URL: `http://127.0.0.1:${PORT + i}` }, port: PORT + i, label: `process ${i + 1}` })))) as App[];
const handle = openDatabase({ url: database.url, poolSize: 4 });
const { db } = handle;

const [loc] = await db.select().from(locations).where(eq(locations.urlSlug, "lumberton-nc-28358"));
const [staffRow] = await db.insert(staffMembers).values({ accountId: loc!.accountId, email: "bench.owner@office.example", name: "Bench owner", role: "owner", passwordHash: "not-used" }).returning();
const staff: SignedInStaff = { staffId: staffRow!.id, accountId: loc!.accountId, email: staffRow!.email, name: staffRow!.name, role: "owner", scope: scopeFor("owner", []), factorAt: new Date(), sessionHash: "bench", ip: null };

type Target = { entity: "contentItem" | "unitType" | "amenity" | "location"; id: number; field: string };
const targets: Target[] = [
  ...(await db.select({ id: contentItems.id }).from(contentItems).where(eq(contentItems.accountId, loc!.accountId))).map((r) => ({ entity: "contentItem" as const, id: r.id, field: "title" })),
  ...(await db.select({ id: locations.id }).from(locations).where(eq(locations.accountId, loc!.accountId))).map((r) => ({ entity: "location" as const, id: r.id, field: "metaDescription" })),
  ...(await db.select({ id: unitTypes.id }).from(unitTypes)).map((r) => ({ entity: "unitType" as const, id: r.id, field: "description" })),
  ...(await db.select({ id: amenities.id }).from(amenities)).map((r) => ({ entity: "amenity" as const, id: r.id, field: "description" })),
].slice(0, RECORDS);
if (targets.length < RECORDS) throw new Error(`only ${targets.length} editable records in the seed`);
// The location page's own record is among the targets: its description carries the marker.
if (!targets.some((t) => t.entity === "location" && t.id === loc!.id)) targets[targets.length - 1] = { entity: "location", id: loc!.id, field: "metaDescription" };

const page = async (app: App, path: string) => {
  const r = await fetch(app.url + path, { headers: { "Accept-Encoding": "gzip" } });
  return { text: await r.text(), cached: r.headers.get("x-page-cache") === "hit" };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const results: Array<{ publishMs: number; visibleMs: number[] }> = [];
for (let round = 1; round <= ROUNDS; round++) {
  const marker = `Bench round ${round} ${Date.now()}`;
  let changesetId = 0;
  for (const [i, t] of targets.entries()) {
    const before = await readEffectiveRecord(db, staff, t.entity, t.id);
    const value = t.entity === "contentItem" ? `${marker} #${i}` : `${marker} #${i}`;
    const r = await saveDraftEdit(db, staff, { op: "update", entity: t.entity, recordId: t.id, values: { [t.field]: value }, base: { [t.field]: before!.values[t.field] } });
    if (!r.ok) throw new Error(`draft edit refused: ${JSON.stringify(r)}`);
    changesetId = r.changesetId;
  }
  // Both processes have the pages in their cache.
  for (const app of apps) for (const path of ["/faqs", LOCATION_PAGE]) for (let i = 0; i < 40 && !(await page(app, path)).cached; i++) await sleep(25);
  const start = performance.now();
  const published = await publishDraft(db, staff, { changesetId });
  const publishMs = performance.now() - start;
  if (!published.ok || published.counts.updates !== RECORDS) throw new Error(`publish failed: ${JSON.stringify(published)}`);
  const visibleMs = await Promise.all(
    apps.map(async (app) => {
      for (;;) {
        const [faqs, location] = await Promise.all([page(app, "/faqs"), page(app, LOCATION_PAGE)]);
        if (faqs.text.includes(marker) && location.text.includes(marker)) return performance.now() - start - publishMs;
        if (performance.now() - start > 30_000) throw new Error("the new pages did not show within 30 s");
        await sleep(5);
      }
    }),
  );
  const line = { round, records: RECORDS, version: published.version, publishMs: Math.round(publishMs), visibleMs: visibleMs.map((v) => Math.round(v)) };
  console.log(JSON.stringify(line));
  results.push({ publishMs, visibleMs });
}

const max = (xs: number[]) => Math.round(Math.max(...xs));
const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
console.log(
  JSON.stringify({
    summary: true,
    rounds: ROUNDS,
    records: RECORDS,
    publishMs: { median: median(results.map((r) => r.publishMs)), max: max(results.map((r) => r.publishMs)) },
    visibleAfterPublishMs: { median: median(results.flatMap((r) => r.visibleMs)), max: max(results.flatMap((r) => r.visibleMs)) },
  }),
);
await Promise.all(apps.map((a) => a.stop()));
await handle.close();
await database.drop();
process.exit(0);
