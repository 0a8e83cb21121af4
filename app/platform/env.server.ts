import { z } from "zod";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/** Unset and "" are the same: the variable is not set. */
const unsetIfEmpty = (v: unknown) => (v === "" ? undefined : v);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(unsetIfEmpty, schema.optional());
/** A whole number within [min, max]; the message names what is accepted. */
const whole = (name: string, min: number, max = Number.MAX_SAFE_INTEGER, what = "a whole number") =>
  optional(
    z
      .string()
      .regex(/^\d+$/, { error: `${name} must be ${what} (${min}${max === Number.MAX_SAFE_INTEGER ? " or more" : `–${max}`})` })
      .transform(Number)
      .refine((n) => n >= min && n <= max, { error: `${name} must be ${what} (${min}${max === Number.MAX_SAFE_INTEGER ? " or more" : `–${max}`})` }),
  );
const oneOf = <const T extends readonly [string, ...string[]]>(name: string, values: T, meaning = "") =>
  optional(z.enum(values, { error: `${name} must be ${values.join(" or ")}${meaning ? ` (${meaning})` : ""}` }));
const onOff = (name: string) => oneOf(name, ["on", "off"] as const);

/**
 * Every environment variable the app and its commands read (issue 21, decision 210), with what it
 * accepts. The README's Configuration table has one row per key (tests/unit/env-readme.test.ts).
 * Defaults that depend on another variable (NODE_ENV) are applied where the value is used; a value
 * that is set but not accepted stops the start-up (`envOrExit`).
 */
export const envSchema = z.object({
  NODE_ENV: z.preprocess(unsetIfEmpty, z.enum(["development", "production", "test"], { error: "NODE_ENV must be development, production or test" }).default("development")),
  // The database
  DATABASE_URL: optional(z.string()),
  /**
   * The owner role's connection string (issue 36, decision 462): `db:migrate` and `db:setup` run the
   * migrations and the seed as it, then grant DATABASE_URL's role only what the app needs. Unset: they
   * run as DATABASE_URL's role (one role, as before).
   */
  DATABASE_OWNER_URL: optional(z.string()),
  /**
   * A connection string straight to PostgreSQL (issue 41, decision 560), for what a pooler in
   * transaction mode (PgBouncer) cannot carry: the one connection per process that LISTENs for
   * `gatehouse_changed` (the page caches' freshness), and `db:migrate`/`db:setup` when
   * DATABASE_OWNER_URL is unset. DATABASE_URL may then point at the pooler. Unset: DATABASE_URL.
   */
  DATABASE_DIRECT_URL: optional(z.string()),
  /** `db:roles` only: an administrator's connection string (a superuser or CREATEROLE + CREATEDB). */
  DATABASE_ADMIN_URL: optional(z.string()),
  PGLITE_DIR: optional(z.string()),
  MIGRATIONS_FOLDER: optional(z.string()),
  DB_CONNECT_TIMEOUT_MS: whole("DB_CONNECT_TIMEOUT_MS", 0, undefined, "a whole number of milliseconds"),
  DB_STATEMENT_TIMEOUT_MS: whole("DB_STATEMENT_TIMEOUT_MS", 0, undefined, "a whole number of milliseconds"),
  DB_POOL_SIZE: whole("DB_POOL_SIZE", 0, undefined, "a whole number of connections"),
  DB_POOL_WAIT_TIMEOUT_MS: whole("DB_POOL_WAIT_TIMEOUT_MS", 0, undefined, "a whole number of milliseconds"),
  DB_POOL_MAX_WAITING: whole("DB_POOL_MAX_WAITING", 0, undefined, "a whole number of statements"),
  /** Comma-separated; the first signs, all verify (rotation). Required in production on PostgreSQL. */
  SESSION_SECRET: optional(z.string()),
  SESSION_SECRET_FILE: optional(z.string()),
  /**
   * Optional, comma-separated (the first seals, all open): the secret that seals the secrets of
   * unsent mail in email_outbox (decision 198). Unset: derived from the session secrets.
   */
  EMAIL_SECRET_KEY: optional(z.string()),
  /** smtp://user:pass@host:port — when unset, emails are stored in the outbox table and logged. */
  SMTP_URL: optional(z.string()),
  MAIL_FROM: z.preprocess(unsetIfEmpty, z.string().default("Gatehouse Self Storage <no-reply@gatehousestorage.example>")),
  EMAIL_RETRY: onOff("EMAIL_RETRY"),
  EMAIL_RETRY_EVERY_MS: whole("EMAIL_RETRY_EVERY_MS", 1, undefined, "a whole number of milliseconds"),
  EMAIL_RETRY_FIRST_MS: whole("EMAIL_RETRY_FIRST_MS", 1, undefined, "a whole number of milliseconds"),
  /** "false" when served over plain HTTP in production (turns off Secure cookies and HSTS). */
  HTTPS: oneOf("HTTPS", ["true", "false"] as const),
  /** The website's public origin for every absolute link (emails, canonical, sitemap). Unset: https:// + website.domain. */
  PUBLIC_URL: optional(z.url({ protocol: /^https?$/, error: "PUBLIC_URL must be an http(s) URL, like https://www.example.com" })),
  /**
   * The back office's own origin (issue 36, docs/decisions/450-console-origin.md), e.g.
   * https://admin.example.com: the console is served there only, with its own cookie; staff passkeys,
   * invitations and e-mailed console links use it. Unset: "admin." + PUBLIC_URL's host (a leading
   * "www." dropped), else https://admin.<domain> in production, else http://admin.localhost:PORT.
   */
  CONSOLE_URL: optional(z.url({ protocol: /^https?$/, error: "CONSOLE_URL must be an http(s) URL, like https://admin.example.com" })),
  /** Extra host names (comma- or space-separated) the server answers besides the website's domains. */
  ALLOWED_HOSTS: optional(z.string()),
  CSP_EXTRA_SCRIPT_SRC: optional(z.string()),
  /**
   * Which payment gateway charges cards where our gateway charges them (docs/decisions/200):
   * "test" the built-in test gateway (a demonstration: no real card is charged, every card form says
   * so); "none" no gateway (those locations offer "call to rent"). Unset: "test" outside production;
   * in production the server refuses to start (`paymentGatewayProblem`).
   */
  PAYMENT_GATEWAY: optional(
    z.enum(["test", "stripe", "none"], {
      error: "PAYMENT_GATEWAY must be stripe (Stripe, with STRIPE_SECRET_KEY), test (a demonstration, no real card is charged) or none (no card payments through our gateway)",
    }),
  ),
  /**
   * Per location (docs/decisions/381): `LOCATION_ID=GATEWAY` pairs, comma-separated (e.g. `3=stripe,7=none`),
   * overriding PAYMENT_GATEWAY for those locations.
   */
  PAYMENT_GATEWAY_LOCATIONS: optional(
    z
      .string()
      .transform((v) => v.split(/[,\s]+/).filter(Boolean))
      .refine((pairs) => pairs.every((p) => /^\d+=(test|stripe|none)$/.test(p)), {
        error: "PAYMENT_GATEWAY_LOCATIONS must be LOCATION_ID=GATEWAY pairs separated by commas, with GATEWAY stripe, test or none (e.g. 3=stripe,7=none)",
      })
      .transform((pairs) => Object.fromEntries(pairs.map((p) => p.split("=") as [string, "test" | "stripe" | "none"]))),
  ),
  /** Stripe (decision 380): the secret API key (sk_live_… or sk_test_…), from the Stripe dashboard. */
  STRIPE_SECRET_KEY: optional(z.string().regex(/^(sk|rk)_(live|test)_\S+$/, { error: "STRIPE_SECRET_KEY must be a Stripe secret key (sk_live_… or sk_test_…)" })),
  /** Stripe: the publishable key (pk_live_… or pk_test_…) the card pages give Stripe.js. */
  STRIPE_PUBLISHABLE_KEY: optional(z.string().regex(/^pk_(live|test)_\S+$/, { error: "STRIPE_PUBLISHABLE_KEY must be a Stripe publishable key (pk_live_… or pk_test_…)" })),
  /** Stripe: the signing secret (whsec_…) of the webhook endpoint /webhooks/stripe. */
  STRIPE_WEBHOOK_SECRET: optional(z.string().regex(/^whsec_\S+$/, { error: "STRIPE_WEBHOOK_SECRET must be a webhook signing secret (whsec_…)" })),
  /** Tests: the Stripe API's address (the fake, http://127.0.0.1:PORT). Unset: https://api.stripe.com. Only with a test key. */
  STRIPE_API_BASE: optional(z.url({ protocol: /^https?$/, error: "STRIPE_API_BASE must be an http(s) URL, like http://127.0.0.1:12111" })),
  /** Tests: where the card pages load Stripe.js from (the fake's stand-in, http://127.0.0.1:PORT/v3/). Unset: https://js.stripe.com/v3/. Only with a test key. */
  STRIPE_JS_URL: optional(z.url({ protocol: /^https?$/, error: "STRIPE_JS_URL must be an http(s) URL, like http://127.0.0.1:12111/v3/" })),
  /** Texts (issue 40, decision 490): the Twilio account's SID (AC…). Texts are off unless it and TWILIO_AUTH_TOKEN are set. */
  TWILIO_ACCOUNT_SID: optional(z.string().regex(/^AC[0-9a-f]{32}$/, { error: "TWILIO_ACCOUNT_SID must be a Twilio account SID (AC followed by 32 hex characters)" })),
  /** Texts: the account's auth token; it authenticates our requests and signs Twilio's webhooks (X-Twilio-Signature). */
  TWILIO_AUTH_TOKEN: optional(z.string().regex(/^\S{16,}$/, { error: "TWILIO_AUTH_TOKEN must be the account's auth token (from the Twilio console)" })),
  /** Tests and development: the address of a stand-in for Twilio's API (the Twilio fake, http://127.0.0.1:PORT). Unset: https://api.twilio.com. Refused in production. */
  TWILIO_API_BASE: optional(z.url({ protocol: /^https?$/, error: "TWILIO_API_BASE must be an http(s) URL, like http://127.0.0.1:13111" })),
  /**
   * The shared cache in front (issue 41, decision 571): `nginx` (deploy/nginx.conf's proxy_cache, purged
   * by URL through its purge listener) or `cloudflare` (Cloudflare's purge by cache tag). Unset or `off`: no purge.
   */
  CACHE_PURGE: oneOf("CACHE_PURGE", ["off", "nginx", "cloudflare"] as const, "off, nginx or cloudflare"),
  /** CACHE_PURGE=nginx: where nginx's purge listener answers (deploy/nginx.conf: http://127.0.0.1:8080). */
  CACHE_PURGE_NGINX_URL: optional(z.url({ protocol: /^https?$/, error: "CACHE_PURGE_NGINX_URL must be an http(s) URL, like http://127.0.0.1:8080" })),
  /** CACHE_PURGE=cloudflare: the zone's id (32 hex characters, on the zone's overview page). */
  CLOUDFLARE_ZONE_ID: optional(z.string().regex(/^[0-9a-f]{32}$/, { error: "CLOUDFLARE_ZONE_ID must be the zone's id (32 hex characters)" })),
  /** CACHE_PURGE=cloudflare: an API token with the zone's Cache Purge permission. */
  CLOUDFLARE_API_TOKEN: optional(z.string().regex(/^[A-Za-z0-9_-]{20,}$/, { error: "CLOUDFLARE_API_TOKEN must be an API token (from the Cloudflare dashboard)" })),
  /** Tests: the address of a stand-in for Cloudflare's API (the fake). Unset: https://api.cloudflare.com. In production only with GATEHOUSE_TEST_RUNNER=1. */
  CLOUDFLARE_API_BASE: optional(z.url({ protocol: /^https?$/, error: "CLOUDFLARE_API_BASE must be an http(s) URL, like http://127.0.0.1:14111" })),
  /** Fault tests: every new charge of the test gateway is appended to this file as a JSON line. */
  PAYMENT_GATEWAY_LOG: optional(z.string()),
  PASSWORD_HASH_THREADS: whole("PASSWORD_HASH_THREADS", 1, 16, "a whole number of threads"),
  /** Tests only (ignored outside NODE_ENV=test): a lower bcrypt cost, 4–10. */
  BCRYPT_ROUNDS: whole("BCRYPT_ROUNDS", 0, undefined, "a whole number, the bcrypt cost under NODE_ENV=test"),
  LOG_LEVEL: oneOf("LOG_LEVEL", ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const),
  /**
   * Tests and demos: the clock's time, an ISO date-time. In production only with GATEHOUSE_TEST_RUNNER=1
   * (otherwise the server refuses to start, `testSwitchProblem`).
   */
  FAKE_NOW: optional(z.string().refine((v) => !Number.isNaN(new Date(v).getTime()), { error: "FAKE_NOW must be an ISO date-time, like 2026-03-02T10:00:00Z" })),
  /** 1: the browser tests' hooks (`/__test/hooks`), under NODE_ENV=test, or in production with GATEHOUSE_TEST_RUNNER=1 (decision 432). */
  E2E_HOOKS: oneOf("E2E_HOOKS", ["0", "1"] as const, "1 turns the browser tests' hooks on (under NODE_ENV=test, or production with GATEHOUSE_TEST_RUNNER=1)"),
  /**
   * 1: this production process is the test runner's (the browser and fault suites set it, decision
   * 432), so its test-only switches (E2E_HOOKS, FAKE_NOW) may be on. Never set on a live site.
   */
  GATEHOUSE_TEST_RUNNER: oneOf("GATEHOUSE_TEST_RUNNER", ["0", "1"] as const, "1 only when the project's test runner starts the server"),
  SEED_DEMO_TENANT: oneOf("SEED_DEMO_TENANT", ["true", "false"] as const),
  PAGE_CACHE: onOff("PAGE_CACHE"),
  BILLING_SCHEDULE: onOff("BILLING_SCHEDULE"),
  HOUSEKEEPING: onOff("HOUSEKEEPING"),
  /** Tests: the housekeeping sweep's period (default 300000 ms, five minutes; decision 562). */
  HOUSEKEEPING_EVERY_MS: whole("HOUSEKEEPING_EVERY_MS", 1000, undefined, "a whole number of milliseconds"),
  /** The scheduled publishing of changesets (issue 24, decision 313): on unless "off". */
  PUBLISH_SCHEDULE: onOff("PUBLISH_SCHEDULE"),
  /** Tests: how long after start the scheduler first looks (default 2000 ms). */
  PUBLISH_SCHEDULE_FIRST_MS: whole("PUBLISH_SCHEDULE_FIRST_MS", 0, undefined, "a whole number of milliseconds"),
  /**
   * Fault tests only (decision 710): this process handles each change notification (and each reconnect
   * of its listening connection) this many ms late, as a loaded process might. Acts only under
   * NODE_ENV=test or with GATEHOUSE_TEST_RUNNER=1; a production server refuses to start with it otherwise.
   */
  CHANGE_NOTICE_DELAY_MS: whole("CHANGE_NOTICE_DELAY_MS", 0, undefined, "a whole number of milliseconds"),
  SITELINK_SECRET_KEY: optional(
    z.string().refine(
      (raw) => {
        const v = raw.trim();
        return (/^[0-9a-f]{64}$/i.test(v) ? Buffer.from(v, "hex") : Buffer.from(v, "base64")).length === 32;
      },
      { error: "SITELINK_SECRET_KEY must be 32 bytes, as 64 hex characters or base64 (e.g. `openssl rand -hex 32`)" },
    ),
  ),
  SITELINK_SYNC: onOff("SITELINK_SYNC"),
  SITELINK_SYNC_INTERVAL_MS: whole("SITELINK_SYNC_INTERVAL_MS", 0, undefined, "a whole number of milliseconds"),
  /** `npm run start:sitelink`: the simulator's port and where its state lives. */
  SITELINK_SIM_PORT: whole("SITELINK_SIM_PORT", 1, 65535, "a port number"),
  SITELINK_DEMO_DIR: optional(z.string()),
  // server.js
  PORT: whole("PORT", 0, 65535, "a port number"),
  HOST: optional(z.string()),
  BUILD_DIR: optional(z.string()),
  SHUTDOWN_GRACE_MS: whole("SHUTDOWN_GRACE_MS", 0, undefined, "a whole number of milliseconds"),
  MAX_REQUESTS_IN_PROGRESS: whole("MAX_REQUESTS_IN_PROGRESS", 1, undefined, "a whole number of requests"),
  /** Express's `trust proxy`: a number of hops, or addresses/names ("loopback", "10.0.0.1"). */
  TRUST_PROXY: optional(z.string()),
  /** bench/rush.mjs: where SIGUSR2 writes the event loop's delay percentiles. */
  EVENT_LOOP_STATS_FILE: optional(z.string()),
});

/** The raw environment, or one a test builds: variable name → value. */
export type EnvSource = Readonly<Record<string, string | undefined>>;

export type Env = z.infer<typeof envSchema> & { sessionSecrets: string[]; secureCookies: boolean; allowedHosts: string[] };

/** A configuration the server must not start with; the message says what to set. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Where a generated session secret is kept: next to the PGlite directory (default ./data/session-secret),
 * or SESSION_SECRET_FILE. Null when the data lives in memory (nothing to survive a restart).
 */
export function sessionSecretFile(e: EnvSource = rawEnv()): string | null {
  if (e.SESSION_SECRET_FILE) return path.resolve(e.SESSION_SECRET_FILE);
  const pgliteDir = e.PGLITE_DIR ?? path.resolve("data", "pglite");
  if (pgliteDir.startsWith("memory://")) return null;
  return path.join(path.dirname(path.resolve(pgliteDir)), "session-secret");
}

/**
 * The secrets that sign cookies and links (docs/decisions/072-session-secret.md):
 * - SESSION_SECRET when set (comma-separated, the first signs);
 * - in production on PostgreSQL without it: a ConfigError (several servers must share one secret, and
 *   a secret on one machine's disk is not shared);
 * - otherwise one generated once and kept in `file` (mode 0600), so sessions and links survive a
 *   restart; under NODE_ENV=test or without a file, a random one per process.
 */
export function resolveSessionSecrets(e: EnvSource, file: string | null): string[] {
  const given = (e.SESSION_SECRET ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  if (given.length) return given;
  if (e.NODE_ENV === "production" && e.DATABASE_URL) {
    throw new ConfigError(
      "SESSION_SECRET is not set. In production with DATABASE_URL it is required: set SESSION_SECRET to a long random string (e.g. `openssl rand -hex 32`), the same on every server.",
    );
  }
  if (e.NODE_ENV === "test" || !file) return [crypto.randomBytes(32).toString("hex")];
  return [readOrCreateSecret(file)];
}

function readOrCreateSecret(file: string): string {
  const fresh = crypto.randomBytes(32).toString("hex");
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // "wx": only the first process creates it; a second one started at the same moment reads it.
    fs.writeFileSync(file, `${fresh}\n`, { mode: 0o600, flag: "wx" });
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  fs.chmodSync(file, 0o600);
  const kept = fs.readFileSync(file, "utf8").trim();
  if (kept.length < 32) throw new ConfigError(`${file} holds no usable session secret (delete it to make a new one, or set SESSION_SECRET).`);
  return kept;
}

/**
 * The PostgreSQL pool's settings (decisions 080 and 205); unset ones are left to the client's defaults:
 * opening a connection 800 ms, a statement 5 s, 10 connections, waiting for a free connection 5 s, at
 * most 5,000 statements waiting.
 */
export function databasePoolEnv(e: Env = env()) {
  return {
    connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    poolSize: e.DB_POOL_SIZE && e.DB_POOL_SIZE > 0 ? e.DB_POOL_SIZE : undefined,
    poolWaitTimeoutMs: e.DB_POOL_WAIT_TIMEOUT_MS,
    poolMaxWaiting: e.DB_POOL_MAX_WAITING,
  };
}

/**
 * The raw process environment. Only for what the schema cannot name: the SiteLink secrets, whose
 * variable names are data (each location's settings name them), and the few helpers that take an
 * environment as a parameter so that a test can pass its own. Everything else reads `env()`.
 */
export function rawEnv(): EnvSource {
  return process.env;
}

/** The message for a rejected environment: one line per variable, naming it and what it accepts. */
function configMessage(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const name = String(i.path[0] ?? "");
      return i.message.startsWith(name) ? i.message : `${name}: ${i.message}`;
    })
    .join("; ");
}

/**
 * Parses an environment (a test's own, or the process's) against the schema, with the values derived
 * from it. Throws ConfigError naming every variable that is set to a value it does not accept.
 */
export function loadEnv(source: EnvSource, secretsOf: (source: EnvSource) => string[] = (s) => resolveSessionSecrets(s, sessionSecretFile(s))): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) throw new ConfigError(configMessage(result.error));
  const parsed = result.data;
  let secrets: string[] | undefined;
  const e = {
    ...parsed,
    secureCookies: parsed.NODE_ENV === "production" && parsed.HTTPS !== "false",
    allowedHosts: (parsed.ALLOWED_HOSTS ?? "").split(/[\s,]+/).filter(Boolean),
  } as Env;
  Object.defineProperty(e, "sessionSecrets", {
    enumerable: true,
    get: () => (secrets ??= secretsOf(source)),
  });
  return e;
}

const KEYS = Object.keys(envSchema.shape);
let cached: { env: Env; fingerprint: string } | undefined;
const fingerprint = () => KEYS.map((k) => process.env[k] ?? "").join("\u0000");

/**
 * The process's session secrets, kept across a test's re-parse (a random one per process under
 * NODE_ENV=test must not change when a test sets FAKE_NOW): made again only when what they come from changes.
 */
let processSecrets: { from: string; secrets: string[] } | undefined;
function processSessionSecrets(source: EnvSource): string[] {
  const from = ["SESSION_SECRET", "SESSION_SECRET_FILE", "NODE_ENV", "DATABASE_URL", "PGLITE_DIR"].map((k) => source[k] ?? "").join("\u0000");
  if (processSecrets?.from !== from) processSecrets = { from, secrets: resolveSessionSecrets(source, sessionSecretFile(source)) };
  return processSecrets.secrets;
}

/**
 * The process's environment, parsed once (the server parses it at start-up, `envOrExit`).
 * `sessionSecrets` is resolved on first use (it may throw ConfigError), so code that never signs
 * anything (sending mail from a CLI, say) does not need SESSION_SECRET. Under NODE_ENV=test (before
 * or now) it is parsed again when a test has changed a variable since (tests set FAKE_NOW, SMTP_URL …
 * as they go).
 */
export function env(): Env {
  // Outside tests the first parse stands; a test that set NODE_ENV=production and put it back is parsed again.
  if (cached && ((cached.env.NODE_ENV !== "test" && process.env.NODE_ENV !== "test") || cached.fingerprint === fingerprint())) return cached.env;
  const now = fingerprint();
  // A fresh source object: the lazy session secrets keep seeing the values this parse saw.
  const source: EnvSource = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
  cached = { env: loadEnv(source, processSessionSecrets), fingerprint: now };
  return cached.env;
}

/**
 * Why the server must not start with this payment gateway setting, or null (docs/decisions/200): in
 * production PAYMENT_GATEWAY must be chosen (stripe, or none), never the test gateway,
 * which approves the public test card 4242 4242 4242 4242 and takes no money.
 */
export function paymentGatewayProblem(
  e: Pick<Env, "NODE_ENV" | "PAYMENT_GATEWAY"> & Partial<Pick<Env, "PAYMENT_GATEWAY_LOCATIONS" | "STRIPE_SECRET_KEY" | "STRIPE_PUBLISHABLE_KEY" | "STRIPE_WEBHOOK_SECRET" | "STRIPE_API_BASE" | "STRIPE_JS_URL">>,
): string | null {
  const perLocation = Object.values(e.PAYMENT_GATEWAY_LOCATIONS ?? {});
  if (e.PAYMENT_GATEWAY === "stripe" || perLocation.includes("stripe")) {
    const missing = (["STRIPE_SECRET_KEY", ...(e.NODE_ENV === "production" ? (["STRIPE_PUBLISHABLE_KEY", "STRIPE_WEBHOOK_SECRET"] as const) : [])] as const).filter((k) => !e[k]);
    if (missing.length) return `Stripe is chosen as a payment gateway but ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set (see docs/payments.md).`;
    if (e.STRIPE_API_BASE && !/^(sk|rk)_test_/.test(e.STRIPE_SECRET_KEY ?? "")) return "STRIPE_API_BASE (a stand-in for Stripe's API) is only accepted with a test key (sk_test_…): a live key goes to api.stripe.com only.";
    if (e.STRIPE_JS_URL && (!/^(sk|rk)_test_/.test(e.STRIPE_SECRET_KEY ?? "") || /^pk_live_/.test(e.STRIPE_PUBLISHABLE_KEY ?? ""))) return "STRIPE_JS_URL (a stand-in for Stripe.js) is only accepted with test keys (sk_test_…, pk_test_…): live card pages load https://js.stripe.com/v3/ only.";
  }
  if (e.NODE_ENV === "production" && perLocation.includes("test") && e.PAYMENT_GATEWAY !== "test") {
    return "PAYMENT_GATEWAY_LOCATIONS gives a location the test gateway, which charges nothing: production uses it only on a demonstration site (PAYMENT_GATEWAY=test).";
  }
  if (e.NODE_ENV !== "production" || e.PAYMENT_GATEWAY) return null;
  return (
    "PAYMENT_GATEWAY is not set. The only payment gateway built in is the test gateway, which approves public test card numbers " +
    "(4242 4242 4242 4242) and charges nothing, so production does not use it unless told to. Set PAYMENT_GATEWAY=none to take no " +
    "card payments through our gateway (those locations ask renters and tenants to call the office; SiteLink locations that charge " +
    "cards themselves are not affected), PAYMENT_GATEWAY=stripe to take real payments through Stripe (docs/payments.md), or PAYMENT_GATEWAY=test for a demonstration site (every card form then says that no real card is charged)."
  );
}

/**
 * For the start of the server and of every command: the parsed environment, or a clear message on
 * stderr and exit code 1. The server (`server: true`, the default) also needs its session secrets and
 * a payment gateway chosen in production; a command (`server: false`) only valid values.
 */
/**
 * Whether the test-only switches may act in this process (decision 432): under NODE_ENV=test, or in
 * production when the test runner started it (GATEHOUSE_TEST_RUNNER=1). Never in development's
 * absence of either, never on a live site.
 */
export function testSwitchesAllowed(e: Pick<Env, "NODE_ENV" | "GATEHOUSE_TEST_RUNNER">): boolean {
  return e.NODE_ENV === "test" || (e.NODE_ENV === "production" && e.GATEHOUSE_TEST_RUNNER === "1");
}

/**
 * Why a production server must not start with a test-only switch on (decision 432), or null: the
 * browser tests' hooks (E2E_HOOKS=1), the fake clock (FAKE_NOW) and the late change notice
 * (CHANGE_NOTICE_DELAY_MS, decision 710) are refused in production unless
 * the test runner says it started this process (GATEHOUSE_TEST_RUNNER=1), so a copied .env cannot
 * open them on a live site.
 */
export function testSwitchProblem(e: Pick<Env, "NODE_ENV" | "GATEHOUSE_TEST_RUNNER" | "E2E_HOOKS" | "FAKE_NOW"> & Partial<Pick<Env, "CHANGE_NOTICE_DELAY_MS">>): string | null {
  if (e.NODE_ENV !== "production" || e.GATEHOUSE_TEST_RUNNER === "1") return null;
  const on = [e.E2E_HOOKS === "1" ? "E2E_HOOKS=1" : null, e.FAKE_NOW ? "FAKE_NOW" : null, e.CHANGE_NOTICE_DELAY_MS ? "CHANGE_NOTICE_DELAY_MS" : null].filter(Boolean);
  if (!on.length) return null;
  return `${on.join(" and ")} ${on.length > 1 ? "are" : "is"} for the test runner only: a production server takes ${on.length > 1 ? "them" : "it"} only with GATEHOUSE_TEST_RUNNER=1, which the project's test suites set. Remove ${on.length > 1 ? "them" : "it"} from this server's environment.`;
}

export function envOrExit(options: { server?: boolean } = {}): Env {
  try {
    const e = env();
    if (options.server === false) return e;
    void e.sessionSecrets;
    const gatewayProblem = paymentGatewayProblem(e);
    if (gatewayProblem) throw new ConfigError(gatewayProblem);
    const textsProblem = textProviderProblem(e);
    if (textsProblem) throw new ConfigError(textsProblem);
    const purgeProblem = cachePurgeProblem(e);
    if (purgeProblem) throw new ConfigError(purgeProblem);
    const testProblem = testSwitchProblem(e);
    if (testProblem) throw new ConfigError(testProblem);
    return e;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Gatehouse cannot start: ${error.message}\n`);
    process.exit(1);
  }
}

/**
 * Why the server must not start with these text settings, or null (decision 490): one of the two
 * Twilio credentials without the other, or a stand-in for Twilio's API in production (unless the test
 * runner started this production process, GATEHOUSE_TEST_RUNNER=1: the browser tests' Twilio fake, decision 513).
 */
function textProviderProblem(e: Pick<Env, "NODE_ENV" | "GATEHOUSE_TEST_RUNNER"> & Partial<Pick<Env, "TWILIO_ACCOUNT_SID" | "TWILIO_AUTH_TOKEN" | "TWILIO_API_BASE">>): string | null {
  if (Boolean(e.TWILIO_ACCOUNT_SID) !== Boolean(e.TWILIO_AUTH_TOKEN)) return "Texts need both TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN (or neither, and texts are off).";
  if (e.TWILIO_API_BASE && e.NODE_ENV === "production" && !testSwitchesAllowed(e)) return "TWILIO_API_BASE (a stand-in for Twilio's API) is for tests and development only: production texts through api.twilio.com.";
  return null;
}

/**
 * Why the server must not start with these shared-cache settings, or null (decision 571): Cloudflare
 * without its zone and token, nginx without the public origin whose pages it purges, or a stand-in for
 * Cloudflare's API on a live site.
 */
function cachePurgeProblem(e: Pick<Env, "NODE_ENV" | "CACHE_PURGE" | "CLOUDFLARE_ZONE_ID" | "CLOUDFLARE_API_TOKEN" | "CLOUDFLARE_API_BASE" | "PUBLIC_URL" | "GATEHOUSE_TEST_RUNNER">): string | null {
  if (e.CACHE_PURGE === "cloudflare" && (!e.CLOUDFLARE_ZONE_ID || !e.CLOUDFLARE_API_TOKEN)) return "CACHE_PURGE=cloudflare needs CLOUDFLARE_ZONE_ID and CLOUDFLARE_API_TOKEN.";
  if (e.CACHE_PURGE === "nginx" && !e.PUBLIC_URL) return "CACHE_PURGE=nginx needs PUBLIC_URL: nginx's cache keys carry the public host the purge names.";
  if (e.CLOUDFLARE_API_BASE && e.NODE_ENV === "production" && e.GATEHOUSE_TEST_RUNNER !== "1") return "CLOUDFLARE_API_BASE (a stand-in for Cloudflare's API) is for tests only: production purges through api.cloudflare.com.";
  return null;
}
