#!/usr/bin/env node
// Summarises a V8 CPU profile (node --cpu-prof; bench/cpu-miss.mjs with CPU_PROF=1 writes them):
// self time by where the code lives (a package in node_modules, our build, Node itself, GC, idle),
// and the heaviest functions. Usage: node bench/profile-summary.mjs bench/profiles/x.cpuprofile [top]
import fs from "node:fs";

const file = process.argv[2];
const top = Number(process.argv[3] ?? 25);
if (!file) {
  console.error("usage: node bench/profile-summary.mjs <file.cpuprofile> [top]");
  process.exit(1);
}
const profile = JSON.parse(fs.readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
const deltas = profile.timeDeltas;
// Only what follows the longest idle stretch (bench/cpu-miss.mjs pauses 3 s between start-up and
// warm-up and the measurement): start-up (loading modules, opening the database) is left out.
const idleIds = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
let from = 0;
let best = 0;
for (let i = 0, run = 0; i < profile.samples.length; i++) {
  if (idleIds.has(profile.samples[i])) {
    run += deltas[i] ?? 0;
    if (run > best) [best, from] = [run, i + 1];
  } else run = 0;
}
if (best < 1_000_000) from = 0;
for (let i = from; i < profile.samples.length; i++) selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + (deltas[i] ?? 0));

/** Where a function lives, in the words of the report. */
function area(node) {
  const { url, functionName } = node.callFrame;
  if (functionName === "(idle)") return "(idle)";
  if (functionName === "(garbage collector)") return "garbage collection";
  if (functionName === "(program)") return "(program: V8/native, not attributed)";
  if (!url) return functionName.startsWith("(") ? functionName : "native (V8 builtins, JSON, regexps)";
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
  if (m) {
    const pkg = m[1];
    if (pkg === "drizzle-orm") return /\/(relations|pg-core\/dialect|sql\/sql|pg-core\/query-builders)/.test(m[2]) ? "drizzle-orm: query building (incl. relational)" : "drizzle-orm: running and mapping";
    if (pkg === "react-dom") return "react-dom (server rendering)";
    return pkg;
  }
  if (url.startsWith("node:")) return `node: ${url.slice(5).split("/")[0]}`;
  if (/\/build[^/]*\/server\//.test(url)) return "our code (build/server)";
  if (url.endsWith("server.js")) return "server.js (Express set-up)";
  return url;
}

const areas = new Map();
const functions = new Map();
let total = 0;
let idle = 0;
for (const [id, us] of selfUs) {
  const node = byId.get(id);
  const a = area(node);
  if (a === "(idle)") {
    idle += us;
    continue;
  }
  total += us;
  areas.set(a, (areas.get(a) ?? 0) + us);
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*\/(build[^/]*)\//, "$1/")}:${lineNumber + 1}`;
  functions.set(key, (functions.get(key) ?? 0) + us);
}
const pct = (us) => ((100 * us) / total).toFixed(1);
console.log(`${file}: ${(total / 1000).toFixed(0)} ms busy, ${(idle / 1000).toFixed(0)} ms idle\n`);
console.log("| Where | Self time | Share of busy time |\n|---|---:|---:|");
for (const [a, us] of [...areas].sort((x, y) => y[1] - x[1])) if (us / total >= 0.005) console.log(`| ${a} | ${(us / 1000).toFixed(0)} ms | ${pct(us)} % |`);
console.log(`\nHeaviest functions (self time):`);
for (const [f, us] of [...functions].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`${pct(us).padStart(5)} %  ${f}`);
