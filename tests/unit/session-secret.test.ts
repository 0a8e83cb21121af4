import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ConfigError, resolveSessionSecrets, sessionSecretFile } from "~/platform/env.server";

// Issue 8: without SESSION_SECRET the secret is generated once and kept (mode 0600) so sessions and
// links survive a restart; production on PostgreSQL refuses to start without it.
const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "gh-secret-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe("session secret", () => {
  it("is kept next to the PGlite directory", () => {
    expect(sessionSecretFile({ PGLITE_DIR: "/srv/gh/pglite" })).toBe("/srv/gh/session-secret");
    expect(sessionSecretFile({})).toBe(path.resolve("data", "session-secret"));
    expect(sessionSecretFile({ PGLITE_DIR: "memory://" })).toBeNull();
    expect(sessionSecretFile({ SESSION_SECRET_FILE: "/run/s" })).toBe("/run/s");
  });

  it("without SESSION_SECRET: generated once into a 0600 file and the same after a restart", () => {
    const file = path.join(tmp(), "data", "session-secret");
    const first = resolveSessionSecrets({ NODE_ENV: "production" }, file);
    expect(first).toHaveLength(1);
    expect(first[0]!.length).toBeGreaterThanOrEqual(64);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // A restart (another call, as a new process would make) reads the same secret.
    expect(resolveSessionSecrets({ NODE_ENV: "development" }, file)).toEqual(first);
    expect(fs.readFileSync(file, "utf8").trim()).toBe(first[0]);
  });

  it("a kept file with loose permissions is tightened to 0600", () => {
    const file = path.join(tmp(), "session-secret");
    fs.writeFileSync(file, "a".repeat(64), { mode: 0o644 });
    expect(resolveSessionSecrets({}, file)).toEqual(["a".repeat(64)]);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it("SESSION_SECRET wins (comma-separated, first signs) and no file is written", () => {
    const file = path.join(tmp(), "session-secret");
    expect(resolveSessionSecrets({ SESSION_SECRET: "new-one, old-one" }, file)).toEqual(["new-one", "old-one"]);
    expect(fs.existsSync(file)).toBe(false);
  });

  it("production on PostgreSQL without SESSION_SECRET: a ConfigError, no file", () => {
    const file = path.join(tmp(), "session-secret");
    expect(() => resolveSessionSecrets({ NODE_ENV: "production", DATABASE_URL: "postgres://db/x" }, file)).toThrow(ConfigError);
    expect(() => resolveSessionSecrets({ NODE_ENV: "production", DATABASE_URL: "postgres://db/x" }, file)).toThrow(/SESSION_SECRET/);
    expect(fs.existsSync(file)).toBe(false);
  });

  it("the server's start check exits non-zero with a clear message", () => {
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", "const m = await import('./app/platform/env.server.ts'); m.envOrExit(); console.log('started');"],
      { env: { PATH: process.env.PATH, NODE_ENV: "production", DATABASE_URL: "postgres://db/x" }, encoding: "utf8", timeout: 60_000 },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Gatehouse cannot start: SESSION_SECRET is not set");
    expect(r.stdout).not.toContain("started");
  }, 60_000);
});

describe("env() without SESSION_SECRET in production on PostgreSQL", () => {
  it("reads SMTP settings without throwing (mail from a CLI needs no session secret); the secrets throw when used", () => {
    const r = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        "const m = await import('./app/platform/env.server.ts'); const e = m.env(); console.log('smtp=' + e.SMTP_URL); try { e.sessionSecrets; } catch (x) { console.log('secrets: ' + x.name); }",
      ],
      { env: { PATH: process.env.PATH, NODE_ENV: "production", DATABASE_URL: "postgres://db/x", SMTP_URL: "smtp://mail:25" }, encoding: "utf8", timeout: 60_000 },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("smtp=smtp://mail:25");
    expect(r.stdout).toContain("secrets: ConfigError");
  }, 60_000);
});
