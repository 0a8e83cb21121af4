/**
 * The back office's SiteLink write-journal rows that need attention (issue 23, decision 261): the
 * list (location, start dates, status), "retry" and "mark resolved" with a note.
 *
 * "Retry" ("Check SiteLink again") never sends a write again: a move-in runs the reconciliation the
 * site runs itself (`confirmRentalMoveIn`, the housekeeping sweep's path, which also sends the
 * welcome e-mail when it went through); the other kinds the desk can check are read back by the
 * adapter (`checkJournalWrite`, decision 341) and settled only when the read proves the outcome. A
 * kind that cannot be checked says why on its row and offers "mark resolved" only. A row outside the
 * member's locations does not exist for them (null: 404).
 */
import type { Database } from "~/db/client.server";
import type { DeskFilter } from "~/domain/desk/filters";
import { DESK_PAGE_SIZE } from "~/domain/desk/filters";
import { JOURNAL_UNCHECKABLE, JOURNAL_WRITE_KIND_LABELS, journalRowActions, journalWriteKind, moveInRentalOf, type JournalDeskStatus } from "~/domain/desk/journal";
import { checkJournalWrite, getJournalDeskRow, goLiveOfLocations, listJournalAttention, markJournalRowResolved, type JournalDeskRow } from "~/storage-software/index.server";
import { formatDeskTime } from "~/domain/desk/time";
import { inScope } from "~/domain/staff/roles";
import { recordAudit } from "../audit/events.server";
import { deskLocations, type DeskActionOutcome } from "./tenants.server";
import { confirmRentalMoveIn } from "../rental/move-in.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";

type JournalListRow = JournalDeskRow & {
  actions: { retry: boolean; resolve: boolean };
  /** What was written, in the desk's words (the key's kind). */
  kind: string;
  /** Why "Check SiteLink again" is not offered for this open row (a kind the desk cannot check), else null. */
  noCheck: string | null;
};

type JournalListResult = { ok: true; rows: JournalListRow[]; total: number } | { ok: false; field: "location"; message: string };

/**
 * Whether each of the member's SiteLink locations is live (issue 37, decision 470): online rentals and
 * payments on only after `sitelink:verify` passed with its current settings; what the latest check saw.
 */
export async function deskGoLive(db: Database, staff: SignedInStaff) {
  const mine = await deskLocations(db, staff);
  const states = await goLiveOfLocations(db, mine.map((l) => l.id));
  return states.map((g) => {
    const loc = mine.find((l) => l.id === g.locationId)!;
    const saw = g.latest?.saw;
    return {
      location: loc.name,
      live: g.live,
      reason: g.reason,
      checkedAt: g.latest ? formatDeskTime(g.latest.checkedAt, loc.timeZone) : null,
      source: g.latest?.source ?? null,
      saw: saw
        ? [
            ...(saw.note ? [saw.note] : []),
            ...(saw.payMethod.works !== null ? [`Pay method: iPayMethod ${saw.payMethod.works} taken${saw.payMethod.reading ? ` (the ${saw.payMethod.reading} reading)` : ""}.`] : []),
            ...saw.testMoveIn.map((t) => `Test move-in: ${t}`),
            ...(saw.differs.length ? [`Differs: ${saw.differs.join(", ")}.`] : []),
            ...(saw.notChecked.length ? [`Not checked: ${saw.notChecked.join("; ")}.`] : []),
            ...(saw.checked.length ? [`Checked: ${saw.checked.length} operations.`] : []),
          ]
        : [],
    };
  });
}

/** The rows needing attention at the member's locations matching the filter, newest first, one page. */
export async function listDeskJournal(db: Database, staff: SignedInStaff, filter: DeskFilter, now: Date): Promise<JournalListResult> {
  const mine = await deskLocations(db, staff);
  if (filter.location && !mine.some((l) => l.id === filter.location)) return { ok: false, field: "location", message: "Choose a location from the list." };
  const { rows, total } = await listJournalAttention(db, {
    accountId: staff.accountId,
    locationIds: staff.scope.all ? null : mine.map((l) => l.id),
    location: filter.location,
    from: filter.from,
    to: filter.to,
    status: filter.status as JournalDeskStatus | undefined,
    now,
    limit: DESK_PAGE_SIZE,
    offset: (filter.page - 1) * DESK_PAGE_SIZE,
  });
  return {
    ok: true,
    total,
    rows: rows.map((r) => {
      const kind = journalWriteKind(r.key);
      const open = r.status === "unknown" || r.status === "pending";
      return { ...r, actions: journalRowActions(r.status, r.key), kind: JOURNAL_WRITE_KIND_LABELS[kind], noCheck: open ? (JOURNAL_UNCHECKABLE[kind] ?? null) : null };
    }),
  };
}

async function rowInScope(db: Database, staff: SignedInStaff, key: string, now: Date) {
  const row = await getJournalDeskRow(db, { accountId: staff.accountId, key, now });
  return row && inScope(staff.scope, row.locationId) ? row : null;
}

/**
 * Marks a row resolved with the member's note, with its audit row, in one transaction. Null: no
 * such row within the member's locations (404).
 */
export async function resolveJournalRow(db: Database, staff: SignedInStaff, input: { key: string; note: string; now: Date }): Promise<DeskActionOutcome | null> {
  if (!(await rowInScope(db, staff, input.key, input.now))) return null;
  return db.transaction(async (tx) => {
    const row = await getJournalDeskRow(tx, { accountId: staff.accountId, key: input.key, now: input.now, forUpdate: true });
    if (!row) return { ok: false as const, message: "This row is no longer in the journal." };
    if (!journalRowActions(row.status, row.key).resolve) {
      return { ok: false as const, message: row.resolvedAt ? "This row was already marked resolved." : "This row no longer needs attention: the site settled it." };
    }
    await markJournalRowResolved(tx, { key: row.key, staffId: staff.staffId, note: input.note, now: input.now });
    await recordAudit(tx, {
      ...auditActor(staff),
      action: "sitelink_write.resolved",
      entity: "sitelink_write",
      entityId: row.key,
      locationId: row.locationId,
      changes: {
        resolvedAt: { before: null, after: input.now.toISOString() },
        resolutionNote: { before: null, after: input.note },
      },
      detail: { operation: row.operation, state: row.state },
      at: input.now,
    });
    return { ok: true as const, message: "Marked resolved." };
  });
}

/**
 * Reconciles an open row (reads SiteLink back; never resends). The attempt is audited before the
 * reconciliation runs (its writes are the adapter's own, in their own transactions) and its outcome
 * right after, each with the row's state before and after. Null: not within the member's locations.
 */
export async function retryJournalRow(db: Database, staff: SignedInStaff, input: { key: string; now: Date }): Promise<DeskActionOutcome | null> {
  const row = await rowInScope(db, staff, input.key, input.now);
  if (!row) return null;
  const kind = journalWriteKind(row.key);
  if (!journalRowActions(row.status, row.key).retry) {
    return { ok: false, message: JOURNAL_UNCHECKABLE[kind] ?? "This row is not waiting for an answer from SiteLink, so there is nothing to check again. Mark it resolved with a note once it is dealt with." };
  }
  const rentalId = kind === "move_in" ? moveInRentalOf(row.key) : null;
  if (kind === "move_in" && !rentalId) return { ok: false, message: JOURNAL_UNCHECKABLE.other! };
  const audit = { ...auditActor(staff), entity: "sitelink_write", entityId: row.key, locationId: row.locationId } as const;
  await db.transaction((tx) => recordAudit(tx, { ...audit, action: "sitelink_write.retry_started", detail: { operation: row.operation, state: row.state }, at: input.now }));
  let message: string;
  let ok = true;
  try {
    if (rentalId) {
      const outcome = await confirmRentalMoveIn(db, rentalId, input.now);
      message =
        outcome?.status === "completed"
          ? "SiteLink has the move-in: the rental is complete and the welcome e-mail has been sent."
          : outcome?.status === "not_completed"
            ? "SiteLink has no such move-in: nothing was charged, and the renter may pay again."
            : "SiteLink does not show the outcome yet. Try again in a few minutes.";
    } else {
      const outcome = await checkJournalWrite(db, { key: row.key, now: input.now });
      message = outcome.message;
      ok = outcome.kind !== "not_checkable";
    }
  } catch {
    ok = false;
    message = "SiteLink could not be reached. Nothing was sent again; try again in a few minutes.";
  }
  const after = await getJournalDeskRow(db, { accountId: staff.accountId, key: row.key, now: input.now });
  await db.transaction((tx) =>
    recordAudit(tx, {
      ...audit,
      action: "sitelink_write.retried",
      changes: { state: { before: row.state, after: after?.state ?? null } },
      detail: { operation: row.operation, outcome: message },
      at: input.now,
    }),
  );
  return ok ? { ok: true, message } : { ok: false, message };
}
