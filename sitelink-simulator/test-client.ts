/**
 * A tiny SOAP client for the simulator's own tests (and for poking at it from scripts): real HTTP,
 * real SOAP 1.1 XML. Not the adapter's client (app/storage-software/sitelink/ builds its own).
 */
import { XMLParser } from "fast-xml-parser";
import { loadContract } from "./contract";
import { corpUserName, DEMO_CORP } from "./corp";
import { escapeXml } from "./wire";

interface CallOptions {
  location?: string;
  /** Override the four auth parameters. */
  auth?: Partial<Record<"sCorpCode" | "sLocationCode" | "sCorpUserName" | "sCorpPassword", string>>;
  /** SOAPAction header value; default the quoted action of the operation. null = no header. */
  soapAction?: string | null;
  /** Body style: default namespace (KV-S) or a `cal:` prefix (ST). */
  style?: "default" | "prefixed";
  /** Send every contract parameter (missing ones with a typed placeholder), like the adapter will. Default true. */
  fill?: boolean;
  /** Parameters to leave out entirely (to test the silent -1). */
  omit?: string[];
}

interface CallResult {
  status: number;
  text: string;
  /** Table name -> rows (all values strings), from the diffgram. */
  tables: Record<string, Array<Record<string, string>>>;
  /** RT row, if any. */
  rt: { Ret_Code: number; Ret_Msg: string; [k: string]: string | number } | null;
  fault: string | null;
}

const PLACEHOLDER: Record<string, string> = {
  "s:string": "",
  "s:int": "0",
  "s:long": "0",
  "s:decimal": "0",
  "s:boolean": "false",
  "s:dateTime": "1900-01-01T00:00:00",
};

const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, ignoreAttributes: true, isArray: (_n, path) => String(path).split(".").length === 7 });

export function buildEnvelope(operation: string, params: Record<string, string | number | boolean>, options: CallOptions = {}): string {
  const contract = loadContract();
  const op = contract.operations[operation];
  const names = op ? op.params.map((p) => p.name) : Object.keys(params);
  const auth = {
    sCorpCode: DEMO_CORP.corpCode,
    sLocationCode: options.location ?? "L001",
    sCorpUserName: corpUserName(),
    sCorpPassword: DEMO_CORP.password,
    ...options.auth,
  };
  const values: Record<string, string> = {};
  for (const name of names) {
    if (options.omit?.includes(name)) continue;
    if (name in auth) values[name] = auth[name as keyof typeof auth];
    else if (name in params) values[name] = String(params[name]);
    else if (options.fill !== false) values[name] = PLACEHOLDER[op!.params.find((p) => p.name === name)!.type] ?? "";
  }
  for (const [k, v] of Object.entries(params)) if (!(k in values) && !options.omit?.includes(k)) values[k] = String(v);
  const prefixed = options.style === "prefixed";
  const p = prefixed ? "cal:" : "";
  const inner = Object.entries(values)
    .map(([k, v]) => `<${p}${k}>${escapeXml(v)}</${p}${k}>`)
    .join("");
  const opEl = prefixed ? `<cal:${operation}>${inner}</cal:${operation}>` : `<${operation} xmlns="${contract.namespace}">${inner}</${operation}>`;
  const calNs = prefixed ? ` xmlns:cal="${contract.namespace}"` : "";
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"${calNs}><soap:Body>${opEl}</soap:Body></soap:Envelope>`;
}

function parseResponse(operation: string, status: number, text: string): CallResult {
  const doc = parser.parse(text) as Record<string, unknown>;
  const body = (doc.Envelope as Record<string, unknown> | undefined)?.Body as Record<string, unknown> | undefined;
  const fault = body?.Fault as { faultstring?: string } | undefined;
  if (fault) return { status, text, tables: {}, rt: null, fault: String(fault.faultstring ?? "") };
  const result = ((body?.[`${operation}Response`] as Record<string, unknown> | undefined)?.[`${operation}Result`] ?? {}) as Record<string, unknown>;
  const ds = ((result.diffgram as Record<string, unknown> | undefined)?.NewDataSet ?? {}) as Record<string, unknown>;
  const tables: CallResult["tables"] = {};
  for (const [name, rows] of Object.entries(ds)) tables[name] = (Array.isArray(rows) ? rows : [rows]) as Array<Record<string, string>>;
  const rtRow = tables.RT?.[0];
  return {
    status,
    text,
    tables,
    rt: rtRow ? { ...rtRow, Ret_Code: Number(rtRow.Ret_Code), Ret_Msg: rtRow.Ret_Msg ?? "" } : null,
    fault: null,
  };
}

export async function soapCall(url: string, operation: string, params: Record<string, string | number | boolean> = {}, options: CallOptions = {}): Promise<CallResult> {
  const contract = loadContract();
  const headers: Record<string, string> = { "content-type": "text/xml; charset=utf-8" };
  if (options.soapAction !== null) headers.soapaction = options.soapAction ?? `"${contract.soapActionPrefix}${operation}"`;
  const res = await fetch(url, { method: "POST", headers, body: buildEnvelope(operation, params, options) });
  const text = await res.text();
  return parseResponse(operation, res.status, text);
}
