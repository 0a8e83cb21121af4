import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { DatabaseHandle } from "~/db/client.server";

/**
 * The BUILT server (build/server/index.js: server/app.ts with everything it adds around React Router —
 * the page cache, the site cache, security headers, guards, redirects, preview mode) in the test's
 * process, on the test's own database (handed to it through the process-wide handle that
 * `getDatabase()` returns), behind a Node HTTP server that answers the way server.js does: a stored
 * page first, then the app. One per test file (the built module keeps its caches for the process).
 *
 * The build is made first when build/ is missing or older than the sources (as the fault tests do),
 * under a lock so the two drivers' workers do not build at once.
 */
// The built app reads the environment through its own copy of app/platform/env.server.ts: under NODE_ENV=test
// each copy would make up its own session secret, so the cookies this test signs would mean nothing to
// it. One secret for both (set before either reads the environment: import this module first).
process.env.SESSION_SECRET ??= crypto.randomBytes(32).toString("hex");

const ROOT = path.resolve(import.meta.dirname, "../../..");
const BUILD = path.join(ROOT, "build", "server", "index.js");

function newestMtime(p: string): number {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, e)));
  return newest;
}

const stale = () => {
  const built = fs.statSync(BUILD, { throwIfNoEntry: false });
  if (!built) return true;
  const sources = Math.max(...["app", "server", "package.json", "vite.config.ts", "react-router.config.ts"].map((p) => newestMtime(path.join(ROOT, p))));
  return built.mtimeMs < sources;
};

async function ensureBuilt(): Promise<void> {
  if (!stale()) return;
  const lock = path.join(os.tmpdir(), `gatehouse-build-${Buffer.from(ROOT).toString("base64url")}`);
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 300_000) fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (stale()) execFileSync("npx", ["react-router", "build"], { cwd: ROOT, stdio: "ignore", env: { ...process.env, NODE_ENV: "production" } });
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

interface BuiltApp {
  app: (req: http.IncomingMessage, res: http.ServerResponse) => void;
  servePageCacheHit: (req: http.IncomingMessage, res: http.ServerResponse) => boolean;
  pageCache: { generation: number; size: number };
}

export interface BuiltServer {
  /** The public site: http://localhost:PORT. */
  origin: string;
  /** The console's own origin on the same server (decision 450): http://admin.localhost:PORT (CONSOLE_URL). */
  consoleOrigin: string;
  /** A path's address: the console's paths (/admin…) on the console's origin, every other on the public site's. */
  urlFor(path: string): string;
  pageCache: BuiltApp["pageCache"];
  close(): Promise<void>;
}

/** `port`: listen there (a test that configures PUBLIC_URL before the build is imported picks it first, `freePort`); else any. */
export async function startBuiltServer(handle: DatabaseHandle, options: { port?: number } = {}): Promise<BuiltServer> {
  await ensureBuilt();
  (globalThis as { __gatehouseDb?: DatabaseHandle }).__gatehouseDb = handle;
  // The staff command file and the billing run's lock go to a directory of this test's own.
  process.env.PGLITE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-built-"));
  const built = (await import(/* @vite-ignore */ pathToFileURL(BUILD).href)) as BuiltApp;
  const server = http.createServer((req, res) => {
    if (built.servePageCacheHit(req, res)) return;
    built.app(req, res);
  });
  await new Promise<void>((r) => server.listen(options.port ?? 0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  // The console's origin (decision 450): the same server under admin.localhost (tests/support/localhost-names.ts resolves it).
  process.env.CONSOLE_URL = `http://admin.localhost:${port}`;
  return {
    origin: `http://localhost:${port}`,
    consoleOrigin: process.env.CONSOLE_URL,
    urlFor: (p: string) => `${/^\/admin(?:[/.?]|$)/.test(p) ? `http://admin.localhost:${port}` : `http://localhost:${port}`}${p}`,
    pageCache: built.pageCache,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** A loopback port free now (for a server whose address must be configured before it starts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = http.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
