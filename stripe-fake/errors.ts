/**
 * Stripe's error bodies (https://docs.stripe.com/api/errors): `{ error: { type, code?, decline_code?,
 * message, param?, doc_url?, ... } }`, with the HTTP statuses the API reference lists: 400 invalid
 * request, 401 bad key, 402 card error, 404 missing resource, 400 idempotency error.
 */
type ErrorType = "api_error" | "card_error" | "idempotency_error" | "invalid_request_error";

export class StripeFakeError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown> & { type: ErrorType; message: string },
    /** Stripe saves the outcome of a request that reached the endpoint under its idempotency key; not a rejected parameter. */
    readonly saved = true,
  ) {
    super(body.message);
  }
}

const doc = (code: string) => `https://stripe.com/docs/error-codes/${code.replace(/_/g, "-")}`;

export function invalid(message: string, extra: { code?: string; param?: string } = {}, saved = true): StripeFakeError {
  return new StripeFakeError(400, { type: "invalid_request_error", message, ...extra, ...(extra.code ? { doc_url: doc(extra.code) } : {}) }, saved);
}

export function missingParam(param: string): StripeFakeError {
  return invalid(`Missing required param: ${param}.`, { code: "parameter_missing", param }, false);
}

export function invalidInteger(param: string, value: string): StripeFakeError {
  return invalid(`Invalid integer: ${value}`, { code: "parameter_invalid_integer", param }, false);
}

export function unknownParam(param: string): StripeFakeError {
  return invalid(`Received unknown parameter: ${param}`, { code: "parameter_unknown", param }, false);
}

export function resourceMissing(kind: string, id: string, param = "id"): StripeFakeError {
  return new StripeFakeError(404, { type: "invalid_request_error", code: "resource_missing", doc_url: doc("resource_missing"), message: `No such ${kind}: '${id}'`, param }, false);
}

export function unexpectedState(kind: "payment_intent" | "setup_intent", message: string, object: object): StripeFakeError {
  return new StripeFakeError(400, { type: "invalid_request_error", code: `${kind}_unexpected_state`, doc_url: doc(`${kind}_unexpected_state`), message, [kind]: object });
}

export interface Decline {
  code: string;
  decline_code?: string;
  message: string;
}

export function cardError(decline: Decline, extra: Record<string, unknown> = {}): StripeFakeError {
  return new StripeFakeError(402, { type: "card_error", ...decline, doc_url: doc(decline.code), ...extra });
}
