#!/usr/bin/env node
// Server CPU per request on a page-cache MISS (issue 10): every request renders the page again.
//
//   npx react-router build && node bench/cpu-miss.mjs
//   BUILDS=build-before,build node bench/cpu-miss.mjs        # two builds side by side, one run
//   BUILDS=/tmp/main/build,build node bench/cpu-miss.mjs     # another checkout's build and server.js
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/p1_bench node bench/cpu-miss.mjs
//
// Starts each build (`node server.js`, NODE_ENV=production, PAGE_CACHE=off) on its own port with
// its own seeded database (PGlite: one directory per build; PostgreSQL: the one database, shared,
// read only), sends BENCH_REQUESTS sequential requests per page and build over one keep-alive
// connection (Accept-Encoding: gzip, as browsers send), in rounds that alternate between the builds
// so both see the same machine load, and reads the server process's CPU time (user + system, from
// /proc/<pid>/stat) before and after each block. Prints CPU per request, the wall time per request
// and the server's RSS at the end. CPU_PROF=1 also writes a V8 CPU profile per build into
// bench/profiles/ (node --cpu-prof; summarise with bench/profile-summary.mjs).
// Settings: BENCH_PATHS (default the location page, /, /units, /view-locations, /about),
// BENCH_REQUESTS (400), BENCH_ROUNDS (4), BENCH_WARMUP requests (100), BENCH_PORT (3420 and up),
// BENCH_PGLITE_DIR prefix (data/bench-cpu). Not part of `npm test`.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";

const env = (name, fallback) => process.env[name] || fallback;
const BUILDS = env("BUILDS", "build").split(",").map((s) => s.trim());
const PATHS = env("BENCH_PATHS", "/locations/lumberton-nc-28358,/,/units,/view-locations,/about").split(",").map((s) => s.trim());
const REQUESTS = Number(env("BENCH_REQUESTS", "400"));
const ROUNDS = Number(env("BENCH_ROUNDS", "4"));
const WARMUP = Number(env("BENCH_WARMUP", "100"));
const BASE_PORT = Number(env("BENCH_PORT", "3420"));
const PGLITE_PREFIX = env("BENCH_PGLITE_DIR", "data/bench-cpu");
const DATABASE_URL = process.env.BENCH_DATABASE_URL;
const CPU_PROF = process.env.CPU_PROF === "1";
const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

function fail(message) {
  console.error(`cpu-miss: ${message}`);
  process.exit(1);
}
for (const b of BUILDS) if (!fs.existsSync(`${b}/server/index.js`)) fail(`no production build in ${b}/`);
// A build inside another checkout (an absolute path, e.g. /tmp/main/build) runs with that
// checkout's server.js and scripts: cwd is the checkout, BUILD_DIR the build's own name.
const checkoutOf = (build) => (path.isAbsolute(build) ? path.dirname(build) : process.cwd());

const servers = [];
process.on("exit", () => {
  for (const s of servers) if (!s.exited) s.child.kill("SIGTERM");
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

function cpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function get(port, path) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path, agent, headers: { "Accept-Encoding": "gzip" } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", reject);
  });
}

async function start(build, index) {
  const port = BASE_PORT + index;
  const childEnv = {
    ...process.env,
    NODE_ENV: "production",
    PAYMENT_GATEWAY: "test",
    HTTPS: "false",
    PORT: String(port),
    HOST: "127.0.0.1",
    BUILD_DIR: path.isAbsolute(build) ? path.basename(build) : build,
    PAGE_CACHE: "off",
    BILLING_SCHEDULE: "off",
    HOUSEKEEPING: "off",
    SESSION_SECRET: "bench-only-session-secret-not-for-production-0000",
    PUBLIC_URL: `http://127.0.0.1:${port}`,
  };
  delete childEnv.DATABASE_URL;
  if (DATABASE_URL) childEnv.DATABASE_URL = DATABASE_URL;
  else childEnv.PGLITE_DIR = path.resolve(`${PGLITE_PREFIX}-${index}`);
  if (!DATABASE_URL || index === 0) execFileSync("npx", ["tsx", "scripts/db-setup.ts"], { stdio: ["ignore", "ignore", "inherit"], env: childEnv, cwd: checkoutOf(build) });
  const args = CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", path.resolve("bench/profiles"), "--cpu-prof-name", `${build.replace(/\W/g, "_")}-${DATABASE_URL ? "pg" : "pglite"}.cpuprofile`, "server.js"] : ["server.js"];
  const child = spawn("node", args, { stdio: ["ignore", "ignore", "inherit"], env: childEnv, cwd: checkoutOf(build) });
  const server = { build, port, child, exited: false };
  child.on("exit", () => (server.exited = true));
  servers.push(server);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.exited) fail(`${build}: the server stopped while starting`);
    try {
      if ((await get(port, "/healthz")) === 200) break;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) fail(`${build}: did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return server;
}

const started = [];
for (const [i, b] of BUILDS.entries()) started.push(await start(b, i));

for (const s of started) {
  for (const path of PATHS) {
    const status = await get(s.port, path);
    if (status !== 200) fail(`${s.build} ${path} answered ${status}`);
  }
  for (let i = 0; i < WARMUP; i++) for (const path of PATHS) await get(s.port, path);
}

// A pause the profile summary recognises: what comes after it is the measurement, not start-up.
if (CPU_PROF) await new Promise((r) => setTimeout(r, 3_000));

// results[build][path] = { cpu, wall, n }
const results = new Map(started.map((s) => [s.build, new Map(PATHS.map((p) => [p, { cpu: 0, wall: 0, n: 0 }]))]));
const perRound = Math.ceil(REQUESTS / ROUNDS);
for (let round = 0; round < ROUNDS; round++) {
  for (const path of PATHS) {
    for (const s of round % 2 ? [...started].reverse() : started) {
      const cpu0 = cpuMs(s.child.pid);
      const t0 = performance.now();
      for (let i = 0; i < perRound; i++) await get(s.port, path);
      const r = results.get(s.build).get(path);
      r.wall += performance.now() - t0;
      r.cpu += cpuMs(s.child.pid) - cpu0;
      r.n += perRound;
    }
  }
}
const rss = new Map(started.map((s) => [s.build, rssMb(s.child.pid)]));
for (const s of started) s.child.kill("SIGTERM");
await Promise.all(started.map((s) => new Promise((r) => (s.exited ? r() : s.child.on("exit", r)))));

const load = os.loadavg().map((n) => n.toFixed(1)).join(", ");
console.log(
  `\n${DATABASE_URL ? "PostgreSQL" : "PGlite"}, PAGE_CACHE=off (every request a miss), ${REQUESTS} sequential requests per page and build ` +
    `in ${ROUNDS} alternating rounds after ${WARMUP} warm-up rounds, one keep-alive connection, gzip; Node ${process.version}, ` +
    `${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${new Date().toISOString().slice(0, 16)}Z; load average at the end ${load}.\n`,
);
console.log(`| Page | ${BUILDS.map((b) => `${b}: CPU/request | ${b}: wall/request`).join(" | ")} |`);
console.log(`|---|${BUILDS.map(() => "---:|---:").join("|")}|`);
for (const path of PATHS) {
  const cells = BUILDS.map((b) => {
    const r = results.get(b).get(path);
    return `${(r.cpu / r.n).toFixed(2)} ms | ${(r.wall / r.n).toFixed(2)} ms`;
  });
  console.log(`| \`${path}\` | ${cells.join(" | ")} |`);
}
console.log(`\nServer RSS at the end: ${BUILDS.map((b) => `${b} ${rss.get(b).toFixed(0)} MB`).join(", ")}.`);
