/**
 * The event loop while 1,000 password hashes are in flight (issue 22, decision 207).
 *
 *   npx tsx bench/password-hashing.ts [count=1000] [main|workers]
 *
 * `workers` (default): hashPassword, as the app does now (bcryptjs in worker threads, PASSWORD_HASH_THREADS).
 * `main`: bcryptjs's own async hash on the main thread, as the app did before.
 * All hashes are started at once (cost 10, the production cost); perf_hooks.monitorEventLoopDelay
 * (1 ms resolution: each figure is the 1 ms period plus the lateness) samples the main thread's delay meanwhile, and a 5 ms timer measures how late it
 * fires (what a request arriving meanwhile would wait). Prints one line of JSON.
 */
import bcrypt from "bcryptjs";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { hashPassword, passwordThreads, PRODUCTION_BCRYPT_ROUNDS } from "../app/platform/password.server";

const count = Number(process.argv[2] ?? 1000);
const mode = process.argv[3] === "main" ? "main" : "workers";
const hash = mode === "main" ? (pw: string) => bcrypt.hash(pw, PRODUCTION_BCRYPT_ROUNDS) : hashPassword;

// Warm up (starts the threads).
await Promise.all(Array.from({ length: 4 }, (_, i) => hash(`warm-up-${i}`)));

const histogram = monitorEventLoopDelay({ resolution: 1 });
const lateness: number[] = [];
let expected = performance.now() + 5;
const ticker = setInterval(() => {
  const now = performance.now();
  lateness.push(Math.max(0, now - expected));
  expected = now + 5;
}, 5);
histogram.enable();
const started = performance.now();
const elu = performance.eventLoopUtilization();
await Promise.all(Array.from({ length: count }, (_, i) => hash(`password-${i}`)));
const seconds = (performance.now() - started) / 1000;
const used = performance.eventLoopUtilization(elu);
histogram.disable();
clearInterval(ticker);
lateness.sort((a, b) => a - b);
const pct = (p: number) => lateness[Math.min(lateness.length - 1, Math.ceil((p / 100) * lateness.length) - 1)] ?? Number.NaN;
const ms = (ns: number) => Math.round(ns / 1e4) / 100;
console.log(
  JSON.stringify({
    mode,
    threads: mode === "main" ? 0 : passwordThreads(),
    hashes: count,
    seconds: Math.round(seconds * 10) / 10,
    hashesPerSecond: Math.round(count / seconds),
    eventLoopDelayMs: { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) },
    timer5msLateMs: { p50: Math.round(pct(50) * 100) / 100, p99: Math.round(pct(99) * 100) / 100, max: Math.round((lateness.at(-1) ?? 0) * 100) / 100 },
    eventLoopUtilization: Math.round(used.utilization * 100) / 100,
  }),
);
process.exit(0);
