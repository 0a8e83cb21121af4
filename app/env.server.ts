import { z } from "zod";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  DATABASE_URL: z.string().optional(),
  PGLITE_DIR: z.string().optional(),
  /** Comma-separated; the first signs, all verify (rotation). Required in production on PostgreSQL. */
  SESSION_SECRET: z.string().optional(),
  /**
   * Optional, comma-separated (the first seals, all open): the secret that seals the secrets of
   * unsent mail in email_outbox (decision 198). Unset: derived from the session secrets.
   */
  EMAIL_SECRET_KEY: z.string().optional(),
  /** smtp://user:pass@host:port — when unset, emails are stored in the outbox table and logged. */
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default("Gatehouse Self Storage <no-reply@gatehousestorage.example>"),
  /** "false" when served over plain HTTP in production (turns off Secure cookies and HSTS). */
  HTTPS: z.string().optional(),
  /** The website's public origin for every absolute link (emails, canonical, sitemap). Unset: https:// + website.domain. */
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: "PUBLIC_URL must be an http(s) URL, like https://www.example.com" })
    .optional()
    .or(z.literal("").transform(() => undefined)),
  /** Extra host names (comma- or space-separated) the server answers besides the website's domains. */
  ALLOWED_HOSTS: z.string().optional(),
  /**
   * Which payment gateway charges cards where our gateway charges them (docs/decisions/200):
   * "test" the built-in test gateway (a demonstration: no real card is charged, every card form says
   * so); "none" no gateway (those locations offer "call to rent"). Unset: "test" outside production;
   * in production the server refuses to start (`paymentGatewayProblem`).
   */
  PAYMENT_GATEWAY: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.enum(["test", "none"], { error: "PAYMENT_GATEWAY must be test (a demonstration, no real card is charged) or none (no card payments through our gateway)" }).optional(),
  ),
});

export type Env = z.infer<typeof envSchema> & { sessionSecrets: string[]; secureCookies: boolean; allowedHosts: string[] };

/** A configuration the server must not start with; the message says what to set. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Where a generated session secret is kept: next to the PGlite directory (default ./data/session-secret),
 * or SESSION_SECRET_FILE. Null when the data lives in memory (nothing to survive a restart).
 */
export function sessionSecretFile(e: NodeJS.ProcessEnv = process.env): string | null {
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
export function resolveSessionSecrets(e: NodeJS.ProcessEnv, file: string | null): string[] {
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

/** A whole number of milliseconds or connections from the environment; unset or not a whole number: the default. */
const wholeNumber = z
  .string()
  .regex(/^\d+$/)
  .transform(Number)
  .optional()
  .catch(undefined);

const databasePoolSchema = z.object({
  DB_CONNECT_TIMEOUT_MS: wholeNumber,
  DB_STATEMENT_TIMEOUT_MS: wholeNumber,
  DB_POOL_SIZE: wholeNumber,
  DB_POOL_WAIT_TIMEOUT_MS: wholeNumber,
  DB_POOL_MAX_WAITING: wholeNumber,
});

/**
 * The PostgreSQL pool's settings (decisions 080 and 205); unset ones are left to the client's defaults:
 * opening a connection 800 ms, a statement 5 s, 10 connections, waiting for a free connection 5 s, at
 * most 5,000 statements waiting.
 */
export function databasePoolEnv(e: NodeJS.ProcessEnv = process.env) {
  const v = databasePoolSchema.parse(e);
  return {
    connectTimeoutMs: v.DB_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: v.DB_STATEMENT_TIMEOUT_MS,
    poolSize: v.DB_POOL_SIZE && v.DB_POOL_SIZE > 0 ? v.DB_POOL_SIZE : undefined,
    poolWaitTimeoutMs: v.DB_POOL_WAIT_TIMEOUT_MS,
    poolMaxWaiting: v.DB_POOL_MAX_WAITING,
  };
}

/** PASSWORD_HASH_THREADS: how many threads hash passwords (1–16; decision 207); unset or out of range: undefined (the default). */
export function passwordHashThreadsEnv(e: NodeJS.ProcessEnv = process.env): number | undefined {
  const n = Number(e.PASSWORD_HASH_THREADS);
  return e.PASSWORD_HASH_THREADS && Number.isInteger(n) && n >= 1 && n <= 16 ? n : undefined;
}

let cached: Env | undefined;

/**
 * The environment, parsed once. `sessionSecrets` is resolved on first use (it may throw ConfigError),
 * so code that never signs anything (sending mail from a CLI, say) does not need SESSION_SECRET.
 */
export function env(): Env {
  if (cached) return cached;
  const result = envSchema.safeParse(process.env);
  if (!result.success) throw new ConfigError(result.error.issues.map((i) => i.message).join("; "));
  const parsed = result.data;
  let secrets: string[] | undefined;
  const e = {
    ...parsed,
    secureCookies: parsed.NODE_ENV === "production" && parsed.HTTPS !== "false",
    allowedHosts: (parsed.ALLOWED_HOSTS ?? "").split(/[\s,]+/).filter(Boolean),
  } as Env;
  Object.defineProperty(e, "sessionSecrets", {
    enumerable: true,
    get: () => (secrets ??= resolveSessionSecrets(process.env, sessionSecretFile(process.env))),
  });
  cached = e;
  return cached;
}

/**
 * Why the server must not start with this payment gateway setting, or null (docs/decisions/200): in
 * production PAYMENT_GATEWAY must be chosen, because the only gateway built in is the test gateway,
 * which approves the public test card 4242 4242 4242 4242 and takes no money.
 */
export function paymentGatewayProblem(e: Pick<Env, "NODE_ENV" | "PAYMENT_GATEWAY">): string | null {
  if (e.NODE_ENV !== "production" || e.PAYMENT_GATEWAY) return null;
  return (
    "PAYMENT_GATEWAY is not set. The only payment gateway built in is the test gateway, which approves public test card numbers " +
    "(4242 4242 4242 4242) and charges nothing, so production does not use it unless told to. Set PAYMENT_GATEWAY=none to take no " +
    "card payments through our gateway (those locations ask renters and tenants to call the office; SiteLink locations that charge " +
    "cards themselves are not affected), or PAYMENT_GATEWAY=test for a demonstration site (every card form then says that no real card is charged)."
  );
}

/** For the server's start: the environment with its session secrets, or a clear message on stderr and exit code 1. */
export function envOrExit(): Env {
  try {
    const e = env();
    void e.sessionSecrets;
    const gatewayProblem = paymentGatewayProblem(e);
    if (gatewayProblem) throw new ConfigError(gatewayProblem);
    return e;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`Gatehouse cannot start: ${error.message}\n`);
    process.exit(1);
  }
}
