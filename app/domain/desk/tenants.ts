import { z } from "zod";
import { isIsoDate } from "../shared/calendar";
import { formatCents } from "../shared/money";
import { tenantContactShape } from "../shared/tenant-form";

/**
 * The back office's tenants (issue 23, decision 260). Pure: the search box, how an outbox mail's
 * state reads, and the portal sign-in lockout as the desk shows it.
 */

/** What a search matches: words of the name, the e-mail, the phone's digits, a unit's name. */
interface TenantSearch {
  /** Lowercased text, for the name, e-mail and unit (matched as a substring). */
  text: string;
  /** The digits typed, when there are at least three of them (a phone number in any format). */
  digits: string | null;
}

export function tenantSearch(q: string | undefined): TenantSearch | null {
  const text = (q ?? "").trim().toLowerCase().replace(/\s+/g, " ");
  if (!text) return null;
  const digits = text.replace(/\D/g, "");
  return { text, digits: digits.length >= 3 && /^[\d\s().+-]+$/.test(text) ? digits : null };
}

/** A LIKE pattern that matches `text` literally anywhere. */
export function likeAnywhere(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export type OutboxState = "sent" | "waiting" | "failed";

export const OUTBOX_STATE_LABELS: Record<OutboxState, string> = { sent: "Sent", waiting: "Waiting to be sent", failed: "Failed (given up)" };

export function outboxState(row: { sentAt: Date | null; failedAt: Date | null }): OutboxState {
  if (row.sentAt) return "sent";
  if (row.failedAt) return "failed";
  return "waiting";
}

/** The portal sign-in lockout of an account as the desk shows it. */
export interface LockoutView {
  /** Failed (or refused) sign-ins counted in the current window. */
  attempts: number;
  /** The next sign-in will be refused until `until`. */
  locked: boolean;
  until: Date | null;
}

export function lockoutView(hit: { count: number; resetAt: Date } | null, now: Date, limit: number): LockoutView {
  if (!hit || hit.resetAt.getTime() <= now.getTime()) return { attempts: 0, locked: false, until: null };
  return { attempts: hit.count, locked: hit.count >= limit, until: hit.resetAt };
}

/** A tenant, lease or payment id in a URL or form: a positive integer, else nothing (404). */
export function parseRecordId(value: unknown): number | null {
  if (typeof value !== "string" || !/^\d{1,9}$/.test(value)) return null;
  const n = Number(value);
  return n > 0 ? n : null;
}

const idField = (message: string) =>
  z.preprocess((v) => (typeof v === "string" ? v.trim() : v), z.string({ error: message }).regex(/^\d{1,9}$/, message).transform(Number));

/** The longest note on a tenant. */
export const TENANT_NOTE_MAX = 2000;

/** The contact fields the desk may change, in the form's names (decision 641). */
export const DESK_CONTACT_FIELDS = ["email", "cell_phone", "addr_1", "addr_2", "city", "region", "postal_code"] as const;

/** The tenant page's forms, told apart by `intent`. */
export const tenantDeskActionSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("lift-lockout") }),
  z.object({ intent: z.literal("resend-lease"), leaseId: idField("Choose one of this tenant's leases.") }),
  z.object({ intent: z.literal("resend-receipt"), paymentId: idField("Choose one of this tenant's payments.") }),
  z.object({ intent: z.literal("send-pay-link"), leaseId: idField("Choose one of this tenant's leases.") }),
  z.object({ intent: z.literal("text-pay-link"), leaseId: idField("Choose one of this tenant's leases.") }),
  z.object({ intent: z.literal("copy-pay-link"), leaseId: idField("Choose one of this tenant's leases.") }),
  z.object({
    intent: z.literal("refund-payment"),
    paymentId: idField("Choose one of this tenant's payments."),
    confirm: z.literal("yes", { error: "Tick the box to confirm the refund." }),
    /** Dollars and cents to give back (decision 509); none: all that is left. Checked by `refundAmountOf`. */
    amount: z.string().trim().max(20).optional(),
    /** Cents refunded already when the form was drawn (a change since refunds nothing). */
    refunded: z.coerce.number().int().min(0).optional(),
    cancelRental: z.literal("yes").optional(),
  }),
  /** The desk's contact change (decision 641): the account form's rules for each field. */
  z.object({
    intent: z.literal("change-contact"),
    email: tenantContactShape.email,
    cell_phone: tenantContactShape.cell_phone,
    addr_1: tenantContactShape.addr_1,
    addr_2: tenantContactShape.addr_2,
    city: tenantContactShape.city,
    region: tenantContactShape.region,
    postal_code: tenantContactShape.postal_code,
  }),
  /** A note on the tenant (decision 640): add-only. */
  z.object({
    intent: z.literal("add-note"),
    note: z
      .string({ error: "Write the note first." })
      .trim()
      .min(1, "Write the note first.")
      .max(TENANT_NOTE_MAX, `Keep the note under ${TENANT_NOTE_MAX} characters.`),
  }),
  /** "Show gate code" (decision 640): one lease's code, shown in the answer only, audited. */
  z.object({ intent: z.literal("show-gate-code"), leaseId: idField("Choose one of this tenant's leases.") }),
  z.object({
    intent: z.literal("record-move-out"),
    leaseId: idField("Choose one of this tenant's leases."),
    moveOutDate: z
      .string({ error: "Enter the day the tenant moved out." })
      .trim()
      .min(1, "Enter the day the tenant moved out.")
      .refine(isIsoDate, "Enter the date as YYYY-MM-DD, for example 2026-12-31."),
    confirm: z.literal("yes", { error: "Tick the box to confirm the unit is empty and the tenant has moved out." }),
  }),
]);

/**
 * The refund the desk typed (decision 509): dollars and cents ("12.50", "$1,012.5", "12"), more than
 * zero and no more than what is left to refund. An empty field is all that is left.
 */
export function refundAmountOf(text: string | undefined, left: number): { ok: true; cents: number } | { ok: false; message: string } {
  const most = formatCents(left);
  const raw = (text ?? "").replace(/[$,\s]/g, "");
  if (raw === "") return { ok: true, cents: left };
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(raw);
  if (!m) return { ok: false, message: `Enter the amount in dollars and cents, for example ${formatCents(Math.min(left, 2500)).slice(1)}.` };
  const cents = Number(m[1]) * 100 + Number((m[2] ?? "0").padEnd(2, "0"));
  if (cents <= 0) return { ok: false, message: `Enter an amount more than $0.00 (at most ${most}).` };
  if (cents > left) return { ok: false, message: `Enter at most ${most}: that is what is left to refund of this payment.` };
  return { ok: true, cents };
}

/**
 * The day a desk records as a move-out (issue 39): not after today, nor before the move-in, both on
 * the location's calendar. Null when it may be recorded, else the message beside the field.
 */
export function moveOutDateProblem(date: string, lease: { moveInDate: string }, today: string): string | null {
  if (date > today) return "A move-out is recorded once it has happened: choose today or an earlier day.";
  if (date < lease.moveInDate) return `The tenant moved in on ${lease.moveInDate}: choose that day or a later one.`;
  return null;
}

// ---------------------------------------------------------------------------------------------------
// The tenants list's status filter (decision 340)

/**
 * What an operator filters tenants by: current (an active lease at the member's locations, or the
 * one chosen, with no move-out notice), moving out (an active lease with a move-out date given, issue 39),
 * past due (an active lease whose next due date has passed on the location's calendar),
 * moved out (leases there, none active), locked out (the portal sign-in is refused just now).
 */
export const DESK_TENANT_STATUSES = ["current", "moving_out", "past_due", "moved_out", "locked_out"] as const;
export type DeskTenantStatus = (typeof DESK_TENANT_STATUSES)[number];
const DESK_TENANT_STATUS_LABELS: Record<DeskTenantStatus, string> = {
  current: "Current",
  moving_out: "Moving out",
  past_due: "Past due",
  moved_out: "Moved out",
  locked_out: "Locked out of the portal",
};
export const DESK_TENANT_STATUS_OPTIONS = DESK_TENANT_STATUSES.map((value) => ({ value, label: DESK_TENANT_STATUS_LABELS[value] }));

/** A tenant's standing as the list shows it: its statuses, in the filter's order. */
export function tenantStatuses(facts: { activeLeases: number; movingOutLeases?: number; leases: number; pastDue: boolean; lockedOut: boolean }): DeskTenantStatus[] {
  const out: DeskTenantStatus[] = [];
  const movingOut = facts.movingOutLeases ?? 0;
  if (facts.activeLeases > movingOut) out.push("current");
  if (movingOut > 0) out.push("moving_out");
  if (facts.activeLeases > 0 && facts.pastDue) out.push("past_due");
  if (facts.leases > 0 && facts.activeLeases === 0) out.push("moved_out");
  if (facts.lockedOut) out.push("locked_out");
  return out;
}

export function tenantStatusText(statuses: readonly DeskTenantStatus[]): string {
  return statuses.length ? statuses.map((s) => DESK_TENANT_STATUS_LABELS[s]).join(", ") : "No lease";
}
