// Loaded into each app process by the soak (NODE_OPTIONS=--import …): once a minute, appends the
// process's memory (process.memoryUsage()) as one JSON line to $SOAK_HEAP_FILE. Not part of the app.
import fs from "node:fs";

const file = process.env.SOAK_HEAP_FILE;
const every = Number(process.env.SOAK_HEAP_EVERY_MS || 60_000);
if (file) {
  const sample = () => {
    const m = process.memoryUsage();
    fs.appendFileSync(file, `${JSON.stringify({ t: Date.now(), pid: process.pid, rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external })}\n`);
  };
  setTimeout(sample, 5_000).unref();
  setInterval(sample, every).unref();
}
