/**
 * The audit trail page and its CSV export (issue 23): owners filter it by date range (UTC calendar
 * dates), staff member, action and location; the CSV holds exactly the rows the filter selects.
 */
import { and, asc, count, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Database } from "~/db/client.server";
import { auditEvents, locations, staffMembers } from "~/db/schema";
import { toCsv, type CsvColumn } from "./csv.server";

export const AUDIT_PAGE_SIZE = 50;
/** The CSV export holds at most this many rows (the newest); the page says so when there are more. */
export const AUDIT_EXPORT_MAX = 50_000;

const blank = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const isoDate = z.string().trim().regex(/^\d{4}-\d{2}-\d{2}$/, "Enter a date as YYYY-MM-DD.").refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)), "Enter a real date.");
const fields = {
  from: z.preprocess(blank, isoDate.optional()),
  to: z.preprocess(blank, isoDate.optional()),
  staff: z.preprocess(blank, z.coerce.number().int().positive("Choose a staff member from the list.").optional()),
  action: z.preprocess(blank, z.string().trim().max(80, "Choose an action from the list.").regex(/^[a-z_.]+$/, "Choose an action from the list.").optional()),
  location: z.preprocess(blank, z.coerce.number().int().positive("Choose a location from the list.").optional()),
  page: z.preprocess(blank, z.coerce.number().int().min(1).max(100_000).optional()),
};
export type AuditFilter = { from?: string; to?: string; staff?: number; action?: string; location?: number; page: number };
export type AuditFilterErrors = Partial<Record<keyof AuditFilter, string>>;

/** The filter from the query string; a bad value is reported beside its field and left out. */
export function parseAuditFilter(params: URLSearchParams): { filter: AuditFilter; errors: AuditFilterErrors } {
  const filter: AuditFilter = { page: 1 };
  const errors: AuditFilterErrors = {};
  for (const key of Object.keys(fields) as (keyof typeof fields)[]) {
    const parsed = fields[key].safeParse(params.get(key) ?? undefined);
    if (!parsed.success) errors[key] = parsed.error.issues[0]?.message ?? "Not a valid value.";
    else if (parsed.data !== undefined) (filter as Record<string, unknown>)[key] = parsed.data;
  }
  if (filter.from && filter.to && filter.from > filter.to) {
    errors.to = "The end date must not be before the start date.";
    delete filter.to;
  }
  return { filter, errors };
}

export function auditFilterQuery(filter: AuditFilter, page?: number): string {
  const p = new URLSearchParams();
  for (const key of ["from", "to", "staff", "action", "location"] as const) if (filter[key] !== undefined) p.set(key, String(filter[key]));
  if (page && page > 1) p.set("page", String(page));
  const s = p.toString();
  return s ? `?${s}` : "";
}

function where(accountId: number, f: AuditFilter): SQL {
  const parts: SQL[] = [eq(auditEvents.accountId, accountId)];
  if (f.from) parts.push(gte(auditEvents.at, new Date(`${f.from}T00:00:00Z`)));
  if (f.to) parts.push(lt(auditEvents.at, new Date(new Date(`${f.to}T00:00:00Z`).getTime() + 86_400_000)));
  if (f.staff) parts.push(eq(auditEvents.staffId, f.staff));
  if (f.action) parts.push(eq(auditEvents.action, f.action));
  if (f.location) parts.push(eq(auditEvents.locationId, f.location));
  return and(...parts)!;
}

export type AuditRow = typeof auditEvents.$inferSelect;

/** One page of the filtered trail, newest first, and how many rows the filter selects. */
export async function listAuditEvents(db: Database, accountId: number, filter: AuditFilter): Promise<{ rows: AuditRow[]; total: number }> {
  const w = where(accountId, filter);
  const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(auditEvents).where(w);
  const rows = await db
    .select()
    .from(auditEvents)
    .where(w)
    .orderBy(desc(auditEvents.at), desc(auditEvents.id))
    .limit(AUDIT_PAGE_SIZE)
    .offset((filter.page - 1) * AUDIT_PAGE_SIZE);
  return { rows, total: Number(n) };
}

/** The choices of the filter's lists: staff members, the actions recorded, the locations. */
export async function auditFilterChoices(db: Database, accountId: number) {
  const staff = await db.select({ id: staffMembers.id, email: staffMembers.email, name: staffMembers.name }).from(staffMembers).where(eq(staffMembers.accountId, accountId)).orderBy(asc(staffMembers.email));
  const actions = await db.selectDistinct({ action: auditEvents.action }).from(auditEvents).where(eq(auditEvents.accountId, accountId)).orderBy(asc(auditEvents.action));
  const locs = await db.select({ id: locations.id, name: locations.name }).from(locations).where(eq(locations.accountId, accountId)).orderBy(asc(locations.name));
  return { staff, actions: actions.map((a) => a.action), locations: locs };
}

const json = (v: unknown) => (v == null ? "" : JSON.stringify(v));
const AUDIT_COLUMNS: CsvColumn<AuditRow>[] = [
  { header: "When (UTC)", value: (r) => r.at.toISOString() },
  { header: "Who", value: (r) => r.actor },
  { header: "Staff id", value: (r) => r.staffId },
  { header: "Address", value: (r) => r.ip },
  { header: "Action", value: (r) => r.action },
  { header: "Record", value: (r) => r.entity },
  { header: "Record id", value: (r) => r.entityId },
  { header: "Location id", value: (r) => r.locationId },
  { header: "Changes", value: (r) => json(r.changes) },
  { header: "Detail", value: (r) => json(r.detail) },
];

/** Every row the filter selects (not only the page shown), oldest first, as CSV; and how many. */
export async function auditCsv(db: Database, accountId: number, filter: AuditFilter): Promise<{ csv: string; rows: number }> {
  const rows = await db.select().from(auditEvents).where(where(accountId, filter)).orderBy(desc(auditEvents.at), desc(auditEvents.id)).limit(AUDIT_EXPORT_MAX);
  return { csv: toCsv(AUDIT_COLUMNS, rows), rows: rows.length };
}
