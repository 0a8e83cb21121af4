#!/usr/bin/env node
// The soak's figures as the markdown of docs/operations.md "The soak" (bench/soak.ts writes them):
//
//   node bench/soak-table.mjs data/soak/<run>/results.json      # or partial.json while it runs
//
// Memory every BENCH_EVERY (10) minutes, requests by kind and status, 5xx inside and outside the
// restart's window, the publishes' publish-to-visible, and what was lost. The memory trend is taken
// from minute TREND_FROM (15, after the warm-up) on; a run that took a heap snapshot at minute 15
// gives TREND_FROM=17, as writing a snapshot raises RSS once by ~250 MB (malloc keeps what it took).
import fs from "node:fs";

const file = process.argv[2];
if (!file) {
  console.error("usage: node bench/soak-table.mjs <results.json>");
  process.exit(1);
}
const r = JSON.parse(fs.readFileSync(file, "utf8"));
const every = Number(process.env.BENCH_EVERY || 10);
const out = [];
const mb = (x) => (x == null ? "—" : String(x));

out.push(`Run started ${r.startedAt.slice(0, 16).replace("T", " ")} UTC, ${r.minutes} min planned, ${r.memory.length ? r.memory.at(-1).minute : 0} min sampled.`);
if (r.restartWindow) out.push(`PostgreSQL restart: stopped ${r.restartWindow.from.slice(11, 19)}, the window counted as the restart's ends ${r.restartWindow.to.slice(11, 19)} UTC (${r.restartWindow.seconds} s: down, started, and ${r.config.RESTART_GRACE_MS / 1000} s after).`);
out.push("");
out.push("| Minute | RSS p1 / p2 / p3 (MB) | V8 heap used p1 / p2 / p3 (MB) | PostgreSQL connections | Requests in that minute | 5xx / errors in that minute |");
out.push("|---:|---|---|---:|---:|---:|");
const rows = r.memory.filter((m, i) => m.minute % every === 0 || i === r.memory.length - 1 || i === 1);
for (const m of rows) {
  const pm = r.perMinute[m.minute - 1];
  out.push(`| ${m.minute} | ${m.rssMb.map(mb).join(" / ")} | ${m.heapMb.map(mb).join(" / ")} | ${mb(m.pgConnections)} | ${pm?.requests ?? "—"} | ${pm?.fiveXX ?? "—"} |`);
}
// The trend after the warm-up (minute TREND_FROM on): a least-squares line through each process's samples, in MB per hour.
const slope = (points) => {
  const n = points.length;
  if (n < 3) return Number.NaN;
  const mx = points.reduce((t, [x]) => t + x, 0) / n;
  const my = points.reduce((t, [, y]) => t + y, 0) / n;
  const num = points.reduce((t, [x, y]) => t + (x - mx) * (y - my), 0);
  const den = points.reduce((t, [x]) => t + (x - mx) ** 2, 0);
  return (num / den) * 60;
};
const from = Number(process.env.TREND_FROM || 15);
const after = r.memory.filter((m) => m.minute >= from);
const trend = (key) => [0, 1, 2].map((i) => slope(after.filter((m) => m[key][i] != null).map((m) => [m.minute, m[key][i]])));
const range = (key) => [0, 1, 2].map((i) => {
  const xs = after.map((m) => m[key][i]).filter((x) => x != null);
  return xs.length ? `${Math.min(...xs)}–${Math.max(...xs)}` : "—";
});
out.push("");
out.push(`From minute ${from} on (${after.length} samples): RSS ${range("rssMb").join(" / ")} MB, trend ${trend("rssMb").map((x) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}`).join(" / ")} MB per hour; V8 heap used ${range("heapMb").join(" / ")} MB, trend ${trend("heapMb").map((x) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}`).join(" / ")} MB per hour.`);
out.push("");
out.push("| Requests | Count | By status | p50 | p99 |");
out.push("|---|---:|---|---:|---:|");
for (const [kind, k] of Object.entries(r.requests)) {
  const statuses = Object.entries(k.byStatus).sort().map(([s, n]) => `${s}: ${n}`).join(", ");
  out.push(`| ${kind} | ${k.n} | ${statuses} | ${k.p50} ms | ${k.p99} ms |`);
}
const total = Object.values(r.requests).reduce((t, k) => t + k.n, 0);
out.push(`| all | ${total} | | | |`);
out.push("");
out.push(`nginx's cache on the cached pages: ${Object.entries(r.nginxCache).map(([s, n]) => `${s} ${n}`).join(", ")}.`);
const outside = r.fiveXXOrErrors.outside;
const outside5xx = outside.filter((b) => /^5\d\d$/.test(b.outcome)).length;
out.push(
  `5xx, timeouts (the client's 10–15 s) or refused connections: ${r.fiveXXOrErrors.inRestart} inside the restart's window, ${r.fiveXXOrErrors.outsideRestart} outside it` +
    (outside.length === r.fiveXXOrErrors.outsideRestart ? `, of which ${outside5xx} a 5xx and ${outside.length - outside5xx} a timeout or refused connection.` : "."),
);
for (const b of r.fiveXXOrErrors.outside.slice(0, 20)) out.push(`- outside: ${new Date(b.t).toISOString().slice(11, 19)} ${b.kind} ${b.method} ${b.path} → ${b.outcome}`);
out.push(`Rentals: ${r.rentals.confirmed} confirmed of ${r.rentals.tried} begun${r.rentals.notConfirmed.length ? ` (not confirmed: ${r.rentals.notConfirmed.join("; ")})` : ""}.`);
out.push(`Portal sign-ins: ${r.signIns.ok} signed in, ${r.signIns.refused} refused (429/503), ${r.signIns.failed} failed.`);
const seen = r.publishes.filter((p) => p.visibleMs >= 0).map((p) => p.visibleMs).sort((a, b) => a - b);
out.push(
  `Publishes through the console: ${r.publishes.length} (${r.publishes.filter((p) => p.posted === 303).length} answered 303); visible through nginx in br, gzip and identity after the publish's answer: ` +
    (seen.length ? `p50 ${seen[seen.length >> 1]} ms, max ${seen.at(-1)} ms (${r.publishes.map((p) => p.visibleMs).join(", ")})` : "—") +
    ".",
);
if (r.lost && Object.keys(r.lost).length) out.push(`Lost: ${JSON.stringify(r.lost)}`);
out.push(`Process exits: ${r.exits.map((e) => e.length).join(" / ")}.`);
console.log(out.join("\n"));
