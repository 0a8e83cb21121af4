/**
 * "Check SiteLink again" for one journal row that is not a move-in (issue 23, decision 341): SiteLink
 * is read back and the row settled only when the read proves the outcome; nothing is ever sent again.
 * A move-in goes through the site's own reconciliation (services/move-in.server.ts
 * `confirmRentalMoveIn`), so it is not here.
 *
 * Per kind (the key's prefix, app/domain/desk/journal.ts `journalWriteKind`):
 * - tenant:<rental>             TenantNewDetailed_v3 of an online rental: the tenant looked up by the
 *                               rental's e-mail and note (what the move-in itself does on its return);
 * - reservation:<key>           ReservationNewWithSource_v5: SiteLink's reservations of our tenant for our unit;
 * - reservation-cancel:<id>     ReservationUpdate_v4: the reservation's status read back by WaitingID;
 * - contact:<tenant>:<uuid>     TenantUpdate_v3: the record read back and compared with the fields sent;
 * - payment:<key>               PaymentSimple*: a new receipt of the amount on the ledger (not in `before`);
 * - autopay:<ledger>:…          TenantBillingInfoUpdate_v2: the ledger's autopay setting read back;
 * - moveout:<ledger>:<date>     ScheduleMoveOut: the ledger's scheduled move-out date read back.
 * Found: settled done. Not found before the settle time: "not yet" (a slow commit is never taken for
 * none). Not found after it: settled failed (SiteLink did nothing; the operator is told what that
 * means). SiteLink unreachable: the caller's error (SoftwareUnreachableError), nothing settled.
 */
import { and, eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { leases, locations, rentals, reservations, sitelinkWrites, tenantSoftwareLinks, units } from "~/db/schema";
import { JOURNAL_UNCHECKABLE, journalWriteKind } from "~/domain/desk/journal";
import { formatCents } from "~/domain/shared/money";
import { rows } from "./calls";
import { okRead } from "./errors";
import { siteLinkDeps } from "./index";
import { createJournal } from "./journal";
import { readLedgers } from "./ledger-reads";
import { recordFoundPayment } from "./payments-unclear";
import { dateOf, decimalToCents } from "./quote";
import { loadSiteLinkSettings, settleAfterMsFor } from "./settings";
import { showsFields, type OwnedFields } from "./tenant-contact";
import { findTenantWithNote, tenantNote } from "./tenant-records";

type JournalReadBack =
  /** SiteLink shows the write: the row is settled done. */
  | { kind: "applied"; message: string }
  /** SiteLink does not show it after the settle time: the row is settled failed. */
  | { kind: "not_applied"; message: string }
  /** Not shown yet, and too early to say it never will be: nothing changed. */
  | { kind: "not_yet"; message: string }
  /** This row cannot be checked against SiteLink (the reason is the message): nothing changed. */
  | { kind: "not_checkable"; message: string };

const NOT_YET = "SiteLink does not show it yet, and it is too early to say it did not happen. Nothing was sent again; check again in a few minutes.";

/** Reads SiteLink back for one open journal row of the location and settles it when the read proves it. */
export async function checkJournalWrite(db: Database, input: { key: string; now: Date }): Promise<JournalReadBack> {
  const [row] = await db
    .select({ locationId: locations.id, name: locations.name, software: locations.software, status: locations.status })
    .from(locations)
    .innerJoin(sitelinkWrites, eq(sitelinkWrites.locationId, locations.id))
    .where(eq(sitelinkWrites.idempotencyKey, input.key));
  if (!row) return { kind: "not_checkable", message: "This row is no longer in the journal." };
  const kind = journalWriteKind(input.key);
  const why = JOURNAL_UNCHECKABLE[kind];
  if (why || kind === "move_in") return { kind: "not_checkable", message: why ?? "A move-in is checked through its rental." };
  const journal = createJournal(db, row.locationId);
  const entry = await journal.get(input.key);
  if (!entry || (entry.state !== "pending" && entry.state !== "unknown")) return { kind: "not_checkable", message: "This row is settled already: there is nothing to check." };
  const settings = await loadSiteLinkSettings(db, row.locationId);
  if (!settings) return { kind: "not_checkable", message: "This location is not connected to SiteLink now, so it cannot be checked from here. Check SiteLink, then mark this resolved." };
  const { call } = siteLinkDeps(db, { id: row.locationId, name: row.name, software: row.software, status: row.status }, { settings });
  const settled = input.now.getTime() - entry.startedAt.getTime() >= settleAfterMsFor(settings);
  const x = entry.externalIds;

  const applied = async (message: string, externalIds?: Record<string, string>): Promise<JournalReadBack> => {
    await journal.settle(entry.key, "done", { externalIds, error: "confirmed by reading SiteLink back (back office)", now: input.now });
    return { kind: "applied", message };
  };
  const missing = async (message: string): Promise<JournalReadBack> => {
    if (!settled) return { kind: "not_yet", message: NOT_YET };
    await journal.settle(entry.key, "failed", { error: "not found in SiteLink after the settle time (back office check)", now: input.now });
    return { kind: "not_applied", message };
  };

  /** The SiteLink TenantID behind a ledger of this location (our lease, then the tenant's link). */
  async function tenantOfLedger(ledgerId: string): Promise<string | null> {
    const [link] = await db
      .select({ externalTenantId: tenantSoftwareLinks.externalTenantId })
      .from(leases)
      .innerJoin(tenantSoftwareLinks, and(eq(tenantSoftwareLinks.tenantId, leases.tenantId), eq(tenantSoftwareLinks.locationId, leases.locationId)))
      .where(and(eq(leases.externalId, ledgerId), eq(leases.locationId, row!.locationId)));
    return link?.externalTenantId ?? null;
  }

  switch (kind) {
    case "move_in_tenant": {
      const rentalId = entry.key.split(":")[1] ?? "";
      const [rental] = await db.select({ details: rentals.tenantDetails }).from(rentals).where(eq(rentals.id, rentalId));
      const email = typeof rental?.details?.email === "string" ? rental.details.email.trim().toLowerCase() : "";
      if (!email) return { kind: "not_checkable", message: "The rental this tenant was made for is gone, so there is nothing to look it up by. Check SiteLink, then mark this resolved." };
      const found = await findTenantWithNote(call, email, tenantNote(rentalId));
      if (found) return applied(`SiteLink has the tenant (TenantID ${found.tenantId}): the rental goes on with it. Nothing was sent again.`, { tenantId: found.tenantId });
      return missing("SiteLink has no such tenant: nothing was created. The renter's next attempt creates it; nothing was sent again.");
    }
    case "reservation": {
      const [r] = await db
        .select({ id: reservations.id, externalId: reservations.externalId, unitExternalId: units.externalId })
        .from(reservations)
        .innerJoin(units, eq(units.id, reservations.unitId))
        .where(and(eq(reservations.idempotencyKey, entry.key.slice("reservation:".length)), eq(reservations.locationId, row.locationId)));
      if (!r) return { kind: "not_checkable", message: "The reservation is no longer kept here. Check SiteLink, then mark this resolved." };
      const tenantId = x.tenantId ?? "";
      const list = okRead(await call("ReservationList_v3", { iGlobalWaitingNum: 0, WaitingID: Number(r.externalId ?? 0) }, { write: false }), "ReservationList_v3");
      const match = rows(list, "Table").find((w) => (r.externalId ? w.WaitingID === r.externalId : w.TenantID === tenantId && w.UnitID === r.unitExternalId));
      if (match?.WaitingID) {
        await db.update(reservations).set({ externalId: match.WaitingID }).where(eq(reservations.id, r.id));
        return applied(`SiteLink has the reservation (WaitingID ${match.WaitingID}): the office sees it. Nothing was sent again.`, { waitingId: match.WaitingID });
      }
      return missing("SiteLink has no such reservation: the office does not see it, though the visitor's reservation stands here. Enter it in SiteLink if the office needs it, then mark this resolved.");
    }
    case "reservation_cancel": {
      const [r] = await db
        .select({ externalId: reservations.externalId })
        .from(reservations)
        .where(and(eq(reservations.id, Number(entry.key.slice("reservation-cancel:".length)) || 0), eq(reservations.locationId, row.locationId)));
      if (!r?.externalId) return { kind: "not_checkable", message: "The reservation is no longer kept here. Check SiteLink, then mark this resolved." };
      const list = okRead(await call("ReservationList_v3", { iGlobalWaitingNum: 0, WaitingID: Number(r.externalId) }, { write: false }), "ReservationList_v3");
      const w = rows(list, "Table").find((t) => t.WaitingID === r.externalId);
      if (w && Number(w.iWaitingStatus ?? 0) !== 0) return applied(`SiteLink shows reservation ${r.externalId} closed: the cancellation went through. Nothing was sent again.`);
      return missing(`SiteLink still shows reservation ${r.externalId} as active: the cancellation did not go through. Cancel it in SiteLink, then mark this resolved.`);
    }
    case "contact": {
      if (x.fields === undefined) return { kind: "not_checkable", message: "The change's details were removed from the journal (it is too old), so it cannot be compared. Check SiteLink, then mark this resolved." };
      const tenantId = x.tenantId ?? entry.key.split(":")[1] ?? "";
      const a = okRead(await call("TenantInfoByTenantID", { iTenantID: Number(tenantId) }, { write: false }), "TenantInfoByTenantID");
      const record = rows(a, "Table")[0];
      if (record && showsFields(record, JSON.parse(x.fields) as OwnedFields)) return applied(`SiteLink's record of tenant ${tenantId} shows the change: it went through. Nothing was sent again.`);
      return missing(`SiteLink's record of tenant ${tenantId} does not show the change: it was not applied. The tenant can make it again; nothing was sent again.`);
    }
    case "payment": {
      const amount = Number(x.amount);
      const before = (x.before ?? "").split(",").filter(Boolean);
      if (!x.ledgerId || !Number.isInteger(amount)) return { kind: "not_checkable", message: "The journal does not say which ledger or amount this payment was for. Check SiteLink, then mark this resolved." };
      const a = okRead(await call("PaymentsByLedgerID", { sLedgerID: x.ledgerId }, { write: false }), "PaymentsByLedgerID");
      const found = rows(a, "PmtHistory").find((p) => p.Receipt && !before.includes(p.Receipt) && decimalToCents(p.Payment) === amount);
      if (found?.Receipt) {
        // The tenant's payment recorded here too (once), as the scheduled read-back does (decision 481).
        await recordFoundPayment(db, row.locationId, entry, found.Receipt, input.now);
        return applied(`SiteLink booked this payment of ${formatCents(amount)} (receipt ${found.Receipt}) on ledger ${x.ledgerId}. Nothing was sent again.`, { receipt: found.Receipt });
      }
      return missing(`SiteLink has no new payment of ${formatCents(amount)} on ledger ${x.ledgerId}: nothing was booked. The tenant may pay again; nothing was sent again.`);
    }
    case "autopay_billing": {
      const [, ledgerId = "", ...rest] = entry.key.split(":");
      // autopay:<ledger>:<ms>:<type>:<hex> (a change in the portal), else autopay:<ledger>:<key> (enrolled at move-in: on).
      const autoBillType = rest.length === 3 ? Number(rest[1]) : 1;
      const tenantId = await tenantOfLedger(ledgerId);
      if (!tenantId) return { kind: "not_checkable", message: "No tenant here is linked to this ledger, so it cannot be read back. Check SiteLink, then mark this resolved." };
      const a = okRead(await call("TenantBillingInfoByTenantID_v3", { iTenantID: Number(tenantId) }, { write: false }), "TenantBillingInfoByTenantID_v3");
      const billing = rows(a, "Table").find((b) => b.LedgerID === ledgerId);
      const wanted = autoBillType === 0 ? "off" : "on";
      if (billing && Number(billing.iAutoBillType ?? 0) === autoBillType) return applied(`SiteLink shows autopay ${wanted} for ledger ${ledgerId}: the change went through. Nothing was sent again.`);
      return missing(`SiteLink does not show autopay ${wanted} for ledger ${ledgerId}: the change was not applied. Nothing was sent again; set it in SiteLink or ask the tenant to set it again.`);
    }
    case "move_out": {
      const [, ledgerId = "", date = ""] = entry.key.split(":");
      const tenantId = await tenantOfLedger(ledgerId);
      if (!tenantId) return { kind: "not_checkable", message: "No tenant here is linked to this ledger, so it cannot be read back. Check SiteLink, then mark this resolved." };
      const ledger = (await readLedgers(call, tenantId)).find((l) => l.LedgerID === ledgerId);
      if (dateOf(ledger?.dSchedOut) === date) return applied(`SiteLink's ledger ${ledgerId} shows the move-out date ${date}: it went through. Nothing was sent again.`);
      return missing(`SiteLink's ledger ${ledgerId} does not show the move-out date ${date}: it was not applied. Set it in SiteLink, then mark this resolved; nothing was sent again.`);
    }
    default:
      return { kind: "not_checkable", message: JOURNAL_UNCHECKABLE.other! };
  }
}

