import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** `npm run billing:run` as a process: it refuses a PGlite directory a server holds open. */
function runCli(args: string[], env: Record<string, string>) {
  const r = spawnSync("npx", ["tsx", "scripts/billing-run.ts", ...args], {
    encoding: "utf8",
    env: { ...process.env, DATABASE_URL: "", ...env },
    timeout: 150_000,
  });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

// Each test spawns Node processes (tsx, PGlite): slow on a loaded 2-core machine, so a generous limit.
describe("billing CLI", { timeout: 300_000 }, () => {
  it("refuses to open a PGlite directory the server has open, and says what to do", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-billing-cli-"));
    fs.writeFileSync(`${dir}.server.pid`, String(process.pid)); // a live process holds it
    try {
      const r = runCli([], { PGLITE_DIR: dir });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`is open in another process (the server, pid ${process.pid})`);
      expect(r.stderr).toContain("The running server bills every day by itself");
    } finally {
      fs.rmSync(`${dir}.server.pid`, { force: true });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("bills a date once on a PGlite directory no server holds; a second run says it was done", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gh-billing-cli-db-"));
    try {
      const setup = spawnSync("npx", ["tsx", "scripts/db-setup.ts"], { encoding: "utf8", env: { ...process.env, DATABASE_URL: "", PGLITE_DIR: dir }, timeout: 120_000 });
      expect(setup.status).toBe(0);
      const first = runCli(["--date", "2026-12-22"], { PGLITE_DIR: dir });
      expect(first.status).toBe(0);
      expect(first.stdout).toMatch(/\[billing\] 2026-12-22: \d+ lease\(s\)/);
      const second = runCli(["--date", "2026-12-22"], { PGLITE_DIR: dir });
      expect(second.status).toBe(0);
      expect(second.stdout).toContain("2026-12-22 was already billed");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a malformed date", () => {
    const r = runCli(["--date", "2026-02-30"], { PGLITE_DIR: path.join(os.tmpdir(), "gh-billing-cli-unused") });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--date must be a date like 2026-12-22");
  });
});
