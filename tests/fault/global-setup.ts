/**
 * The fault tests run the BUILT server. Builds it (`npx react-router build`) when build/ is missing
 * or older than the sources (app/, server/, server.js, package.json), or always with FAULT_BUILD=1;
 * FAULT_BUILD=0 uses whatever build/ holds.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { clusterSkipReason } from "./support/pg-cluster";

const ROOT = path.resolve(import.meta.dirname, "../..");

function newestMtime(p: string): number {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const e of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, e)));
  return newest;
}

export default function setup() {
  // Both fault files need the private PostgreSQL; when they will be skipped, do not build for nothing.
  if (clusterSkipReason()) return;
  const buildDir = path.join(ROOT, process.env.BUILD_DIR ?? "build");
  const built = fs.statSync(path.join(buildDir, "server", "index.js"), { throwIfNoEntry: false });
  const force = process.env.FAULT_BUILD;
  if (force === "0" && built) return;
  const sources = Math.max(...["app", "server", "server.js", "package.json", "vite.config.ts", "react-router.config.ts"].map((p) => newestMtime(path.join(ROOT, p))));
  const why = force === "1" ? "FAULT_BUILD=1" : !built ? "build/ is missing" : built.mtimeMs < sources ? "build/ is older than the sources" : null;
  if (!why) return;
  console.log(`[fault] building the server (${why}): npx react-router build`);
  execFileSync("npx", ["react-router", "build"], { cwd: ROOT, stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
}
