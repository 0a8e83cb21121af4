/**
 * What the rentals and tenants parts of the SiteLink adapter need from the SOAP client: one call that
 * sends an operation with its parameters and returns the parsed DataSet tables and the RT status row.
 * The client (./client.ts) sends every parameter of the contract in order, never retries a write and
 * throws on no answer (timeout, network, HTTP 5xx, SOAP Fault, unparsable XML).
 */
export type Row = Record<string, string | undefined>;

export interface SoapAnswer {
  /** Rows per table name (`Table`, `Table1`, `Ledgers`, `PmtHistory`, `RT` ...). */
  tables: Record<string, Row[]>;
  /** RT.Ret_Code when the answer has one. */
  retCode: number | null;
  retMsg: string;
}

export type SiteLinkParams = Record<string, string | number | boolean | null | undefined>;

/** Sends one operation. `write` calls are never retried by the transport. */
export type SiteLinkCall = (operation: string, params: SiteLinkParams, options: { write: boolean }) => Promise<SoapAnswer>;

export const rows = (a: SoapAnswer, table: string): Row[] => a.tables[table] ?? [];

/** A SiteLink datetime parameter for a calendar date (full form: bare dates broke ScheduleMoveOut, LK-A). */
export const siteLinkDate = (isoDate: string, time = "00:00:00") => `${isoDate}T${time}`;
