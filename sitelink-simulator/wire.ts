/**
 * SiteLink's wire format: SOAP 1.1 requests as ASP.NET ASMX reads them, and .NET DataSet responses
 * (inline xs:schema + diffgr:diffgram) as CallCenterWs writes them. Study §2 and §6.1.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { Contract, ContractOperation, XsdType } from "./contract";

const SOAP11_NS = "http://schemas.xmlsoap.org/soap/envelope/";
const XML_NS = "http://www.w3.org/XML/1998/namespace";

// ------------------------------------------------------------------ request side

/** A value bound from the request, after .NET conversion. Missing elements are absent from `present`. */
export type Bound = string | number | boolean | DateTimeValue | null;

/** A dateTime parameter as the facility's wall clock (any offset in the request is ignored). */
export interface DateTimeValue {
  date: string; // YYYY-MM-DD
  time: string; // HH:MM:SS
}

export interface ParsedCall {
  operation: string;
  op: ContractOperation;
  /** Bound values, with .NET defaults for missing elements (null string, 0, false, null dateTime). */
  params: Record<string, Bound>;
  /** Names of the contract parameters that were present in the body. */
  present: Set<string>;
  /** Raw text of every present parameter (for the call log). */
  raw: Record<string, string>;
}

export class SoapFaultError extends Error {
  constructor(
    readonly faultcode: "soap:Client" | "soap:Server" | "soap:VersionMismatch",
    readonly faultstring: string,
    readonly status = 500,
  ) {
    super(faultstring);
  }
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

type XmlNode = Record<string, unknown>;

function split(qname: string): { prefix: string; local: string } {
  const i = qname.indexOf(":");
  return i < 0 ? { prefix: "", local: qname } : { prefix: qname.slice(0, i), local: qname.slice(i + 1) };
}

function scope(node: unknown, parent: Map<string, string>): Map<string, string> {
  if (!node || typeof node !== "object") return parent;
  let map = parent;
  for (const [key, value] of Object.entries(node as XmlNode)) {
    if (key === "@_xmlns" || key.startsWith("@_xmlns:")) {
      if (map === parent) map = new Map(parent);
      map.set(key === "@_xmlns" ? "" : key.slice("@_xmlns:".length), String(value));
    }
  }
  return map;
}

interface Child {
  ns: string;
  local: string;
  node: unknown;
  scope: Map<string, string>;
}

function children(node: unknown, nsScope: Map<string, string>): Child[] {
  if (!node || typeof node !== "object") return [];
  const out: Child[] = [];
  for (const [key, value] of Object.entries(node as XmlNode)) {
    if (key.startsWith("@_") || key === "#text") continue;
    const { prefix, local } = split(key);
    for (const item of Array.isArray(value) ? value : [value]) {
      const s = scope(item, nsScope);
      const ns = prefix === "xml" ? XML_NS : (s.get(prefix) ?? "");
      out.push({ ns, local, node: item, scope: s });
    }
  }
  return out;
}

function textOf(node: unknown): string {
  if (node === null || node === undefined) return "";
  if (typeof node === "string") return node;
  if (typeof node === "object") {
    const t = (node as XmlNode)["#text"];
    return typeof t === "string" ? t : t === undefined ? "" : String(t);
  }
  return String(node);
}

function isNil(node: unknown): boolean {
  if (!node || typeof node !== "object") return false;
  return Object.entries(node as XmlNode).some(([k, v]) => /^@_(\w+:)?nil$/.test(k) && String(v).trim() === "true");
}

function readError(detail: string): SoapFaultError {
  return new SoapFaultError("soap:Client", `Server was unable to read request. ---> There is an error in XML document. ---> ${detail}`);
}

/** Converts element text like XmlSerializer does; throws a Fault for text .NET cannot convert. */
function convert(name: string, type: XsdType, text: string): Bound {
  const t = text.trim();
  switch (type) {
    case "s:string":
      return text;
    case "s:int":
    case "s:long": {
      if (!/^[+-]?\d+$/.test(t)) throw readError(`Input string was not in a correct format. (${name})`);
      const n = Number(t);
      if (type === "s:int" && (n > 2147483647 || n < -2147483648)) throw readError(`Value was either too large or too small for an Int32. (${name})`);
      return n;
    }
    case "s:decimal":
      if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(t)) throw readError(`Input string was not in a correct format. (${name})`);
      return t;
    case "s:boolean":
      if (t === "true" || t === "1") return true;
      if (t === "false" || t === "0") return false;
      throw readError(`The string '${t}' is not a valid Boolean value. (${name})`);
    case "s:dateTime": {
      const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2})(:\d{2})?(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/.exec(t);
      if (!m) throw readError(`The string '${t}' is not a valid AllXsd value. (${name})`);
      const date = m[1]!;
      const d = new Date(`${date}T00:00:00Z`);
      if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== date) {
        throw readError(`The string '${t}' is not a valid AllXsd value. (${name})`);
      }
      return { date, time: m[2] ? `${m[2]}${m[3] ?? ":00"}` : "00:00:00" };
    }
  }
}

function defaultFor(type: XsdType): Bound {
  switch (type) {
    case "s:int":
    case "s:long":
      return 0;
    case "s:decimal":
      return "0";
    case "s:boolean":
      return false;
    default:
      return null;
  }
}

/** The operation named by a SOAPAction header value (quoted or not), or a Fault like ASMX's. */
export function operationFromSoapAction(contract: Contract, header: string | undefined): string {
  const value = (header ?? "").trim().replace(/^"(.*)"$/, "$1");
  const name = value.startsWith(contract.soapActionPrefix) ? value.slice(contract.soapActionPrefix.length) : null;
  if (!name || !contract.operations[name]) {
    throw new SoapFaultError("soap:Client", `System.Web.Services.Protocols.SoapException: Server did not recognize the value of HTTP Header SOAPAction: ${value}.`);
  }
  return name;
}

/** Parses and binds one SOAP 1.1 request for the operation its SOAPAction names. */
export function parseRequest(contract: Contract, body: string, soapAction: string | undefined): ParsedCall {
  const operation = operationFromSoapAction(contract, soapAction);
  const op = contract.operations[operation]!;
  if (body.trim() === "") throw new SoapFaultError("soap:Client", "Server was unable to read request. ---> There is an error in XML document (0, 0). ---> Root element is missing.");
  const valid = XMLValidator.validate(body);
  if (valid !== true) {
    throw new SoapFaultError(
      "soap:Client",
      `Server was unable to read request. ---> There is an error in XML document (${valid.err.line}, ${valid.err.col}). ---> ${valid.err.msg}`,
    );
  }
  const doc = parser.parse(body) as XmlNode;
  const roots = children(doc, new Map());
  const env = roots[0];
  if (!env || env.local !== "Envelope") throw new SoapFaultError("soap:Client", "Server was unable to read request. ---> Root element is not a SOAP Envelope.");
  if (env.ns !== SOAP11_NS) {
    throw new SoapFaultError("soap:VersionMismatch", "Possible SOAP version mismatch: Envelope namespace " + env.ns + " was unexpected. Expecting " + SOAP11_NS + ".");
  }
  const bodyEl = children(env.node, env.scope).find((c) => c.local === "Body" && c.ns === SOAP11_NS);
  const opEl = bodyEl ? children(bodyEl.node, bodyEl.scope)[0] : undefined;
  if (!opEl || opEl.local !== operation || opEl.ns !== contract.namespace) {
    const found = opEl ? `<${opEl.local} xmlns='${opEl.ns}'>` : "An empty body";
    throw new SoapFaultError("soap:Client", `Server was unable to read request. ---> There is an error in XML document. ---> ${found} was not expected.`);
  }
  const params: Record<string, Bound> = {};
  const raw: Record<string, string> = {};
  const present = new Set<string>();
  const elements = new Map<string, unknown>();
  // Binding is by local name in the operation's namespace, case-sensitive; unknown elements are
  // ignored; a repeated element keeps its last value.
  for (const c of children(opEl.node, opEl.scope)) if (c.ns === contract.namespace) elements.set(c.local, c.node);
  for (const p of op.params) {
    const node = elements.get(p.name);
    if (node === undefined || isNil(node)) {
      params[p.name] = defaultFor(p.type);
      continue;
    }
    const text = textOf(node);
    raw[p.name] = text;
    params[p.name] = convert(p.name, p.type, text);
    present.add(p.name);
  }
  return { operation, op, params, present, raw };
}

// ------------------------------------------------------------------ response side

export type Cell = string | number | boolean | null | undefined;
export type Row = Record<string, Cell>;

export interface ResultTable {
  name: string;
  rows: Row[];
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const XS: Record<XsdType, string> = {
  "s:string": "xs:string",
  "s:int": "xs:int",
  "s:decimal": "xs:decimal",
  "s:boolean": "xs:boolean",
  "s:dateTime": "xs:dateTime",
  "s:long": "xs:long",
};

function columnsOf(op: ContractOperation | undefined, table: ResultTable): Array<[string, string]> {
  const declared = op?.results[table.name] ?? {};
  const cols = new Map<string, string>(Object.entries(declared).map(([k, t]) => [k, XS[t]]));
  for (const row of table.rows) for (const k of Object.keys(row)) if (!cols.has(k)) cols.set(k, "xs:string");
  return [...cols.entries()];
}

function cellText(value: Cell): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean") return value ? "true" : "false";
  return String(value);
}

/** `{Op}Response/{Op}Result` holding a .NET DataSet: inline schema, then the diffgram. */
export function dataSetResponse(contract: Contract, operation: string, tables: ResultTable[]): string {
  const op = contract.operations[operation];
  const schemaTables = tables
    .map((t) => {
      const cols = columnsOf(op, t)
        .map(([name, type]) => `<xs:element name="${name}" type="${type}" minOccurs="0" />`)
        .join("");
      return `<xs:element name="${t.name}"><xs:complexType><xs:sequence>${cols}</xs:sequence></xs:complexType></xs:element>`;
    })
    .join("");
  const schema =
    `<xs:schema id="NewDataSet" xmlns="" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:msdata="urn:schemas-microsoft-com:xml-msdata">` +
    `<xs:element name="NewDataSet" msdata:IsDataSet="true" msdata:UseCurrentLocale="true"><xs:complexType>` +
    `<xs:choice minOccurs="0" maxOccurs="unbounded">${schemaTables}</xs:choice></xs:complexType></xs:element></xs:schema>`;
  const rows = tables
    .flatMap((t) => {
      const cols = columnsOf(op, t).map(([name]) => name);
      return t.rows.map((row, i) => {
        const cells = cols
          .map((c) => {
            const text = cellText(row[c]);
            return text === null ? "" : `<${c}>${escapeXml(text)}</${c}>`;
          })
          .join("");
        return `<${t.name} diffgr:id="${t.name}${i + 1}" msdata:rowOrder="${i}">${cells}</${t.name}>`;
      });
    })
    .join("");
  const diffgram = rows
    ? `<diffgr:diffgram xmlns:msdata="urn:schemas-microsoft-com:xml-msdata" xmlns:diffgr="urn:schemas-microsoft-com:xml-diffgram-v1"><NewDataSet xmlns="">${rows}</NewDataSet></diffgr:diffgram>`
    : `<diffgr:diffgram xmlns:msdata="urn:schemas-microsoft-com:xml-msdata" xmlns:diffgr="urn:schemas-microsoft-com:xml-diffgram-v1" />`;
  return envelope(`<${operation}Response xmlns="${contract.namespace}"><${operation}Result>${schema}${diffgram}</${operation}Result></${operation}Response>`);
}

function envelope(bodyContent: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?>` +
    `<soap:Envelope xmlns:soap="${SOAP11_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">` +
    `<soap:Body>${bodyContent}</soap:Body></soap:Envelope>`
  );
}

export function faultResponse(fault: SoapFaultError): string {
  return envelope(
    `<soap:Fault><faultcode>${fault.faultcode}</faultcode><faultstring>${escapeXml(fault.faultstring)}</faultstring><detail /></soap:Fault>`,
  );
}

/** The body IIS sends with a bare HTTP 500 (no SOAP envelope), for fault injection. */
export function iisErrorPage(status: number, title: string): string {
  return `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml"><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"/>
<title>${status} - ${title}</title></head><body><div id="header"><h1>Server Error</h1></div>
<div id="content"><fieldset><h2>${status} - ${title}</h2></fieldset></div></body></html>`;
}

// ------------------------------------------------------------------ WSDL

const WSDL_TYPES: Record<XsdType, string> = {
  "s:string": "s:string",
  "s:int": "s:int",
  "s:decimal": "s:decimal",
  "s:boolean": "s:boolean",
  "s:dateTime": "s:dateTime",
  "s:long": "s:long",
};

/** A WSDL like ASMX generates, from the same contract (SOAP 1.1 binding). */
export function wsdl(contract: Contract, location: string): string {
  const ns = contract.namespace;
  const names = Object.keys(contract.operations);
  const elements = names
    .map((name) => {
      const params = contract.operations[name]!.params
        .map((p) =>
          p.type === "s:string"
            ? `<s:element minOccurs="0" maxOccurs="1" name="${p.name}" type="s:string" />`
            : `<s:element minOccurs="1" maxOccurs="1" name="${p.name}" type="${WSDL_TYPES[p.type]}" />`,
        )
        .join("");
      return (
        `<s:element name="${name}"><s:complexType><s:sequence>${params}</s:sequence></s:complexType></s:element>` +
        `<s:element name="${name}Response"><s:complexType><s:sequence><s:element minOccurs="0" maxOccurs="1" name="${name}Result">` +
        `<s:complexType><s:sequence><s:element ref="s:schema" /><s:any /></s:sequence></s:complexType></s:element></s:sequence></s:complexType></s:element>`
      );
    })
    .join("");
  const messages = names
    .map((n) => `<wsdl:message name="${n}SoapIn"><wsdl:part name="parameters" element="tns:${n}" /></wsdl:message><wsdl:message name="${n}SoapOut"><wsdl:part name="parameters" element="tns:${n}Response" /></wsdl:message>`)
    .join("");
  const portOps = names
    .map((n) => `<wsdl:operation name="${n}"><wsdl:input message="tns:${n}SoapIn" /><wsdl:output message="tns:${n}SoapOut" /></wsdl:operation>`)
    .join("");
  const bindingOps = names
    .map(
      (n) =>
        `<wsdl:operation name="${n}"><soap:operation soapAction="${contract.soapActionPrefix}${n}" style="document" />` +
        `<wsdl:input><soap:body use="literal" /></wsdl:input><wsdl:output><soap:body use="literal" /></wsdl:output></wsdl:operation>`,
    )
    .join("");
  return (
    `<?xml version="1.0" encoding="utf-8"?>` +
    `<wsdl:definitions xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:tns="${ns}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" targetNamespace="${ns}">` +
    `<wsdl:types><s:schema elementFormDefault="qualified" targetNamespace="${ns}"><s:import namespace="http://www.w3.org/2001/XMLSchema" />${elements}</s:schema></wsdl:types>` +
    `${messages}<wsdl:portType name="CallCenterWsSoap">${portOps}</wsdl:portType>` +
    `<wsdl:binding name="CallCenterWsSoap" type="tns:CallCenterWsSoap"><soap:binding transport="http://schemas.xmlsoap.org/soap/http" />${bindingOps}</wsdl:binding>` +
    `<wsdl:service name="CallCenterWs"><wsdl:port name="CallCenterWsSoap" binding="tns:CallCenterWsSoap"><soap:address location="${escapeXml(location)}" /></wsdl:port></wsdl:service>` +
    `</wsdl:definitions>`
  );
}
