/** Small helpers shared by the operations (no imports from the simulator core: no cycles). */
import { readingsOf, type SiteReadings } from "./state";
import type { Bound, DateTimeValue, ResultTable, Row } from "./wire";

export function rt(code: number, message: string, extra: Row = {}): ResultTable {
  return { name: "RT", rows: [{ Ret_Code: code, Ret_Msg: message, ...extra }] };
}

/**
 * The success answer of a write no source shows an answer of (ScheduleMoveOut, TenantUpdate_v3,
 * PaymentSimpleWithSource, PaymentSimpleCheckWithSource): the id, or 0, by the site's reading.
 */
export function successRt(site: { readings?: Partial<SiteReadings> }, id: number, message = ""): ResultTable {
  return rt(readingsOf(site).successCode === "zero" ? 0 : id, message);
}

export function str(v: Bound | undefined): string {
  return typeof v === "string" ? v : v === null || v === undefined ? "" : String(v);
}

export function int(v: Bound | undefined): number {
  return typeof v === "number" ? v : 0;
}

export function bool(v: Bound | undefined): boolean {
  return v === true;
}

export function dateTime(v: Bound | undefined): DateTimeValue | null {
  return v && typeof v === "object" ? v : null;
}

/** A site-scoped integer id sent as a string parameter (sTenantID, sLedgerID...): NaN when not a number. */
export function idFromString(v: Bound | undefined): number {
  const t = str(v).trim();
  return /^\d+$/.test(t) ? Number(t) : NaN;
}
