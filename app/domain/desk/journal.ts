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

interface JournalRowFacts {
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
 * The kinds of write the journal records, told by the key's prefix (the adapter's: movein:, tenant:,
 * reservation-tenant:, reservation:, reservation-cancel:, contact:, payment:, payment:autopay:,
 * autopay:, moveout:), and whether the desk can check one against SiteLink ("Check SiteLink again"
 * reads SiteLink back and settles the row when the read proves it; it never sends the write again).
 * Decision 341.
 */
type JournalWriteKind =
  | "move_in"
  | "move_in_tenant"
  | "reservation_tenant"
  | "reservation"
  | "reservation_cancel"
  | "contact"
  | "payment"
  | "autopay_charge"
  | "autopay_billing"
  | "move_out"
  | "other";

const KIND_PREFIXES: ReadonlyArray<[string, JournalWriteKind]> = [
  ["movein:", "move_in"],
  ["tenant:", "move_in_tenant"],
  ["reservation-tenant:", "reservation_tenant"],
  ["reservation-cancel:", "reservation_cancel"],
  ["reservation:", "reservation"],
  ["contact:", "contact"],
  ["payment:autopay:", "autopay_charge"],
  ["payment:", "payment"],
  ["autopay:", "autopay_billing"],
  ["moveout:", "move_out"],
];

export function journalWriteKind(key: string): JournalWriteKind {
  return KIND_PREFIXES.find(([prefix]) => key.startsWith(prefix))?.[1] ?? "other";
}

export const JOURNAL_WRITE_KIND_LABELS: Record<JournalWriteKind, string> = {
  move_in: "Move-in",
  move_in_tenant: "New tenant (online rental)",
  reservation_tenant: "New tenant (reservation)",
  reservation: "Reservation",
  reservation_cancel: "Reservation cancelled",
  contact: "Contact details change",
  payment: "Payment",
  autopay_charge: "Autopay charge",
  autopay_billing: "Autopay setting",
  move_out: "Move-out date",
  other: "Other write",
};

/** Why a kind cannot be checked from the desk (shown on its row); absent: it can be. */
export const JOURNAL_UNCHECKABLE: Partial<Record<JournalWriteKind, string>> = {
  reservation_tenant:
    "This cannot be checked against SiteLink from here: the reservation was not kept (the visitor was asked to try again) and the journal keeps no e-mail to look the tenant up by. SiteLink may hold an unused tenant noted \"Gatehouse reservation\". Check SiteLink, then mark this resolved.",
  autopay_charge:
    "This cannot be checked from here: the billing run reads SiteLink back for this charge on its next run and records it (or sends it once more only when SiteLink proves it missing). Check SiteLink before marking it resolved.",
  other: "This kind of write cannot be checked against SiteLink from here. Check SiteLink, then mark this resolved.",
};

export function journalRowActions(status: JournalDeskStatus | null, key: string): { retry: boolean; resolve: boolean } {
  const open = status === "unknown" || status === "pending";
  return { retry: open && !JOURNAL_UNCHECKABLE[journalWriteKind(key)], resolve: status !== null && status !== "resolved" };
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

/** The rental a move-in's journal key belongs to (`movein:<rentalId>:<key>`), or null. */
export function moveInRentalOf(key: string): string | null {
  const m = /^movein:([A-Za-z0-9_-]{8,64}):/.exec(key);
  return m ? m[1]! : null;
}
