import { afterEach, describe, expect, it, vi } from "vitest";
import { spawnSync } from "node:child_process";
import { paymentGatewayProblem } from "~/platform/env.server";
import { configuredPaymentGateway, hostedFieldsClientConfig, hostedFieldsCspSources, paymentGatewayFor, setPaymentGatewayNameForTests } from "~/platform/payments/gateway.server";

// Issue 19 item 1 (decision 200): production never charges through the test gateway by default.
afterEach(() => setPaymentGatewayNameForTests(null));

/** The server's start check (server/app.ts calls envOrExit before anything else), in a child process. */
function start(extra: Record<string, string>) {
  return spawnSync(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", "const m = await import('./app/platform/env.server.ts'); m.envOrExit(); console.log('started');"],
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
    const r = start({ NODE_ENV: "production", PAYMENT_GATEWAY: "paypal" });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Gatehouse cannot start: PAYMENT_GATEWAY must be stripe");
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

// Issue 25 (decisions 380, 381): Stripe, and the gateway per location.
describe("PAYMENT_GATEWAY=stripe and PAYMENT_GATEWAY_LOCATIONS", () => {
  afterEach(() => vi.unstubAllEnvs());
  const keys = { STRIPE_SECRET_KEY: "sk_live_abc", STRIPE_PUBLISHABLE_KEY: "pk_live_abc", STRIPE_WEBHOOK_SECRET: "whsec_abc" };

  it.each([
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "stripe" }, "STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET are not set"],
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "stripe", STRIPE_SECRET_KEY: "sk_live_abc" }, "STRIPE_PUBLISHABLE_KEY and STRIPE_WEBHOOK_SECRET are not set"],
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "stripe", ...keys, STRIPE_API_BASE: "http://127.0.0.1:9" }, "only accepted with a test key"],
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "none", PAYMENT_GATEWAY_LOCATIONS: "3=test" }, "test gateway, which charges nothing"],
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "none", PAYMENT_GATEWAY_LOCATIONS: "3=stripe" }, "STRIPE_SECRET_KEY"],
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "stripe", ...keys }, null],
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "none", PAYMENT_GATEWAY_LOCATIONS: "3=stripe,7=none", ...keys }, null],
    [{ NODE_ENV: "test", PAYMENT_GATEWAY: "stripe", STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_API_BASE: "http://127.0.0.1:9" }, null],
    // Decision 390: a stand-in for Stripe.js only with test keys; live card pages load js.stripe.com only.
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "stripe", ...keys, STRIPE_JS_URL: "http://127.0.0.1:9/v3/" }, "STRIPE_JS_URL (a stand-in for Stripe.js) is only accepted with test keys"],
    [{ NODE_ENV: "test", PAYMENT_GATEWAY: "stripe", STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_PUBLISHABLE_KEY: "pk_live_abc", STRIPE_JS_URL: "http://127.0.0.1:9/v3/" }, "only accepted with test keys"],
    [{ NODE_ENV: "test", PAYMENT_GATEWAY: "stripe", STRIPE_SECRET_KEY: "sk_test_abc", STRIPE_PUBLISHABLE_KEY: "pk_test_abc", STRIPE_JS_URL: "http://127.0.0.1:9/v3/" }, null],
  ] as const)("%j", (e, problem) => {
    const r = start(e);
    if (problem === null) {
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
    } else {
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(problem);
    }
  }, 60_000);

  it("a malformed PAYMENT_GATEWAY_LOCATIONS or key is refused at start-up, naming it", () => {
    expect(start({ NODE_ENV: "production", PAYMENT_GATEWAY: "none", PAYMENT_GATEWAY_LOCATIONS: "downtown=stripe" }).stderr).toContain("PAYMENT_GATEWAY_LOCATIONS must be");
    expect(start({ NODE_ENV: "production", PAYMENT_GATEWAY: "stripe", ...keys, STRIPE_SECRET_KEY: "pk_live_x" }).stderr).toContain("STRIPE_SECRET_KEY must be");
  }, 60_000);

  it("each location gets its own gateway: Stripe is hosted and no demonstration; none offers no card form", () => {
    vi.stubEnv("PAYMENT_GATEWAY", "test");
    vi.stubEnv("PAYMENT_GATEWAY_LOCATIONS", "3=stripe,7=none");
    vi.stubEnv("STRIPE_SECRET_KEY", "sk_test_contract");
    expect(configuredPaymentGateway({ id: 3 })).toBe("stripe");
    expect(configuredPaymentGateway({ id: 7 })).toBe("none");
    expect(configuredPaymentGateway({ id: 1 })).toBe("test");
    const stripe = paymentGatewayFor({ id: 3 });
    expect(stripe?.demonstration).toBe(false);
    expect(stripe?.gateway.fields).toBe("hosted");
    expect(paymentGatewayFor({ id: 7 })).toBeNull();
    expect(paymentGatewayFor({ id: 1 })).toMatchObject({ demonstration: true, gateway: { fields: "own-inputs" } });
  });
});

describe("the payment pages' CSP with Stripe (decision 383)", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("adds nothing without Stripe; exactly Stripe's hosts with it; the fake's one origin in tests", () => {
    vi.stubEnv("PAYMENT_GATEWAY", "test");
    expect(hostedFieldsCspSources()).toEqual({ scriptSrc: [], connectSrc: [], frameSrc: [], formAction: [] });
    vi.stubEnv("PAYMENT_GATEWAY_LOCATIONS", "3=stripe");
    vi.stubEnv("STRIPE_SECRET_KEY", "sk_live_x");
    expect(hostedFieldsCspSources()).toEqual({
      scriptSrc: ["https://js.stripe.com"],
      connectSrc: ["https://api.stripe.com"],
      frameSrc: ["https://js.stripe.com", "https://hooks.stripe.com"],
      formAction: ["https://checkout.stripe.com"],
    });
    vi.stubEnv("STRIPE_SECRET_KEY", "sk_test_x");
    vi.stubEnv("STRIPE_API_BASE", "http://127.0.0.1:4610/");
    expect(hostedFieldsCspSources().formAction).toEqual(["http://127.0.0.1:4610"]);
  });

  it("Stripe.js's address and the publishable key for the card pages (decision 390): js.stripe.com/v3/ exactly, or the test's stand-in", () => {
    vi.stubEnv("PAYMENT_GATEWAY", "test");
    vi.stubEnv("STRIPE_PUBLISHABLE_KEY", "pk_live_x");
    expect(hostedFieldsClientConfig()).toBeNull();
    vi.stubEnv("PAYMENT_GATEWAY_LOCATIONS", "3=stripe");
    vi.stubEnv("STRIPE_SECRET_KEY", "sk_live_x");
    expect(hostedFieldsClientConfig()).toEqual({ publishableKey: "pk_live_x", jsUrl: "https://js.stripe.com/v3/" });
    vi.stubEnv("STRIPE_SECRET_KEY", "sk_test_x");
    vi.stubEnv("STRIPE_PUBLISHABLE_KEY", "pk_test_x");
    vi.stubEnv("STRIPE_JS_URL", "http://127.0.0.1:4611/v3/");
    expect(hostedFieldsClientConfig()).toEqual({ publishableKey: "pk_test_x", jsUrl: "http://127.0.0.1:4611/v3/" });
    // The stand-in's origin serves its frames and its API calls: the CSP lets exactly that origin in.
    expect(hostedFieldsCspSources()).toEqual({
      scriptSrc: ["http://127.0.0.1:4611"],
      connectSrc: ["https://api.stripe.com", "http://127.0.0.1:4611"],
      frameSrc: ["http://127.0.0.1:4611", "https://hooks.stripe.com"],
      formAction: ["https://checkout.stripe.com"],
    });
  });
});
