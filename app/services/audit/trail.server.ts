/**
 * The audit trail page and its CSV export (issue 23): owners filter it by date range (calendar dates
 * of the account's time zone: its first live location's, as the desk's lists and the billing date),
 * staff member, action and location; the CSV holds exactly the rows the filter selects.
 */
import { and, asc, count, desc, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { addDaysIso, startOfLocalDay } from "~/domain/shared/calendar";
import { formatDeskTime } from "~/domain/desk/time";
import type { Database } from "~/db/client.server";
import { auditEvents, leases, locations, payments, staffMembers, tenants, units, unitTypes } from "~/db/schema";
import { formatCents } from "~/domain/shared/money";
import { AUDIT_PAGE_SIZE, type AuditFilter } from "~/domain/audit/filter";
import { toCsv, type CsvColumn } from "../web/csv.server";

/** The CSV export holds at most this many rows (the newest). */
const AUDIT_EXPORT_MAX = 50_000;

/** The account's time zone: its first live location's (else its first location's). */
export async function auditTimeZone(db: Database, accountId: number): Promise<string> {
  const [loc] = await db
    .select({ timeZone: locations.timeZone })
    .from(locations)
    .where(eq(locations.accountId, accountId))
    .orderBy(sql`case when ${locations.status} = 'Live' then 0 else 1 end`, asc(locations.id))
    .limit(1);
  return loc?.timeZone.timeZoneId ?? "America/New_York";
}

function where(accountId: number, f: AuditFilter, timeZone: string): SQL {
  const parts: SQL[] = [eq(auditEvents.accountId, accountId)];
  if (f.from) parts.push(gte(auditEvents.at, startOfLocalDay(f.from, timeZone)));
  if (f.to) parts.push(lt(auditEvents.at, startOfLocalDay(addDaysIso(f.to, 1), timeZone)));
  if (f.staff) parts.push(eq(auditEvents.staffId, f.staff));
  if (f.action) parts.push(eq(auditEvents.action, f.action));
  if (f.location) parts.push(eq(auditEvents.locationId, f.location));
  return and(...parts)!;
}

type AuditRow = typeof auditEvents.$inferSelect;

/** One page of the filtered trail, newest first, and how many rows the filter selects. */
export async function listAuditEvents(db: Database, accountId: number, filter: AuditFilter, timeZone: string): Promise<{ rows: AuditRow[]; total: number }> {
  const w = where(accountId, filter, timeZone);
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
const auditColumns = (timeZone: string): CsvColumn<AuditRow>[] => [
  { header: "When (UTC)", value: (r) => r.at.toISOString() },
  { header: "When (local)", value: (r) => formatDeskTime(r.at, timeZone) },
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
  const timeZone = await auditTimeZone(db, accountId);
  const rows = await db.select().from(auditEvents).where(where(accountId, filter, timeZone)).orderBy(desc(auditEvents.at), desc(auditEvents.id)).limit(AUDIT_EXPORT_MAX);
  return { csv: toCsv(auditColumns(timeZone), rows), rows: rows.length };
}

/**
 * The names of the records and values a page of the trail points at (decision 644): staff members,
 * tenants, leases (their unit and location), locations, payments and unit types (with their size), so
 * the page says "Unit A12 at Lumberton" rather than `lease 7`. Keyed `entity:id`.
 */
export async function auditNames(db: Database, accountId: number, rows: ReadonlyArray<Pick<AuditRow, "entity" | "entityId" | "changes" | "detail">>) {
  const idsOf = (...entities: string[]) => [...new Set(rows.filter((r) => r.entity && entities.includes(r.entity) && /^\d{1,9}$/.test(r.entityId ?? "")).map((r) => Number(r.entityId)))];
  const key = (entity: string, id: number | string) => `${entity}:${id}`;
  const records = new Map<string, string>();
  const locs = await db.select({ id: locations.id, name: locations.name }).from(locations).where(eq(locations.accountId, accountId));
  const staff = await db.select({ id: staffMembers.id, name: staffMembers.name, email: staffMembers.email }).from(staffMembers).where(eq(staffMembers.accountId, accountId));
  const locationNames = new Map(locs.map((l) => [l.id, l.name]));
  const staffNames = new Map(staff.map((s) => [s.id, s.name ? `${s.name} (${s.email})` : s.email]));
  for (const [id, name] of staffNames) records.set(key("staff_member", id), name);
  for (const [id, name] of locationNames) records.set(key("location", id), name);
  const tenantIds = idsOf("tenant");
  if (tenantIds.length) {
    for (const t of await db.select({ id: tenants.id, first: tenants.firstName, last: tenants.lastName }).from(tenants).where(and(eq(tenants.accountId, accountId), inArray(tenants.id, tenantIds)))) {
      records.set(key("tenant", t.id), `${t.first} ${t.last}`.trim() || `Tenant ${t.id}`);
    }
  }
  const leaseIds = idsOf("lease");
  if (leaseIds.length) {
    for (const l of await db.select({ id: leases.id, unit: units.name, location: locations.name, first: tenants.firstName, last: tenants.lastName }).from(leases).innerJoin(units, eq(units.id, leases.unitId)).innerJoin(locations, eq(locations.id, leases.locationId)).innerJoin(tenants, eq(tenants.id, leases.tenantId)).where(and(eq(locations.accountId, accountId), inArray(leases.id, leaseIds)))) {
      records.set(key("lease", l.id), `${`${l.first} ${l.last}`.trim()}'s lease of unit ${l.unit} at ${l.location}`);
    }
  }
  const paymentIds = idsOf("payment");
  if (paymentIds.length) {
    for (const p of await db.select({ id: payments.id, amount: payments.amount, brand: payments.cardBrand, last4: payments.cardLast4 }).from(payments).where(inArray(payments.id, paymentIds))) {
      records.set(key("payment", p.id), `Payment of ${formatCents(p.amount)} (${p.brand} ending ${p.last4})`);
    }
  }
  const unitTypeIds = idsOf("unitType", "unit_type");
  if (unitTypeIds.length) {
    for (const u of await db.select({ id: unitTypes.id, name: unitTypes.name, width: unitTypes.width, length: unitTypes.length, location: locations.name }).from(unitTypes).innerJoin(locations, eq(locations.id, unitTypes.locationId)).where(and(eq(locations.accountId, accountId), inArray(unitTypes.id, unitTypeIds)))) {
      const name = `${u.width}' x ${u.length}' ${u.name} at ${u.location}`;
      records.set(key("unitType", u.id), name);
      records.set(key("unit_type", u.id), name);
    }
  }
  return { records, names: { locations: locationNames, staff: staffNames } };
}
