#!/usr/bin/env node
// HTTP benchmark of the production build: requests per second and latency (p50/p99) of the home
// page, the locations list and a location page, measured with wrk.
//
//   npm run build && npm run bench
//
// It starts its own server (built code in $BUILD_DIR, default "build") on its own port and its own
// seeded PGlite directory, warms up, measures each page for a bounded time, stops the server and
// prints a markdown table. Settings (environment): BENCH_PORT (3400), BENCH_PGLITE_DIR
// (data/bench), BENCH_DURATION seconds per page (10), BENCH_THREADS (2), BENCH_CONNECTIONS (32),
// BENCH_WARMUP seconds per page (3), BENCH_TIMEOUT seconds before wrk gives up on a response (10),
// BENCH_PATHS (comma-separated, overrides the three pages), BENCH_BASELINE=0 to skip the /healthz
// baseline row (no page rendering, only the redirect lookup every request goes through: shows what
// the machine itself allows at the moment), BENCH_DATABASE_URL to
// run on that PostgreSQL database (migrated and seeded first) instead of PGlite.
// Not part of `npm test`: numbers depend on the machine and on what else it is doing.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";

const env = (name, fallback) => process.env[name] || fallback;
const BUILD_DIR = env("BUILD_DIR", "build");
const PORT = Number(env("BENCH_PORT", "3400"));
const PGLITE_DIR = env("BENCH_PGLITE_DIR", "data/bench");
const DURATION = Number(env("BENCH_DURATION", "10"));
const WARMUP = Number(env("BENCH_WARMUP", "3"));
const THREADS = Number(env("BENCH_THREADS", "2"));
const CONNECTIONS = Number(env("BENCH_CONNECTIONS", "32"));
const TIMEOUT = Number(env("BENCH_TIMEOUT", "10"));
const BASELINE = env("BENCH_BASELINE", "1") !== "0";
const ORIGIN = `http://127.0.0.1:${PORT}`;

function fail(message) {
  console.error(`bench: ${message}`);
  process.exit(1);
}

if (spawnSync("wrk", ["--version"]).error) fail("wrk is not installed (Debian: apt-get install -y wrk).");
if (!fs.existsSync(`${BUILD_DIR}/server/index.js`)) fail(`no production build in ${BUILD_DIR}/ (run npm run build first).`);

// A seeded database of its own (migrations + seed are idempotent), so a running dev server or the
// browser tests are not disturbed and the numbers are for the seeded demo site.
const childEnv = { ...process.env, NODE_ENV: "production", HTTPS: "false", PORT: String(PORT), PGLITE_DIR, BUILD_DIR };
delete childEnv.DATABASE_URL;
if (process.env.BENCH_DATABASE_URL) childEnv.DATABASE_URL = process.env.BENCH_DATABASE_URL;
// Production on PostgreSQL refuses to start without SESSION_SECRET (decision 072): a throwaway one for the bench.
childEnv.SESSION_SECRET ??= "bench-only-session-secret-not-for-production-0000";
const DATABASE = process.env.BENCH_DATABASE_URL ? "PostgreSQL" : "PGlite";
execFileSync("npx", ["tsx", "scripts/db-setup.ts"], { stdio: ["ignore", "ignore", "inherit"], env: childEnv });

const server = spawn("node", ["server.js"], { stdio: ["ignore", "ignore", "inherit"], env: childEnv });
let serverExited = false;
server.on("exit", () => (serverExited = true));
const stopServer = () => {
  if (!serverExited) server.kill("SIGTERM");
};
process.on("exit", stopServer);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

async function waitForServer() {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (serverExited) fail("the server stopped while starting.");
    try {
      if ((await fetch(`${ORIGIN}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  fail("the server did not start within 30 s.");
}

async function pickPaths() {
  if (process.env.BENCH_PATHS) return process.env.BENCH_PATHS.split(",").map((p) => p.trim());
  // The first location linked from the locations list (a live one: its page has the most on it).
  const html = await (await fetch(`${ORIGIN}/view-locations`)).text();
  const location = html.match(/href="(\/locations\/[a-z0-9-]+)"/)?.[1];
  if (!location) fail("no location page found on /view-locations.");
  return ["/", "/view-locations", location];
}

/** wrk prints latencies as "812.00us", "1.23ms" or "1.02s". */
function toMs(value) {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value);
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "ms" ? n : m[2] === "s" ? n * 1000 : n * 60_000;
}

/** CPU time (user + system, ms) the server process has used so far; Linux /proc only. */
function serverCpuMs() {
  try {
    const fields = fs.readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1].split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    return (ticks * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

function wrk(path, seconds) {
  // Browsers ask for compressed pages, and the server compresses: measure that, not plain text.
  const args = ["-t", String(THREADS), "-c", String(CONNECTIONS), "-d", `${seconds}s`, "--timeout", `${TIMEOUT}s`, "--latency", "-H", "Accept-Encoding: gzip", `${ORIGIN}${path}`];
  const cpuBefore = serverCpuMs();
  const out = execFileSync("wrk", args, { encoding: "utf8" });
  const cpuMs = serverCpuMs() - cpuBefore;
  const percentile = (p) => toMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(out)?.[1] ?? "");
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  return {
    path,
    cpuPerRequest: requests ? cpuMs / requests : Number.NaN,
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN),
    requests,
    p50: percentile(50),
    p99: percentile(99),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: /Socket errors: (.*)/.exec(out)?.[1] ?? "none",
  };
}

await waitForServer();
const paths = await pickPaths();
for (const path of paths) {
  const res = await fetch(`${ORIGIN}${path}`, { redirect: "manual" });
  if (res.status !== 200) fail(`${path} answered ${res.status}, not 200.`);
}

const results = [];
for (const path of BASELINE ? ["/healthz", ...paths] : paths) {
  if (WARMUP > 0) wrk(path, WARMUP);
  results.push(wrk(path, DURATION));
}
stopServer();

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "?");
const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
const load = os.loadavg().map((n) => n.toFixed(1)).join(", ");
console.log(
  `\nwrk ${THREADS} threads, ${CONNECTIONS} connections, ${DURATION} s per page after ${WARMUP} s warm-up; ` +
    `Node ${process.version}, ${os.cpus().length} cores (${cpu}), ${new Date().toISOString().slice(0, 10)}; ` +
    `${DATABASE}; server and wrk on the same machine; gzip; load average at the end ${load}.\n`,
);
console.log("| Page | Requests/s | p50 latency | p99 latency | Server CPU per request | Requests | Errors |");
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const r of results) {
  const errors = r.non2xx + (r.socketErrors.match(/\d+/g) ?? []).reduce((a, b) => a + Number(b), 0);
  const label = r.path === "/healthz" ? "`/healthz` (baseline: redirect lookup only, no page)" : `\`${r.path}\``;
  console.log(`| ${label} | ${fmt(r.rps, 0)} | ${fmt(r.p50, 2)} ms | ${fmt(r.p99, 2)} ms | ${fmt(r.cpuPerRequest, 2)} ms | ${r.requests} | ${errors} |`);
}
if (results.some((r) => r.non2xx > 0)) process.exitCode = 1;
