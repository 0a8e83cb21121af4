/**
 * Helpers the rentals and tenants parts share on top of the SOAP client (./client.ts): the client
 * sends every parameter of the contract in order, never retries a write, throws SiteLinkCallError on
 * no usable answer, and returns `{tables, retCode, retMsg}` without judging RT codes.
 */
import type { SoapAnswer } from "./dataset";


export const rows = (a: SoapAnswer, table: string) => a.tables[table] ?? [];

/** A SiteLink datetime parameter for a calendar date (full form: bare dates broke ScheduleMoveOut, LK-A). */
export const siteLinkDate = (isoDate: string, time = "00:00:00") => `${isoDate}T${time}`;
