// Starts the built server on a fresh, seeded PGlite database for the browser tests.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";

const dir = process.env.PGLITE_DIR ?? "data/e2e";
fs.rmSync(dir, { recursive: true, force: true });
execFileSync("npx", ["tsx", "scripts/db-setup.ts"], { stdio: "inherit", env: process.env });
const server = spawn("node", ["server.js"], { stdio: "inherit", env: process.env });
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));
