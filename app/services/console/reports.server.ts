/**
 * Reports by e-mail (issue 40, decisions 610–613). An owner or manager chooses a daily or weekly report
 * for their locations: rentals, reservations, move-ins and move-outs, occupancy, payments (net) and
 * declines, leads and recovered rentals, each with the week before beside it. It is sent at the chosen
 * hour in the locations' time zone (one e-mail per zone when a member's locations span several),
 * claimed once across processes (`job_runs`, in the transaction that queues the mail), through the
 * outbox. Every number is the row count of the very list function its link opens (decision 514) with
 * the member's own scope, and the recovered rentals are `countRentalRecovery` (decision 519).
 */
import crypto from "node:crypto";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { jobRuns, locationOccupancyDays, locations, staffLocations, staffMembers, staffReportPreferences, websites } from "~/db/schema";
import { deskFilterQuery, type DeskFilter } from "~/domain/desk/filters";
import { dueReportTime, hourLabel, REPORT_WEEKDAYS, reportPeriods, type ReportFrequency, type ReportPeriod, type ReportSchedule } from "~/domain/console/reports";
import { addDaysIso, formatDate, localDate, startOfLocalDay } from "~/domain/shared/calendar";
import { formatCents } from "~/domain/shared/money";
import { scopeFor, type StaffRole } from "~/domain/staff/roles";
import { env } from "~/platform/env.server";
import { logger } from "~/platform/logger.server";
import { locationsWithSoftware } from "~/db/queries/location-software.server";
import { storageFor } from "~/storage-software/index.server";
import { recordAudit } from "../audit/events.server";
import { listDeskLeads } from "../desk/leads.server";
import { deskPaymentTotals, listDeskPayments } from "../desk/payments.server";
import { listDeskRentals } from "../desk/rentals.server";
import { listDeskReservations } from "../desk/reservations.server";
import { deskLocations, type DeskLocation } from "../desk/scope.server";
import { listDeskTenants } from "../desk/tenants.server";
import { claimJobOnce } from "../jobs/claims.server";
import { queueEmail, sendQueuedEmail } from "../mail/outbox.server";
import { oneClickUnsubscribeHeaders } from "../mail/unsubscribe-headers.server";
import { countRentalRecovery } from "../rental/recovery.server";
import { consoleOrigin } from "../site/origin.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";
import { hitRateLimit } from "../web/rate-limit.server";

/** The roles that may have a report (the issue: "each owner or manager"). */
const REPORT_ROLES: readonly StaffRole[] = ["owner", "manager"];

export const mayHaveReports = (role: StaffRole) => REPORT_ROLES.includes(role);

/** Changes of one's report per member per 10 minutes. */
const CHANGES_PER_10_MINUTES = 20;

/** Counts one change of the member's report; the refusal's message when over the limit, else null. */
export async function limitReportChange(db: Database, staff: SignedInStaff, now: Date): Promise<string | null> {
  const r = await hitRateLimit(db, { key: `report-pref:staff:${staff.staffId}`, limit: CHANGES_PER_10_MINUTES, windowMs: 10 * 60_000, now });
  return r.allowed ? null : `Too many changes in a short time. Please wait ${r.retryAfterMinutes} minutes and try again.`;
}

/** The locations a member's report covers: the ones their role lets them see. */
export function reportLocations(db: Database, staff: SignedInStaff): Promise<DeskLocation[]> {
  return deskLocations(db, { accountId: staff.accountId, scope: staff.scope });
}

interface ReportPreference extends ReportSchedule {
  updatedAt: Date;
}

export async function getReportPreference(db: Database, staffId: number): Promise<ReportPreference | null> {
  const row = await db.query.staffReportPreferences.findFirst({ where: eq(staffReportPreferences.staffId, staffId) });
  return row ? { frequency: row.frequency, hour: row.hour, weekday: row.weekday, updatedAt: row.updatedAt } : null;
}

/**
 * Saves the member's choice (or removes it: "none"), audited in the same transaction. The first report
 * is the first one due after now.
 */
export async function saveReportPreference(db: Database, staff: SignedInStaff, choice: { frequency: ReportFrequency | "none"; hour: number; weekday: number }, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const before = await tx.query.staffReportPreferences.findFirst({ where: eq(staffReportPreferences.staffId, staff.staffId) });
    const was = before ? { frequency: before.frequency, hour: before.hour, weekday: before.weekday } : { frequency: "none" };
    let after: Record<string, unknown>;
    if (choice.frequency === "none") {
      await tx.delete(staffReportPreferences).where(eq(staffReportPreferences.staffId, staff.staffId));
      after = { frequency: "none" };
    } else {
      const values = { frequency: choice.frequency, hour: choice.hour, weekday: choice.frequency === "weekly" ? choice.weekday : 1 };
      await tx
        .insert(staffReportPreferences)
        .values({ staffId: staff.staffId, ...values, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: staffReportPreferences.staffId, set: { ...values, updatedAt: now } });
      after = values;
    }
    await recordAudit(tx, {
      ...auditActor(staff),
      action: "report.preference_changed",
      entity: "staff_member",
      entityId: staff.staffId,
      changes: Object.fromEntries(["frequency", "hour", "weekday"].filter((k) => JSON.stringify((was as Record<string, unknown>)[k]) !== JSON.stringify(after[k])).map((k) => [k, { before: (was as Record<string, unknown>)[k] ?? null, after: after[k] ?? null }])),
      at: now,
    });
  });
}

/** The report's unsubscribe token: the member's id and an HMAC of it under the first session secret. */
function unsubscribeToken(staffId: number): string {
  const mac = crypto.createHmac("sha256", env().sessionSecrets[0]!).update(`staff-report:${staffId}`, "utf8").digest("base64url");
  return `${staffId}.${mac}`;
}

function staffOfToken(token: string): number | null {
  const m = /^(\d{1,9})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return null;
  const staffId = Number(m[1]);
  const given = Buffer.from(m[2]!, "base64url");
  const ok = env().sessionSecrets.some((secret) => {
    const mac = crypto.createHmac("sha256", secret).update(`staff-report:${staffId}`, "utf8").digest();
    return mac.length === given.length && crypto.timingSafeEqual(mac, given);
  });
  return ok ? staffId : null;
}

/** Whose report a link stops, and whether they still have one; null for a token that is not one of ours. */
export async function reportUnsubscribeTarget(db: Database, token: string): Promise<{ email: string; hasReport: boolean } | null> {
  const staffId = staffOfToken(token);
  if (staffId === null) return null;
  const member = await db.query.staffMembers.findFirst({ columns: { email: true }, where: eq(staffMembers.id, staffId) });
  if (!member) return null;
  return { email: member.email, hasReport: Boolean(await getReportPreference(db, staffId)) };
}

/**
 * The report's unsubscribe link (the e-mail's body and its List-Unsubscribe header, RFC 8058): the
 * member's report is removed, audited. Null for a token that is not one of ours; `{ removed: false }`
 * when there was no report any more.
 */
export async function unsubscribeReport(db: Database, token: string, ip: string | null, now: Date): Promise<{ email: string; removed: boolean } | null> {
  const staffId = staffOfToken(token);
  if (staffId === null) return null;
  const member = await db.query.staffMembers.findFirst({ where: eq(staffMembers.id, staffId) });
  if (!member) return null;
  const removed = await db.transaction(async (tx) => {
    const gone = await tx.delete(staffReportPreferences).where(eq(staffReportPreferences.staffId, staffId)).returning({ staffId: staffReportPreferences.staffId });
    if (gone.length) {
      await recordAudit(tx, {
        accountId: member.accountId,
        staffId,
        actor: member.email,
        ip,
        action: "report.unsubscribed",
        entity: "staff_member",
        entityId: staffId,
        detail: { through: "the report e-mail's unsubscribe link" },
        at: now,
      });
    }
    return gone.length > 0;
  });
  return { email: member.email, removed };
}

interface Figure {
  count: number;
  cents?: number;
}

interface ReportLine {
  label: string;
  current: Figure | null;
  weekBefore: Figure | null;
  href: string | null;
  /** How the figure is written: a count, a count with money, a percentage of units. */
  kind: "count" | "money" | "occupancy" | "recovery";
  /** For recovery: reminders sent beside the recovered rentals. */
  sent?: { current: number; weekBefore: number };
  /** For occupancy: units taken of total. */
  units?: { current: { taken: number; total: number } | null; weekBefore: { taken: number; total: number } | null };
}

/** One period's figures for a set of locations (one location, or several with `location` undefined), each by its list. */
async function periodFigures(db: Database, staff: SignedInStaff, locationIds: number[], location: number | undefined, period: ReportPeriod, timeZone: string, now: Date) {
  const viewer = { accountId: staff.accountId, scope: staff.scope };
  const day = { location, from: period.from, to: period.to };
  const q = (filter: Omit<DeskFilter, "page">) => ({ filter: { ...filter, page: 1 }, locationIds });
  const [rentals, reservations, moveIns, moveOuts, payments, declines, leads, recovery] = await Promise.all([
    listDeskRentals(db, viewer, q(day), now),
    listDeskReservations(db, viewer, q(day), now),
    listDeskTenants(db, staff, { ...day, page: 1 }, { now }),
    listDeskTenants(db, staff, { location, due_from: period.from, due_to: period.to, page: 1 }, { now }),
    listDeskPayments(db, viewer, q(day)),
    listDeskPayments(db, viewer, q({ ...day, status: "declined" })),
    listDeskLeads(db, viewer, q(day), now),
    countRentalRecovery(db, { accountId: staff.accountId, locationIds, from: startOfLocalDay(period.from, timeZone), to: startOfLocalDay(addDaysIso(period.to, 1), timeZone) }),
  ]);
  const totals = await deskPaymentTotals(db, viewer, q(day), payments);
  return {
    rentals: { count: rentals.length },
    reservations: { count: reservations.length },
    moveIns: { count: moveIns.ok ? moveIns.total : 0 },
    moveOuts: { count: moveOuts.ok ? moveOuts.total : 0 },
    payments: { count: payments.length, cents: totals.reduce((s, t) => s + t.net, 0) },
    declines: { count: declines.length, cents: declines.reduce((s, p) => s + p.amount, 0) },
    leads: { count: leads.length },
    recovery,
  };
}

async function occupancyOn(db: Database, locationIds: number[], day: string): Promise<{ taken: number; total: number } | null> {
  if (!locationIds.length) return null;
  const rows = await db.select().from(locationOccupancyDays).where(and(inArray(locationOccupancyDays.locationId, locationIds), eq(locationOccupancyDays.day, day)));
  if (rows.length !== locationIds.length) return null;
  return { taken: rows.reduce((s, r) => s + r.taken, 0), total: rows.reduce((s, r) => s + r.total, 0) };
}

/**
 * Records each location's occupancy for its calendar day, once a day (the first run of the day): the
 * storage software has only the present figure, so a report's "week before" reads this row.
 */
async function recordOccupancyDays(db: Database, now: Date): Promise<number> {
  const all = await db.select({ id: locations.id, accountId: locations.accountId, timeZone: locations.timeZone }).from(locations);
  const days = all.map((l) => ({ ...l, day: localDate(now, l.timeZone.timeZoneId) }));
  if (!days.length) return 0;
  const have = new Set(
    (await db.select({ locationId: locationOccupancyDays.locationId, day: locationOccupancyDays.day }).from(locationOccupancyDays).where(inArray(locationOccupancyDays.day, [...new Set(days.map((d) => d.day))]))).map(
      (r) => `${r.locationId}|${r.day}`,
    ),
  );
  let written = 0;
  for (const l of days) {
    if (have.has(`${l.id}|${l.day}`)) continue;
    try {
      const [ref] = await locationsWithSoftware(db, l.accountId, [l.id]);
      if (!ref) continue;
      const types = await storageFor(db, ref).listUnitTypes({ now });
      const total = types.reduce((s, t) => s + t.totalCount, 0);
      const taken = total - types.reduce((s, t) => s + t.availableCount, 0);
      const done = await db.insert(locationOccupancyDays).values({ locationId: l.id, day: l.day, taken, total, readAt: now }).onConflictDoNothing().returning({ day: locationOccupancyDays.day });
      written += done.length;
    } catch (error) {
      logger.warn({ err: error, locationId: l.id }, "[reports] the occupancy could not be read; tried again at the next run");
    }
  }
  return written;
}

const pathWith = (path: string, filter: Omit<DeskFilter, "page">) => `${path}${deskFilterQuery({ ...filter, page: 1 })}`;

async function sectionLines(db: Database, staff: SignedInStaff, locationIds: number[], location: number | undefined, periods: ReturnType<typeof reportPeriods>, day: string, timeZone: string, now: Date): Promise<ReportLine[]> {
  const [cur, before, occNow, occBefore] = await Promise.all([
    periodFigures(db, staff, locationIds, location, periods.current, timeZone, now),
    periodFigures(db, staff, locationIds, location, periods.weekBefore, timeZone, now),
    occupancyOn(db, locationIds, day),
    occupancyOn(db, locationIds, addDaysIso(day, -7)),
  ]);
  const range = { location, from: periods.current.from, to: periods.current.to };
  const pct = (o: { taken: number; total: number } | null): Figure | null => (o && o.total > 0 ? { count: Math.round((o.taken * 100) / o.total) } : null);
  return [
    { label: "New rentals", kind: "count", current: cur.rentals, weekBefore: before.rentals, href: pathWith("/admin/rentals", range) },
    { label: "New reservations", kind: "count", current: cur.reservations, weekBefore: before.reservations, href: pathWith("/admin/reservations", range) },
    { label: "Move-ins", kind: "count", current: cur.moveIns, weekBefore: before.moveIns, href: pathWith("/admin/tenants", range) },
    { label: "Move-outs", kind: "count", current: cur.moveOuts, weekBefore: before.moveOuts, href: pathWith("/admin/tenants", { location, due_from: periods.current.from, due_to: periods.current.to }) },
    { label: "Occupancy", kind: "occupancy", current: pct(occNow), weekBefore: pct(occBefore), href: null, units: { current: occNow, weekBefore: occBefore } },
    { label: "Payments", kind: "money", current: cur.payments, weekBefore: before.payments, href: pathWith("/admin/payments", range) },
    { label: "Declined payments", kind: "money", current: cur.declines, weekBefore: before.declines, href: pathWith("/admin/payments", { ...range, status: "declined" }) },
    { label: "New leads", kind: "count", current: cur.leads, weekBefore: before.leads, href: pathWith("/admin/leads", range) },
    {
      label: "Recovered rentals",
      kind: "recovery",
      current: { count: cur.recovery.recovered },
      weekBefore: { count: before.recovery.recovered },
      sent: { current: cur.recovery.remindersSent, weekBefore: before.recovery.remindersSent },
      href: pathWith("/admin/leads", { ...range, kind: "abandoned_rental" }),
    },
  ];
}

/** One line of the e-mail: "New rentals: 3 (the week before: 1)". */
function lineText(line: ReportLine): string {
  const fig = (f: Figure | null, sent?: number, units?: { taken: number; total: number } | null) => {
    if (!f) return line.kind === "occupancy" ? "not recorded" : "0";
    if (line.kind === "money") return `${f.count}, ${line.label === "Payments" ? "net " : ""}${formatCents(f.cents ?? 0)}`;
    if (line.kind === "occupancy") return `${f.count}% (${units!.taken} of ${units!.total} units)`;
    if (line.kind === "recovery") return `${f.count} of ${sent ?? 0} reminded`;
    return String(f.count);
  };
  const now = fig(line.current, line.sent?.current, line.units?.current);
  const before = fig(line.weekBefore, line.sent?.weekBefore, line.units?.weekBefore);
  return `${line.label}: ${now} (the week before: ${before})`;
}

interface Member {
  staffId: number;
  accountId: number;
  email: string;
  name: string;
  role: StaffRole;
  locationIds: number[];
}

/** What the lists need of the member (the report is read as the member, with their scope). */
function asViewer(m: Member, now: Date): SignedInStaff {
  return { staffId: m.staffId, accountId: m.accountId, email: m.email, name: m.name, role: m.role, scope: scopeFor(m.role, m.locationIds), factorAt: now, sessionHash: "", ip: null };
}

function periodText(frequency: ReportFrequency, p: ReportPeriod): string {
  return frequency === "daily" ? formatDate(p.from) : `${formatDate(p.from)} – ${formatDate(p.to)}`;
}

/** The report e-mail for one member and the locations of one zone. */
async function buildReport(db: Database, m: Member, group: DeskLocation[], everyone: DeskLocation[], schedule: ReportSchedule, day: string, now: Date): Promise<{ subject: string; text: string; unsubscribe: string }> {
  const staff = asViewer(m, now);
  const zone = group[0]!.timeZone;
  const periods = reportPeriods(schedule.frequency, day);
  const website = await db.query.websites.findFirst({ columns: { domain: true, websiteName: true }, where: eq(websites.accountId, m.accountId) });
  const origin = consoleOrigin(website ?? null);
  const sections: Array<{ title: string; lines: ReportLine[] }> = [];
  // All the member's locations together, when this zone holds all of them (else one link could not show them).
  if (group.length > 1 && group.length === everyone.length) {
    sections.push({ title: "All your locations", lines: await sectionLines(db, staff, group.map((l) => l.id), undefined, periods, day, zone, now) });
  }
  for (const l of group) sections.push({ title: l.name, lines: await sectionLines(db, staff, [l.id], l.id, periods, day, zone, now) });
  const kind = schedule.frequency === "daily" ? "Daily" : "Weekly";
  const unsubscribe = `${origin}/admin/reports/unsubscribe/${unsubscribeToken(m.staffId)}`;
  const text = [
    `${kind} report for ${periodText(schedule.frequency, periods.current)}${group.length === 1 ? ` at ${group[0]!.name}` : ""}`,
    `Beside each number, the week before (${periodText(schedule.frequency, periods.weekBefore)}). Occupancy is at the start of ${formatDate(day)}.`,
    "",
    ...sections.flatMap((s) => [s.title, "-".repeat(Math.min(60, s.title.length)), ...s.lines.flatMap((l) => [lineText(l), ...(l.href ? [`  ${origin}${l.href}`] : [])]), ""]),
    `You get this ${schedule.frequency} report at ${hourLabel(schedule.hour)}${schedule.frequency === "weekly" ? ` on ${REPORT_WEEKDAYS[schedule.weekday - 1]}s` : ""} (${zone} time) because you chose it in the back office:`,
    `${origin}/admin/reports`,
    "To stop it:",
    unsubscribe,
    "",
    website?.websiteName ?? "",
  ].join("\n");
  return { subject: `${kind} report: ${periodText(schedule.frequency, periods.current)}${group.length === 1 ? `, ${group[0]!.name}` : ""}`, text, unsubscribe };
}

/** The owners and managers who chose a report, with their locations. */
async function membersWithReports(db: Database) {
  const rows = await db
    .select({ pref: staffReportPreferences, member: { id: staffMembers.id, accountId: staffMembers.accountId, email: staffMembers.email, name: staffMembers.name, role: staffMembers.role } })
    .from(staffReportPreferences)
    .innerJoin(staffMembers, eq(staffMembers.id, staffReportPreferences.staffId))
    .where(and(isNull(staffMembers.disabledAt), inArray(staffMembers.role, [...REPORT_ROLES])))
    .orderBy(asc(staffMembers.id));
  const ids = rows.map((r) => r.member.id);
  const links = ids.length ? await db.select().from(staffLocations).where(inArray(staffLocations.staffId, ids)) : [];
  return rows.map((r) => ({
    pref: r.pref,
    member: { staffId: r.member.id, accountId: r.member.accountId, email: r.member.email, name: r.member.name, role: r.member.role, locationIds: links.filter((l) => l.staffId === r.member.id).map((l) => l.locationId) } satisfies Member,
  }));
}

const reportJob = (staffId: number, zone: string) => `report:${staffId}:${zone}`;

/**
 * Sends the reports that are due (each member, zone and time once across processes: the `job_runs`
 * row is inserted in the transaction that queues the mail). Run by housekeeping; returns how many
 * reports were queued by this run.
 */
export async function sendDueReports(db: Database, now: Date): Promise<number> {
  await recordOccupancyDays(db, now);
  let sent = 0;
  for (const { pref, member } of await membersWithReports(db)) {
    const staff = asViewer(member, now);
    const mine = await deskLocations(db, { accountId: staff.accountId, scope: staff.scope });
    const zones = new Map<string, DeskLocation[]>();
    for (const l of mine) zones.set(l.timeZone, [...(zones.get(l.timeZone) ?? []), l]);
    for (const [zone, group] of zones) {
      const due = dueReportTime(pref, now, zone, pref.updatedAt);
      if (!due) continue;
      const job = reportJob(member.staffId, zone);
      const done = await db.query.jobRuns.findFirst({ columns: { job: true }, where: and(eq(jobRuns.job, job), eq(jobRuns.periodStart, due.at)) });
      if (done) continue;
      try {
        const report = await buildReport(db, member, group, mine, pref, due.day, now);
        const outboxId = await db.transaction(async (tx) => {
          if (!(await claimJobOnce(tx, job, due.at, now))) return null;
          const { id } = await queueEmail(tx, { to: member.email, subject: report.subject, text: report.text, secrets: [report.unsubscribe], headers: oneClickUnsubscribeHeaders(report.unsubscribe) });
          return id;
        });
        if (outboxId === null) continue;
        sent++;
        await sendQueuedEmail(db, outboxId);
      } catch (error) {
        logger.error({ err: error, staffId: member.staffId }, "[reports] a report could not be made; the next run tries again");
      }
    }
  }
  return sent;
}
