/**
 * The SiteLink CallCenterWs client (issue 11 §3, study §0.1, §2, §8): SOAP 1.1 over Node's `fetch`,
 * envelopes built only from the checked-in operation contract, answers parsed by ./dataset.ts.
 *
 * - Every call has a timeout (AbortSignal.timeout): reads 8 s, writes 45 s by default.
 * - A read is retried at most once, after a short pause, on a network error or HTTP 502/503/504.
 * - A write is NEVER retried here: a write that got no usable answer throws SiteLinkCallError with
 *   `outcomeUnknown`, and the caller's journal + reconciliation decide (study §8.2).
 * - The client does not judge RT codes: it returns `{tables, retCode, retMsg}`; see ./errors.ts.
 * - One log line per call (debug for fast reads, info for writes and slow reads, warn for failures):
 *   operation, location code, latency, outcome. Never a parameter value; any
 *   message that could echo one has the password, API key and card fields replaced first.
 */
import { performance } from "node:perf_hooks";
import { logger as appLogger } from "~/platform/logger.server";
import type { OperationContract } from "./contract";
import { DataSetError, parseAnswer, type SoapAnswer } from "./dataset";
import { buildEnvelope, operationSpec, soapAction, type Credentials, type SiteLinkParams } from "./envelope";
import { SiteLinkCallError, type CallFailure } from "./errors";


export const DEFAULT_READ_TIMEOUT_MS = 8_000;
export const DEFAULT_WRITE_TIMEOUT_MS = 45_000;
/** A call slower than this is logged at info even when it is a read. */
const SLOW_CALL_MS = 1_000;

/** The subset of pino the client uses (tests pass a recorder). */
export interface SiteLinkLog {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

interface SiteLinkClientOptions {
  /** The CallCenterWs.asmx URL. */
  endpoint: string;
  credentials: Credentials;
  contract: OperationContract;
  readTimeoutMs?: number;
  writeTimeoutMs?: number;
  /** Pause before the one retry of a read (ms); jittered by up to 50 %. */
  retryDelayMs?: number;
  fetch?: typeof fetch;
  log?: SiteLinkLog;
}

export interface CallOptions {
  /** Treat the call as a write even if the contract says read (never retried). */
  write?: boolean;
  timeoutMs?: number;
}

/** Sends one operation. Writes are never retried by the transport. */
export type SiteLinkCall = (operation: string, params: SiteLinkParams, options?: CallOptions) => Promise<SoapAnswer>;

interface SiteLinkClient {
  call: SiteLinkCall;
  readonly locationCode: string;
}

/** Parameter names whose values are card data or secrets (never logged, never echoed). */
const SENSITIVE_PARAM = /password|creditcard|ccnum|cctrack|cvv|accountnum|aba|routing|ssn|license/i;

/** `text` with every given secret value replaced. */
export function redactValues(text: string, secrets: ReadonlyArray<string>): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 3) out = out.split(secret).join("[redacted]");
  return out;
}

export function createSiteLinkClient(options: SiteLinkClientOptions): SiteLinkClient {
  const { endpoint, credentials, contract } = options;
  const fetchImpl = options.fetch ?? fetch;
  const log = options.log ?? appLogger;
  const readTimeout = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  const writeTimeout = options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;
  const retryDelay = options.retryDelayMs ?? 250;
  const baseSecrets = [credentials.password, credentials.apiKey ?? ""].filter(Boolean);

  async function attempt(operation: string, body: string, write: boolean, timeoutMs: number, secrets: string[]): Promise<SoapAnswer> {
    const fail = (failure: CallFailure, message: string, extra: { status?: number; faultCode?: string } = {}) =>
      new SiteLinkCallError(redactValues(`SiteLink ${operation}: ${message}`, secrets), { operation, failure, write, ...extra });
    let status: number;
    let text: string;
    try {
      const response = await fetchImpl(endpoint, {
        method: "POST",
        headers: { "Content-Type": "text/xml; charset=utf-8", SOAPAction: soapAction(contract, operation) },
        body,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: "error",
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      const name = error instanceof Error ? error.name : "";
      if (name === "TimeoutError" || name === "AbortError") throw fail("timeout", `no answer within ${timeoutMs} ms`);
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
      throw fail("network", `${error instanceof Error ? error.message : String(error)}${cause}`);
    }
    try {
      const answer = parseAnswer(text, operation);
      if (status >= 300) throw fail("http", `HTTP ${status} with a SOAP answer`, { status });
      return answer;
    } catch (error) {
      if (error instanceof SiteLinkCallError) throw error;
      if (error instanceof DataSetError && error.kind === "fault") throw fail("fault", error.message.replace(`${operation}: `, ""), { status, faultCode: error.faultCode });
      if (status >= 300) throw fail("http", `HTTP ${status}`, { status });
      throw fail("malformed", error instanceof Error ? error.message.replace(`${operation}: `, "") : String(error), { status });
    }
  }

  const call: SiteLinkCall = async (operation, params, callOptions = {}) => {
    const spec = operationSpec(contract, operation);
    const write = spec.kind === "write" || callOptions.write === true;
    const body = buildEnvelope(contract, operation, params, credentials);
    const secrets = [
      ...baseSecrets,
      ...Object.entries(params)
        .filter(([k, v]) => SENSITIVE_PARAM.test(k) && v !== null && v !== undefined && String(v).length >= 3)
        .map(([, v]) => String(v)),
    ];
    const timeoutMs = callOptions.timeoutMs ?? (write ? writeTimeout : readTimeout);
    const maxAttempts = write ? 1 : 2;
    for (let n = 1; ; n++) {
      const started = performance.now();
      try {
        const answer = await attempt(operation, body, write, timeoutMs, secrets);
        const ms = Math.round(performance.now() - started);
        // Writes and slow reads at info; the minute-by-minute sync reads at debug.
        const level = write || ms >= SLOW_CALL_MS ? "info" : "debug";
        log[level]({ operation, location: credentials.locationCode, ms, retCode: answer.retCode, attempt: n }, `[sitelink] ${operation} answered`);
        return answer;
      } catch (error) {
        const e = error as SiteLinkCallError;
        const ms = Math.round(performance.now() - started);
        const retryable = !write && n < maxAttempts && (e.failure === "network" || (e.failure === "http" && [502, 503, 504].includes(e.status ?? 0)));
        log.warn(
          { operation, location: credentials.locationCode, ms, failure: e.failure, status: e.status, write, attempt: n, retry: retryable, error: e.message },
          write
            ? `[sitelink] ${operation} (write) got no usable answer: outcome unknown, not resent`
            : `[sitelink] ${operation} failed${retryable ? "; retrying once" : ""}`,
        );
        if (!retryable) throw error;
        await new Promise((resolve) => setTimeout(resolve, retryDelay * (1 + Math.random() / 2)));
      }
    }
  };

  return { call, locationCode: credentials.locationCode };
}
