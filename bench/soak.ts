/**
 * The two-hour soak (issue 41, decision 573; figures in docs/operations.md "The soak"):
 *
 *   BUILD_DIR=build npx react-router build && npm run soak            # 2 h (SOAK_MINUTES=120)
 *   SOAK_MINUTES=10 npm run soak                                       # a short run of the same
 *
 * Three BUILT production processes behind the checked-in deploy/nginx.conf WITH its proxy_cache and
 * purge listener (CACHE_PURGE=nginx), DATABASE_URL through PgBouncer running deploy/pgbouncer.ini
 * (transaction mode) and DATABASE_DIRECT_URL straight to PostgreSQL, on a private PostgreSQL cluster
 * (tests/fault/support/pg-cluster.ts: initdb in /tmp, its own port; the machine's shared server is
 * never touched). The same helpers as the fault tests start them, on fixed ports from SOAK_PORT_BASE
 * (4600): nginx +0, its purge listener +1, the processes +10…+12, PgBouncer +20, PostgreSQL +30.
 *
 * A steady mixed crowd through nginx: SOAK_VISITORS (8) visitors browsing the public pages (the
 * cached ones, and location pages with a query string that nginx passes on), a rental every
 * SOAK_RENTAL_EVERY_S (60) s, a portal sign-in every SOAK_SIGNIN_EVERY_S (15) s, a back-office list
 * every 30 s and a console publish every SOAK_PUBLISH_EVERY_S (600) s (its publish-to-visible timed
 * through nginx's cache). PostgreSQL is restarted (fast stop, 2 s down, start) at SOAK_RESTART_AT (0.5)
 * of the run. Every minute: each process's RSS and V8 heap (bench/lib/heap-sampler.mjs, loaded into
 * each process), PostgreSQL's connections. At the end: answers by status, 5xx inside and outside the
 * restart's window, and what was lost (each confirmed rental's lease in the database exactly once,
 * each publish published and seen). Results: data/soak/<start>/results.json (partial.json every
 * minute while it runs) and a summary on stdout; `node bench/soak-table.mjs <file>` prints the tables
 * of docs/operations.md "The soak". Decision 573. Not part of `npm test`.
 */
import "./lib/soak-env";
import fs from "node:fs";
// The console's origin, http://admin.localhost:PORT (decision 450), from Node too.
import "../tests/support/localhost-names";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { openDatabase, type DatabaseHandle } from "~/db/client.server";
import { readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { CSRF_FIELD } from "~/services/web/csrf.server";
import { LOCATION, prepareDatabase, UNIT_TYPE_PAGE } from "../tests/fault/support/database";
import { inputValue, Recorder, Visitor } from "../tests/fault/support/http";
import { signedInOwner as signedInOwnerOf } from "./lib/staff-session";
import { startNginx } from "../tests/fault/support/nginx";
import { createCluster } from "../tests/fault/support/pg-cluster";
import { startPgBouncer } from "../tests/fault/support/pgbouncer";
import { sleep } from "../tests/fault/support/ports";
import { rent, renterSpec, type RentalResult } from "../tests/fault/support/rental";
import { REPO_ROOT, startServer, type ServerHandle } from "../tests/fault/support/server";
import { startSmtpServer } from "../tests/fault/support/smtp";

const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const MINUTES = num("SOAK_MINUTES", 120);
const BASE = num("SOAK_PORT_BASE", 4600);
const VISITORS = num("SOAK_VISITORS", 8);
const THINK_MS = num("SOAK_THINK_MS", 50);
const RENTAL_EVERY_S = num("SOAK_RENTAL_EVERY_S", 60);
const SIGNIN_EVERY_S = num("SOAK_SIGNIN_EVERY_S", 15);
const PUBLISH_EVERY_S = num("SOAK_PUBLISH_EVERY_S", 600);
const LIST_EVERY_S = 30;
const RESTART_AT = num("SOAK_RESTART_AT", 0.5);
const RESTART_DOWN_MS = 2_000;
/** 5xx this long after PostgreSQL is back still count as the restart's (the pools reconnect). */
const RESTART_GRACE_MS = 10_000;
const SAMPLE_EVERY_MS = 60_000;
const TENANTS = 20;
const TENANT_PASSWORD = "Soak-Tenant-2048";

const durationMs = MINUTES * 60_000;
const startedAt = Date.now();
const stamp = new Date(startedAt).toISOString().replace(/[:.]/g, "-");
const outDir = path.join(REPO_ROOT, "data/soak", stamp);
fs.mkdirSync(outDir, { recursive: true });
const log = (msg: string) => console.log(`[soak ${((Date.now() - startedAt) / 60_000).toFixed(1).padStart(5)} min] ${msg}`);

// ---- what is counted -------------------------------------------------------------------------------
type Kind = "cached" | "query" | "uncached" | "rental" | "signin" | "console" | "publish-check";
const byStatus = new Map<Kind, Record<string, number>>();
const latencies = new Map<Kind, number[]>();
const cacheStatus: Record<string, number> = {};
const bad: { t: number; kind: Kind; method: string; path: string; outcome: string; inRestart: boolean }[] = [];
const perMinute: { minute: number; requests: number; fiveXX: number }[] = [];
let restartWindow: { from: number; to: number } | null = null;
const inRestart = (t: number) => Boolean(restartWindow && t >= restartWindow.from && t <= restartWindow.to);
const pending5xx: { t: number; kind: Kind; method: string; path: string; outcome: string }[] = [];

function count(kind: Kind, method: string, p: string, outcome: string, ms: number, t: number) {
  const s = byStatus.get(kind) ?? {};
  s[outcome] = (s[outcome] ?? 0) + 1;
  byStatus.set(kind, s);
  const l = latencies.get(kind) ?? [];
  l.push(ms);
  latencies.set(kind, l);
  const minute = Math.floor((t - startedAt) / 60_000);
  while (perMinute.length <= minute) perMinute.push({ minute: perMinute.length, requests: 0, fiveXX: 0 });
  perMinute[minute]!.requests++;
  if (!/^[1-4]\d\d$/.test(outcome)) {
    perMinute[minute]!.fiveXX++;
    // Which side of the restart it fell on is decided at the end (the window's end is known then).
    if (pending5xx.length < 20_000) pending5xx.push({ t, kind, method, path: p, outcome });
  }
}

/** The rental and sign-in visitors' requests, counted as they end. */
class CountingRecorder extends Recorder {
  constructor(private readonly kind: Kind) {
    super();
  }
  override add(s: Parameters<Recorder["add"]>[0]) {
    count(this.kind, s.method, s.path, String(s.outcome), s.end - s.start, s.end);
  }
}

const percentile = (xs: number[], p: number) => {
  if (!xs.length) return 0;
  const sorted = Float64Array.from(xs).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

// ---- the stack -------------------------------------------------------------------------------------
const ports = { nginx: BASE, purge: BASE + 1, apps: [BASE + 10, BASE + 11, BASE + 12], bouncer: BASE + 20, pg: BASE + 30 };
const publicUrl = `http://127.0.0.1:${ports.nginx}`;
const consoleUrl = `http://admin.localhost:${ports.nginx}`;
const running = { value: true };

log(`setting up: ${MINUTES} min, ports ${BASE}…${BASE + 30}, results in ${path.relative(REPO_ROOT, outDir)}`);
const cluster = await createCluster({ port: ports.pg });
// The portal tenants below take their leases from the type with the most units free, this one: their
// units are added too (without them a 25-minute run had no unit left to rent from minute 19 on).
const unitTypeId = await prepareDatabase(cluster.url, { extraUnits: Math.ceil((durationMs / 1000 / RENTAL_EVERY_S) * 1.2) + 5 + TENANTS });
const handle: DatabaseHandle = openDatabase({ url: cluster.url, poolSize: 2 });
const loc = await cluster.query("select id, account_id from locations where url_slug = $1", [LOCATION]);
const locationId = Number(loc.rows[0].id);
const accountId = Number(loc.rows[0].account_id);
const tenants: string[] = [];
for (let i = 0; i < TENANTS; i++) {
  const email = `soak.tenant.${i}@example.com`;
  await createTenantWithLease(handle.db, { email, password: TENANT_PASSWORD, now: new Date() });
  tenants.push(email);
}
const [bouncer, smtp] = await Promise.all([startPgBouncer(cluster.port, { port: ports.bouncer }), startSmtpServer()]);
const heapFile = (i: number) => path.join(outDir, `heap-${i}.jsonl`);
const servers: ServerHandle[] = await Promise.all(
  ports.apps.map((port, i) =>
    startServer({
      port,
      env: {
        DATABASE_URL: bouncer.url,
        DATABASE_DIRECT_URL: cluster.url,
        PUBLIC_URL: publicUrl,
        CONSOLE_URL: consoleUrl,
        CACHE_PURGE: "nginx",
        CACHE_PURGE_NGINX_URL: `http://127.0.0.1:${ports.purge}`,
        BILLING_SCHEDULE: "on",
        PUBLISH_SCHEDULE: "on",
        HOUSEKEEPING: "on",
        SITELINK_SYNC: "off",
        SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        // SOAK_NODE_OPTIONS: more node options for the processes, e.g. heap snapshots on a signal
        // (`--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=/tmp/soak-heap`; bench/heap-diff.mjs compares two).
        NODE_OPTIONS: `--import ${pathToFileURL(path.join(REPO_ROOT, "bench/lib/heap-sampler.mjs")).href}${process.env.SOAK_NODE_OPTIONS ? ` ${process.env.SOAK_NODE_OPTIONS}` : ""}`,
        SOAK_HEAP_FILE: heapFile(i),
        SOAK_HEAP_EVERY_MS: String(SAMPLE_EVERY_MS),
      },
    }),
  ),
);
const nginx = await startNginx(ports.nginx, ports.apps, { sharedCache: { purgePort: ports.purge }, hostWithPort: true });
log(`up: nginx ${publicUrl}, processes ${ports.apps.join(", ")} (pids ${servers.map((s) => s.pid()).join(", ")}), PgBouncer ${ports.bouncer}, PostgreSQL ${ports.pg}`);

async function stopAll() {
  running.value = false;
  await nginx.stop().catch(() => {});
  await Promise.all(servers.map((s) => s.stop(10_000)));
  await handle.close().catch(() => {});
  await bouncer.stop().catch(() => {});
  await smtp.stop().catch(() => {});
  cluster.destroy();
}
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.once(sig, () => {
    log(`${sig}: stopping`);
    void stopAll().then(() => process.exit(130));
  });
}

// ---- the crowd -------------------------------------------------------------------------------------
const CACHED = ["/", "/view-locations", "/units", "/about", `/locations/${LOCATION}`, UNIT_TYPE_PAGE, "/locations/kinston-nc-28501", "/faqs"];
const QUERY = [`/locations/${LOCATION}?size=10x10`, `/locations/${LOCATION}?sort=price`, "/units?size=small"];
const UNCACHED = ["/locations/jacksonville-nc-28546"];
const ENCODINGS = ["br", "gzip", "gzip, deflate, br", "identity"];

async function get(kind: Kind, url: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
  const t0 = Date.now();
  const p = new URL(url).pathname + new URL(url).search;
  try {
    const r = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(15_000), ...init });
    const text = await r.text();
    count(kind, init.method ?? "GET", p, String(r.status), Date.now() - t0, Date.now());
    const cs = r.headers.get("x-cache-status");
    if (kind === "cached" && cs) cacheStatus[cs] = (cacheStatus[cs] ?? 0) + 1;
    return { status: r.status, headers: r.headers, text };
  } catch (error) {
    const outcome = (error as Error).name === "TimeoutError" ? "timeout" : "error";
    count(kind, init.method ?? "GET", p, outcome, Date.now() - t0, Date.now());
    return { status: 0, headers: new Headers(), text: "" };
  }
}

async function browser(n: number) {
  const ip = `198.51.100.${(n % 250) + 1}`;
  for (let i = 0; running.value; i++) {
    const r = Math.random();
    const [kind, list] = r < 0.8 ? (["cached", CACHED] as const) : r < 0.95 ? (["query", QUERY] as const) : (["uncached", UNCACHED] as const);
    const p = list[Math.floor(Math.random() * list.length)]!;
    await get(kind, publicUrl + p, { headers: { "Accept-Encoding": ENCODINGS[i % ENCODINGS.length]!, "X-Forwarded-For": ip, "User-Agent": "gatehouse-soak" } });
    await sleep(THINK_MS);
  }
}

const rentals: RentalResult[] = [];
async function renter() {
  for (let i = 1; running.value; i++) {
    const next = Date.now() + RENTAL_EVERY_S * 1000;
    const v = new Visitor(`renter-${i}`, publicUrl, new CountingRecorder("rental"));
    const result = await rent(v, renterSpec(i, `soak${startedAt}`), {
      unitTypeId,
      unitTypePage: UNIT_TYPE_PAGE,
      deadline: Date.now() + 90_000,
      thinkMs: () => 200 + Math.random() * 800,
      shouldStop: () => !running.value,
    });
    rentals.push(result);
    if (!result.confirmed) log(`rental ${i} not confirmed: ${result.failure}\n    ${result.trail.slice(-6).join("\n    ")}`);
    await sleep(Math.max(0, next - Date.now()));
  }
}

const signIns = { ok: 0, refused: 0, failed: 0 };
async function signer() {
  for (let i = 0; running.value; i++) {
    const next = Date.now() + SIGNIN_EVERY_S * 1000;
    const v = new Visitor(`tenant-${i}`, publicUrl, new CountingRecorder("signin"));
    const page = await v.request("GET", "/customer-portal/login");
    const csrf = inputValue(page.text, CSRF_FIELD);
    if (page.status === 200 && csrf) {
      const posted = await v.request("POST", "/customer-portal/login", { [CSRF_FIELD]: csrf, email: tenants[i % tenants.length]!, password: TENANT_PASSWORD, redirectTo: "/customer-portal" });
      if (posted.status === 303) {
        const home = await v.request("GET", posted.location ?? "/customer-portal");
        if (home.status === 200) signIns.ok++;
        else signIns.failed++;
      } else if (posted.status === 429 || posted.status === 503) signIns.refused++;
      else signIns.failed++;
    } else signIns.failed++;
    await sleep(Math.max(0, next - Date.now()));
  }
}

const signedInOwner = (name: string) => signedInOwnerOf(handle.db, accountId, name);
const staffCookie = async () => (await signedInOwner(`soak-owner-${Date.now()}`)).cookie;

async function lister() {
  const lists = ["/admin/changes", "/admin/rentals", "/admin/tenants", "/admin/payments", "/admin/audit"];
  let cookie = await staffCookie();
  for (let i = 0; running.value; i++) {
    const r = await get("console", consoleUrl + lists[i % lists.length], { headers: { Cookie: cookie, "Accept-Encoding": "gzip" } });
    if (r.status === 302 || r.status === 303) cookie = await staffCookie().catch(() => cookie);
    await sleep(LIST_EVERY_S * 1000);
  }
}

const publishes: { n: number; changesetId: number; text: string; at: number; posted: number; visibleMs: number }[] = [];
async function publisher() {
  await sleep(Math.min(60_000, PUBLISH_EVERY_S * 500));
  for (let n = 1; running.value; n++) {
    const next = Date.now() + PUBLISH_EVERY_S * 1000;
    const text = `Soak publish ${n} at ${new Date().toISOString()}.`;
    try {
      const owner = await signedInOwner(`soak-publisher-${n}-${Date.now()}`);
      const before = await readEffectiveRecord(handle.db, owner.signedIn, "location", locationId);
      const draft = await saveDraftEdit(handle.db, owner.signedIn, { op: "update", entity: "location", recordId: locationId, values: { metaDescription: text }, base: { metaDescription: before!.values.metaDescription } });
      if (!draft.ok) throw new Error(`draft refused: ${JSON.stringify(draft)}`);
      const headers = { Cookie: owner.cookie, "Accept-Encoding": "gzip" };
      const page = await get("console", `${consoleUrl}/admin/changes`, { headers });
      const token = new RegExp(`name="${CSRF_FIELD}" value="([^"]+)"`).exec(page.text)?.[1];
      if (!token) throw new Error(`no form token on /admin/changes (${page.status} ${page.headers.get("location") ?? ""})`);
      const posted = await get("console", `${consoleUrl}/admin/changes`, {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded", Origin: consoleUrl, Referer: `${consoleUrl}/admin/changes` },
        body: new URLSearchParams({ [CSRF_FIELD]: token, changesetId: String(draft.changesetId), intent: "publish" }).toString(),
      });
      const at = Date.now();
      if (posted.status !== 303) log(`publish ${n}: POST answered ${posted.status}: ${/role="alert"[^>]*>([\s\S]{0,300})/.exec(posted.text)?.[1]?.replace(/<[^>]+>/g, " ") ?? posted.text.slice(0, 300)}`);
      let visibleMs = -1;
      if (posted.status === 303) {
        // The anonymous page through nginx, in each encoding, until every one shows it.
        const seen = new Set<string>();
        while (Date.now() - at < 30_000 && seen.size < 3) {
          for (const enc of ["br", "gzip", "identity"]) {
            if (seen.has(enc)) continue;
            const r = await get("publish-check", `${publicUrl}/locations/${LOCATION}`, { headers: { "Accept-Encoding": enc } });
            if (r.text.includes(text)) seen.add(enc);
          }
          if (seen.size < 3) await sleep(25);
        }
        if (seen.size === 3) visibleMs = Date.now() - at;
      }
      publishes.push({ n, changesetId: draft.changesetId, text, at, posted: posted.status, visibleMs });
      log(`publish ${n}: POST ${posted.status}, visible through nginx (br, gzip, identity) after ${visibleMs} ms`);
    } catch (error) {
      log(`publish ${n} failed: ${(error as Error).message}`);
      publishes.push({ n, changesetId: 0, text, at: Date.now(), posted: 0, visibleMs: -1 });
    }
    await sleep(Math.max(0, next - Date.now()));
  }
}

// ---- memory and connections, every minute ----------------------------------------------------------
const memory: { minute: number; rssMb: (number | null)[]; heapMb: (number | null)[]; pgConnections: number | null }[] = [];
function procRssMb(pid: number | null): number | null {
  if (!pid) return null;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}
function lastHeapMb(i: number): number | null {
  try {
    const lines = fs.readFileSync(heapFile(i), "utf8").trim().split("\n");
    return Math.round(JSON.parse(lines.at(-1)!).heapUsed / 1048576);
  } catch {
    return null;
  }
}
async function sampler() {
  for (let minute = 0; running.value; minute++) {
    const next = startedAt + (minute + 1) * SAMPLE_EVERY_MS;
    let pgConnections: number | null = null;
    try {
      pgConnections = Number((await cluster.query("select count(*)::int as n from pg_stat_activity where backend_type = 'client backend'")).rows[0].n);
    } catch {
      /* restarting */
    }
    memory.push({ minute, rssMb: servers.map((s) => procRssMb(s.pid())), heapMb: servers.map((_, i) => lastHeapMb(i)), pgConnections });
    const m = memory.at(-1)!;
    const pm = perMinute[minute - 1];
    log(`RSS ${m.rssMb.join("/")} MB, heap ${m.heapMb.join("/")} MB, PG connections ${pgConnections}, last minute ${pm?.requests ?? 0} requests (${pm?.fiveXX ?? 0} 5xx/errors)`);
    writeResults(false);
    await sleep(Math.max(0, next - Date.now()));
  }
}

async function restarter() {
  await sleep(durationMs * RESTART_AT);
  if (!running.value) return;
  log("PostgreSQL: fast stop");
  const from = Date.now();
  await cluster.stopFastNow();
  await sleep(RESTART_DOWN_MS);
  await cluster.start();
  const back = Date.now();
  restartWindow = { from, to: back + RESTART_GRACE_MS };
  log(`PostgreSQL: back after ${back - from} ms`);
}

// ---- results ---------------------------------------------------------------------------------------
let lost: Record<string, unknown> = {};
function summary() {
  const kinds = [...byStatus.keys()];
  for (const b of pending5xx.splice(0)) bad.push({ ...b, inRestart: inRestart(b.t) });
  return {
    startedAt: new Date(startedAt).toISOString(),
    minutes: MINUTES,
    config: { VISITORS, THINK_MS, RENTAL_EVERY_S, SIGNIN_EVERY_S, PUBLISH_EVERY_S, LIST_EVERY_S, RESTART_AT, RESTART_DOWN_MS, RESTART_GRACE_MS, ports },
    restartWindow: restartWindow && { from: new Date(restartWindow.from).toISOString(), to: new Date(restartWindow.to).toISOString(), seconds: (restartWindow.to - restartWindow.from) / 1000 },
    requests: Object.fromEntries(kinds.map((k) => [k, { byStatus: byStatus.get(k), p50: percentile(latencies.get(k)!, 50), p99: percentile(latencies.get(k)!, 99), n: latencies.get(k)!.length }])),
    nginxCache: cacheStatus,
    fiveXXOrErrors: { inRestart: bad.filter((b) => b.inRestart).length, outsideRestart: bad.filter((b) => !b.inRestart).length, outside: bad.filter((b) => !b.inRestart).slice(0, 50) },
    rentals: { tried: rentals.length, confirmed: rentals.filter((r) => r.confirmed).length, notConfirmed: rentals.filter((r) => !r.confirmed).map((r) => r.failure) },
    signIns,
    publishes,
    memory,
    perMinute,
    lost,
    exits: servers.map((s) => s.exits),
  };
}
function writeResults(final: boolean) {
  fs.writeFileSync(path.join(outDir, final ? "results.json" : "partial.json"), JSON.stringify(summary(), null, 1));
}

async function checkNothingLost() {
  const confirmed = rentals.filter((r) => r.confirmed);
  const emails = rentals.map((r) => r.spec.email);
  const rows = (
    await cluster.query(
      `select t.email, count(l.id)::int as leases from tenants t left join leases l on l.tenant_id = t.id where t.email = any($1) group by t.email`,
      [emails],
    )
  ).rows as { email: string; leases: number }[];
  const leases = new Map(rows.map((r) => [r.email, r.leases]));
  const confirmedNotOnce = confirmed.filter((r) => leases.get(r.spec.email) !== 1).map((r) => `${r.spec.email}: ${leases.get(r.spec.email) ?? 0}`);
  const unconfirmedWithLease = rentals.filter((r) => !r.confirmed && (leases.get(r.spec.email) ?? 0) > 0).map((r) => `${r.spec.email}: ${leases.get(r.spec.email)}`);
  const ids = publishes.filter((p) => p.changesetId).map((p) => p.changesetId);
  const statuses = (await cluster.query("select id, status from changesets where id = any($1)", [ids])).rows as { id: number; status: string }[];
  const notPublished = statuses.filter((s) => s.status !== "published").map((s) => s.id);
  const last = publishes.filter((p) => p.posted === 303).at(-1);
  const finalPage = await get("publish-check", `${publicUrl}/locations/${LOCATION}`, { headers: { "Accept-Encoding": "gzip" } });
  lost = {
    confirmedRentals: confirmed.length,
    confirmedRentalsNotInDatabaseOnce: confirmedNotOnce,
    unconfirmedRentalsWithALease: unconfirmedWithLease,
    publishes: publishes.length,
    publishesNotPublished: notPublished,
    publishesNeverSeen: publishes.filter((p) => p.visibleMs < 0).map((p) => p.n),
    lastPublishOnTheLivePage: last ? finalPage.text.includes(last.text) : null,
  };
}

// ---- run -------------------------------------------------------------------------------------------
const crowd = [
  ...Array.from({ length: VISITORS }, (_, n) => browser(n)),
  renter(),
  signer(),
  lister(),
  publisher(),
  sampler(),
  restarter(),
];
await sleep(durationMs);
running.value = false;
log("time is up: waiting for the crowd to finish its last steps");
await Promise.race([Promise.allSettled(crowd), sleep(120_000)]);
await checkNothingLost();
writeResults(true);
const s = summary();
console.log(JSON.stringify({ requests: s.requests, nginxCache: s.nginxCache, restartWindow: s.restartWindow, fiveXXOrErrors: { inRestart: s.fiveXXOrErrors.inRestart, outsideRestart: s.fiveXXOrErrors.outsideRestart }, rentals: s.rentals, signIns, lost, exits: s.exits }, null, 1));
await stopAll();
log(`done: ${path.relative(REPO_ROOT, path.join(outDir, "results.json"))}`);
process.exit(0);
