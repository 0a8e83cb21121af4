/**
 * Reads of a SiteLink tenant's ledgers shared by the move-in (reconciliation), the portal (tenants,
 * autopay) and office sign-ins: LedgersByTenantID_v3 (table Ledgers, LK production).
 */
import { rows } from "./calls";
import { type Row } from "./dataset";
import { type SiteLinkCall } from "./client";
import { readFailed } from "./errors";

export async function readLedgers(call: SiteLinkCall, siteLinkTenantId: string): Promise<Row[]> {
  const a = await call("LedgersByTenantID_v3", { sTenantID: siteLinkTenantId }, { write: false });
  if (a.retCode != null && a.retCode < 0 && rows(a, "Ledgers").length === 0) {
    // "No ledgers" comes back as an empty set or a non-positive code; -1 is also "could not read".
    if (a.retCode === -1) throw readFailed(a, "LedgersByTenantID_v3")!;
    return [];
  }
  return rows(a, "Ledgers");
}
