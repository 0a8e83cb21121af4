/**
 * The checked-in SiteLink operation contract (app/storage-software/sitelink/operations.json), shared
 * with the adapter: the simulator binds parameters and describes result tables from it, and serves
 * its WSDL from it.
 */
import { readFileSync } from "node:fs";

export type XsdType = "s:string" | "s:int" | "s:decimal" | "s:boolean" | "s:dateTime" | "s:long";

export interface ContractParam {
  name: string;
  type: XsdType;
  /** A missing element binds a default SiteLink accepts (otherwise the call answers RT -1). */
  optional?: boolean;
}

export interface ContractOperation {
  confidence: "live" | "code" | "doc" | "inf";
  source: string;
  kind: "read" | "write";
  params: ContractParam[];
  /** Table name -> column name -> XSD type, in column order. */
  results: Record<string, Record<string, XsdType>>;
  notes?: string;
}

export interface Contract {
  namespace: string;
  path: string;
  soapActionPrefix: string;
  authParams: string[];
  operations: Record<string, ContractOperation>;
}

let cached: Contract | null = null;

export function loadContract(): Contract {
  cached ??= JSON.parse(
    readFileSync(new URL("../app/storage-software/sitelink/operations.json", import.meta.url), "utf8"),
  ) as Contract;
  return cached;
}
