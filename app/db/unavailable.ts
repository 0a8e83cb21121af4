/**
 * Telling "the database cannot be reached right now" from every other error (issue 14). Such an
 * error is never the visitor's fault and never a bug: the page answers 503 with Retry-After and a
 * form says to try again in a minute. Pure: no I/O, safe to import anywhere.
 */

/** SQLSTATEs of a lost or refused connection, a server shutting down or starting, or too busy. */
const UNAVAILABLE_SQLSTATES = new Set([
  "57P01", // admin_shutdown (fast stop, failover)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (starting up, shutting down)
  "57014", // query_canceled (our statement_timeout)
  "53300", // too_many_connections
  "08000", "08001", "08003", "08004", "08006", "08007", "08P01",
]);

const UNAVAILABLE_NODE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /query read timeout/i,
  /not queryable/i,
  /connection (?:is )?closed/i,
  /the database system is (?:starting up|shutting down|in recovery mode)/i,
  /terminating connection/i,
  /server closed the connection unexpectedly/i,
];

/** True when `error`, or any error in its `cause` chain, says the database is unreachable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e && depth < 6; depth++) {
    if (e instanceof DatabaseUnavailableError) return true;
    const x = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof x.code === "string" && (UNAVAILABLE_SQLSTATES.has(x.code) || UNAVAILABLE_NODE_CODES.has(x.code))) return true;
    if (typeof x.message === "string" && UNAVAILABLE_MESSAGES.some((re) => re.test(x.message as string))) return true;
    // AggregateError (a host with several addresses refusing each one).
    if (Array.isArray(x.errors) && x.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    e = x.cause;
  }
  return false;
}

export class DatabaseUnavailableError extends Error {
  constructor(message = "The database cannot be reached right now", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DatabaseUnavailableError";
  }
}

/** Seconds a visitor (or a load balancer) is asked to wait before trying again. */
export const RETRY_AFTER_SECONDS = 30;

/** What a form says when its answers could not be saved because the database was unreachable. */
export const FORM_UNAVAILABLE_MESSAGE =
  "We could not save this just now because our system is briefly unavailable. What you typed is still here: please try again in a minute.";

/** The same at a payment: a payment that went through is never charged again (idempotency key). */
export const PAYMENT_UNAVAILABLE_MESSAGE =
  "We could not finish this just now because our system is briefly unavailable. Please try again in a minute. You will not be charged twice: if your payment went through, trying again completes it with that same payment.";

/**
 * A short, safe description of an outage for the log: the innermost error's code and message,
 * never the SQL or its parameters (which may hold personal data).
 */
export function outageReason(error: unknown): string {
  let e: unknown = error;
  let last: { code?: unknown; message?: unknown } = {};
  for (let depth = 0; e && depth < 6; depth++) {
    last = e as { code?: unknown; message?: unknown };
    e = (e as { cause?: unknown }).cause;
  }
  const message = typeof last.message === "string" && !last.message.startsWith("Failed query") ? last.message.split("\n")[0]! : "database error";
  return typeof last.code === "string" ? `${last.code} ${message}` : message;
}

/**
 * Every connection of the pool is busy and this statement could not get one within the stated bound
 * (DB_POOL_WAIT_TIMEOUT_MS), or the queue of statements already waiting is at its stated length
 * (DB_POOL_MAX_WAITING): the database is fine but this process is overloaded. Answered like an outage
 * (503 with Retry-After), which is what a visitor can do about it: try again shortly (decision 205).
 */
export class DatabaseBusyError extends DatabaseUnavailableError {
  constructor(message: string) {
    super(message);
    this.name = "DatabaseBusyError";
  }
}

/** True when `error` (or its cause chain) is a full or too-slow connection queue, not an unreachable database. */
export function isDatabaseBusy(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e && depth < 6; depth++) {
    if (e instanceof DatabaseBusyError) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
