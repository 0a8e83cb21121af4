/**
 * The draft's diff page (/admin/changes/diff, issue 39, decisions 631 and 661): how long the console
 * takes to answer it, over HTTP, from the BUILT production server (`node server.js`, NODE_ENV=production),
 * on a seeded PostgreSQL database with a realistic draft; two builds side by side in one run.
 *
 *   npx react-router build && DIFF_BEFORE=<commit> npx tsx bench/diff-page.ts
 *   BUILDS=/tmp/other-checkout/build,build npx tsx bench/diff-page.ts
 *
 * - The builds: BUILDS (comma-separated; a build inside another checkout, an absolute path, runs with
 *   that checkout's server.js, as bench/cpu-miss.mjs), default `build`. DIFF_BEFORE=<commit> adds a
 *   build of that commit first ("before"): `git archive` into $TMPDIR/gatehouse-diff-<commit>, the
 *   worktree's node_modules linked, `react-router build` there (kept for the next run).
 * - The database: a fresh PostgreSQL database (bench/lib/postgres.mjs; BENCH_DATABASE_URL to give
 *   one), migrated and seeded, shared by every build's process (page cache on, as deployed).
 * - The draft (20 records, one owner's, through `saveDraftEdit`, each field as long as the editor
 *   allows or a long page's HTML): 3 locations' descriptions for search engines (300 characters) and
 *   one location's message after a rental (HTML), 6 unit types' descriptions (2,000 characters), the
 *   seeded page's content (/portable-storage: about 12 KB of HTML), 6 FAQs' and storage tips' texts
 *   (HTML, about 1.5 KB each) and 3 amenities' descriptions (1,000 characters).
 * - Each round asks every build's page once, in turn (so both see the same machine load), as the
 *   owner over one keep-alive connection, and times the whole answer (headers and body). The first
 *   answer of each build is a warm-up (its modules and statements), not counted, and the builds' pages
 *   are compared (the same pages, lines and fields; `sameAnswer`); every answer must be 200 and show
 *   the draft's changes.
 *
 * Settings: BENCH_ROUNDS (default 7), BENCH_PORT (3460 and up; one port per build). Prints one line
 * of JSON per round and the medians. Not part of `npm test`; the numbers are in docs/performance.md.
 */
import "./lib/diff-page-env";
// The console's origin, http://admin.localhost:PORT (decision 450), from Node too.
import "../tests/support/localhost-names";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { asc, eq, inArray } from "drizzle-orm";
import { openDatabase } from "~/db/client.server";
import { amenities, contentItems, locations, pages, unitTypes } from "~/db/schema";
import type { EditableEntityName } from "~/domain/content/editable";
import { readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { signedInOwner } from "./lib/staff-session";
// @ts-expect-error -- plain ES modules of the bench
import { benchDatabase } from "./lib/postgres.mjs";
// @ts-expect-error -- plain ES modules of the bench
import { startApp } from "./lib/app-server.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const PORT = Number(process.env.BENCH_PORT ?? 3460);
const ROOT = process.cwd();

/** A build of `commit` beside the worktree's own (made once, kept in the temporary directory). */
function buildOf(commit: string): string {
  const sha = execFileSync("git", ["rev-parse", "--short=10", commit], { encoding: "utf8" }).trim();
  const dir = path.join(os.tmpdir(), `gatehouse-diff-${sha}`);
  if (!fs.existsSync(path.join(dir, "build", "server", "index.js"))) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    execFileSync("sh", ["-c", `git archive ${sha} | tar -x -C ${JSON.stringify(dir)}`], { stdio: "inherit" });
    fs.symlinkSync(fs.realpathSync(path.join(ROOT, "node_modules")), path.join(dir, "node_modules"));
    console.error(`diff-page: building ${sha} in ${dir}`);
    execFileSync("npx", ["react-router", "build"], { cwd: dir, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, NODE_ENV: "production" } });
  }
  return path.join(dir, "build");
}

const builds = [...(process.env.DIFF_BEFORE ? [buildOf(process.env.DIFF_BEFORE)] : []), ...(process.env.BUILDS ?? "build").split(",").map((s) => s.trim())];
for (const b of builds) if (!fs.existsSync(path.join(path.isAbsolute(b) ? b : path.join(ROOT, b), "server", "index.js"))) throw new Error(`no production build in ${b}/`);
const label = (b: string) => (path.isAbsolute(b) ? path.basename(path.dirname(b)) : b);

const database = (await benchDatabase()) as { url: string; drop(): Promise<void> } | null;
if (!database) throw new Error("bench/diff-page.ts needs PostgreSQL (the builds' processes share it)");
const childEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: "production",
  PAYMENT_GATEWAY: "test",
  HTTPS: "false",
  HOST: "127.0.0.1",
  BILLING_SCHEDULE: "off",
  HOUSEKEEPING: "off",
  PUBLISH_SCHEDULE: "off",
  DATABASE_URL: database.url,
};
execFileSync("npx", ["tsx", "scripts/db-setup.ts"], { stdio: ["ignore", "ignore", "inherit"], env: childEnv });

type App = { url: string; port: number; stop(): Promise<void> };
const apps: Array<{ build: string; app: App }> = [];
for (const [i, build] of builds.entries()) {
  const port = PORT + i;
  const cwd = path.isAbsolute(build) ? path.dirname(build) : ROOT;
  const env = { ...childEnv, BUILD_DIR: path.isAbsolute(build) ? path.basename(build) : build, PUBLIC_URL: `http://127.0.0.1:${port}`, CONSOLE_URL: `http://admin.localhost:${port}` };
  apps.push({ build, app: (await startApp({ env, port, label: build, cwd })) as App });
}

const handle = openDatabase({ url: database.url, poolSize: 2 });
const { db } = handle;
try {
  const [lumberton] = await db.select().from(locations).where(eq(locations.urlSlug, "lumberton-nc-28358"));
  const accountId = lumberton!.accountId;
  const owner = await signedInOwner(db, accountId, `bench-diff-${Date.now()}`);

  // ---- the draft ---------------------------------------------------------------------------------
  const words = "Climate controlled units keep furniture, papers and electronics dry all year round, with wide aisles and carts at the door".split(" ");
  const prose = (n: number, seed: number) => Array.from({ length: n }, (_, i) => words[(i * 7 + seed) % words.length]).join(" ");
  const sized = (text: string, max: number) => text.slice(0, max).replace(/\s+\S*$/, ".");
  const html = (paragraphs: number, seed: number) =>
    Array.from({ length: paragraphs }, (_, i) => (i % 6 === 0 ? `<h2>Part ${i / 6 + 1}: ${prose(5, seed + i)}</h2>` : `<p>${prose(28, seed + i)} (${seed}.${i}).</p>`)).join("\n");
  type Edit = { entity: EditableEntityName; id: number; field: string; value: string };
  const locationRows = await db.select({ id: locations.id }).from(locations).where(eq(locations.accountId, accountId)).orderBy(asc(locations.id));
  const typeRows = await db.select({ id: unitTypes.id }).from(unitTypes).where(inArray(unitTypes.locationId, locationRows.map((l) => l.id))).orderBy(asc(unitTypes.id));
  const pageRows = await db.select({ id: pages.id, slug: pages.slug }).from(pages).where(eq(pages.accountId, accountId));
  const faqRows = await db.select({ id: contentItems.id }).from(contentItems).where(eq(contentItems.accountId, accountId)).orderBy(asc(contentItems.id));
  const amenityRows = await db.select({ id: amenities.id }).from(amenities).orderBy(asc(amenities.id));
  const pageId = (slug: string) => {
    const row = pageRows.find((p) => p.slug === slug);
    if (!row) throw new Error(`no page ${slug} in the seed`);
    return row.id;
  };
  const edits: Edit[] = [
    ...locationRows.slice(0, 3).map((l, i) => ({ entity: "location" as const, id: l.id, field: "metaDescription", value: `Diff bench: ${sized(prose(60, i), 280)}` })),
    { entity: "location", id: locationRows[0]!.id, field: "rentalSuccessMessage", value: `<p>Diff bench: welcome.</p>\n${html(8, 3)}` },
    ...typeRows.slice(0, 6).map((t, i) => ({ entity: "unitType" as const, id: t.id, field: "description", value: `Diff bench: ${sized(prose(400, i), 1_980)}` })),
    { entity: "page", id: pageId("portable-storage"), field: "content", value: `<p>Diff bench: portable storage.</p>\n${html(60, 10)}` },
    ...faqRows.slice(0, 6).map((f, i) => ({ entity: "contentItem" as const, id: f.id, field: "content", value: `<p>Diff bench: answer ${i + 1}.</p>\n${html(8, 20 + i)}` })),
    ...amenityRows.slice(0, 3).map((a, i) => ({ entity: "amenity" as const, id: a.id, field: "description", value: `Diff bench: ${sized(prose(200, 30 + i), 980)}` })),
  ];
  if (edits.length !== 20) throw new Error(`the draft has ${edits.length} records, not 20 (the seed changed?)`);
  for (const e of edits) {
    const before = await readEffectiveRecord(db, owner.signedIn, e.entity, e.id);
    const saved = await saveDraftEdit(db, owner.signedIn, { op: "update", entity: e.entity, recordId: e.id, values: { [e.field]: e.value }, base: { [e.field]: before!.values[e.field] } });
    if (!saved.ok) throw new Error(`draft edit refused (${e.entity} #${e.id} ${e.field}): ${JSON.stringify(saved)}`);
  }

  // ---- the measurement ---------------------------------------------------------------------------
  const agents = new Map(apps.map(({ app }) => [app.port, new http.Agent({ keepAlive: true, maxSockets: 1 })]));
  const diffPage = (app: App) =>
    new Promise<{ ms: number; status: number; body: string; changed: string }>((resolve, reject) => {
      const started = performance.now();
      const req = http.get(
        { host: "127.0.0.1", port: app.port, path: "/admin/changes/diff", agent: agents.get(app.port), headers: { Host: `admin.localhost:${app.port}`, Cookie: owner.cookie } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const body = Buffer.concat(chunks).toString("utf8");
            resolve({ ms: performance.now() - started, status: res.statusCode ?? 0, body, changed: /Pages that change (?:<!-- -->)?\((?:<!-- -->)?(\d+)/.exec(body)?.[1] ?? "?" });
          });
        },
      );
      req.on("error", reject);
    });
  const check = (build: string, r: { status: number; body: string }) => {
    if (r.status !== 200 || !r.body.includes("Diff bench: ")) throw new Error(`${build}: the diff page answered ${r.status} without the draft's changes`);
  };
  // Warm-up, and what each build shows: the same pages, lines and fields (the form token aside).
  const shown = (body: string) => body.slice(body.indexOf("<h1>What will change</h1>"), body.indexOf("</main>")).replace(/ value="[^"]{20,}"/g, "");
  const answers: string[] = [];
  for (const { build, app } of apps) {
    const r = await diffPage(app);
    check(build, r);
    answers.push(shown(r.body));
  }
  const sameAnswer = answers.every((a) => a === answers[0]);
  if (!sameAnswer) console.error("diff-page: the builds' diff pages differ (pages, lines or fields)");

  const times = new Map<string, number[]>(apps.map(({ build }) => [build, []]));
  const pagesChanged = new Map<string, string>();
  for (let round = 1; round <= ROUNDS; round++) {
    const line: Record<string, unknown> = { round };
    for (const { build, app } of apps) {
      const r = await diffPage(app);
      check(build, r);
      times.get(build)!.push(r.ms);
      pagesChanged.set(build, r.changed);
      line[`${label(build)} ms`] = Math.round(r.ms);
    }
    console.log(JSON.stringify(line));
  }
  const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
  console.log(
    JSON.stringify({
      summary: true,
      records: edits.length,
      rounds: ROUNDS,
      sameAnswer,
      loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
      builds: apps.map(({ build }) => ({ build: label(build), pagesChanged: pagesChanged.get(build), medianMs: median(times.get(build)!), minMs: Math.round(Math.min(...times.get(build)!)), maxMs: Math.round(Math.max(...times.get(build)!)) })),
    }),
  );
} finally {
  await Promise.all(apps.map(({ app }) => app.stop()));
  await handle.close();
  await database.drop();
}
process.exit(0);
