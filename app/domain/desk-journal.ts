import { z } from "zod";

/**
 * The back office's list of SiteLink write-journal rows that need attention (issue 23, decision 261).
 * Pure: which rows need attention, what the desk may do with one, and the "mark resolved" form.
 *
 * A row needs attention when SiteLink's answer is unknown, when a call has waited longer than twice
 * the write timeout, or when it failed in a way the operator must see (flagged by the adapter, or in
 * the last 24 hours) — the same rule as `npm run sitelink:status`. A row marked resolved does not.
 */
export const JOURNAL_DESK_STATUSES = ["unknown", "pending", "failed", "resolved"] as const;
export type JournalDeskStatus = (typeof JOURNAL_DESK_STATUSES)[number];

export const JOURNAL_DESK_STATUS_LABELS: Record<JournalDeskStatus, string> = {
  unknown: "Outcome unknown",
  pending: "No answer yet",
  failed: "Failed",
  resolved: "Resolved",
};

/** A failure is listed for this long (unless the adapter flagged it for the operator). */
export const RECENT_FAILURE_MS = 24 * 60 * 60 * 1000;

export interface JournalRowFacts {
  state: "pending" | "done" | "failed" | "unknown";
  startedAt: Date;
  resolvedAt: Date | null;
  /** The adapter flagged the row for the operator (externalIds.attention). */
  flagged: boolean;
}

/** Where the row stands on the desk, or null when it needs no attention (done, fresh, old ordinary failure). */
export function journalDeskStatus(row: JournalRowFacts, now: Date, staleAfterMs: number): JournalDeskStatus | null {
  if (row.resolvedAt) return row.state === "done" ? null : "resolved";
  if (row.state === "unknown") return "unknown";
  if (row.state === "pending") return now.getTime() - row.startedAt.getTime() > staleAfterMs ? "pending" : null;
  if (row.state === "failed") return row.flagged || now.getTime() - row.startedAt.getTime() <= RECENT_FAILURE_MS ? "failed" : null;
  return null;
}

/**
 * The writes whose outcome the desk can settle by reading SiteLink back ("Retry" runs the same
 * reconciliation the site runs itself; it never sends the write again).
 */
export const RECONCILABLE_OPERATIONS: ReadonlySet<string> = new Set(["MoveInWithDiscount_v7"]);

export function journalRowActions(status: JournalDeskStatus | null, operation: string): { retry: boolean; resolve: boolean } {
  const open = status === "unknown" || status === "pending";
  return { retry: open && RECONCILABLE_OPERATIONS.has(operation), resolve: status !== null && status !== "resolved" };
}

export const RESOLVE_NOTE_MAX = 1000;

/** The "mark resolved" form: the row and a note saying what was done. */
export const resolveJournalSchema = z.object({
  key: z.string({ error: "This row is missing. Reload the page." }).trim().min(1, "This row is missing. Reload the page.").max(300),
  note: z
    .string({ error: "Say what was done, so the next person knows." })
    .trim()
    .min(3, "Say what was done, so the next person knows.")
    .max(RESOLVE_NOTE_MAX, `Keep the note under ${RESOLVE_NOTE_MAX} characters.`),
});

export const retryJournalSchema = z.object({
  key: z.string({ error: "This row is missing. Reload the page." }).trim().min(1, "This row is missing. Reload the page.").max(300),
});

/** The checkout a move-in's journal key belongs to (`movein:<checkoutId>:<key>`), or null. */
export function moveInRentalOf(key: string): string | null {
  const m = /^movein:([A-Za-z0-9_-]{8,64}):/.exec(key);
  return m ? m[1]! : null;
}
