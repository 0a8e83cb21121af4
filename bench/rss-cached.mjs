#!/usr/bin/env node
// Memory over many cached requests (issue 10: RSS flat, within 10 %, after 100,000 cached requests).
//
//   npx react-router build && node bench/rss-cached.mjs
//
// Starts the build (`$BUILD_DIR`, default build; page cache on) on its own port and PGlite directory
// (or BENCH_DATABASE_URL), requests five public pages until each is stored, then sends
// BENCH_TOTAL (100000) requests with wrk (2 threads, 16 connections, gzip, the five pages in turn)
// in steps, and prints the server's RSS (/proc/<pid>/status) after the warm-up and after each step.
// Not part of `npm test`.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";

const env = (name, fallback) => process.env[name] || fallback;
const BUILD_DIR = env("BUILD_DIR", "build");
const PORT = Number(env("BENCH_PORT", "3430"));
const TOTAL = Number(env("BENCH_TOTAL", "100000"));
const STEPS = Number(env("BENCH_STEPS", "5"));
const PATHS = ["/", "/view-locations", "/locations/lumberton-nc-28358", "/units", "/about"];
const ORIGIN = `http://127.0.0.1:${PORT}`;

const childEnv = {
  ...process.env,
  NODE_ENV: "production",
  PAYMENT_GATEWAY: "test",
  HTTPS: "false",
  PORT: String(PORT),
  HOST: "127.0.0.1",
  BUILD_DIR,
  BILLING_SCHEDULE: "off",
  HOUSEKEEPING: "off",
  SESSION_SECRET: "bench-only-session-secret-not-for-production-0000",
  PUBLIC_URL: ORIGIN,
};
delete childEnv.DATABASE_URL;
if (process.env.BENCH_DATABASE_URL) childEnv.DATABASE_URL = process.env.BENCH_DATABASE_URL;
else childEnv.PGLITE_DIR = env("BENCH_PGLITE_DIR", "data/bench-rss");
execFileSync("npx", ["tsx", "scripts/db-setup.ts"], { stdio: ["ignore", "ignore", "inherit"], env: childEnv });
const server = spawn("node", ["server.js"], { stdio: ["ignore", "ignore", "inherit"], env: childEnv });
process.on("exit", () => server.kill("SIGTERM"));

const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${server.pid}/status`, "utf8"))[1]) / 1024;

for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${ORIGIN}/healthz`)).ok) break;
  } catch {
    // not yet
  }
  if (i > 300) throw new Error("server did not start");
  await new Promise((r) => setTimeout(r, 200));
}
for (const path of PATHS) {
  for (let i = 0; i < 40; i++) {
    const r = await fetch(`${ORIGIN}${path}`, { headers: { "Accept-Encoding": "gzip" } });
    await r.arrayBuffer();
    if (r.headers.get("x-page-cache") === "hit") break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const script = `${os.tmpdir()}/rss-cached-${process.pid}.lua`;
fs.writeFileSync(
  script,
  `local paths = {${PATHS.map((p) => `"${p}"`).join(", ")}}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1], { ["Accept-Encoding"] = "gzip" })
end
`,
);
function wrk(seconds) {
  const out = execFileSync("wrk", ["-t", "2", "-c", "16", "-d", `${seconds}s`, "-s", script, ORIGIN], { encoding: "utf8" });
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    errors: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
  };
}

// A short first run so the JIT and the sockets settle; RSS "before" is taken after it.
console.error("rss-cached: pages stored; measuring");
const warm = wrk(3);
const before = rssMb();
const rows = [[0, before]];
let sent = 0;
let rps = warm.rps || 1000;
let errors = warm.errors;
for (let step = 1; step <= STEPS; step++) {
  const target = Math.round((TOTAL * step) / STEPS);
  while (sent < target) {
    const seconds = Math.max(1, Math.min(30, Math.ceil((target - sent) / rps)));
    const r = wrk(seconds);
    sent += r.requests;
    rps = r.rps || rps;
    errors += r.errors;
  }
  rows.push([sent, rssMb()]);
  console.error(`rss-cached: ${sent} requests, RSS ${rssMb().toFixed(1)} MB`);
}
fs.rmSync(script, { force: true });

console.log(
  `\n${BUILD_DIR}, ${process.env.BENCH_DATABASE_URL ? "PostgreSQL" : "PGlite"}, page cache on; wrk 2 threads, 16 connections, gzip, ${PATHS.length} pages in turn; ` +
    `Node ${process.version}; ${new Date().toISOString().slice(0, 16)}Z; load average at the end ${os.loadavg().map((n) => n.toFixed(1)).join(", ")}; non-2xx answers: ${errors}.\n`,
);
console.log("| Cached requests sent | Server RSS | Change from the start |\n|---:|---:|---:|");
for (const [n, mb] of rows) console.log(`| ${n} | ${mb.toFixed(1)} MB | ${n ? `${(((mb - before) / before) * 100).toFixed(1)} %` : "—"} |`);
