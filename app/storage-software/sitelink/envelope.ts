/**
 * The SOAP 1.1 request for one CallCenterWs operation (study §2): document/literal wrapped,
 * `<Op xmlns="namespace">` with one child per parameter, in the contract's order, every parameter
 * present. SiteLink binds parameters by name and answers a missing or misspelled one with a silent
 * `Ret_Code -1`, so an unknown key or a missing required value throws here, before anything is sent.
 *
 * Formatting: dateTime as full `YYYY-MM-DDTHH:MM:SS` (site wall clock, no offset; a bare date is
 * completed with T00:00:00; an empty dateTime "crashes SMD", so an optional one that is not given
 * gets a placeholder); decimals with at least 2 dp; booleans `true`/`false`; ints as digits.
 */
import type { OperationContract, OperationSpec, ParamSpec, XsdType } from "./contract";
import { centsToDecimal } from "./money";

export type SiteLinkValue = string | number | boolean | null | undefined;
export type SiteLinkParams = Record<string, SiteLinkValue>;

export interface Credentials {
  corpCode: string;
  locationCode: string;
  /** The corp user name, without the API key. */
  corpUser: string;
  password: string;
  /** Sent as `user:::KEY` in sCorpUserName when set. */
  apiKey?: string | null;
}

/** Placeholder for a dateTime that must be present but means "none" (never send an empty dateTime). */
export const DATETIME_NONE = "1900-01-01T00:00:00";

/** A programming error in a call (unknown operation, unknown or missing parameter, bad value). */
export class EnvelopeError extends Error {
  override name = "EnvelopeError";
}

// XML 1.0 forbids most control characters even escaped; they are dropped.
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

export function escapeXml(text: string): string {
  return text
    .replace(INVALID_XML_CHARS, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

const DEFAULTS: Record<XsdType, string> = {
  "s:string": "",
  "s:int": "0",
  "s:decimal": "0.00",
  "s:boolean": "false",
  "s:dateTime": DATETIME_NONE,
};

function formatDecimal(op: string, name: string, value: string | number): string {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new EnvelopeError(`${op}.${name}: not a finite number`);
    const cents = Math.round(value * 100);
    if (Math.abs(value * 100 - cents) > 1e-6) throw new EnvelopeError(`${op}.${name}: ${value} has more than 2 decimals; pass a string`);
    return centsToDecimal(cents);
  }
  const s = value.trim();
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) throw new EnvelopeError(`${op}.${name}: not a decimal: ${JSON.stringify(value)}`);
  const frac = (m[3] ?? "").padEnd(2, "0");
  return `${m[1]}${m[2]}.${frac}`;
}

function formatDateTime(op: string, name: string, value: string): string {
  const s = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return `${s}T00:00:00`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(s)) return s;
  throw new EnvelopeError(`${op}.${name}: dateTime must be YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS (site wall clock), got ${JSON.stringify(value)}`);
}

/** One parameter's text, or throws EnvelopeError. */
function formatParam(op: string, param: ParamSpec, value: Exclude<SiteLinkValue, null | undefined>): string {
  const { name, type } = param;
  switch (type) {
    case "s:string":
      if (typeof value === "boolean") throw new EnvelopeError(`${op}.${name}: string expected, got a boolean`);
      return String(value);
    case "s:int": {
      const s = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
      if (!/^-?\d+$/.test(s) || !Number.isSafeInteger(Number(s))) throw new EnvelopeError(`${op}.${name}: integer expected, got ${JSON.stringify(value)}`);
      return String(Number(s));
    }
    case "s:decimal":
      if (typeof value === "boolean") throw new EnvelopeError(`${op}.${name}: decimal expected, got a boolean`);
      return formatDecimal(op, name, value);
    case "s:boolean":
      if (value === true || value === "true") return "true";
      if (value === false || value === "false") return "false";
      throw new EnvelopeError(`${op}.${name}: boolean expected, got ${JSON.stringify(value)}`);
    case "s:dateTime":
      if (typeof value !== "string") throw new EnvelopeError(`${op}.${name}: dateTime expected as a string`);
      return formatDateTime(op, name, value);
    default:
      throw new EnvelopeError(`${op}.${name}: unknown type ${String(type)}`);
  }
}

export function operationSpec(contract: OperationContract, operation: string): OperationSpec {
  const spec = Object.hasOwn(contract.operations, operation) ? contract.operations[operation] : undefined;
  if (!spec) throw new EnvelopeError(`Unknown SiteLink operation ${operation} (not in operations.json)`);
  return spec;
}

export function soapAction(contract: OperationContract, operation: string): string {
  return `"${contract.soapActionPrefix}${operation}"`;
}

/**
 * The envelope for `operation` with the caller's `params` (the four auth parameters are added from
 * `credentials` and may not be passed). Throws EnvelopeError on an unknown operation, an unknown
 * key, a missing required value or a value of the wrong type.
 */
export function buildEnvelope(contract: OperationContract, operation: string, params: SiteLinkParams, credentials: Credentials): string {
  const spec = operationSpec(contract, operation);
  const known = new Set(spec.params.map((p) => p.name));
  const auth = new Set(contract.authParams);
  for (const key of Object.keys(params)) {
    if (auth.has(key)) throw new EnvelopeError(`${operation}: ${key} is an auth parameter, filled from the location's settings`);
    if (!known.has(key)) throw new EnvelopeError(`${operation}: unknown parameter ${key}`);
  }
  const authValues: Record<string, string> = {
    sCorpCode: credentials.corpCode,
    sLocationCode: credentials.locationCode,
    sCorpUserName: credentials.apiKey ? `${credentials.corpUser}:::${credentials.apiKey}` : credentials.corpUser,
    sCorpPassword: credentials.password,
  };
  const children = spec.params.map((p) => {
    let text: string;
    if (auth.has(p.name)) {
      text = authValues[p.name] ?? "";
    } else {
      const value = params[p.name];
      if (value === undefined || value === null) {
        if (!p.optional) throw new EnvelopeError(`${operation}: missing parameter ${p.name}`);
        text = DEFAULTS[p.type];
      } else {
        text = formatParam(operation, p, value);
      }
    }
    return `<${p.name}>${escapeXml(text)}</${p.name}>`;
  });
  return (
    `<?xml version="1.0" encoding="utf-8"?>` +
    `<soap:Envelope xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">` +
    `<soap:Body><${operation} xmlns="${escapeXml(contract.namespace)}">${children.join("")}</${operation}></soap:Body></soap:Envelope>`
  );
}
