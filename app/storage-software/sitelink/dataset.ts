/**
 * SiteLink's answers: `{Op}Response/{Op}Result` holding an inline `xs:schema` and a
 * `diffgr:diffgram/NewDataSet` whose children are rows named by table (`Table`, `Table1`, `RT`,
 * `Ledgers`, `PmtHistory` ...). Every value is a string; null columns are omitted (study §2).
 *
 * Parsed with fast-xml-parser: namespace prefixes removed, values kept as strings (never "10.0000" ->
 * 10), attributes ignored, and every row an array even when there is one. A SOAP Fault or XML that
 * is not such an answer throws DataSetError.
 */
import { XMLParser } from "fast-xml-parser";

export type Row = Record<string, string | undefined>;

export interface SoapAnswer {
  /** Rows per table name. */
  tables: Record<string, Row[]>;
  /** RT.Ret_Code when the answer has one. */
  retCode: number | null;
  retMsg: string;
}

export class DataSetError extends Error {
  override name = "DataSetError";
  constructor(
    message: string,
    public readonly kind: "fault" | "malformed",
    public readonly faultCode?: string,
  ) {
    super(message);
  }
}

const ROW_PATH = /\.diffgram\.NewDataSet\.[^.]+$/;

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (_name, jpath) => ROW_PATH.test(String(jpath)),
});

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

function toRow(raw: unknown): Row {
  const row: Row = {};
  if (!isNode(raw)) return row; // an empty row element: every column null
  for (const [column, value] of Object.entries(raw)) {
    if (typeof value === "string") row[column] = value;
    else if (Array.isArray(value)) row[column] = value.map((v) => (typeof v === "string" ? v : "")).join(",");
    else if (isNode(value) && typeof value["#text"] === "string") row[column] = value["#text"];
    else row[column] = "";
  }
  return row;
}

/** Parses one answer of `operation`. Throws DataSetError on a Fault or anything unparsable. */
export function parseAnswer(xml: string, operation: string): SoapAnswer {
  let doc: Node;
  try {
    const parsed: unknown = parser.parse(xml, true);
    if (!isNode(parsed)) throw new Error("no document");
    doc = parsed;
  } catch (error) {
    throw new DataSetError(`${operation}: unparsable XML (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`, "malformed");
  }
  const body = isNode(doc.Envelope) && isNode(doc.Envelope.Body) ? doc.Envelope.Body : null;
  if (!body) throw new DataSetError(`${operation}: not a SOAP envelope`, "malformed");
  if (isNode(body.Fault)) {
    const code = typeof body.Fault.faultcode === "string" ? body.Fault.faultcode : "";
    const text = typeof body.Fault.faultstring === "string" ? body.Fault.faultstring : "";
    throw new DataSetError(`${operation}: SOAP Fault ${code}: ${text.split("\n")[0]}`.slice(0, 300), "fault", code);
  }
  const response = body[`${operation}Response`];
  if (response === undefined) throw new DataSetError(`${operation}: answer has no ${operation}Response`, "malformed");
  const result = isNode(response) ? response[`${operation}Result`] : undefined;
  const diffgram = isNode(result) ? result.diffgram : undefined;
  const dataSet = isNode(diffgram) ? diffgram.NewDataSet : undefined;

  const tables: Record<string, Row[]> = {};
  if (isNode(dataSet)) {
    for (const [table, rows] of Object.entries(dataSet)) {
      tables[table] = (Array.isArray(rows) ? rows : [rows]).map(toRow);
    }
  }
  // An empty result ("" or a diffgram without NewDataSet) is no rows, not an error.

  const rt = tables.RT?.[0];
  const code = rt?.Ret_Code?.trim();
  const retCode = code && /^-?\d+$/.test(code) ? Number(code) : null;
  const answer: SoapAnswer = { tables, retCode, retMsg: rt?.Ret_Msg ?? "" };
  rawXml.set(answer, xml);
  return answer;
}

// ------------------------------------------------------------------ the answer's own schema

const schemaParser = new XMLParser({ removeNSPrefix: true, ignoreAttributes: false, attributeNamePrefix: "@_", parseTagValue: false, processEntities: false, htmlEntities: false });
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/**
 * The tables and columns the answer's inline xs:schema declares (a null value is left out of a row, so
 * a column is present when the schema declares it or a row carries it).
 */
export function schemaTables(xml: string, operation: string): Record<string, Set<string>> {
  const out: Record<string, Set<string>> = {};
  let doc: unknown;
  try {
    doc = schemaParser.parse(xml);
  } catch {
    return out;
  }
  const body = isNode(doc) && isNode(doc.Envelope) ? doc.Envelope.Body : null;
  const response = isNode(body) ? body[`${operation}Response`] : null;
  const result = isNode(response) ? response[`${operation}Result`] : null;
  const schema = isNode(result) ? result.schema : null;
  const walk = (node: unknown) => {
    for (const n of list(node)) {
      if (!isNode(n)) continue;
      const name = n["@_name"];
      const sequence = isNode(n.complexType) ? n.complexType.sequence : undefined;
      if (typeof name === "string" && isNode(sequence) && name !== "NewDataSet") {
        out[name] = new Set(list(sequence.element).flatMap((e) => (isNode(e) && typeof e["@_name"] === "string" ? [e["@_name"]] : [])));
        continue;
      }
      for (const [key, value] of Object.entries(n)) if (!key.startsWith("@_")) walk(value);
    }
  };
  walk(schema);
  return out;
}

/** The raw XML of each parsed answer, for its schema (read only when asked: `declaredColumns`). */
const rawXml = new WeakMap<SoapAnswer, string>();

/**
 * The columns the answer's inline xs:schema declares for `table` (a null value is left out of a row,
 * so a column is in the answer when its schema declares it or a row carries it); null when unknown.
 */
export function declaredColumns(answer: SoapAnswer, operation: string, table: string): Set<string> | null {
  const xml = rawXml.get(answer);
  if (xml === undefined) return null;
  return schemaTables(xml, operation)[table] ?? new Set();
}

export const rowsOf = (answer: SoapAnswer, table: string): Row[] => answer.tables[table] ?? [];
