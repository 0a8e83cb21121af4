#!/usr/bin/env node
// How much event-loop time storing a page in the page cache costs (issue 19, decision 192), on the
// real pages of a running server: the old way (gzip 9 + brotli 11, synchronously, right after the
// answer) against the new one (gzip 6 + brotli 5 synchronously; the best settings only for a page
// asked for again, on the libuv thread pool).
//
//   node server.js &   (or npm start)
//   node bench/page-compression.mjs [http://localhost:3000] [rounds]
import zlib from "node:zlib";
import { promisify } from "node:util";
import { performance } from "node:perf_hooks";

const base = process.argv[2] ?? "http://localhost:3000";
const rounds = Number(process.argv[3] ?? 20);
const paths = ["/", "/units", "/locations/lumberton-nc-28358", "/view-locations", "/about", "/faqs"];
const brotli = (q, size) => ({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: q, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size } });
const brotliAsync = promisify(zlib.brotliCompress);
const gzipAsync = promisify(zlib.gzip);

function time(fn) {
  const start = performance.now();
  for (let i = 0; i < rounds; i++) fn();
  return (performance.now() - start) / rounds;
}

console.log(`| page | bytes | old: gzip 9 + br 11, sync (ms) | new: gzip 6 + br 5, sync (ms) | gzip / br bytes old | gzip / br bytes new | best settings on the thread pool: event-loop ms |`);
console.log(`|---|---|---|---|---|---|---|`);
for (const path of paths) {
  const res = await fetch(base + path, { headers: { "Accept-Encoding": "identity" } });
  const body = Buffer.from(await res.arrayBuffer());
  let oldSizes, newSizes;
  const old = time(() => (oldSizes = [zlib.gzipSync(body, { level: 9 }).length, zlib.brotliCompressSync(body, brotli(11, body.length)).length]));
  const quick = time(() => (newSizes = [zlib.gzipSync(body, { level: 6 }).length, zlib.brotliCompressSync(body, brotli(5, body.length)).length]));
  // Event-loop time of starting the best compression off the loop: the loop is free while it runs.
  let loop = 0;
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    const done = Promise.all([gzipAsync(body, { level: 9 }), brotliAsync(body, brotli(11, body.length))]);
    loop += performance.now() - start;
    await done;
  }
  console.log(`| ${path} | ${body.length} | ${old.toFixed(1)} | ${quick.toFixed(2)} | ${oldSizes.join(" / ")} | ${newSizes.join(" / ")} | ${(loop / rounds).toFixed(2)} |`);
}
