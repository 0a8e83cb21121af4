/**
 * The audit trail page and its CSV export (issue 23): owners filter it by date range (UTC calendar
 * dates), staff member, action and location; the CSV holds exactly the rows the filter selects.
 */
import { and, asc, count, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { auditEvents, locations, staffMembers } from "~/db/schema";
import { AUDIT_PAGE_SIZE, type AuditFilter } from "~/domain/audit-filter";
import { toCsv, type CsvColumn } from "./csv.server";

/** The CSV export holds at most this many rows (the newest). */
export const AUDIT_EXPORT_MAX = 50_000;

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

/** Every row the filter selects (not only the page shown), newest first, as CSV; and how many. */
export async function auditCsv(db: Database, accountId: number, filter: AuditFilter): Promise<{ csv: string; rows: number }> {
  const rows = await db.select().from(auditEvents).where(where(accountId, filter)).orderBy(desc(auditEvents.at), desc(auditEvents.id)).limit(AUDIT_EXPORT_MAX);
  return { csv: toCsv(AUDIT_COLUMNS, rows), rows: rows.length };
}
