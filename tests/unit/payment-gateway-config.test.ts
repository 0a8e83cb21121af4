import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { paymentGatewayProblem } from "~/env.server";
import { configuredPaymentGateway, paymentGatewayFor, setPaymentGatewayNameForTests } from "~/platform/payment-gateway.server";

// Issue 19 item 1 (decision 200): production never charges through the test gateway by default.
afterEach(() => setPaymentGatewayNameForTests(null));

/** The server's start check (server/app.ts calls envOrExit before anything else), in a child process. */
function start(extra: Record<string, string>) {
  return spawnSync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", "const m = await import('./app/env.server.ts'); m.envOrExit(); console.log('started');"],
    { env: { PATH: process.env.PATH, SESSION_SECRET: "s".repeat(64), PGLITE_DIR: "memory://", ...extra }, encoding: "utf8", timeout: 60_000 },
  );
}

describe("PAYMENT_GATEWAY at start-up", () => {
  it.each([
    [{ NODE_ENV: "production" }, true],
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "" }, true],
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "test" }, false],
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "none" }, false],
    [{ NODE_ENV: "development" }, false],
    [{ NODE_ENV: "test" }, false],
  ] as const)("%j refused: %s", (e, refused) => {
    const env = { ...e, PAYMENT_GATEWAY: "PAYMENT_GATEWAY" in e && e.PAYMENT_GATEWAY ? (e.PAYMENT_GATEWAY as "test" | "none") : undefined };
    expect(paymentGatewayProblem(env) !== null).toBe(refused);
  });

  it("production without PAYMENT_GATEWAY: the server does not start, says why, exits 1", () => {
    const r = start({ NODE_ENV: "production" });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Gatehouse cannot start: PAYMENT_GATEWAY is not set.");
    expect(r.stderr).toContain("4242 4242 4242 4242");
    expect(r.stderr).toContain("PAYMENT_GATEWAY=none");
    expect(r.stderr).toContain("PAYMENT_GATEWAY=test");
    expect(r.stdout).not.toContain("started");
  }, 60_000);

  it("production with a value it does not know: refused with the allowed values, not a stack trace", () => {
    const r = start({ NODE_ENV: "production", PAYMENT_GATEWAY: "stripe" });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Gatehouse cannot start: PAYMENT_GATEWAY must be test");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it.each([["test"], ["none"]])("production with PAYMENT_GATEWAY=%s starts", (value) => {
    const r = start({ NODE_ENV: "production", PAYMENT_GATEWAY: value });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("started");
  }, 60_000);
});

describe("paymentGatewayFor (the seam a real gateway fills)", () => {
  it("the test gateway: a demonstration; none: no gateway", () => {
    setPaymentGatewayNameForTests("test");
    expect(configuredPaymentGateway()).toBe("test");
    expect(paymentGatewayFor({ id: 1 })).toMatchObject({ demonstration: true });
    setPaymentGatewayNameForTests("none");
    expect(paymentGatewayFor({ id: 1 })).toBeNull();
  });

  it("unset outside production (tests, npm start, npm run dev): the test gateway", () => {
    expect(configuredPaymentGateway()).toBe("test");
  });
});
