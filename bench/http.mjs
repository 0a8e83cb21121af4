#!/usr/bin/env node
// HTTP benchmark of the production build, side by side with nginx serving the very same bytes.
//
//   npm run build && npm run bench                 # one app process
//   npm run build && npm run bench -- --multi      # nginx (deploy/nginx.conf) in front of 2 app processes
//   npm run build && npm run bench -- --deployed   # the same WITH its cache in front, 3 processes
//
// Installs nothing. Needs wrk; uses nginx when it is there (Debian: apt-get install -y nginx wrk) and
// PostgreSQL when one answers (a fresh database on the local server, or BENCH_DATABASE_URL),
// otherwise PGlite (no move-in row, no --multi).
//
// One process (default), in this order:
// Each row: requests/s, p50/p99 latency and errors of the app and of nginx, their ratio, and the
// app's CPU time per request (from /proc, user + system, during the app's run).
//  1. cache hits: the location page, `/`, `/units`, `/view-locations` and a content page (`/about`).
//     Each page's exact bytes are fetched from the app (gzip, as a browser asks) and nginx (1 worker,
//     own prefix in a temp directory) serves them at the same path with the same headers (all but
//     those nginx writes itself; BENCH_NGINX_HEADERS=two: only Content-Type and Content-Encoding, as
//     before 2026-11-27 13:45 UTC); wrk measures the app, then nginx, page by page (same minute). The app's RSS
//     is taken after the warm-up and again after at least 100,000 cached requests; then the ceiling:
//     a bare node:http server (bench/lib/bare-node.mjs) with the app's exact bytes and headers, what
//     any Node.js process can do here, so that the app's own overhead shows apart from the machine;
//  2. a signed-in portal dashboard (the demo tenant, seeded with SEED_DEMO_TENANT=true; its session
//     cookie sent with wrk -H), against nginx serving the same dashboard bytes;
//  3. move-ins on PostgreSQL: renters go through the real HTTP rental flow (bench/move-in.ts), 8 at
//     a time with their checkouts started together; p50/p95 of the checkout (the payment POST);
//  4. the same pages with the page cache off (PAGE_CACHE=off: misses), against nginx serving those bytes;
//     then /units across its 50 filter combinations (a wrk Lua script sends them in turn; misses);
//  5. the location page with the cache on while a change notification (NOTIFY gatehouse_changed) drops
//     the stored pages every 250 ms: the page rendered again right after each change (PostgreSQL);
//  6. the rush (bench/rush.mjs, issue 22; PostgreSQL, on its own fresh database): 1,000 visitors for
//     one free unit, and 1,000 sign-ins at once. BENCH_RUSH=0 skips it.
// With --multi (or BENCH_PROCESSES=N, N ≥ 2): N app processes on one PostgreSQL behind nginx configured
// from deploy/nginx.conf (ports and paths substituted), measured through nginx: the cached pages and
// the move-ins (renters spread over the processes' nginx), and the rush through nginx.
// With --deployed (issue 41): the deployed stack, deploy/nginx.conf WITH its proxy_cache and purge
// listener (ngx_cache_purge) in front of BENCH_PROCESSES (3) app processes on one PostgreSQL, each with
// CACHE_PURGE=nginx: the cached public pages measured through it (every page a HIT first), side by
// side with nginx (same build, 1 worker) serving the same bytes and headers as static files, page by
// page at the same time (BENCH_SIDE_BY_SIDE=together, 3 runs; decision 574) (target: ≥ 90 % of
// static); then publish-to-visible through the cache
// (bench/publish-deployed.ts: BENCH_PUBLISH_ROUNDS (10) console publishes through nginx, each timed
// until the anonymous page through nginx shows it in br, gzip and identity; max and p50).
//
// Settings (environment): BENCH_PORT (3400: app; the next ports for more processes), BENCH_NGINX_PORT
// (3480), BENCH_DURATION seconds per measurement (10), BENCH_WARMUP seconds (2), BENCH_THREADS (1),
// BENCH_CONNECTIONS (32), BENCH_TIMEOUT (10), BENCH_CACHED_REQUESTS (100000: cached requests before
// the second RSS reading), BENCH_MOVE_IN_ROUNDS (5 rounds of BENCH_MOVE_IN_CONCURRENCY = 8),
// BENCH_BARE=0 (leaves out the ceiling: a bare node:http server with the hit rows' bytes and headers,
// on BENCH_NGINX_PORT + 10), BENCH_DATABASE_URL (use that database: migrated and seeded, not dropped), BENCH_PG_ADMIN_URL
// (postgres://postgres@127.0.0.1:5432/postgres: where the fresh database is made), BENCH_DATABASE=pglite
// (PGlite in BENCH_PGLITE_DIR, data/bench), BENCH_MISSES=0 / BENCH_PORTAL=0 / BENCH_MOVE_IN=0 to skip parts.
// Not part of `npm test`: numbers depend on the machine and on what else it is doing.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { hasWrk, pathsScript, wrk, wrkAsync } from "./lib/wrk.mjs";
import { CACHE_PURGE_MODULE, deployConfig, hasNginx, startNginx, staticCopiesConfig } from "./lib/nginx.mjs";
import { startBareNode } from "./lib/bare-node.mjs";
import { rawPage, startApp } from "./lib/app-server.mjs";
import { benchDatabase } from "./lib/postgres.mjs";

const env = (name, fallback) => process.env[name] || fallback;
const BUILD_DIR = env("BUILD_DIR", "build");
const PORT = Number(env("BENCH_PORT", "3400"));
const NGINX_PORT = Number(env("BENCH_NGINX_PORT", "3480"));
const PGLITE_DIR = env("BENCH_PGLITE_DIR", "data/bench");
const DEPLOYED = process.argv.includes("--deployed");
const PROCESSES = DEPLOYED
  ? Math.max(2, Number(env("BENCH_PROCESSES", "3")))
  : process.argv.includes("--multi")
    ? Math.max(2, Number(env("BENCH_PROCESSES", "2")))
    : Number(env("BENCH_PROCESSES", "1"));
const W = {
  threads: Number(env("BENCH_THREADS", "1")),
  connections: Number(env("BENCH_CONNECTIONS", "32")),
  seconds: Number(env("BENCH_DURATION", "10")),
  timeout: Number(env("BENCH_TIMEOUT", "10")),
};
const WARMUP = Number(env("BENCH_WARMUP", "2"));
const CACHED_REQUESTS = Number(env("BENCH_CACHED_REQUESTS", "100000"));
const ROUNDS = Number(env("BENCH_MOVE_IN_ROUNDS", "5"));
const CONCURRENCY = Number(env("BENCH_MOVE_IN_CONCURRENCY", "8"));
const on = (name) => env(name, "1") !== "0";

/** Stops the bench with a message: before anything is started, at once; later through the cleanup below. */
let started = false;
function fail(message) {
  if (started) throw new Error(message);
  console.error(`bench: ${message}`);
  process.exit(1);
}
const note = (message) => console.error(`bench: ${message}`);

if (!hasWrk()) fail("wrk is not installed (Debian: apt-get install -y wrk).");
if (!fs.existsSync(`${BUILD_DIR}/server/index.js`)) fail(`no production build in ${BUILD_DIR}/ (run npm run build first).`);
const NGINX = hasNginx();
if (!NGINX) note("nginx is not installed (Debian: apt-get install -y nginx): no comparison with it.");

// ---------------------------------------------------------------- database
const database = await benchDatabase();
if (PROCESSES > 1 && !database) fail("--multi needs PostgreSQL (BENCH_DATABASE_URL or a local server).");
if (DEPLOYED && !fs.existsSync(CACHE_PURGE_MODULE)) fail(`--deployed needs ${CACHE_PURGE_MODULE} (apt-get install libnginx-mod-http-cache-purge).`);
if (PROCESSES > 1 && !NGINX) {
  await database.drop();
  fail("--multi needs nginx.");
}
const baseEnv = { ...process.env, NODE_ENV: "production", PAYMENT_GATEWAY: "test", HTTPS: "false", BUILD_DIR, PGLITE_DIR, SEED_DEMO_TENANT: "true", BILLING_SCHEDULE: "off", HOUSEKEEPING: "off" };
delete baseEnv.DATABASE_URL;
if (database) baseEnv.DATABASE_URL = database.url;
// Production on PostgreSQL refuses to start without SESSION_SECRET (decision 072): a throwaway one for the bench.
baseEnv.SESSION_SECRET ??= "bench-only-session-secret-not-for-production-0000";
const DATABASE = database ? "PostgreSQL" : "PGlite";
execFileSync("npx", ["tsx", "scripts/db-setup.ts"], { stdio: ["ignore", "ignore", "inherit"], env: baseEnv });

const cleanups = [];
async function cleanup() {
  for (const c of cleanups.reverse()) await c().catch((e) => note(`cleanup: ${e.message}`));
  cleanups.length = 0;
  await database?.drop().catch((e) => note(`could not drop the bench database: ${e.message}`));
}
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => void cleanup().finally(() => process.exit(130)));

/** An app process with its configured origin = its address (links and the allowed-host check match). */
async function app(port, extra = {}) {
  const a = await startApp({ env: { ...baseEnv, PUBLIC_URL: `http://127.0.0.1:${port}`, ...extra }, port });
  cleanups.push(() => a.stop());
  return a;
}

async function pickPaths(base) {
  if (process.env.BENCH_PATHS) return process.env.BENCH_PATHS.split(",").map((p) => p.trim());
  // The first location linked from the locations list (a live one: its page has the most on it).
  const html = await (await fetch(`${base}/view-locations`)).text();
  const location = html.match(/href="(\/locations\/[a-z0-9-]+)"/)?.[1];
  if (!location) fail("no location page found on /view-locations.");
  return [location, "/", "/units", "/view-locations", "/about"];
}

const NGINX_HEADERS = env("BENCH_NGINX_HEADERS", "all");
/** Headers nginx writes itself (or that belong to the connection): not added to its copies. */
const NGINX_OWN = new Set(["content-type", "content-encoding", "content-length", "date", "connection", "keep-alive", "transfer-encoding", "etag", "last-modified", "accept-ranges", "server"]);

/** Fetches each path's exact bytes (gzip) and starts nginx serving them (with the app's headers); null without nginx. */
async function nginxCopies(base, paths, headers = {}) {
  if (!NGINX) return null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-bench-nginx-"));
  const pages = [];
  for (const [i, p] of paths.entries()) {
    const r = await rawPage(`${base}${p}`, headers);
    if (r.status !== 200) fail(`${p} answered ${r.status}, not 200.`);
    const file = path.join(dir, `page-${i}.bin`);
    fs.writeFileSync(file, r.body);
    fs.chmodSync(file, 0o644);
    const h = { "Content-Type": String(r.headers["content-type"] ?? "text/html") };
    if (r.headers["content-encoding"]) h["Content-Encoding"] = String(r.headers["content-encoding"]);
    // The app's other headers too (CSP, Permissions-Policy, Cache-Control, …), unless
    // BENCH_NGINX_HEADERS=two (the comparison of the sessions before 2026-11-27, 13:45 UTC).
    if (NGINX_HEADERS === "all") {
      for (const [name, value] of Object.entries(r.headers)) {
        if (!NGINX_OWN.has(name) && typeof value === "string") h[name] = value;
      }
    }
    pages.push({ path: p, file, headers: h, bytes: r.body.length });
  }
  const n = await startNginx({ httpBody: staticCopiesConfig(NGINX_PORT, pages), port: NGINX_PORT, dir });
  cleanups.push(() => n.stop());
  return { ...n, pages };
}

function measure(url, headers) {
  if (WARMUP > 0) wrk(url, { ...W, seconds: WARMUP, headers });
  return wrk(url, { ...W, headers });
}

/** App then nginx on the same path, one after the other (same minute). */
function sideBySide(label, appBase, nginx, p, headers = [], proc = null) {
  if (WARMUP > 0) wrk(`${appBase}${p}`, { ...W, seconds: WARMUP, headers });
  const cpuBefore = proc?.cpuMs() ?? Number.NaN;
  const a = wrk(`${appBase}${p}`, { ...W, headers });
  a.cpuPerRequest = a.requests ? ((proc?.cpuMs() ?? Number.NaN) - cpuBefore) / a.requests : Number.NaN;
  const n = nginx ? measure(`${nginx.url}${p}`, []) : null;
  const bytes = nginx?.pages.find((x) => x.path === p)?.bytes;
  return { label, path: p, app: a, nginx: n, bytes };
}

// ---------------------------------------------------------------- output
const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "?");
const rows = [];
const notes = [];
const targets = [];

function printTable() {
  if (DEPLOYED) console.log("(The \"App\" columns: the deployed stack, deploy/nginx.conf with its cache, answering; \"nginx\": nginx serving the same bytes as static files.)\n");
  console.log("| Row | Bytes (gzip) | App req/s | nginx req/s | App / nginx | App p50 | App p99 | nginx p50 | nginx p99 | App CPU/request | App errors |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    if (!r.app.requests) {
      console.log(`| ${r.label} \`${r.path}\` | ${r.bytes ?? "?"} | no answer within the run | | | | | | | | ${r.app.errors} |`);
      continue;
    }
    const ratio = r.nginx ? `${fmt((100 * r.app.rps) / r.nginx.rps, 1)} %` : "—";
    console.log(
      `| ${r.label} \`${r.path}\` | ${r.bytes ?? "?"} | ${fmt(r.app.rps, 0)} | ${r.nginx ? fmt(r.nginx.rps, 0) : "—"} | ${ratio} | ${fmt(r.app.p50, 2)} ms | ${fmt(r.app.p99, 2)} ms | ${r.nginx ? `${fmt(r.nginx.p50, 2)} ms` : "—"} | ${r.nginx ? `${fmt(r.nginx.p99, 2)} ms` : "—"} | ${Number.isFinite(r.app.cpuPerRequest) ? `${fmt(r.app.cpuPerRequest, 2)} ms` : "—"} | ${r.app.errors}${r.nginx?.errors ? ` (nginx ${r.nginx.errors})` : ""} |`,
    );
  }
}

/** Issue 22's targets for cached pages: at least 50 % of nginx's requests/s on the same bytes, p99 under 20 ms, 0 errors. */
function checkCachedTargets(label) {
  for (const r of rows.filter((x) => x.label === label && ["/", "/units"].includes(x.path) || (x.label === label && /^\/locations\//.test(x.path)))) {
    const ratio = r.nginx ? r.app.rps / r.nginx.rps : Number.NaN;
    const ok = (!r.nginx || ratio >= 0.5) && r.app.p99 < 20 && r.app.errors === 0;
    targets.push(`${ok ? "met" : "NOT met"}: ${label} \`${r.path}\` ≥ 50 % of nginx (${r.nginx ? `${fmt(100 * ratio, 1)} %` : "no nginx"}), p99 < 20 ms (${fmt(r.app.p99, 2)} ms), 0 errors (${r.app.errors})`);
  }
}

/**
 * The ceiling for any Node.js process on this machine (bench/lib/bare-node.mjs): a bare node:http
 * server answering each hit row's path with the app's exact status, headers and bytes, measured the
 * same way right after. Noted per row: its requests/s, as a share of nginx's, and the app's share of it.
 */
async function bareNodeCeiling(a, hitRows) {
  const pages = [];
  for (const r of hitRows) {
    const page = await rawPage(`${a.url}${r.path}`);
    pages.push({ path: r.path, status: page.status, headers: page.headers, body: page.body });
  }
  const bare = await startBareNode({ port: NGINX_PORT + 10, pages });
  try {
    for (const r of hitRows) {
      const b = measure(`${bare.url}${r.path}`, []);
      const ofNginx = r.nginx ? `, ${fmt((100 * b.rps) / r.nginx.rps, 1)} % of nginx` : "";
      notes.push(
        `Ceiling, ${r.path}: a bare node:http server with the app's bytes and headers (no routing, no cache lookup) ${fmt(b.rps, 0)} req/s${ofNginx}, p99 ${fmt(b.p99, 2)} ms; the app ${fmt((100 * r.app.rps) / b.rps, 1)} % of it.`,
      );
    }
  } finally {
    await bare.stop();
  }
}

function moveIns(bases) {
  if (!database) {
    notes.push("Move-ins: skipped (PGlite; needs PostgreSQL).");
    return;
  }
  const out = execFileSync("npx", ["tsx", "bench/move-in.ts", database.url, bases.join(","), String(ROUNDS), String(CONCURRENCY)], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  const m = JSON.parse(out.trim().split("\n").at(-1));
  const ok = m.p95 < 150 && m.moveIns === m.attempted;
  notes.push(
    `Move-ins (real HTTP rental flow, ${CONCURRENCY} concurrent checkouts × ${ROUNDS} rounds, ${DATABASE}): ${m.moveIns}/${m.attempted} completed; checkout (payment POST) p50 ${m.p50} ms, p95 ${m.p95} ms, max ${m.max} ms${m.failures.length ? `; failures: ${m.failures.join(" | ")}` : ""}.`,
  );
  targets.push(`${ok ? "met" : "NOT met"}: move-in p95 < 150 ms with ${CONCURRENCY} concurrent checkouts (${m.p95} ms, ${m.moveIns}/${m.attempted} completed)`);
}

// ---------------------------------------------------------------- one process
async function singleProcess() {
  const a = await app(PORT);
  const paths = await pickPaths(a.url);
  // Every page must be stored by the cache (else the "hit" rows would measure renders).
  for (const p of paths) {
    for (let i = 0; i < 20; i++) {
      const r = await rawPage(`${a.url}${p}`);
      if (r.status !== 200) fail(`${p} answered ${r.status}, not 200.`);
      if (r.headers["x-page-cache"] === "hit") break;
      if (i === 19) fail(`${p} is not served from the page cache.`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }
  let nginx = await nginxCopies(a.url, paths);
  for (const p of paths) wrk(`${a.url}${p}`, { ...W, seconds: WARMUP || 1 });
  // RSS under load goes up and down by 15 % or more with the garbage collector's rhythm: the
  // median of samples taken during a 5 s run is compared, before and after the cached requests.
  const before = await rssUnderLoad(a, `${a.url}${paths[0]}`);
  let cached = before.requests;
  for (const p of paths) {
    const r = sideBySide("hit", a.url, nginx, p, [], a);
    cached += r.app.requests;
    rows.push(r);
  }
  // At least CACHED_REQUESTS cached requests before the second RSS reading.
  while (cached < CACHED_REQUESTS) {
    const r = wrk(`${a.url}${paths[cached / 1000 % paths.length | 0]}`, { ...W, seconds: 10 });
    if (!r.requests) break;
    cached += r.requests;
  }
  const after = await rssUnderLoad(a, `${a.url}${paths[0]}`);
  cached += after.requests;
  const [rssBefore, rssAfter] = [before.median, after.median];
  const growth = (100 * (rssAfter - rssBefore)) / rssBefore;
  notes.push(
    `App RSS (median of samples during a 5 s run; range in brackets): ${fmt(rssBefore, 1)} MB [${before.range}] after the warm-up, ` +
      `${fmt(rssAfter, 1)} MB [${after.range}] after ${cached} cached requests (${growth >= 0 ? "+" : ""}${fmt(growth, 1)} %).`,
  );
  targets.push(`${Math.abs(growth) <= 10 ? "met" : "NOT met"}: RSS flat (within 10 %) after ${cached} cached requests (${fmt(growth, 1)} %)`);
  checkCachedTargets("hit");
  await nginx?.stop();
  if (on("BENCH_BARE")) await bareNodeCeiling(a, rows.filter((r) => r.label === "hit"));

  if (on("BENCH_PORTAL")) {
    const cookie = await signInDemoTenant(a.url);
    if (cookie) {
      nginx = await nginxCopies(a.url, ["/customer-portal"], { Cookie: cookie });
      rows.push(sideBySide("signed in", a.url, nginx, "/customer-portal", [`Cookie: ${cookie}`], a));
      await nginx?.stop();
    }
  }
  if (on("BENCH_MOVE_IN")) moveIns([a.url]);
  await a.stop();

  if (on("BENCH_MISSES")) {
    const m = await app(PORT, { PAGE_CACHE: "off" });
    nginx = await nginxCopies(m.url, paths);
    for (const p of paths) rows.push(sideBySide("miss", m.url, nginx, p, [], m));
    await nginx?.stop();
    // /units across its filter combinations (issue 22): every request a render of another listing.
    const combos = unitFilterCombos(paths[0].replace(/^\/locations\//, ""));
    const script = pathsScript(path.join(os.tmpdir(), `gatehouse-bench-units-${process.pid}.lua`), combos);
    if (WARMUP > 0) wrk(`${m.url}/units`, { ...W, seconds: WARMUP, script });
    const cpuBefore = m.cpuMs();
    const u = wrk(`${m.url}/units`, { ...W, script });
    u.cpuPerRequest = u.requests ? (m.cpuMs() - cpuBefore) / u.requests : Number.NaN;
    rows.push({ label: `miss, ${combos.length} filter combinations`, path: "/units?…", app: u, nginx: null, bytes: undefined });
    fs.rmSync(script, { force: true });
    await m.stop();
  }
  if (on("BENCH_MISSES") && database) await invalidatedRows(paths);
}

/** Every combination of /units's filters: size group or none × type or none × the location or none. */
function unitFilterCombos(locationSlug) {
  const out = [];
  for (const size of ["", "small", "medium", "large", "10x10"])
    for (const type of ["", "climate_controlled", "drive_up", "indoor", "parking"])
      for (const location of ["", locationSlug]) {
        const q = new URLSearchParams(Object.entries({ size, type, location }).filter(([, v]) => v)).toString();
        out.push(`/units${q ? `?${q}` : ""}`);
      }
  return out;
}

/**
 * The location pages right after a change (issue 22): the page cache on, and a change notification
 * (NOTIFY gatehouse_changed, what every write of the public data sends) every 250 ms while wrk runs,
 * so each stored page is dropped and rendered again by the next request.
 */
async function invalidatedRows(paths) {
  const pg = (await import("pg")).default;
  const a = await app(PORT);
  const locationPaths = [paths[0]];
  const c = new pg.Client({ connectionString: database.url });
  await c.connect();
  let notifies = 0;
  const timer = setInterval(() => {
    notifies++;
    void c.query("NOTIFY gatehouse_changed").catch(() => undefined);
  }, 250);
  try {
    for (const p of locationPaths) {
      if (WARMUP > 0) await wrkAsync(`${a.url}${p}`, { ...W, seconds: WARMUP });
      const cpuBefore = a.cpuMs();
      const before = notifies;
      const r = await wrkAsync(`${a.url}${p}`, W);
      r.cpuPerRequest = r.requests ? (a.cpuMs() - cpuBefore) / r.requests : Number.NaN;
      rows.push({ label: `invalidated every 250 ms (${notifies - before}×)`, path: p, app: r, nginx: null, bytes: undefined });
    }
  } finally {
    clearInterval(timer);
    await c.end();
    await a.stop();
  }
}

/** Samples the app's RSS every 100 ms during a 5 s wrk run of `url`. */
async function rssUnderLoad(proc, url) {
  const samples = [];
  const timer = setInterval(() => samples.push(proc.rssMb()), 100);
  const r = await wrkAsync(url, { ...W, seconds: 5 });
  clearInterval(timer);
  samples.sort((x, y) => x - y);
  return { requests: r.requests, median: samples[samples.length >> 1], range: `${fmt(samples[0], 0)}–${fmt(samples.at(-1), 0)}` };
}

/** Signs the demo tenant in (GET the form for its CSRF token, POST it); returns the Cookie header, or null. */
async function signInDemoTenant(base) {
  const jar = new Map();
  const keep = (res) => {
    for (const sc of res.headers.getSetCookie()) {
      const [pair] = sc.split(";");
      const eq = pair.indexOf("=");
      const value = pair.slice(eq + 1);
      if (value === "" || /max-age=0/i.test(sc)) jar.delete(pair.slice(0, eq));
      else jar.set(pair.slice(0, eq), value);
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const form = await fetch(`${base}/customer-portal/login`);
  keep(form);
  const csrf = /name="csrf"[^>]*value="([^"]+)"/.exec(await form.text())?.[1];
  const body = new URLSearchParams({ csrf: csrf ?? "", email: "demo.tenant@example.com", password: "demo1234", redirectTo: "/customer-portal" });
  const res = await fetch(`${base}/customer-portal/login`, {
    method: "POST",
    body,
    redirect: "manual",
    headers: { Cookie: cookie(), "Content-Type": "application/x-www-form-urlencoded", Origin: base },
  });
  keep(res);
  const dashboard = await fetch(`${base}/customer-portal`, { headers: { Cookie: cookie() }, redirect: "manual" });
  if (res.status !== 303 || dashboard.status !== 200) {
    notes.push(`Portal: the demo tenant could not sign in (login ${res.status}, dashboard ${dashboard.status}); row left out.`);
    return null;
  }
  return cookie();
}

// ---------------------------------------------------------------- several processes behind nginx
/** deploy/nginx.conf for this machine: the app ports, the build directory, a plain-HTTP port, no TLS. */
const deployConfigFor = (appPorts) => deployConfig({ appPorts, port: NGINX_PORT, buildDir: BUILD_DIR });

async function multiProcess() {
  const ports = Array.from({ length: PROCESSES }, (_, i) => PORT + 1 + i);
  const origin = `http://127.0.0.1:${NGINX_PORT}`;
  const apps = [];
  for (const port of ports) apps.push(await app(port, { PUBLIC_URL: origin }));
  const front = await startNginx({ httpBody: deployConfigFor(ports), port: NGINX_PORT });
  cleanups.push(() => front.stop());
  const paths = await pickPaths(origin);
  for (const p of paths) for (let i = 0; i < 4 * PROCESSES; i++) await rawPage(`${origin}${p}`);
  const rssBefore = apps.map((a) => a.rssMb());
  for (const p of paths.slice(0, 3)) {
    if (WARMUP > 0) wrk(`${origin}${p}`, { ...W, seconds: WARMUP });
    rows.push({ label: `nginx → ${PROCESSES} processes, hit`, path: p, app: wrk(`${origin}${p}`, W), nginx: null, bytes: (await rawPage(`${origin}${p}`)).body.length });
  }
  const rssAfter = apps.map((a) => a.rssMb());
  notes.push(`App RSS per process: ${rssBefore.map((r, i) => `${fmt(r, 1)} → ${fmt(rssAfter[i], 1)} MB`).join(", ")}.`);
  if (on("BENCH_MOVE_IN")) moveIns([origin]);
}

// ---------------------------------------------------------------- the deployed stack: the cache in front
/** Asks nginx for `p` until its cache answers (X-Cache-Status HIT). */
async function untilHit(origin, p) {
  for (let i = 0; i < 50; i++) {
    const r = await rawPage(`${origin}${p}`);
    if (r.status !== 200) fail(`${p} answered ${r.status} through nginx, not 200.`);
    if (r.headers["x-cache-status"] === "HIT") return;
    await new Promise((res) => setTimeout(res, 50));
  }
  fail(`${p} is never a HIT of nginx's cache.`);
}

async function deployedStack() {
  const ports = Array.from({ length: PROCESSES }, (_, i) => PORT + 1 + i);
  const frontPort = NGINX_PORT + 5;
  const purgePort = NGINX_PORT + 6;
  const origin = `http://127.0.0.1:${frontPort}`;
  const consoleOrigin = `http://admin.localhost:${frontPort}`;
  const apps = [];
  const appEnv = { PUBLIC_URL: origin, CONSOLE_URL: consoleOrigin, CACHE_PURGE: "nginx", CACHE_PURGE_NGINX_URL: `http://127.0.0.1:${purgePort}` };
  for (const port of ports) apps.push(await app(port, appEnv));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-bench-front-"));
  const front = await startNginx({
    httpBody: deployConfig({ appPorts: ports, port: frontPort, buildDir: BUILD_DIR, sharedCache: { dir, purgePort } }),
    port: frontPort,
    main: `load_module ${CACHE_PURGE_MODULE};\n`,
    dir,
  });
  cleanups.push(() => front.stop());
  const paths = await pickPaths(origin);
  for (const p of paths) await untilHit(origin, p);
  // The same bytes and headers (X-Cache-Status: HIT included) as static files, 1 worker too.
  const nginx = await nginxCopies(origin, paths);
  // On a shared machine whatever else runs comes and goes within seconds (one run of "the stack, then
  // the static copy" per page gave 16 % to 274 % for the same page). So by default both sides run AT
  // THE SAME TIME (BENCH_SIDE_BY_SIDE=together), each with its own wrk, for BENCH_PAIRS (3) runs of
  // BENCH_DURATION: both see the same machine, and the share each gets of it is turned into requests
  // by what each request costs it. BENCH_SIDE_BY_SIDE=alternate: the stack, then the static copy.
  // Each side's figures are its runs' together (requests/s the mean; p50 and p99 the median).
  const PAIRS = Number(env("BENCH_PAIRS", "3"));
  const TOGETHER = env("BENCH_SIDE_BY_SIDE", "together") === "together";
  const combine = (runs) => {
    const med = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
    return { rps: runs.reduce((t, r) => t + r.rps, 0) / runs.length, requests: runs.reduce((t, r) => t + r.requests, 0), p50: med(runs.map((r) => r.p50)), p99: med(runs.map((r) => r.p99)), errors: runs.reduce((t, r) => t + r.errors, 0), cpuPerRequest: Number.NaN };
  };
  for (const p of paths) {
    if (WARMUP > 0) wrk(`${origin}${p}`, { ...W, seconds: WARMUP });
    if (WARMUP > 0) wrk(`${nginx.url}${p}`, { ...W, seconds: WARMUP });
    const stack = [];
    const copy = [];
    const ratios = [];
    for (let i = 0; i < PAIRS; i++) {
      if (TOGETHER) {
        const [a, b] = await Promise.all([wrkAsync(`${origin}${p}`, W), wrkAsync(`${nginx.url}${p}`, W)]);
        stack.push(a);
        copy.push(b);
      } else {
        stack.push(wrk(`${origin}${p}`, W));
        copy.push(wrk(`${nginx.url}${p}`, W));
      }
      ratios.push(`${fmt((100 * stack.at(-1).rps) / copy.at(-1).rps, 0)} %`);
    }
    notes.push(`${p}: the ${TOGETHER ? "simultaneous" : "alternating"} runs one by one (stack / static): ${ratios.join(", ")}.`);
    rows.push({ label: `nginx cache → ${PROCESSES} processes, hit`, path: p, app: combine(stack), nginx: combine(copy), bytes: nginx.pages.find((x) => x.path === p)?.bytes });
  }
  await nginx.stop();
  // Still answered by the cache (nothing above expired or was purged): else the rows measured the processes.
  for (const p of paths) {
    const r = await rawPage(`${origin}${p}`);
    if (r.headers["x-cache-status"] !== "HIT") notes.push(`${p} was not a HIT after its measurement (${r.headers["x-cache-status"]}).`);
  }
  for (const r of rows) {
    const ratio = r.app.rps / r.nginx.rps;
    targets.push(`${ratio >= 0.9 && r.app.errors === 0 ? "met" : "NOT met"}: the deployed stack \`${r.path}\` ≥ 90 % of nginx serving the same bytes as static files (${fmt(100 * ratio, 1)} %), 0 errors (${r.app.errors})`);
  }
  if (on("BENCH_PUBLISH")) {
    const publishEnv = { ...baseEnv, PUBLIC_URL: origin, CONSOLE_URL: consoleOrigin };
    const out = execFileSync("npx", ["tsx", "bench/publish-deployed.ts", database.url, origin, consoleOrigin, env("BENCH_PUBLISH_ROUNDS", "10")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], env: publishEnv });
    const lines = out.trim().split("\n").map((l) => JSON.parse(l));
    const m = lines.at(-1);
    notes.push(
      `Publish-to-visible through the cache (${m.rounds} console publishes through nginx; the anonymous page through nginx polled every 5 ms in br, gzip and identity until all three show it): ` +
        `from the click p50 ${m.visibleAfterClickMs.p50} ms, max ${m.visibleAfterClickMs.max} ms; after the publish's answer (303, p50 ${m.postMs.p50} ms) p50 ${m.visibleAfterAnswerMs.p50} ms, max ${m.visibleAfterAnswerMs.max} ms; nginx first answered without its stored copy (the purge there) p50 ${m.purgedAfterClickMs.p50} ms, max ${m.purgedAfterClickMs.max} ms after the click. ` +
        `Rounds (click → visible, ms): ${lines.slice(0, -1).map((l) => l.visibleAfterClickMs).join(", ")}.`,
    );
    targets.push(`${m.visibleAfterClickMs.max < 1000 ? "met" : "NOT met"}: a publish visible to anonymous visitors through the cache within 1 s (max ${m.visibleAfterClickMs.max} ms from the click)`);
  }
}

/** The rush scenarios (bench/rush.mjs, issue 22) on their own fresh database, after the rows above. */
function rush() {
  if (!database || !on("BENCH_RUSH")) {
    if (!database) notes.push("Rush: skipped (needs PostgreSQL).");
    return;
  }
  const args = ["bench/rush.mjs", ...(PROCESSES > 1 ? ["--processes", String(PROCESSES)] : [])];
  const out = execFileSync("node", args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, BUILD_DIR, BENCH_PORT: String(PORT + 10), BENCH_NGINX_PORT: String(NGINX_PORT + 1) } });
  const body = out.trim().split("\n");
  for (const line of body.filter((l) => l.startsWith("- Rental rush") || l.startsWith("- Sign-in rush"))) notes.push(line.slice(2));
  let inTargets = false;
  for (const line of body) {
    if (line.startsWith("Targets (issue 22)")) inTargets = true;
    else if (inTargets && line.startsWith("- ")) targets.push(line.slice(2));
  }
}

started = true;
try {
  if (DEPLOYED) await deployedStack();
  else if (PROCESSES > 1) await multiProcess();
  else await singleProcess();
  await cleanup();
  if (!DEPLOYED) rush();
} catch (error) {
  console.error(`bench: ${error.message}`);
  await cleanup();
  process.exit(1);
} finally {
  await cleanup();
}

const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
const load = os.loadavg().map((n) => n.toFixed(1)).join(", ");
console.log(
  `\nwrk ${W.threads} thread, ${W.connections} connections, gzip, ${W.seconds} s per measurement after ${WARMUP} s warm-up; ` +
    `${DEPLOYED ? `deploy/nginx.conf with its cache (1 worker) in front of ${PROCESSES} app processes, against nginx (1 worker) serving the same bytes as static files` : PROCESSES > 1 ? `${PROCESSES} app processes behind nginx (deploy/nginx.conf, 1 worker)` : "1 app process; nginx 1 worker serving the same bytes"}; ` +
    `Node ${process.version}, ${os.cpus().length} cores (${cpu}), ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; ` +
    `${DATABASE}; everything on the same machine; load average at the end ${load}.\n`,
);
printTable();
console.log("");
for (const n of notes) console.log(`- ${n}`);
console.log("\nTargets (docs/performance.md):");
for (const t of targets) console.log(`- ${t}`);
if (rows.some((r) => r.app.errors > 0)) process.exitCode = 1;
