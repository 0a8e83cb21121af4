import { z } from "zod";
/**
 * The rules of four of the desk's lists (issue 23): online rentals, reservations, leads and payments.
 * Pure: the services (app/services/desk-*.server.ts) read the rows and ask these rules what they mean.
 * The mapping of the rentals' states: docs/decisions/255-desk-rental-states-and-leads.md; payments:
 * docs/decisions/256-desk-payments-and-declines.md.
 */
/** The rentals' states (app/db/schema/rental.ts; the domain does not import the schema). */
type RentalStatus = "open" | "charging" | "confirming" | "completed" | "abandoned";

// ---------------------------------------------------------------------------------------------------
// Online rentals

export const DESK_RENTAL_STATUSES = ["confirmed", "being_confirmed", "needs_attention"] as const;
export type DeskRentalStatus = (typeof DESK_RENTAL_STATUSES)[number];
export const DESK_RENTAL_STATUS_LABELS: Record<DeskRentalStatus, string> = {
  confirmed: "Confirmed",
  being_confirmed: "Being confirmed",
  needs_attention: "Needs attention",
};

/** A card charge not recorded after this long is no longer "in progress" (the sweep voids it). */
export const CHARGING_ATTENTION_MS = 15 * 60 * 1000;
/** A move-in the software has not confirmed after this long needs someone to look. */
export const CONFIRMING_ATTENTION_MS = 30 * 60 * 1000;

interface RentalStateInput {
  status: RentalStatus;
  /** When the rental last changed (entered charging or confirming). */
  updatedAt: Date;
  /** The SiteLink write journal has a row of this rental that failed, is marked for attention, or is unknown. */
  journalAttention: boolean;
  /** A SiteLink move-in's pending data is still kept (not settled either way). */
  pendingMoveIn: boolean;
}

/**
 * What the desk calls a rental: null when it is not an online rental (still open, or abandoned: a
 * lead when details were given, see `isAbandonedRental`).
 * - completed → confirmed (the lease exists), unless a SiteLink move-in is still pending → being
 *   confirmed;
 * - charging (card being charged, move-in being recorded) → being confirmed, for 15 minutes;
 * - confirming (the software did not answer; the reconciler reads it back) → being confirmed, for
 *   30 minutes;
 * - either of those longer, or a journal row that failed or is marked for attention → needs attention.
 */
export function deskRentalStatus(input: RentalStateInput, now: Date): DeskRentalStatus | null {
  const age = now.getTime() - input.updatedAt.getTime();
  switch (input.status) {
    case "completed":
      if (input.journalAttention) return "needs_attention";
      return input.pendingMoveIn ? "being_confirmed" : "confirmed";
    case "charging":
      return input.journalAttention || age > CHARGING_ATTENTION_MS ? "needs_attention" : "being_confirmed";
    case "confirming":
      return input.journalAttention || age > CONFIRMING_ATTENTION_MS ? "needs_attention" : "being_confirmed";
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------------
// Reservations

export const DESK_RESERVATION_STATUSES = ["active", "cancelled", "expired"] as const;
type DeskReservationStatus = (typeof DESK_RESERVATION_STATUSES)[number];
export const DESK_RESERVATION_STATUS_LABELS: Record<DeskReservationStatus | "converted", string> = {
  active: "Active",
  cancelled: "Cancelled",
  expired: "Expired",
  converted: "Rented",
};

/**
 * A reservation's status as the desk sees it: an "active" one whose time has passed is expired even
 * before the sweep marks it.
 */
export function deskReservationStatus(r: { status: "active" | "cancelled" | "expired" | "converted"; expiresAt: Date }, now: Date) {
  return r.status === "active" && r.expiresAt.getTime() <= now.getTime() ? "expired" : r.status;
}

// ---------------------------------------------------------------------------------------------------
// Leads

/** A renter who gave details and did not pay within this long is an abandoned rental (a lead). */
export const ABANDONED_AFTER_MS = 60 * 60 * 1000;

export const LEAD_KIND_LABELS = { contact: "Contact message", notify: "Notify me", abandoned_rental: "Abandoned rental" } as const;
export type LeadKind = keyof typeof LEAD_KIND_LABELS;
export const LEAD_KINDS = Object.keys(LEAD_KIND_LABELS) as LeadKind[];

/** The longest note on a lead's follow-up. */
export const LEAD_NOTE_MAX = 2000;
const LEAD_NOTE_MISSING = "Write what was said or agreed (a short note is enough).";

/** The "mark contacted" form (the same schema checks it in the browser and on the server, decision 342). */
export const leadContactedSchema = z.object({
  note: z
    .string({ error: LEAD_NOTE_MISSING })
    .trim()
    .min(1, LEAD_NOTE_MISSING)
    .max(LEAD_NOTE_MAX, `Keep the note under ${LEAD_NOTE_MAX} characters.`),
});

export const DESK_LEAD_STATUSES = ["new", "contacted"] as const;
export type DeskLeadStatus = (typeof DESK_LEAD_STATUSES)[number];
export const DESK_LEAD_STATUS_LABELS: Record<DeskLeadStatus, string> = { new: "Not contacted", contacted: "Contacted" };

/**
 * A rental counts as abandoned when the renter gave details (the rental exists from the
 * details step on, so `createdAt` is when they were given), did not pay (not charging, confirming or
 * completed) and 60 minutes have passed.
 */
export function isAbandonedRental(c: { status: RentalStatus; hasDetails: boolean; createdAt: Date }, now: Date): boolean {
  if (!c.hasDetails) return false;
  if (c.status !== "open" && c.status !== "abandoned") return false;
  return now.getTime() - c.createdAt.getTime() >= ABANDONED_AFTER_MS;
}

/** The last step an abandoned renter finished, as the desk reads it. */
export function stepReached(c: { hasDetails: boolean; hasProtection: boolean; hasSigned: boolean }): string {
  if (c.hasSigned) return "Signed the lease (did not pay)";
  if (c.hasProtection) return "Chose protection";
  if (c.hasDetails) return "Gave details";
  return "Started";
}

// ---------------------------------------------------------------------------------------------------
// Payments

export const DESK_PAYMENT_STATUSES = ["approved", "declined", "refunded"] as const;
export type DeskPaymentStatus = (typeof DESK_PAYMENT_STATUSES)[number];
export const DESK_PAYMENT_STATUS_LABELS: Record<DeskPaymentStatus, string> = { approved: "Approved", declined: "Declined", refunded: "Refunded" };

export interface DayTotal {
  locationId: number;
  /** The location's calendar date, YYYY-MM-DD. */
  day: string;
  /** Payments approved (taken) that day, those refunded since included: `approved − refunded = net` (decision 502). */
  approved: number;
  approvedCount: number;
  declined: number;
  declinedCount: number;
  /** Payments refunded that day (by the refund's day, decision 280). */
  refunded: number;
  refundedCount: number;
  /**
   * Money taken that day less money given back that day: payments taken that day (approved, or
   * refunded since) minus refunds made that day. What the ledger's payment lines of the day add up to.
   */
  net: number;
}

/**
 * The totals of each location's day, in cents, newest day first. An approved payment counts on its
 * day; a declined one took no money and is shown apart; a refunded one was taken on its `day` and
 * given back on its `refundDay` (decision 280): its amount is in the `approved` and `net` of the
 * first, and in the `refunded` total and out of the `net` of the second (decision 502), so each day's
 * approved − refunded = net. Each approved or refunded payment
 * has one ledger payment line of its amount on its day, and a refund one of minus the amount on its
 * day, so `net` equals the ledger's day. `within` keeps only the days of a date filter.
 */
export function dayTotals(
  rows: ReadonlyArray<{ locationId: number; day: string; refundDay?: string | null; refunds?: ReadonlyArray<{ day: string; amount: number }>; status: DeskPaymentStatus; amount: number }>,
  within: { from?: string; to?: string } = {},
): DayTotal[] {
  const byKey = new Map<string, DayTotal>();
  const at = (locationId: number, day: string) => {
    const key = `${locationId}|${day}`;
    let t = byKey.get(key);
    if (!t) {
      t = { locationId, day, approved: 0, approvedCount: 0, declined: 0, declinedCount: 0, refunded: 0, refundedCount: 0, net: 0 };
      byKey.set(key, t);
    }
    return t;
  };
  for (const r of rows) {
    if (r.status === "declined") {
      const t = at(r.locationId, r.day);
      t.declined += r.amount;
      t.declinedCount += 1;
    } else {
      // Taken and approved on its day (so that day's Approved − Refunded = Net, issue 39), given back
      // on each refund's day: all of it at once, or in parts (decision 509).
      const taken = at(r.locationId, r.day);
      taken.approved += r.amount;
      taken.approvedCount += 1;
      taken.net += r.amount;
      const refunds = r.refunds ?? (r.status === "refunded" ? [{ day: r.refundDay ?? r.day, amount: r.amount }] : []);
      for (const refund of refunds) {
        const back = at(r.locationId, refund.day);
        back.refunded += refund.amount;
        back.refundedCount += 1;
        back.net -= refund.amount;
      }
    }
  }
  return [...byKey.values()]
    .filter((t) => (!within.from || t.day >= within.from) && (!within.to || t.day <= within.to))
    .sort((a, b) => (a.day === b.day ? a.locationId - b.locationId : a.day < b.day ? 1 : -1));
}

/** Pages of an in-memory list (1-based page; a page past the end is the last page's rows, empty when none). */
export function pageOf<T>(rows: readonly T[], page: number, size: number): T[] {
  return rows.slice((page - 1) * size, page * size);
}

// ---------------------------------------------------------------------------------------------------
// The status filters' options (value and label), for the lists' pages.

const options = <S extends string>(values: readonly S[], labels: Record<S, string>) => values.map((value) => ({ value, label: labels[value] }));
export const DESK_RENTAL_STATUS_OPTIONS = options(DESK_RENTAL_STATUSES, DESK_RENTAL_STATUS_LABELS);
export const DESK_RESERVATION_STATUS_OPTIONS = options(DESK_RESERVATION_STATUSES, DESK_RESERVATION_STATUS_LABELS);
export const DESK_LEAD_STATUS_OPTIONS = options(DESK_LEAD_STATUSES, DESK_LEAD_STATUS_LABELS);
export const LEAD_KIND_OPTIONS = options(LEAD_KINDS, LEAD_KIND_LABELS);
export const DESK_PAYMENT_STATUS_OPTIONS = options(DESK_PAYMENT_STATUSES, DESK_PAYMENT_STATUS_LABELS);
