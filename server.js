// Production and development HTTP server: Express in front of the React Router request handler
// (the React Router "node-custom-server" template). The app itself is server/app.ts, built by Vite.
import http from "node:http";
import compression from "compression";
import express from "express";
import pino from "pino";
import { createAdmission } from "./server/admission.js";

// Every setting comes from the app's one parsed environment (app/platform/env.server.ts, decision 210): the
// built app exports it (`serverEnv`), the development server loads the same module through Vite. Only
// two variables are read here first, to find the app at all (both are in that schema, and the app
// checks them with every other one): NODE_ENV (development: Vite) and BUILD_DIR (the built app).
// eslint-disable-next-line no-restricted-properties -- the bootstrap, see above
const DEVELOPMENT = process.argv.includes("--dev") || process.env.NODE_ENV === "development";
// eslint-disable-next-line no-restricted-properties -- the bootstrap, see above
const BUILD_DIR = process.env.BUILD_DIR || "build";

/**
 * Answers a request before anything else runs, set once the built app is loaded: a request target
 * that is not a path is refused (400) or, in absolute form, made one; then a stored page comes from
 * the page cache (no Express, compression, helmet or static-file lookup for it).
 */
let serveCachedPage = (_req, _res) => false;
/** Closes what the app holds open (the database pool); set once the app is loaded. */
let closeApp = async () => {};

// A second line of defence (issue 14): a stray rejected promise or error event is logged; the process
// keeps serving. The database pool and its clients have their own listeners (app/db/client.server.ts).
process.on("unhandledRejection", (reason) => {
  console.error("[process] unhandled rejection (kept running):", reason instanceof Error ? reason.message : reason);
});

const app = express();
app.disable("x-powered-by");
app.use(compression());

/** The parsed environment (app/platform/env.server.ts): a bad value has already stopped the start with a clear message. */
let config;

if (DEVELOPMENT) {
  const vite = await import("vite");
  const viteDevServer = await vite.createServer({ server: { middlewareMode: true } });
  config = (await viteDevServer.ssrLoadModule("./app/platform/env.server.ts")).envOrExit();
  app.use(viteDevServer.middlewares);
  app.use(async (req, res, next) => {
    try {
      const source = await viteDevServer.ssrLoadModule("./server/app.ts");
      return await source.app(req, res, next);
    } catch (error) {
      if (error instanceof Error) viteDevServer.ssrFixStacktrace(error);
      next(error);
    }
  });
} else {
  const built = await import(`./${BUILD_DIR}/server/index.js`);
  config = built.serverEnv;
  closeApp = built.shutdown;
  if (built.servePageCacheHit) serveCachedPage = built.servePageCacheHit;
  const { staticSecurityHeaders } = built;
  // Static files get the site's security headers too (CSP, nosniff, frame-ancestors, HSTS in production).
  app.use(staticSecurityHeaders);
  // Fingerprinted build assets never change: cache them for a year.
  app.use("/assets", express.static(`${BUILD_DIR}/client/assets`, { immutable: true, maxAge: "1y", index: false }));
  // Other public files (images, favicon): cache for a day, revalidate after. Every public file has
  // an extension: a page's path (no dot in its last segment) skips the file-system lookup.
  const publicFiles = express.static(`${BUILD_DIR}/client`, { maxAge: "1d", index: false });
  app.use((req, res, next) => (/\.[^/]*$/.test(req.path) ? publicFiles(req, res, next) : next()));
  app.use(built.app);
}

const PORT = config.PORT ?? 3000;
const HOST = config.HOST || "0.0.0.0";
const SHUTDOWN_GRACE_MS = config.SHUTDOWN_GRACE_MS ?? 10_000;
app.set("trust proxy", config.TRUST_PROXY ? Number(config.TRUST_PROXY) || config.TRUST_PROXY : "loopback");

// Measuring (bench/rush.mjs, issue 22): with EVENT_LOOP_STATS_FILE set, the event loop's delay is
// sampled (perf_hooks, 1 ms resolution) and each SIGUSR2 writes its percentiles since the last one
// (in ms, as JSON) to that file and starts afresh. Unset (always in production): nothing is sampled.
if (config.EVENT_LOOP_STATS_FILE) {
  const { monitorEventLoopDelay } = await import("node:perf_hooks");
  const { writeFileSync } = await import("node:fs");
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  process.on("SIGUSR2", () => {
    const stats = { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max), mean: ms(histogram.mean) };
    writeFileSync(config.EVENT_LOOP_STATS_FILE, `${JSON.stringify(stats)}\n`);
    histogram.reset();
  });
}

// Admission (issue 22, server/admission.js): at most MAX_REQUESTS_IN_PROGRESS requests (default 64)
// are worked on at once; the others wait, first come first served, admitted one per turn of the event loop.
const admission = createAdmission({ max: config.MAX_REQUESTS_IN_PROGRESS ?? 64, run: (req, res) => app(req, res) });
// A request about to wait for a password-hashing thread (app/platform/password.server.ts) gives its
// place to the next one meanwhile: a rush of sign-ins must not keep every other page waiting for minutes.
globalThis.__gatehouseAdmission = { away: () => admission.away() };

const server = http.createServer((req, res) => {
  let served = false;
  try {
    served = serveCachedPage(req, res);
  } catch (error) {
    // Never a crash for a cache problem: the full stack answers instead (or the connection ends
    // if the stored answer was already half sent).
    console.error("[page-cache] a stored page could not be sent:", error instanceof Error ? error.message : error);
    if (res.headersSent) return void res.destroy();
  }
  if (served) return;
  // Health checks never wait behind visitors (/readyz waits for the database like them, decision 205).
  admission.offer(req, res, req.url === "/healthz" || req.url === "/readyz");
});
server.listen(PORT, HOST, () => {
  // The app's own lines come from app/platform/logger.server.ts (JSON, redacted); this one says where we listen.
  pino({ base: { pid: process.pid } }).info(`Gatehouse listening on http://localhost:${PORT}${DEVELOPMENT ? " (development)" : ""}`);
});

// SIGTERM/SIGINT: stop accepting connections, let requests in flight finish (up to
// SHUTDOWN_GRACE_MS), close idle keep-alive connections, then close the database pool and exit.
let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`[server] ${signal}: finishing requests in flight, then closing`);
    const force = setTimeout(() => {
      console.warn("[server] requests still running after the grace period; closing them");
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(async () => {
      clearTimeout(force);
      try {
        await closeApp();
      } catch (error) {
        console.warn("[server] closing the database failed:", error instanceof Error ? error.message : error);
      }
      process.exit(0);
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS + 5000).unref();
  });
}
