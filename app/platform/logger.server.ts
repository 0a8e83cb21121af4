/**
 * The server's one logger (issue 8, docs/decisions/074-logging.md): pino, JSON lines on stdout.
 *
 * What never reaches a line: query strings (URLs are logged as method + path), a failed query's SQL
 * parameters (a Drizzle error is logged as its PostgreSQL code and message), and anything that looks
 * like a bcrypt hash, an e-mail address, a card number or a token, in messages and in string fields.
 * Fields named like secrets (password, token, params, cookie, text, html, …) are censored by pino.
 *
 * Under NODE_ENV=test the lines go through console.error / console.warn / console.log by level, so a
 * logged error still fails the test (tests/setup/fail-on-console-error.ts); the level is "warn"
 * unless LOG_LEVEL says otherwise.
 */
import pino, { type DestinationStream, type Logger } from "pino";
import { ConfigError, env, type Env } from "~/platform/env.server";

const CENSOR = "[redacted]";

const SCRUBBERS: [RegExp, string][] = [
  // Query strings of URLs and paths: "/reset-password?token=…" → "/reset-password".
  [/([\w/.:%-])\?[^\s"'<>#]+/g, "$1"],
  // bcrypt hashes.
  [/\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}/g, CENSOR],
  // E-mail addresses.
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g, "[email]"],
  // Card numbers: 13 to 19 digits, with or without spaces or dashes.
  [/\b\d(?:[ -]?\d){12,18}\b/g, "[number]"],
  // Tokens and secrets: long runs of base64url / hex characters.
  [/[A-Za-z0-9_-]{32,}/g, CENSOR],
];

/** `text` without query strings, bcrypt hashes, e-mail addresses, card numbers or long tokens. */
export function scrubText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SCRUBBERS) out = out.replace(pattern, replacement);
  return out;
}

function scrubValue(value: unknown, depth: number): unknown {
  if (typeof value === "string") return scrubText(value);
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, depth + 1));
  // Errors are left to the err serializer (safeError); copying them here would lose their message.
  if (value instanceof Date || value instanceof Error) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrubValue(v, depth + 1);
  return out;
}

/** Only the frames of a stack, not its first lines (which repeat the message). */
function stackFrames(stack: string | undefined): string | undefined {
  if (!stack) return undefined;
  const frames = stack.split("\n").filter((l) => /^\s+at /.test(l));
  return frames.length ? scrubText(frames.join("\n")) : undefined;
}

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  stack?: string;
  cause?: unknown;
  query?: unknown;
  params?: unknown;
}

/**
 * What of an error may be logged. A failed Drizzle query (its message is "Failed query: … params: …",
 * with bcrypt hashes and personal data among the params) becomes its PostgreSQL error code and message;
 * a quoted value at the end of that message ('invalid input syntax …: "x"') is dropped too.
 */
function safeError(error: unknown, depth = 0): Record<string, unknown> {
  if (!error || typeof error !== "object") return { message: scrubText(String(error)) };
  const e = error as ErrorLike;
  if ("query" in e && "params" in e) {
    const cause = (e.cause ?? {}) as ErrorLike;
    const code = typeof cause.code === "string" ? cause.code : undefined;
    const message = typeof cause.message === "string" ? cause.message.replace(/: ".*"$/s, ': "[value]"') : "";
    return {
      type: "DrizzleQueryError",
      ...(code ? { code } : {}),
      message: scrubText(`Failed query${code ? ` (${code})` : ""}${message ? `: ${message}` : ""}`),
      stack: stackFrames(e.stack),
    };
  }
  const out: Record<string, unknown> = {
    type: typeof e.name === "string" ? e.name : "Error",
    message: scrubText(typeof e.message === "string" ? e.message : String(error)),
  };
  if (typeof e.code === "string" || typeof e.code === "number") out.code = e.code;
  const stack = stackFrames(e.stack);
  if (stack) out.stack = stack;
  if (e.cause && depth < 2) out.cause = safeError(e.cause, depth + 1);
  return out;
}

/** Lines to console.* by level (tests: console.error still fails a test). */
const consoleDestination: DestinationStream = {
  write(line: string) {
    const text = line.replace(/\n$/, "");
    let level = 30;
    try {
      level = (JSON.parse(text) as { level?: number }).level ?? 30;
    } catch {
      // not JSON: keep the default level
    }
    if (level >= 50) console.error(text);
    else if (level >= 40) console.warn(text);
    else console.log(text);
  },
};

function createLogger(destination?: DestinationStream, level?: string): Logger {
  // Made while modules load, before the start-up check (envOrExit) can report a bad value: a logger
  // with the default level then, and the check says what is wrong.
  let e: Pick<Env, "NODE_ENV" | "LOG_LEVEL"> | undefined;
  try {
    e = env();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  const isTest = e?.NODE_ENV === "test";
  return pino(
    {
      level: level ?? e?.LOG_LEVEL ?? (isTest ? "warn" : "info"),
      base: { pid: process.pid },
      redact: {
        paths: [
          "password",
          "*.password",
          "passwordHash",
          "*.passwordHash",
          "webPwHash",
          "*.webPwHash",
          "token",
          "*.token",
          "secret",
          "*.secret",
          "secrets",
          "*.secrets",
          "params",
          "*.params",
          "card",
          "*.card",
          "cardNumber",
          "*.cardNumber",
          "text",
          "*.text",
          "html",
          "*.html",
          "cookie",
          "*.cookie",
          "headers.cookie",
          "headers.authorization",
          "req.headers.cookie",
          "req.headers.authorization",
        ],
        censor: CENSOR,
      },
      serializers: { err: (e: unknown) => safeError(e), error: (e: unknown) => safeError(e) },
      formatters: {
        log: (object) => scrubValue(object, 0) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          const cleaned = args.map((a) => (typeof a === "string" ? scrubText(a) : a));
          return method.apply(this, cleaned as Parameters<typeof method>);
        },
      },
    },
    destination ?? (isTest ? consoleDestination : pino.destination({ dest: 1, sync: true })),
  );
}

const g = globalThis as unknown as { __gatehouseLogger?: Logger };
/** The process-wide logger. */
export const logger: Logger = (g.__gatehouseLogger ??= createLogger());

/** A request that failed: method and path (never the query string), and the error as safeError allows. */
export function logRequestError(error: unknown, request: { method?: string; url?: string }, message = "request failed"): void {
  let path = request.url ?? "";
  try {
    path = new URL(path, "http://localhost").pathname;
  } catch {
    path = path.split("?")[0] ?? "";
  }
  logger.error({ err: error, method: request.method, path }, message);
}
