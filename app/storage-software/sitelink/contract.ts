/**
 * The shape of the checked-in operation contract (./operations.json): for each CallCenterWs operation
 * its ordered parameters with their XSD types, whether it writes, and the tables it answers with.
 * The envelope is built only from it (study §8.5: a misspelled or missing parameter is a silent `-1`).
 */
export type XsdType = "s:string" | "s:int" | "s:decimal" | "s:boolean" | "s:dateTime";

export interface ParamSpec {
  name: string;
  type: XsdType;
  /** A missing value may be sent as the type's neutral default (SiteLink accepts it). */
  optional?: boolean;
}

export interface OperationSpec {
  kind: "read" | "write";
  params: ParamSpec[];
  results?: Record<string, Record<string, string>>;
  confidence?: string;
  source?: string;
  notes?: unknown;
}

export interface OperationContract {
  namespace: string;
  path: string;
  soapActionPrefix: string;
  authParams: string[];
  operations: Record<string, OperationSpec>;
}
