/**
 * Reconciliation (issue 35, decision 440): for a location and a day, what the card processor says it
 * charged and refunded (its own list, through the gateway's `listActivity`), what we recorded, and
 * every difference with what to do. Differences are stored (table payment_differences) so the
 * console's home shows them until a member marks them resolved with a note (audited in the same
 * transaction); a later check that finds the records agree clears them.
 */
import { and, asc, desc, eq, gte, isNull, lt, or, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { leases, ledgerEntries, locations, paymentDifferences, payments, tenants } from "~/db/schema";
import { addDaysIso, localDate, startOfLocalDay } from "~/domain/shared/calendar";
import { reconcileDay, whatToDo, DIFFERENCE_LABELS, type DayTotals, type DifferenceKind, type OurPayment } from "~/domain/payments/reconciliation";
import { inScope } from "~/domain/staff/roles";
import { formatDeskTime } from "~/domain/desk/time";
import { paymentGatewayFor } from "~/platform/payments/gateway.server";
import { storageFor } from "~/storage-software/index.server";
import type { LocationRef } from "~/storage-software/port";
import { logger } from "~/platform/logger.server";
import { recordAudit } from "../audit/events.server";
import { deskLocations, localDay, type DeskLocation, type DeskViewer } from "./scope.server";
import { readRefunds, refundsOfPayment } from "./refund-lines.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";

interface ShownDifference {
  id: number;
  kind: DifferenceKind;
  label: string;
  locationId: number | null;
  location: string;
  day: string;
  reference: string;
  processorAmount: number | null;
  recordedAmount: number | null;
  detail: string;
  whatToDo: string;
  resolved: { at: string; note: string } | null;
}

type ReconciliationResult =
  | { kind: "done"; processor: DayTotals; recorded: DayTotals; differences: ShownDifference[] }
  | { kind: "not-ours"; message: string }
  | { kind: "unavailable"; message: string };

const NO_GATEWAY = "Cards at this location are not taken through our card processor, so there is nothing to compare here.";
const CHARGED_BY_SOFTWARE = "Cards at this location are charged by SiteLink's own processor: reconcile them in SiteLink.";
const NOT_READABLE = "The card processor's list could not be read just now. Nothing was compared; please try again in a few minutes.";

interface LocationRow {
  id: number;
  accountId: number;
  name: string;
  software: LocationRef["software"];
  status: "Live" | "Coming Soon";
  timeZone: string;
}

async function locationRow(db: Database, id: number): Promise<LocationRow | null> {
  const [l] = await db.select().from(locations).where(eq(locations.id, id));
  if (!l) return null;
  return { id: l.id, accountId: l.accountId, name: l.name, software: l.software as LocationRow["software"], status: l.status as LocationRow["status"], timeZone: l.timeZone.timeZoneId };
}


/** The account's payments tried in `[from, to)`, with their location, day and refund day. */
async function ourPayments(db: Database, accountId: number, from: Date, to: Date): Promise<OurPayment[]> {
  const locationOf = sql<number>`coalesce(${payments.locationId}, ${leases.locationId})`;
  const rows = await db
    .select({
      id: payments.id,
      locationId: locationOf,
      day: sql<string>`coalesce(${ledgerEntries.entryDate}::text, ${localDay(payments.createdAt)})`,
      refunds: refundsOfPayment,
      refunded: payments.refundedAmount,
      status: payments.status,
      amount: payments.amount,
      reference: payments.authReference,
      key: payments.idempotencyKey,
      firstName: tenants.firstName,
      lastName: tenants.lastName,
      brand: payments.cardBrand,
      last4: payments.cardLast4,
    })
    .from(payments)
    .leftJoin(leases, eq(leases.id, payments.leaseId))
    .innerJoin(locations, eq(locations.id, locationOf))
    .leftJoin(tenants, eq(tenants.id, payments.tenantId))
    .leftJoin(ledgerEntries, and(eq(ledgerEntries.paymentId, payments.id), eq(ledgerEntries.kind, "payment")))
    .where(and(eq(locations.accountId, accountId), gte(payments.createdAt, from), lt(payments.createdAt, to)));
  return rows.map((r) => ({
    id: r.id,
    locationId: Number(r.locationId),
    day: r.day,
    refundDay: readRefunds(r.refunds).at(-1)?.day ?? null,
    refunds: readRefunds(r.refunds),
    refunded: r.refunded,
    status: r.status,
    amount: r.amount,
    reference: r.reference,
    key: r.key,
    tenant: [r.firstName, r.lastName].filter(Boolean).join(" "),
    card: `${r.brand} ${r.last4}`,
  }));
}

/**
 * Compares a location's day with the processor and stores what differs (new differences added, ones
 * no longer found cleared). Null when the location's cards do not go through our gateway.
 */
async function checkLocationDay(db: Database, location: LocationRow, day: string, now: Date): Promise<ReconciliationResult> {
  if ((await storageFor(db, location).cardsChargedBy()) === "software") return { kind: "not-ours", message: CHARGED_BY_SOFTWARE };
  const gateway = paymentGatewayFor(location)?.gateway;
  if (!gateway?.listActivity) return { kind: "not-ours", message: NO_GATEWAY };
  const from = startOfLocalDay(day, location.timeZone);
  const to = startOfLocalDay(addDaysIso(day, 1), location.timeZone);
  // A day either side: a payment recorded just across midnight still finds its charge.
  const wideFrom = new Date(from.getTime() - 86_400_000);
  const wideTo = new Date(to.getTime() + 86_400_000);
  let activity;
  try {
    activity = await gateway.listActivity({ from: wideFrom, to: wideTo });
  } catch (error) {
    logger.warn({ err: error, locationId: location.id, day }, "[reconciliation] the processor's list could not be read");
    return { kind: "unavailable", message: NOT_READABLE };
  }
  const ours = await ourPayments(db, location.accountId, new Date(wideFrom.getTime() - 86_400_000), wideTo);
  const found = reconcileDay({ locationId: location.id, day, from, to, charges: activity.charges, refunds: activity.refunds, ours });
  await db.transaction(async (tx) => {
    for (const d of found.differences) {
      await tx
        .insert(paymentDifferences)
        .values({ accountId: location.accountId, locationId: d.locationId, day, kind: d.kind, reference: d.reference, processorAmount: d.processorAmount, recordedAmount: d.recordedAmount, paymentId: d.paymentId, detail: d.detail, foundAt: now })
        .onConflictDoUpdate({
          target: [paymentDifferences.accountId, paymentDifferences.kind, paymentDifferences.reference],
          set: { processorAmount: d.processorAmount, recordedAmount: d.recordedAmount, detail: d.detail, clearedAt: null },
          setWhere: isNull(paymentDifferences.resolvedAt),
        });
    }
    // What this check no longer finds: the records agree now (e.g. the webhook recorded it meanwhile).
    const open = await tx
      .select()
      .from(paymentDifferences)
      .where(
        and(
          eq(paymentDifferences.accountId, location.accountId),
          isNull(paymentDifferences.resolvedAt),
          isNull(paymentDifferences.clearedAt),
          or(and(eq(paymentDifferences.locationId, location.id), eq(paymentDifferences.day, day)), isNull(paymentDifferences.locationId)),
        ),
      );
    for (const row of open) {
      const still = found.differences.some((d) => d.kind === row.kind && d.reference === row.reference);
      if (still) continue;
      // Money not tied to a location is judged only by a check that saw its charge.
      if (row.locationId === null && !found.seen.includes(row.reference)) continue;
      await tx.update(paymentDifferences).set({ clearedAt: now }).where(eq(paymentDifferences.id, row.id));
    }
  });
  const differences = await shownDifferences(db, location.accountId, { location, day, withUnplaced: true });
  return { kind: "done", processor: found.processor, recorded: found.recorded, differences: differences.filter((d) => d.locationId !== null || found.seen.includes(d.reference)) };
}

async function shownDifferences(db: Database, accountId: number, where: { location: LocationRow; day: string; withUnplaced: boolean }): Promise<ShownDifference[]> {
  const rows = await db
    .select()
    .from(paymentDifferences)
    .where(
      and(
        eq(paymentDifferences.accountId, accountId),
        isNull(paymentDifferences.clearedAt),
        or(and(eq(paymentDifferences.locationId, where.location.id), eq(paymentDifferences.day, where.day)), where.withUnplaced ? isNull(paymentDifferences.locationId) : sql`false`),
      ),
    )
    .orderBy(asc(paymentDifferences.id));
  return rows.map((r) => show(r, r.locationId === null ? "No location" : where.location.name, where.location.timeZone));
}

function show(r: typeof paymentDifferences.$inferSelect, location: string, timeZone: string): ShownDifference {
  return {
    id: r.id,
    kind: r.kind,
    label: DIFFERENCE_LABELS[r.kind],
    locationId: r.locationId,
    location,
    day: r.day,
    reference: r.reference,
    processorAmount: r.processorAmount,
    recordedAmount: r.recordedAmount,
    detail: r.detail,
    whatToDo: whatToDo(r),
    resolved: r.resolvedAt ? { at: formatDeskTime(r.resolvedAt, timeZone), note: r.resolutionNote ?? "" } : null,
  };
}

const LOCATION_NOT_YOURS = "Choose one of your locations from the list.";
const DAY_INVALID = "Enter a day as YYYY-MM-DD.";

/**
 * The reconciliation page: the member's locations, the one chosen (else the first) and the day (else
 * today there), and the comparison. A location outside the member's scope is refused beside the field.
 */
export async function reconciliationPage(db: Database, viewer: DeskViewer, input: { location?: string | null; day?: string | null; now: Date }) {
  const mine = await deskLocations(db, viewer);
  const errors: { location?: string; day?: string } = {};
  let chosen: DeskLocation | undefined = mine[0];
  if (input.location) {
    const id = Number(input.location);
    const hit = mine.find((l) => l.id === id);
    if (hit) chosen = hit;
    else errors.location = LOCATION_NOT_YOURS;
  }
  if (!chosen) return { locations: mine, location: null, day: "", errors, result: null };
  let day = localDate(input.now, chosen.timeZone);
  if (input.day) {
    if (/^\d{4}-\d{2}-\d{2}$/.test(input.day) && !Number.isNaN(Date.parse(`${input.day}T00:00:00Z`))) day = input.day;
    else errors.day = DAY_INVALID;
  }
  const row = (await locationRow(db, chosen.id))!;
  const result = await checkLocationDay(db, row, day, input.now);
  if (result.kind === "done" && !viewer.scope.all) result.differences = result.differences.filter((d) => d.locationId !== null);
  return { locations: mine, location: chosen, day, errors, result };
}

/** Open differences the member may see (their locations; those of no location for owners), for the console's home. */
export async function openDifferences(db: Database, viewer: DeskViewer): Promise<Array<{ id: number; locationId: number | null; label: string; location: string; day: string; detail: string; href: string }>> {
  const mine = await deskLocations(db, viewer);
  const rows = await db
    .select()
    .from(paymentDifferences)
    .where(and(eq(paymentDifferences.accountId, viewer.accountId), isNull(paymentDifferences.resolvedAt), isNull(paymentDifferences.clearedAt)))
    .orderBy(desc(paymentDifferences.day), asc(paymentDifferences.id));
  const out = [];
  for (const r of rows) {
    const at = r.locationId === null ? null : mine.find((l) => l.id === r.locationId);
    if (r.locationId === null ? !viewer.scope.all : !at || !inScope(viewer.scope, r.locationId)) continue;
    const first = at ?? mine[0];
    out.push({
      id: r.id,
      locationId: r.locationId,
      label: DIFFERENCE_LABELS[r.kind],
      location: at?.name ?? "No location",
      day: r.day,
      detail: r.detail,
      href: `/admin/reconciliation?location=${first?.id ?? ""}&day=${r.day}#difference-${r.id}`,
    });
  }
  return out;
}

type ResolveOutcome = { ok: true; message: string } | { ok: false; message: string };

/** Marks a difference resolved with the member's note, audited in the same transaction. Null: not one the member may see (404). */
export async function resolveDifference(db: Database, staff: SignedInStaff, input: { id: number; note: string; now: Date }): Promise<ResolveOutcome | null> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(paymentDifferences)
      .where(and(eq(paymentDifferences.id, input.id), eq(paymentDifferences.accountId, staff.accountId)))
      .for("update");
    if (!row) return null;
    if (row.locationId === null ? !staff.scope.all : !inScope(staff.scope, row.locationId)) return null;
    if (row.resolvedAt) return { ok: false as const, message: "This difference was already marked resolved." };
    await tx.update(paymentDifferences).set({ resolvedAt: input.now, resolvedBy: staff.staffId, resolutionNote: input.note }).where(eq(paymentDifferences.id, row.id));
    await recordAudit(tx, {
      ...auditActor(staff),
      action: "payment_difference.resolved",
      entity: "payment_difference",
      entityId: row.id,
      locationId: row.locationId,
      changes: { resolvedAt: { before: null, after: input.now.toISOString() }, resolutionNote: { before: null, after: input.note } },
      detail: { kind: row.kind, reference: row.reference, day: row.day, processorAmount: row.processorAmount, recordedAmount: row.recordedAmount },
      at: input.now,
    });
    return { ok: true as const, message: "Marked resolved." };
  });
}

/**
 * Housekeeping: yesterday and today at every location whose cards go through our gateway, so a
 * difference reaches the console's home without anyone opening the page. A processor that does not
 * answer is left for the next run.
 */
export async function reconcileRecentDays(db: Database, now: Date): Promise<number> {
  const all = await db.select({ id: locations.id }).from(locations);
  let found = 0;
  for (const { id } of all) {
    const row = await locationRow(db, id);
    if (!row) continue;
    const today = localDate(now, row.timeZone);
    for (const day of [addDaysIso(today, -1), today]) {
      const r = await checkLocationDay(db, row, day, now);
      if (r.kind === "done") found += r.differences.filter((d) => !d.resolved).length;
    }
  }
  return found;
}
