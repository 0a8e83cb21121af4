/**
 * Reservations at a SiteLink location (study §3.3, §3.6). Our `reservations` row stays the record the
 * visitor's links use (confirmation code, cancel-token hash, idempotency key: SiteLink has none of
 * them); SiteLink gets the tenant and a reservation (ReservationNewWithSource_v5, WaitingID kept as
 * `externalId`) so that the office sees it. Cancelling and expiring cancel it in SiteLink too
 * (ReservationUpdate_v4 with every field read back first: the update overwrites all of them, iStatus 2).
 * Every SiteLink write is journalled; a write without an answer is looked for again, never resent blindly.
 */
import { and, eq, lte } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations, reservations, units } from "~/db/schema";
import type { LocationRef, ReservationRecord, Rentals, ReserveInput } from "../port";
import { SoftwareUnreachableError, StorageSoftwareError, UnitUnavailableError } from "../errors";
import { readAnswer, type AnswerOutcome } from "./answers";
import { mayHaveBeenApplied } from "./errors";
import { sharedRentals } from "../shared/rentals";
import { rows, siteLinkDate } from "./calls";
import { type Row } from "./dataset";
import { type SiteLinkCall } from "./client";
import { freshUnitRow } from "./holds";
import { createJournal } from "./journal";
import { centsToDecimal } from "./quote";
import { findTenantWithNote, tenantParams } from "./tenant-records";
import { rentableNow } from "./sync";
import { isWebRatesEnabledAt, settleAfterMsFor, type SiteLinkSettings } from "./settings";
import { monthlyRateFor } from "~/domain/site/rates";
import { logger } from "~/platform/logger.server";

interface SiteLinkReservationsDeps {
  db: Database;
  location: LocationRef;
  call: SiteLinkCall;
  /** For SiteLink's settle time (an unanswered cancellation older than it is retried by the sweep). */
  settings?: Pick<SiteLinkSettings, "writeTimeoutMs">;
}

type SiteLinkReservations = Pick<Rentals, "reserveUnit" | "getReservation" | "cancelReservation" | "expireReservations">;

const CANCELLED = 2;
/** The journal key prefix of a reservation's cancellation in SiteLink (one row per reservation). */
const CANCEL_PREFIX = "reservation-cancel:";

/** "YYYY-MM-DDTHH:MM:SS" wall clock in the site's time zone (SiteLink's datetimes carry no offset). */
function wallClock(at: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}

export function siteLinkReservations(deps: SiteLinkReservationsDeps): SiteLinkReservations {
  const { db, location, call } = deps;
  const local = sharedRentals(db, location);
  const journal = createJournal(db, location.id);

  /**
   * Our local claim goes (nothing half-saved): the reservation row, and its unit set to `to`. Back to
   * available only while the unit is still reserved (never over a rental made meanwhile).
   */
  async function dropClaim(claim: { id: string | number; unitId: string | number }, to: "available" | "rented" | "unavailable"): Promise<void> {
    await db.delete(reservations).where(eq(reservations.id, Number(claim.id)));
    const unit = eq(units.id, Number(claim.unitId));
    await db
      .update(units)
      .set({ status: to })
      .where(to === "available" ? and(unit, eq(units.status, "reserved")) : unit);
  }

  async function timeZone(): Promise<string> {
    const [row] = await db.select({ tz: locations.timeZone }).from(locations).where(eq(locations.id, location.id));
    return row?.tz.timeZoneId ?? "America/New_York";
  }

  /** SiteLink's reservation row, by WaitingID. */
  async function readReservation(waitingId: string): Promise<Row | null> {
    const a = await call("ReservationList_v3", { iGlobalWaitingNum: 0, WaitingID: Number(waitingId) }, { write: false });
    return rows(a, "Table").find((r) => r.WaitingID === waitingId) ?? null;
  }

  /** Cancels the reservation in SiteLink (idempotent: already cancelled or converted is fine). */
  async function cancelInSiteLink(r: typeof reservations.$inferSelect, now: Date, reason: string): Promise<void> {
    if (!r.externalId) return;
    const current = await readReservation(r.externalId);
    if (!current || Number(current.iWaitingStatus ?? 0) !== 0) return;
    const key = `${CANCEL_PREFIX}${r.id}`;
    const { created } = await journal.begin({
      key,
      operation: "ReservationUpdate_v4",
      fingerprint: r.externalId,
      // Kept for the sweep's retry (below): why it was cancelled, as SiteLink's record says.
      externalIds: { waitingId: r.externalId, purpose: reason },
      now,
    });
    if (!created) return;
    await sendCancel(key, r, current, reason, now);
  }

  /** ReservationUpdate_v4 with iStatus 2, every other field as SiteLink's record has it; the journal row `key` settled. */
  async function sendCancel(key: string, r: typeof reservations.$inferSelect, current: Row, reason: string, now: Date): Promise<void> {
    try {
      const a = await call(
        "ReservationUpdate_v4",
        {
          WaitingID: Number(r.externalId),
          sTenantID: current.TenantID ?? "",
          sUnitID: current.UnitID ?? "",
          dNeeded: current.dNeeded?.slice(0, 19) ?? siteLinkDate(r.desiredMoveInDate),
          sComment: current.sComment ?? "",
          iStatus: CANCELLED,
          bFollowup: false,
          dFollowup: current.dFollowup?.slice(0, 19) ?? siteLinkDate(r.desiredMoveInDate),
          dFollowupLast: current.dFollowupLast?.slice(0, 19) ?? siteLinkDate(r.desiredMoveInDate),
          iInquiryType: Number(current.iInquiryType ?? 2),
          dcQuotedRate: current.dcRate_Quoted ?? "0",
          dExpires: current.dExpires?.slice(0, 19) ?? siteLinkDate(r.desiredMoveInDate),
          QTRentalTypeID: Number(current.QTRentalTypeID ?? 2),
          QTCancellationTypeID: Number(current.QTCancellationTypeID ?? 0),
          sCancellationReason: reason,
          ConcessionID: Number(current.ConcessionID ?? -999),
        },
        { write: true },
      );
      // LSETUP answers 0 on success (answers.ts); a code that does not say is read back by the next sweep.
      const outcome = readAnswer("ReservationUpdate_v4", a);
      await journal.settle(key, outcome.kind === "ok" ? "done" : outcome.kind === "refused" ? "failed" : "unknown", {
        error: outcome.kind === "ok" ? null : outcome.message,
        now,
      });
    } catch (error) {
      // Idempotent by nature (cancelling twice is harmless); the expiry sweep reads it back and tries again.
      await journal.settle(key, "unknown", {
        error: error instanceof Error ? error.message : String(error),
        now,
      });
      logger.warn(`[sitelink] cancelling reservation ${r.externalId} at ${location.name} got no answer; it will be checked again`);
    }
  }

  /**
   * The sweep's retry of cancellations that got no (clear) answer: SiteLink's reservation is read
   * first; closed there (cancelled or converted) settles the row done; still active means the
   * cancellation did not take, and it is sent again (harmless to repeat) by the one process that
   * reopens the row. SiteLink unreadable: left for the next sweep.
   */
  async function retryCancellations(now: Date): Promise<void> {
    const staleBefore = new Date(now.getTime() - settleAfterMsFor(deps.settings ?? { writeTimeoutMs: 45_000 }));
    for (const entry of await journal.open(["ReservationUpdate_v4"])) {
      if (!entry.key.startsWith(CANCEL_PREFIX) || (entry.state === "pending" && entry.startedAt >= staleBefore)) continue;
      const [r] = await db
        .select()
        .from(reservations)
        .where(and(eq(reservations.id, Number(entry.key.slice(CANCEL_PREFIX.length)) || 0), eq(reservations.locationId, location.id)));
      if (!r?.externalId) continue;
      // Not listed (or not readable now): left as it is; a reservation SiteLink has stays listed, cancelled or not.
      const current = await readReservation(r.externalId).catch(() => null);
      if (!current) continue;
      if (Number(current.iWaitingStatus ?? 0) !== 0) {
        await journal.settle(entry.key, "done", { error: "read back: SiteLink shows the reservation closed", now });
        continue;
      }
      if (!(await journal.reopen(entry.key, now, staleBefore))) continue;
      await sendCancel(entry.key, r, current, entry.externalIds.purpose || "Cancelled online", now);
    }
  }

  async function expireReservations(now: Date): Promise<number> {
    const due = await db
      .select()
      .from(reservations)
      .where(and(eq(reservations.locationId, location.id), eq(reservations.status, "active"), lte(reservations.expiresAt, now)));
    const count = await local.expireReservations(now);
    for (const r of due) await cancelInSiteLink(r, now, "Expired (not converted online in time)").catch(() => undefined);
    await retryCancellations(now).catch((error: unknown) =>
      logger.warn({ location: location.id, error: error instanceof Error ? error.message : String(error) }, "[sitelink] cancellations could not be checked again; the next sweep tries"),
    );
    return count;
  }

  return {
    async reserveUnit(input: ReserveInput): Promise<ReservationRecord> {
      // The same key again: the first answer (the local row is our idempotency record).
      const previous = await db.query.reservations.findFirst({
        where: eq(reservations.idempotencyKey, input.idempotencyKey),
      });
      if (previous)
        return (await local.getReservation({
          id: String(previous.id),
          now: input.now,
        }))!;

      // Claim a unit locally (one active reservation per unit), then make sure SiteLink agrees it is free.
      let record: ReservationRecord | null = null;
      for (let attempt = 0; attempt < 4 && !record; attempt++) {
        const claimed = await local.reserveUnit({
          ...input,
          idempotencyKey: `${input.idempotencyKey}`,
        });
        const [unit] = await db
          .select()
          .from(units)
          .where(eq(units.id, Number(claimed.unitId)));
        // SiteLink unreachable: nothing half-saved (the local claim goes), the visitor tries again.
        const live = unit?.externalId
          ? await freshUnitRow(call, unit.externalId).catch(async (error: unknown) => {
              await dropClaim(claimed, "available");
              throw error;
            })
          : null;
        if (live && rentableNow(live)) {
          record = claimed;
          break;
        }
        // Taken at the office since the last sync: mirror it and try the next unit.
        await dropClaim(claimed, live ? "rented" : "unavailable");
      }
      if (!record) throw new UnitUnavailableError("No unit of this type is available");
      const [unit] = await db
        .select()
        .from(units)
        .where(eq(units.id, Number(record.unitId)));

      try {
        const tz = await timeZone();
        // The tenant (name, email, phone only), journalled.
        const tenantKey = `reservation-tenant:${input.idempotencyKey}`;
        await journal.begin({
          key: tenantKey,
          operation: "TenantNewDetailed_v3",
          fingerprint: record.id,
          now: input.now,
        });
        const email = input.email.trim().toLowerCase();
        const note = `Gatehouse reservation ${input.confirmationCode}`;
        let outcome: AnswerOutcome;
        try {
          const t = await call(
            "TenantNewDetailed_v3",
            tenantParams(
              {
                firstName: input.firstName,
                lastName: input.lastName,
                email: input.email,
                cellPhone: input.phone,
                webPwHash: "",
                addr1: "",
                addr2: null,
                city: "",
                region: "",
                postalCode: "",
                isMilitary: false,
                isCompany: false,
                isCommercial: false,
              },
              email,
              note,
            ),
            { write: true },
          );
          // The id is RT.TenantID; Ret_Code is 1 on success (LSETUP, answers.ts), never the id.
          outcome = readAnswer("TenantNewDetailed_v3", t);
        } catch (error) {
          if (!mayHaveBeenApplied(error)) throw error;
          outcome = { kind: "unclear", code: null, message: error instanceof Error ? error.message : String(error) };
        }
        let tenantId = outcome.kind === "ok" ? outcome.id! : "";
        if (outcome.kind === "unclear") {
          // It may have been created: found by its note, it is used; not found, nothing is reserved.
          const found = await findTenantWithNote(call, email, note).catch(() => null);
          if (!found) {
            await journal.settle(tenantKey, "unknown", { error: outcome.message, now: input.now });
            throw new SoftwareUnreachableError(`SiteLink did not say whether the reservation's tenant was created: ${outcome.message}`);
          }
          tenantId = found.tenantId;
        }
        if (outcome.kind === "refused") {
          await journal.settle(tenantKey, "failed", { error: outcome.message, now: input.now });
          throw new StorageSoftwareError(`SiteLink refused the tenant: ${outcome.message}`);
        }
        await journal.settle(tenantKey, "done", {
          externalIds: { tenantId },
          now: input.now,
        });

        const [type] = await db.query.unitTypes.findMany({
          where: (ut, { eq }) => eq(ut.id, Number(input.unitTypeId)),
          limit: 1,
        });
        // The rate the reserve page showed: the web rate only when the location's web rates are on.
        const quotedRate = type ? monthlyRateFor(type, await isWebRatesEnabledAt(db, location.id)) : 0;
        const key = `reservation:${input.idempotencyKey}`;
        await journal.begin({
          key,
          operation: "ReservationNewWithSource_v5",
          fingerprint: record.id,
          externalIds: { tenantId },
          now: input.now,
        });
        let answer;
        try {
          answer = await call(
            "ReservationNewWithSource_v5",
            {
              sTenantID: tenantId,
              sUnitID: unit!.externalId!,
              dNeeded: siteLinkDate(input.desiredMoveInDate),
              sComment: "Reserved on the website",
              iSource: 5,
              sSource: "Gatehouse website",
              QTRentalTypeID: 2,
              iInquiryType: 2,
              dcQuotedRate: centsToDecimal(quotedRate),
              dExpires: wallClock(input.expiresAt, tz),
              dFollowUp: siteLinkDate(input.desiredMoveInDate),
              sTrackingCode: input.confirmationCode,
              sCallerID: "",
              ConcessionID: -999,
            },
            { write: true },
          );
        } catch (error) {
          // No answer: the local reservation stands (the visitor has it); the journal row says to look.
          await journal.settle(key, "unknown", {
            error: error instanceof Error ? error.message : String(error),
            now: input.now,
          });
          logger.warn(`[sitelink] reservation ${input.confirmationCode} at ${location.name}: SiteLink did not answer; kept locally, to be checked`);
          return record;
        }
        const made = readAnswer("ReservationNewWithSource_v5", answer);
        if (made.kind === "unclear") {
          // An answer that does not say: like no answer, the local reservation stands, to be checked.
          await journal.settle(key, "unknown", { error: made.message, now: input.now });
          logger.warn(`[sitelink] reservation ${input.confirmationCode} at ${location.name}: SiteLink answered ${made.message}; kept locally, to be checked`);
          return record;
        }
        const waitingId = made.kind === "ok" ? made.id! : "";
        if (!waitingId) {
          await journal.settle(key, "failed", {
            error: `${answer.retCode} ${answer.retMsg}`,
            now: input.now,
          });
          if (answer.retCode === -25) throw new UnitUnavailableError("SiteLink does not know this unit");
          throw new StorageSoftwareError(`SiteLink refused the reservation: ${answer.retCode} ${answer.retMsg}`);
        }
        await journal.settle(key, "done", {
          externalIds: { waitingId, globalNum: answer.retMsg },
          now: input.now,
        });
        await db
          .update(reservations)
          .set({ externalId: waitingId })
          .where(eq(reservations.id, Number(record.id)));
        return record;
      } catch (error) {
        // Nothing half-saved: the local reservation goes when SiteLink refused.
        await dropClaim(record, "available");
        throw error;
      }
    },

    async getReservation(input) {
      await expireReservations(input.now);
      return local.getReservation(input);
    },

    async cancelReservation(input) {
      await expireReservations(input.now);
      const before = /^\d{1,9}$/.test(input.id)
        ? await db.query.reservations.findFirst({
            where: eq(reservations.id, Number(input.id)),
          })
        : undefined;
      const result = await local.cancelReservation(input);
      if (result && before && before.status === "active" && result.status === "cancelled") {
        await cancelInSiteLink(before, input.now, "Cancelled by the customer online");
      }
      return result;
    },

    expireReservations,
  };
}
