// Starts the built server on a fresh, seeded PGlite database for the browser tests (a copy of the
// run's seeded template when playwright.config.ts set one: scripts/e2e-seeded-db.mjs, decision 522).
import { execFileSync, spawn } from "node:child_process";

const dir = process.env.PGLITE_DIR ?? "data/e2e";
execFileSync(process.execPath, ["scripts/e2e-seeded-db.mjs", dir], { stdio: "inherit", env: process.env });
const server = spawn("node", ["server.js"], { stdio: "inherit", env: process.env });
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));
