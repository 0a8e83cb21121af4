/**
 * The back office's view of the SiteLink write journal (issue 23, decision 261): the rows that need
 * attention, by location, start date (the location's calendar) and status, and marking a row
 * resolved with a note. What a row shows is what `sitelink:status` shows (journal.ts
 * JOURNAL_SHOWN_FIELDS): identifiers, never a payload. The rule for "needs attention" is
 * app/domain/desk/journal.ts `journalDeskStatus`, written here as SQL for filtering and paging.
 */
import { and, count, desc, eq, inArray, isNotNull, isNull, lt, ne, or, sql, type SQL } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { locations, sitelinkWrites } from "~/db/schema";
import { RECENT_FAILURE_MS, journalDeskStatus, type JournalDeskStatus } from "~/domain/desk/journal";
import { DEFAULT_WRITE_TIMEOUT_MS } from "./client";
import { shownFields } from "./journal";

/** A pending call older than this needs attention (as in `sitelink:status`). */
const JOURNAL_STALE_AFTER_MS = 2 * DEFAULT_WRITE_TIMEOUT_MS;

export interface JournalDeskRow {
  key: string;
  locationId: number;
  locationName: string;
  timeZone: string;
  operation: string;
  state: "pending" | "done" | "failed" | "unknown";
  /** Null: the row needs no attention (settled meanwhile, or an ordinary failure of long ago). */
  status: JournalDeskStatus | null;
  startedAt: Date;
  finishedAt: Date | null;
  lastError: string | null;
  ids: Record<string, string>;
  resolvedAt: Date | null;
  resolvedByStaffId: number | null;
  resolutionNote: string | null;
}

interface JournalDeskQuery {
  /** null: every location of the account. */
  locationIds: readonly number[] | null;
  accountId: number;
  location?: number;
  /** Calendar dates (YYYY-MM-DD) in each row's location's time zone, inclusive. */
  from?: string;
  to?: string;
  status?: JournalDeskStatus;
  now: Date;
  limit: number;
  offset: number;
}

function statusCondition(status: JournalDeskStatus | undefined, now: Date): SQL {
  const stale = new Date(now.getTime() - JOURNAL_STALE_AFTER_MS);
  const recent = new Date(now.getTime() - RECENT_FAILURE_MS);
  const unresolved = isNull(sitelinkWrites.resolvedAt);
  const unknown = and(unresolved, eq(sitelinkWrites.state, "unknown"))!;
  const pending = and(unresolved, eq(sitelinkWrites.state, "pending"), lt(sitelinkWrites.startedAt, stale))!;
  const failed = and(
    unresolved,
    eq(sitelinkWrites.state, "failed"),
    or(sql`${sitelinkWrites.startedAt} >= ${recent.toISOString()}::timestamptz`, sql`${sitelinkWrites.externalIds} ? 'attention'`),
  )!;
  const resolved = and(isNotNull(sitelinkWrites.resolvedAt), ne(sitelinkWrites.state, "done"))!;
  switch (status) {
    case "unknown":
      return unknown;
    case "pending":
      return pending;
    case "failed":
      return failed;
    case "resolved":
      return resolved;
    default:
      return or(unknown, pending, failed)!;
  }
}

function where(q: Omit<JournalDeskQuery, "limit" | "offset">): SQL {
  const localDay = sql`(${sitelinkWrites.startedAt} at time zone (${locations.timeZone}->>'timeZoneId'))::date`;
  return and(
    eq(locations.accountId, q.accountId),
    q.locationIds ? (q.locationIds.length ? inArray(sitelinkWrites.locationId, [...q.locationIds]) : sql`false`) : undefined,
    q.location ? eq(sitelinkWrites.locationId, q.location) : undefined,
    q.from ? sql`${localDay} >= ${q.from}::date` : undefined,
    q.to ? sql`${localDay} <= ${q.to}::date` : undefined,
    statusCondition(q.status, q.now),
  )!;
}

function toRow(r: { w: typeof sitelinkWrites.$inferSelect; locationName: string; timeZone: { timeZoneId: string } }, now: Date): JournalDeskRow {
  const ext = (r.w.externalIds ?? {}) as Record<string, string>;
  const state = r.w.state as JournalDeskRow["state"];
  return {
    key: r.w.idempotencyKey,
    locationId: r.w.locationId,
    locationName: r.locationName,
    timeZone: r.timeZone.timeZoneId,
    operation: r.w.operation,
    state,
    status: journalDeskStatus({ state, startedAt: r.w.startedAt, resolvedAt: r.w.resolvedAt, flagged: Boolean(ext.attention) }, now, JOURNAL_STALE_AFTER_MS),
    startedAt: r.w.startedAt,
    finishedAt: r.w.finishedAt,
    lastError: r.w.lastError,
    ids: shownFields(ext),
    resolvedAt: r.w.resolvedAt,
    resolvedByStaffId: r.w.resolvedByStaffId,
    resolutionNote: r.w.resolutionNote,
  };
}

/** The rows that need attention (or the status asked for), newest first, with the total. */
export async function listJournalAttention(db: Database, q: JournalDeskQuery): Promise<{ rows: JournalDeskRow[]; total: number }> {
  const w = where(q);
  const [totalRow] = await db.select({ n: count() }).from(sitelinkWrites).innerJoin(locations, eq(locations.id, sitelinkWrites.locationId)).where(w);
  const rows = await db
    .select({ w: sitelinkWrites, locationName: locations.name, timeZone: locations.timeZone })
    .from(sitelinkWrites)
    .innerJoin(locations, eq(locations.id, sitelinkWrites.locationId))
    .where(w)
    .orderBy(desc(sitelinkWrites.startedAt), desc(sitelinkWrites.idempotencyKey))
    .limit(q.limit)
    .offset(q.offset);
  return { rows: rows.map((r) => toRow(r, q.now)), total: totalRow?.n ?? 0 };
}

/** One row of the account's journal (any state), or null. `forUpdate` locks it in the caller's transaction. */
export async function getJournalDeskRow(db: Database | Transaction, input: { accountId: number; key: string; now: Date; forUpdate?: boolean }): Promise<JournalDeskRow | null> {
  const query = db
    .select({ w: sitelinkWrites, locationName: locations.name, timeZone: locations.timeZone })
    .from(sitelinkWrites)
    .innerJoin(locations, eq(locations.id, sitelinkWrites.locationId))
    .where(and(eq(sitelinkWrites.idempotencyKey, input.key), eq(locations.accountId, input.accountId)));
  const [row] = input.forUpdate ? await query.for("update", { of: sitelinkWrites }) : await query;
  return row ? toRow(row, input.now) : null;
}

/** Marks the row resolved (in the caller's transaction). The state is left as the journal knows it. */
export async function markJournalRowResolved(tx: Database | Transaction, input: { key: string; staffId: number; note: string; now: Date }): Promise<void> {
  await tx
    .update(sitelinkWrites)
    .set({ resolvedAt: input.now, resolvedByStaffId: input.staffId, resolutionNote: input.note })
    .where(and(eq(sitelinkWrites.idempotencyKey, input.key), isNull(sitelinkWrites.resolvedAt)));
}
