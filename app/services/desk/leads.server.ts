import { and, desc, eq, inArray, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { contactMessages, leadFollowUps, leadNotes, locations, rentals, staffMembers, unitTypes } from "~/db/schema";
import { formatDeskTime } from "~/domain/desk/time";
import {
  ABANDONED_AFTER_MS,
  DESK_LEAD_STATUS_LABELS,
  isAbandonedRental,
  LEAD_KIND_LABELS,
  LEAD_NOTE_MAX,
  stepReached,
  type DeskLeadStatus,
  type LeadKind,
} from "~/domain/desk/lists";
import type { DeskFilter } from "~/domain/desk/filters";
import { formatPhone } from "~/domain/shared/phone";
import { inScope } from "~/domain/staff/roles";
import { recordAudit } from "../audit/events.server";
import type { CsvColumn } from "../web/csv.server";
import { rentalReference, dayBetween, deskLocations, inLocations, localDay, matchesSearch, type DeskViewer } from "./scope.server";

/**
 * The desk's leads (issue 23): contact messages, "notify me" requests and abandoned rentals (a renter
 * who gave details and did not pay within 60 minutes, domain/desk-lists.ts), with contact details,
 * the step reached and the unit type; staff mark a lead contacted with a note (lead_follow_ups, with
 * the audit trail in the same transaction). A lead's key in URLs is `contact-<id>`, `notify-<id>` or
 * `rental-<reference>` (a rental's id is the renter's cookie, so it never appears: decision 255).
 */
export interface DeskLeadRow {
  /** The lead's key in URLs and forms. */
  key: string;
  kind: LeadKind;
  /** lead_follow_ups.lead_id: the message's id, or the rental's reference. */
  leadId: string;
  date: string;
  /** When it came in (ISO), for ordering. */
  at: string;
  locationId: number | null;
  location: string;
  name: string;
  email: string;
  phone: string;
  message: string;
  stepReached: string;
  unitType: string;
  status: DeskLeadStatus;
  contactedAt: string | null;
  contactedBy: string | null;
  note: string;
  /**
   * Abandoned rentals (issue 40, decision 519): when the one recovery reminder went (ISO), null when
   * none went; and whether the renter came back after it and rented ("recovered").
   */
  reminderSentAt: string | null;
  recovered: boolean;
}


const str = (v: unknown) => (typeof v === "string" ? v : "");

interface LeadQuery {
  filter: DeskFilter;
  locationIds: readonly number[];
}

/** A lead's key from a URL: which table and which row; null when it is not one. */
function parseLeadKey(key: string): { kind: LeadKind; id: string } | null {
  const m = /^(contact|notify)-(\d{1,9})$/.exec(key) ?? /^(rental)-([0-9a-f]{20})$/.exec(key);
  if (!m) return null;
  return { kind: m[1] === "rental" ? "abandoned_rental" : (m[1] as "contact" | "notify"), id: m[2]! };
}

async function followUps(db: Database, kind: LeadKind, ids: string[]) {
  if (!ids.length) return new Map<string, { contactedAt: Date; note: string; by: string }>();
  const rows = await db
    .select({ leadId: leadFollowUps.leadId, contactedAt: leadFollowUps.contactedAt, note: leadFollowUps.note, by: staffMembers.email })
    .from(leadFollowUps)
    .innerJoin(staffMembers, eq(staffMembers.id, leadFollowUps.contactedByStaffId))
    .where(and(eq(leadFollowUps.kind, kind), inArray(leadFollowUps.leadId, ids)));
  return new Map(rows.map((r) => [r.leadId, { contactedAt: new Date(r.contactedAt), note: r.note, by: r.by }]));
}

async function messageLeads(db: Database, viewer: DeskViewer, query: LeadQuery, only?: { kind: "contact" | "notify"; id: number }): Promise<DeskLeadRow[]> {
  // A message sent for no particular location is dated in the account's first location's calendar
  // and is seen only by members who see every location.
  const tz = sql`coalesce(${locations.timeZone}, (select l2.time_zone from locations l2 where l2.account_id = ${contactMessages.accountId} order by l2.id limit 1))`;
  const day = localDay(contactMessages.createdAt, tz);
  const unlocated = viewer.scope.all && query.filter.location === undefined;
  const where = and(
    eq(contactMessages.accountId, viewer.accountId),
    unlocated ? or(isNull(contactMessages.locationId), inLocations(contactMessages.locationId, query.locationIds)) : inLocations(contactMessages.locationId, query.locationIds),
    only ? and(eq(contactMessages.id, only.id), eq(contactMessages.kind, only.kind)) : dayBetween(day, query.filter),
  );
  const rows = await db
    .select({
      id: contactMessages.id,
      kind: contactMessages.kind,
      day,
      at: contactMessages.createdAt,
      locationId: contactMessages.locationId,
      location: locations.name,
      name: contactMessages.name,
      email: contactMessages.email,
      phone: contactMessages.phone,
      message: contactMessages.message,
    })
    .from(contactMessages)
    .leftJoin(locations, eq(locations.id, contactMessages.locationId))
    .where(where);
  const contact = await followUps(db, "contact", rows.filter((r) => r.kind === "contact").map((r) => String(r.id)));
  const notify = await followUps(db, "notify", rows.filter((r) => r.kind === "notify").map((r) => String(r.id)));
  return rows.map((r) => {
    const f = (r.kind === "contact" ? contact : notify).get(String(r.id));
    return {
      key: `${r.kind}-${r.id}`,
      kind: r.kind,
      leadId: String(r.id),
      date: r.day,
      at: new Date(r.at).toISOString(),
      locationId: r.locationId,
      location: r.location ?? "Any location",
      name: r.name,
      email: r.email,
      phone: r.phone ? formatPhone(r.phone) : "",
      message: r.message,
      stepReached: r.kind === "notify" ? "Asked to be told when units open" : "Sent a message",
      unitType: "",
      status: f ? "contacted" : "new",
      contactedAt: f ? f.contactedAt.toISOString() : null,
      contactedBy: f?.by ?? null,
      note: f?.note ?? "",
      reminderSentAt: null,
      recovered: false,
    };
  });
}

async function abandonedLeads(db: Database, viewer: DeskViewer, query: LeadQuery, now: Date, only?: string): Promise<DeskLeadRow[]> {
  const day = localDay(rentals.createdAt);
  const reference = rentalReference(rentals.id);
  const rows = await db
    .select({
      reference,
      day,
      at: rentals.createdAt,
      status: rentals.status,
      locationId: rentals.locationId,
      location: locations.name,
      unitType: unitTypes.name,
      details: rentals.tenantDetails,
      insuranceChoice: rentals.insuranceChoice,
      signedAt: rentals.signedAt,
      reminderSentAt: rentals.recoverySentAt,
    })
    .from(rentals)
    .innerJoin(locations, eq(locations.id, rentals.locationId))
    .innerJoin(unitTypes, eq(unitTypes.id, rentals.unitTypeId))
    .where(
      and(
        eq(locations.accountId, viewer.accountId),
        inLocations(rentals.locationId, query.locationIds),
        isNotNull(rentals.tenantDetails),
        // A rental rented after its recovery reminder stays on the list, as recovered (decision 519).
        or(inArray(rentals.status, ["open", "abandoned"]), and(eq(rentals.status, "completed"), isNotNull(rentals.recoverySentAt))),
        lte(rentals.createdAt, new Date(now.getTime() - ABANDONED_AFTER_MS)),
        only ? sql`${reference} = ${only}` : dayBetween(day, query.filter),
      ),
    );
  const recovered = (r: (typeof rows)[number]) => r.status === "completed" && r.reminderSentAt != null;
  const abandoned = rows.filter((r) => recovered(r) || isAbandonedRental({ status: r.status, hasDetails: r.details != null, createdAt: new Date(r.at) }, now));
  const f = await followUps(db, "abandoned_rental", abandoned.map((r) => r.reference));
  return abandoned.map((r) => {
    const d = r.details ?? {};
    const fu = f.get(r.reference);
    return {
      key: `rental-${r.reference}`,
      kind: "abandoned_rental" as const,
      leadId: r.reference,
      date: r.day,
      at: new Date(r.at).toISOString(),
      locationId: r.locationId,
      location: r.location,
      name: `${str(d.first_name)} ${str(d.last_name)}`.trim(),
      email: str(d.email),
      phone: str(d.cell_phone) ? formatPhone(str(d.cell_phone)) : "",
      message: "",
      stepReached: recovered(r) ? RECOVERED_LABEL : stepReached({ hasDetails: true, hasProtection: r.insuranceChoice != null, hasSigned: r.signedAt != null }),
      unitType: r.unitType,
      status: fu ? ("contacted" as const) : ("new" as const),
      contactedAt: fu ? fu.contactedAt.toISOString() : null,
      contactedBy: fu?.by ?? null,
      note: fu?.note ?? "",
      reminderSentAt: r.reminderSentAt ? new Date(r.reminderSentAt).toISOString() : null,
      recovered: recovered(r),
    };
  });
}

/** The step an abandoned rental's renter reached once they came back after the reminder and rented. */
const RECOVERED_LABEL = "Came back after the reminder and rented";

/** What the leads list says of a lead's recovery reminder (decision 519). */
export function reminderLabel(r: Pick<DeskLeadRow, "kind" | "reminderSentAt" | "recovered">): string {
  if (r.kind !== "abandoned_rental") return "";
  if (!r.reminderSentAt) return "Not sent";
  return r.recovered ? "Sent · recovered" : "Sent";
}

/**
 * The recovery figures of the leads a filter shows (decision 519): abandoned rentals whose reminder
 * went, and how many of those the renter came back to and rented.
 */
export function leadRecoverySummary(rows: readonly DeskLeadRow[]): { remindersSent: number; recovered: number } {
  const sent = rows.filter((r) => r.kind === "abandoned_rental" && r.reminderSentAt);
  return { remindersSent: sent.length, recovered: sent.filter((r) => r.recovered).length };
}

/** The leads the filter shows, newest first (every page). */
export async function listDeskLeads(db: Database, viewer: DeskViewer, query: LeadQuery, now: Date): Promise<DeskLeadRow[]> {
  const [messages, abandoned] = await Promise.all([messageLeads(db, viewer, query), abandonedLeads(db, viewer, query, now)]);
  return [...messages, ...abandoned]
    .filter((r) => !query.filter.kind || r.kind === query.filter.kind)
    .filter((r) => !query.filter.status || r.status === query.filter.status)
    .filter((r) => matchesSearch(query.filter.q, r.name, r.email, r.phone, r.message, r.unitType))
    .sort((a, b) => (a.at === b.at ? (a.key < b.key ? 1 : -1) : a.at < b.at ? 1 : -1));
}

/** One lead by its key, when it exists and is within the member's locations; null otherwise (a 404). */
export async function getDeskLead(db: Database, viewer: DeskViewer, key: string, now: Date): Promise<DeskLeadRow | null> {
  const parsed = parseLeadKey(key);
  if (!parsed) return null;
  const locationIds = (await deskLocations(db, viewer)).map((l) => l.id);
  const query: LeadQuery = { filter: { page: 1 }, locationIds };
  const rows =
    parsed.kind === "abandoned_rental"
      ? await abandonedLeads(db, viewer, query, now, parsed.id)
      : await messageLeads(db, viewer, query, { kind: parsed.kind, id: Number(parsed.id) });
  const lead = rows[0] ?? null;
  if (!lead) return null;
  // Belt and braces: the queries are scoped already.
  if (lead.locationId == null ? !viewer.scope.all : !inScope(viewer.scope, lead.locationId)) return null;
  return lead;
}

export interface LeadActor {
  accountId: number;
  staffId: number;
  actor: string;
  ip: string | null;
}

type MarkContactedResult = { ok: true; lead: DeskLeadRow } | { ok: false; notFound: true } | { ok: false; notFound?: false; fieldErrors: Record<string, string> };

/**
 * Marks a lead contacted with a note. Each note is kept in the lead's history (lead_notes, decision
 * 642: who, when, what; add-only); the follow-up holds the latest, for the list and its CSV. The note,
 * the follow-up and the audit entry are written in one transaction.
 */
export async function markLeadContacted(
  db: Database,
  viewer: DeskViewer,
  actor: LeadActor,
  input: { key: string; note: string; now: Date },
): Promise<MarkContactedResult> {
  const note = input.note.trim();
  if (!note) return { ok: false, fieldErrors: { note: "Write what was said or agreed (a short note is enough)." } };
  if (note.length > LEAD_NOTE_MAX) return { ok: false, fieldErrors: { note: `Keep the note under ${LEAD_NOTE_MAX} characters.` } };
  const lead = await getDeskLead(db, viewer, input.key, input.now);
  if (!lead) return { ok: false, notFound: true };
  await db.transaction(async (tx) => {
    const [before] = await tx
      .select({ contactedAt: leadFollowUps.contactedAt, note: leadFollowUps.note, staffId: leadFollowUps.contactedByStaffId })
      .from(leadFollowUps)
      .where(and(eq(leadFollowUps.kind, lead.kind), eq(leadFollowUps.leadId, lead.leadId)))
      .for("update");
    await tx
      .insert(leadFollowUps)
      .values({ kind: lead.kind, leadId: lead.leadId, contactedAt: input.now, contactedByStaffId: actor.staffId, note })
      .onConflictDoUpdate({
        target: [leadFollowUps.kind, leadFollowUps.leadId],
        set: { contactedAt: input.now, contactedByStaffId: actor.staffId, note, updatedAt: input.now },
      });
    await tx.insert(leadNotes).values({ kind: lead.kind, leadId: lead.leadId, staffId: actor.staffId, body: note, createdAt: input.now });
    await recordAudit(tx, {
      ...actor,
      action: "lead.contacted",
      entity: "lead",
      entityId: lead.key,
      locationId: lead.locationId,
      changes: {
        contacted_at: { before: before ? new Date(before.contactedAt).toISOString() : null, after: input.now.toISOString() },
        contacted_by_staff_id: { before: before?.staffId ?? null, after: actor.staffId },
        note: { before: before?.note ?? null, after: note },
      },
      detail: { kind: lead.kind },
      at: input.now,
    });
  });
  return { ok: true, lead: (await getDeskLead(db, viewer, input.key, input.now))! };
}

/** A lead's notes, newest first: who wrote each and when (in the lead's location's zone). */
export async function listLeadNotes(db: Database, lead: Pick<DeskLeadRow, "kind" | "leadId">, timeZone: string): Promise<Array<{ id: number; body: string; by: string; at: string; iso: string }>> {
  const rows = await db
    .select({ id: leadNotes.id, body: leadNotes.body, at: leadNotes.createdAt, name: staffMembers.name, email: staffMembers.email })
    .from(leadNotes)
    .innerJoin(staffMembers, eq(staffMembers.id, leadNotes.staffId))
    .where(and(eq(leadNotes.kind, lead.kind), eq(leadNotes.leadId, lead.leadId)))
    .orderBy(desc(leadNotes.createdAt), desc(leadNotes.id));
  return rows.map((r) => ({ id: r.id, body: r.body, by: r.name || r.email, at: formatDeskTime(new Date(r.at), timeZone), iso: new Date(r.at).toISOString() }));
}

export const DESK_LEAD_CSV: CsvColumn<DeskLeadRow>[] = [
  { header: "Date", value: (r) => r.date },
  { header: "Kind", value: (r) => LEAD_KIND_LABELS[r.kind] },
  { header: "Location", value: (r) => r.location },
  { header: "Name", value: (r) => r.name },
  { header: "E-mail", value: (r) => r.email },
  { header: "Phone", value: (r) => r.phone },
  { header: "Unit type", value: (r) => r.unitType },
  { header: "Step reached", value: (r) => r.stepReached },
  { header: "Message", value: (r) => r.message },
  { header: "Status", value: (r) => DESK_LEAD_STATUS_LABELS[r.status] },
  { header: "Reminder", value: (r) => reminderLabel(r) },
  { header: "Reminder sent at", value: (r) => r.reminderSentAt ?? "" },
  { header: "Contacted at", value: (r) => r.contactedAt ?? "" },
  { header: "Contacted by", value: (r) => r.contactedBy ?? "" },
  { header: "Note", value: (r) => r.note },
];
