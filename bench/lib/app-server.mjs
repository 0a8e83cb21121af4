// The app under test: `node server.js` (the production build) as a child process, with its RSS and CPU from /proc.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";

const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

// `cwd`: the checkout whose server.js runs (another checkout's build runs with its own server.js).
export async function startApp({ env, port, label = "app", cwd }) {
  // BENCH_APP_NODE_ARGS: extra node options for the app, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (env.BENCH_APP_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child = spawn("node", [...nodeArgs, "server.js"], { stdio: ["ignore", "ignore", "inherit"], env: { ...env, PORT: String(port) }, ...(cwd ? { cwd } : {}) });
  let exited = false;
  child.on("exit", () => (exited = true));
  const kill = () => {
    if (!exited) child.kill("SIGTERM");
  };
  process.on("exit", kill);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`${label}: the server stopped while starting`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${label}: the server did not start within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    port,
    pid: child.pid,
    /** Resident set size in MB (VmRSS), or NaN. */
    rssMb() {
      try {
        const kb = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1]);
        return kb / 1024;
      } catch {
        return Number.NaN;
      }
    },
    /** CPU time (user + system, ms) used so far. */
    cpuMs() {
      try {
        const fields = fs.readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1].split(" ");
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
      } catch {
        return Number.NaN;
      }
    },
    async stop() {
      if (exited) return;
      const gone = new Promise((r) => child.once("exit", r));
      kill();
      await gone;
    },
  };
}

/** The exact bytes of a page as a browser asking for gzip gets them (fetch() would decompress). */
export async function rawPage(url, headers = {}) {
  const http = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { "Accept-Encoding": "gzip", ...headers } }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
  });
}
