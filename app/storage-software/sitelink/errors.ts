/**
 * SiteLink outcomes -> the port's errors (../errors.ts), per study §3.1:
 *
 * | SiteLink outcome                                             | Port error |
 * |--------------------------------------------------------------|------------|
 * | network error, timeout, HTTP 5xx, SOAP Fault, unparsable XML | SiteLinkCallError (a SoftwareUnreachableError); for a write `outcomeUnknown` is true: journal `unknown`, reconcile, never "declined" |
 * | RT -1 on a read (also: bad credentials, unknown location)     | SoftwareUnreachableError (`readFailed`) |
 * | MoveIn -2 / -25                                              | UnitUnavailableError |
 * | MoveIn -100 / -14                                            | PaymentDeclinedError |
 * | MoveIn -11                                                   | StorageValidationError (charges changed) |
 * | MoveIn -4, -5, -20, -21, -28, -29 ...                        | StorageSoftwareError (site configuration; ops alert) |
 *
 * The MoveIn rows are mapped where the answer is read (./move-in.ts, with the reconciling it needs).
 */
import { SoftwareUnreachableError } from "../errors";
import type { SoapAnswer } from "./dataset";

export type CallFailure = "timeout" | "network" | "http" | "fault" | "malformed";

/**
 * SiteLink did not give a usable answer. For a write the request may have been applied
 * (`outcomeUnknown`): the caller journals it `unknown` and reconciles; it is never sent again blindly.
 */
export class SiteLinkCallError extends SoftwareUnreachableError {
  override name = "SiteLinkCallError";
  public readonly operation: string;
  public readonly failure: CallFailure;
  public readonly write: boolean;
  public readonly status: number | undefined;
  public readonly faultCode: string | undefined;
  constructor(message: string, info: { operation: string; failure: CallFailure; write: boolean; status?: number; faultCode?: string }) {
    super(message);
    this.operation = info.operation;
    this.failure = info.failure;
    this.write = info.write;
    this.status = info.status;
    this.faultCode = info.faultCode;
  }
  /** True when a write may have been applied although no usable answer came back. */
  get outcomeUnknown(): boolean {
    // A soap:Client Fault means the request was refused before the operation ran.
    return this.write && !(this.failure === "fault" && /client$/i.test(this.faultCode ?? ""));
  }
}

/** The message people see in logs for RT codes that point at the location's settings. */
const CREDENTIALS_HINT = "check the location's SiteLink settings (corp code, location code, user, password)";

/**
 * A read's RT status: a negative code means SiteLink could not answer (its `-1` is also what bad
 * credentials and misspelled parameters look like): SoftwareUnreachableError. `0` is "no data".
 */
export function readFailed(answer: SoapAnswer, operation: string): SoftwareUnreachableError | null {
  if (answer.retCode === null || answer.retCode >= 0) return null;
  return new SoftwareUnreachableError(
    `SiteLink ${operation} answered ${answer.retCode}${answer.retMsg ? ` "${answer.retMsg}"` : ""}; ${CREDENTIALS_HINT}`,
  );
}

/** Throws readFailed's error, or returns the answer. */
export function okRead(answer: SoapAnswer, operation: string): SoapAnswer {
  const error = readFailed(answer, operation);
  if (error) throw error;
  return answer;
}

/**
 * Whether a write that threw may have been applied: a timeout, a reset, an HTTP error or garbage after
 * sending may all follow a commit; an envelope we refused to build or a soap:Client Fault never do.
 */
export function mayHaveBeenApplied(error: unknown): boolean {
  if (error instanceof SiteLinkCallError) return error.outcomeUnknown;
  return error instanceof SoftwareUnreachableError;
}
