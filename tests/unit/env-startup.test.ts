import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { ConfigError, env, loadEnv, testSwitchesAllowed, testSwitchProblem } from "~/platform/env.server";

/**
 * Every environment variable is parsed once, at start-up, by one schema (issue 21, decision 210): a
 * value it does not accept stops the server or the command with a message naming the variable and
 * what it accepts, and exit code 1.
 */
describe("a bad value", () => {
  it.each([
    ["DB_POOL_SIZE", "abc", "DB_POOL_SIZE must be a whole number of connections (0 or more)"],
    ["PAYMENT_GATEWAY", "foo", "PAYMENT_GATEWAY must be stripe (Stripe, with STRIPE_SECRET_KEY), test (a demonstration, no real card is charged) or none"],
    ["PASSWORD_HASH_THREADS", "32", "PASSWORD_HASH_THREADS must be a whole number of threads (1–16)"],
    ["PORT", "80a", "PORT must be a port number (0–65535)"],
    ["HTTPS", "no", "HTTPS must be true or false"],
    ["PAGE_CACHE", "false", "PAGE_CACHE must be on or off"],
    ["SEED_DEMO_TENANT", "yes", "SEED_DEMO_TENANT must be true or false"],
    ["LOG_LEVEL", "verbose", "LOG_LEVEL must be fatal or error or warn or info or debug or trace or silent"],
    ["FAKE_NOW", "yesterday", "FAKE_NOW must be an ISO date-time"],
    ["PUBLIC_URL", "ftp://example.com", "PUBLIC_URL must be an http(s) URL"],
    ["SITELINK_SECRET_KEY", "abc", "SITELINK_SECRET_KEY must be 32 bytes"],
    ["NODE_ENV", "prod", "NODE_ENV must be development, production or test"],
    ["MAX_REQUESTS_IN_PROGRESS", "0", "MAX_REQUESTS_IN_PROGRESS must be a whole number of requests (1 or more)"],
  ])("%s=%s is refused: %s", (name, value, message) => {
    expect(() => loadEnv({ [name]: value })).toThrow(ConfigError);
    expect(() => loadEnv({ [name]: value })).toThrow(message);
  });

  it("names every bad variable at once", () => {
    expect(() => loadEnv({ DB_POOL_SIZE: "abc", EMAIL_RETRY: "no" })).toThrow(/DB_POOL_SIZE must be .*; EMAIL_RETRY must be on or off/);
  });
});

describe("values kept as before", () => {
  it("unset or empty: the defaults", () => {
    const e = loadEnv({ PAYMENT_GATEWAY: "", PUBLIC_URL: "", FAKE_NOW: "" });
    expect(e.NODE_ENV).toBe("development");
    expect(e.MAIL_FROM).toBe("Gatehouse Self Storage <no-reply@gatehousestorage.example>");
    expect(e.PAYMENT_GATEWAY).toBeUndefined();
    expect(e.PUBLIC_URL).toBeUndefined();
    expect(e.FAKE_NOW).toBeUndefined();
    expect(e.secureCookies).toBe(false);
  });

  it("numbers and switches as the readers had them", () => {
    const e = loadEnv({ NODE_ENV: "production", HTTPS: "true", DB_POOL_SIZE: "0", SITELINK_SYNC: "off", ALLOWED_HOSTS: "a.example, b.example c.example" });
    expect(e.DB_POOL_SIZE).toBe(0);
    expect(e.SITELINK_SYNC).toBe("off");
    expect(e.secureCookies).toBe(true);
    expect(e.allowedHosts).toEqual(["a.example", "b.example", "c.example"]);
    expect(loadEnv({ NODE_ENV: "production", HTTPS: "false" }).secureCookies).toBe(false);
  });
});

describe("tests may change a variable as they go (NODE_ENV=test)", () => {
  afterEach(() => {
    delete process.env.FAKE_NOW;
  });
  it("env() sees the new value", () => {
    expect(env().FAKE_NOW).toBeUndefined();
    process.env.FAKE_NOW = "2026-03-02T10:00:00Z";
    expect(env().FAKE_NOW).toBe("2026-03-02T10:00:00Z");
  });

  it("the session secrets stay the same (a random one per process under NODE_ENV=test)", () => {
    const before = env().sessionSecrets;
    process.env.FAKE_NOW = "2026-03-02T10:00:00Z";
    expect(env().sessionSecrets).toEqual(before);
  });
});

/** A process started the way the server and the commands start, with a bad variable. */
function run(args: string[], extra: Record<string, string>) {
  return spawnSync(process.execPath, ["--import", "tsx", ...args], {
    env: { PATH: process.env.PATH, PGLITE_DIR: "memory://", SESSION_SECRET: "s".repeat(64), ...extra },
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("at start-up", () => {
  it("the server's check (server/app.ts calls envOrExit first): message, exit 1", () => {
    const r = run(["--input-type=module", "-e", "const m = await import('./app/platform/env.server.ts'); m.envOrExit(); console.log('started');"], { DB_POOL_SIZE: "abc" });
    expect(r.stderr).toContain("Gatehouse cannot start: DB_POOL_SIZE must be a whole number of connections (0 or more)");
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain("started");
  }, 60_000);

  it("a command (npm run db:migrate): message, exit 1, nothing done", () => {
    const r = run(["scripts/db-migrate.ts"], { PAYMENT_GATEWAY: "foo" });
    expect(r.stderr).toContain("Gatehouse cannot start: PAYMENT_GATEWAY must be stripe");
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain("Migrations applied");
  }, 60_000);

  it("the same command with good values runs", () => {
    const r = run(["scripts/db-migrate.ts"], { PAYMENT_GATEWAY: "none" });
    expect(r.stdout).toContain("Migrations applied (pglite)");
    expect(r.status).toBe(0);
  }, 60_000);
});

describe("the test-only switches (decision 432)", () => {
  it("a production server refuses E2E_HOOKS=1 and FAKE_NOW unless the test runner started it", () => {
    const prod = (extra: Record<string, string>) => loadEnv({ NODE_ENV: "production", ...extra });
    expect(testSwitchProblem(prod({ E2E_HOOKS: "1" }))).toContain("E2E_HOOKS=1 is for the test runner only");
    expect(testSwitchProblem(prod({ FAKE_NOW: "2026-03-02T10:00:00Z" }))).toContain("FAKE_NOW is for the test runner only");
    expect(testSwitchProblem(prod({ E2E_HOOKS: "1", FAKE_NOW: "2026-03-02T10:00:00Z", GATEHOUSE_TEST_RUNNER: "0" }))).toContain("E2E_HOOKS=1 and FAKE_NOW are");
    expect(testSwitchProblem(prod({ E2E_HOOKS: "1", FAKE_NOW: "2026-03-02T10:00:00Z", GATEHOUSE_TEST_RUNNER: "1" }))).toBeNull();
    expect(testSwitchProblem(prod({ E2E_HOOKS: "0" }))).toBeNull();
    // The late change notice of the shared-cache guard's fault test (decision 710).
    expect(testSwitchProblem(prod({ CHANGE_NOTICE_DELAY_MS: "5000" }))).toContain("CHANGE_NOTICE_DELAY_MS is for the test runner only");
    expect(testSwitchProblem(prod({ CHANGE_NOTICE_DELAY_MS: "5000", GATEHOUSE_TEST_RUNNER: "1" }))).toBeNull();
    expect(testSwitchProblem(loadEnv({ NODE_ENV: "test", E2E_HOOKS: "1" }))).toBeNull();
  });

  it("the switches act under NODE_ENV=test, or in production under the test runner; never in development", () => {
    expect(testSwitchesAllowed(loadEnv({ NODE_ENV: "test" }))).toBe(true);
    expect(testSwitchesAllowed(loadEnv({ NODE_ENV: "production", GATEHOUSE_TEST_RUNNER: "1" }))).toBe(true);
    expect(testSwitchesAllowed(loadEnv({ NODE_ENV: "production" }))).toBe(false);
    expect(testSwitchesAllowed(loadEnv({ NODE_ENV: "development", GATEHOUSE_TEST_RUNNER: "1" }))).toBe(false);
  });

  it("the server's start-up check: a production server with E2E_HOOKS=1 alone exits 1 with the message", () => {
    const r = run(["--input-type=module", "-e", "const m = await import('./app/platform/env.server.ts'); m.envOrExit(); console.log('started');"], { NODE_ENV: "production", PAYMENT_GATEWAY: "none", E2E_HOOKS: "1" });
    expect(r.stderr).toContain("Gatehouse cannot start: E2E_HOOKS=1 is for the test runner only");
    expect(r.status).toBe(1);
    const ok = run(["--input-type=module", "-e", "const m = await import('./app/platform/env.server.ts'); m.envOrExit(); console.log('started');"], { NODE_ENV: "production", PAYMENT_GATEWAY: "none", E2E_HOOKS: "1", GATEHOUSE_TEST_RUNNER: "1" });
    expect(ok.stdout).toContain("started");
  }, 60_000);
});
