/**
 * Move-outs (issue 39, decision 500): a notice given in the portal reaches the tenant (a
 * confirmation) and the office (a notice at the location's e-mail address); the desk sees who is
 * moving out and when, and records a move-out done through the storage-software port, which ends the
 * lease and frees the unit (SiteLink locations are moved out in SiteLink itself).
 */
import { and, asc, eq, inArray, isNotNull, lte } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { leases, locations, tenants, units, websites } from "~/db/schema";
import { addDaysIso, formatDate, localDate } from "~/domain/shared/calendar";
import { moveOutDateProblem } from "~/domain/desk/tenants";
import type { StorageSoftware } from "~/storage-software/port";
import { storageFor } from "~/storage-software/index.server";
import { recordAudit } from "../audit/events.server";
import { deskLocations, tenantInScope, type DeskActionOutcome } from "./tenants.server";
import { queueEmail, sendQueuedEmail } from "../mail/outbox.server";
import { planText, sendPlannedTexts } from "../texts/planned.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";

/** How far ahead the console's home page looks for move-outs due. */
export const MOVE_OUTS_DUE_DAYS = 7;

/**
 * A tenant's notice from the portal: recorded by the location's storage software, then an e-mail to
 * the tenant (the date, the unit and the location's move-out instructions) and one to the office
 * (at the location's e-mail address, when it has one), both through the outbox. A failure to send is
 * retried by the mail job; the notice itself is already recorded.
 */
export async function giveMoveOutNotice(
  db: Database,
  storage: StorageSoftware,
  input: { tenantId: string; leaseId: string; unitName: string; locationId: number; moveOutDate: string; reason: string | null; now: Date },
): Promise<void> {
  await storage.giveMoveOutNotice({ tenantId: input.tenantId, leaseId: input.leaseId, moveOutDate: input.moveOutDate, reason: input.reason, now: input.now });
  const [tenant] = await db
    .select({ firstName: tenants.firstName, lastName: tenants.lastName, email: tenants.email, accountId: tenants.accountId })
    .from(tenants)
    .where(eq(tenants.id, Number(input.tenantId)));
  const [location] = await db
    .select({ name: locations.name, email: locations.email, phone: locations.phoneNumber, message: locations.moveOutConfirmationMessage })
    .from(locations)
    .where(eq(locations.id, input.locationId));
  if (!tenant || !location) return;
  const [site] = await db.select({ name: websites.websiteName }).from(websites).where(eq(websites.accountId, tenant.accountId)).limit(1);
  const siteName = site?.name ?? "";
  const when = formatDate(input.moveOutDate);
  const unit = `unit ${input.unitName} at ${location.name}`;
  const name = `${tenant.firstName} ${tenant.lastName}`.trim();
  const ids: number[] = [];
  let textId: number | null = null;
  await db.transaction(async (tx) => {
    // The confirmation by text too, where the tenant agreed to texts (issue 40, decision 512).
    if (/^\d{1,9}$/.test(input.leaseId)) textId = await planText(tx, { tenantId: Number(input.tenantId), leaseId: Number(input.leaseId), kind: "move_out", key: input.moveOutDate, now: input.now });
    ids.push(
      (
        await queueEmail(tx, {
          locationId: input.locationId,
          to: tenant.email,
          subject: `Your move-out notice: ${when}`,
          text: [
            `Hello ${tenant.firstName},`,
            "",
            `We have your notice: you are moving out of ${unit} on ${when}.`,
            ...(input.reason ? [`Your note to the office: ${input.reason}`] : []),
            "",
            ...(location.message ? [location.message, ""] : []),
            location.phone ? `Questions, or a change of plan? Call the office at ${location.phone}.` : "Questions, or a change of plan? Call the office.",
            "",
            siteName,
          ].join("\n"),
        })
      ).id,
    );
    if (location.email) {
      ids.push(
        (
          await queueEmail(tx, {
            locationId: input.locationId,
            to: location.email,
            subject: `Move-out notice: ${name}, unit ${input.unitName}, ${when}`,
            text: [
              `${name} (${tenant.email}) gave notice in the customer portal: moving out of ${unit} on ${when}.`,
              ...(input.reason ? ["", `Their note: ${input.reason}`] : []),
              "",
              "The back office lists it under Tenants (Moving out) and on its home page. Record the move-out on the tenant's page once the unit is empty.",
            ].join("\n"),
          })
        ).id,
      );
    }
  });
  for (const id of ids) await sendQueuedEmail(db, id);
  // Now when it is within the texting hours; else the billing job's first run inside them.
  if (textId !== null) await sendPlannedTexts(db, { now: input.now, ids: [textId] }).catch(() => undefined);
}

interface MoveOutDue {
  tenantId: number;
  tenantName: string;
  unitName: string;
  locationName: string;
  moveOutDate: string;
  /** On the location's calendar: the date has passed and the lease is still active. */
  overdue: boolean;
}

/**
 * Active leases at the member's locations with a move-out date up to MOVE_OUTS_DUE_DAYS ahead
 * (and any whose date has passed without a move-out recorded), soonest first.
 */
export async function listMoveOutsDue(db: Database, staff: SignedInStaff, now: Date): Promise<MoveOutDue[]> {
  const mine = await deskLocations(db, staff);
  if (!mine.length) return [];
  // The widest window over the member's time zones; each row is then judged on its own calendar.
  const earliestToday = mine.map((l) => localDate(now, l.timeZone)).sort()[0]!;
  const rows = await db
    .select({ tenantId: tenants.id, firstName: tenants.firstName, lastName: tenants.lastName, unitName: units.name, locationId: locations.id, locationName: locations.name, moveOutDate: leases.moveOutDate })
    .from(leases)
    .innerJoin(tenants, eq(tenants.id, leases.tenantId))
    .innerJoin(units, eq(units.id, leases.unitId))
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .where(
      and(
        eq(leases.status, "active"),
        isNotNull(leases.moveOutDate),
        inArray(
          leases.locationId,
          mine.map((l) => l.id),
        ),
        lte(leases.moveOutDate, addDaysIso(earliestToday, MOVE_OUTS_DUE_DAYS + 1)),
      ),
    )
    .orderBy(asc(leases.moveOutDate), asc(tenants.lastName), asc(leases.id))
    .limit(100);
  const zones = new Map(mine.map((l) => [l.id, l.timeZone]));
  return rows
    .map((r) => {
      const today = localDate(now, zones.get(r.locationId) ?? "America/New_York");
      return {
        tenantId: r.tenantId,
        tenantName: `${r.firstName} ${r.lastName}`.trim(),
        unitName: r.unitName,
        locationName: r.locationName,
        moveOutDate: r.moveOutDate!,
        overdue: r.moveOutDate! < today,
        within: r.moveOutDate! <= addDaysIso(today, MOVE_OUTS_DUE_DAYS),
      };
    })
    .filter((r) => r.within)
    .map(({ within: _within, ...r }) => r);
}

/**
 * The desk records a move-out done (a front-desk member, a manager or an owner at the lease's
 * location): the storage software ends the lease on `moveOutDate` and frees the unit, and the audit
 * row is written in that transaction. Null: tenant or lease not within the member's locations (404).
 */
export async function recordDeskMoveOut(
  db: Database,
  staff: SignedInStaff,
  input: { tenantId: number; leaseId: number; moveOutDate: string; now: Date },
): Promise<DeskActionOutcome | null> {
  const found = await tenantInScope(db, staff, input.tenantId);
  if (!found) return null;
  const [row] = await db
    .select({ lease: leases, unitName: units.name, location: { id: locations.id, name: locations.name, software: locations.software, status: locations.status, timeZone: locations.timeZone } })
    .from(leases)
    .innerJoin(units, eq(units.id, leases.unitId))
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .where(and(eq(leases.id, input.leaseId), eq(leases.tenantId, input.tenantId), inArray(leases.locationId, found.locations.map((l) => l.id).concat(-1))));
  if (!row) return null;
  if (row.lease.status !== "active") return { ok: true, message: `Unit ${row.unitName} was recorded as moved out already; nothing changed.` };
  const today = localDate(input.now, row.location.timeZone.timeZoneId);
  const problem = moveOutDateProblem(input.moveOutDate, row.lease, today);
  if (problem) return { ok: false, message: problem, field: "moveOutDate" };
  const storage = storageFor(db, row.location);
  let outcome;
  try {
    outcome = await storage.recordMoveOut({
      tenantId: String(input.tenantId),
      leaseId: String(row.lease.id),
      moveOutDate: input.moveOutDate,
      now: input.now,
      record: (tx) =>
        recordAudit(tx, {
          ...auditActor(staff),
          action: "lease.moved_out",
          entity: "lease",
          entityId: row.lease.id,
          locationId: row.location.id,
          changes: { status: { before: "active", after: "moved_out" }, moveOutDate: { before: row.lease.moveOutDate, after: input.moveOutDate } },
          detail: { tenantId: input.tenantId, unit: row.unitName },
          at: input.now,
        }),
    });
  } catch {
    return { ok: false, message: "The move-out could not be recorded just now. Nothing was changed; try again in a moment." };
  }
  if (outcome.kind === "refused") return { ok: false, message: outcome.message, field: "leaseId" };
  if (outcome.kind === "already_moved_out") return { ok: true, message: `Unit ${row.unitName} was recorded as moved out already; nothing changed.` };
  return { ok: true, message: `Unit ${row.unitName} at ${row.location.name} is recorded as moved out on ${formatDate(input.moveOutDate)}: the lease has ended and the unit can be rented again.` };
}
