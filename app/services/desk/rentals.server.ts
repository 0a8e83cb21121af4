import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Database } from "~/db/client.server";
import { leases, locations, payments, rentals, unitTypes, units } from "~/db/schema";
import { DESK_RENTAL_STATUS_LABELS, deskRentalStatus, type DeskRentalStatus } from "~/domain/desk/lists";
import type { DeskFilter } from "~/domain/desk/filters";
import { formatCents } from "~/domain/shared/money";
import type { CsvColumn } from "../web/csv.server";
import { rentalReference, dayBetween, inLocations, localDay, matchesSearch, type DeskViewer } from "./scope.server";

/**
 * The desk's online rentals (issue 23): every rental that reached the pay step and was charged or
 * is being recorded, with its status as the desk reads it (domain/desk-lists.ts `deskRentalStatus`,
 * decision 255). Filtered by the member's locations, the location's calendar dates, status and a
 * search over renter and unit.
 */
interface DeskRentalRow {
  /** The rental's public reference (not its id, which is the renter's cookie). */
  reference: string;
  /** The location's calendar date of the rental. */
  date: string;
  locationId: number;
  location: string;
  unitType: string;
  unit: string | null;
  renter: string;
  email: string;
  phone: string;
  /** Cents charged, null while not known. */
  amount: number | null;
  status: DeskRentalStatus;
  leaseId: number | null;
}


const str = (v: unknown) => (typeof v === "string" ? v : "");

/** The rentals the filter shows, newest first (every page: the route pages them, the CSV takes them all). */
export async function listDeskRentals(db: Database, viewer: DeskViewer, query: { filter: DeskFilter; locationIds: readonly number[] }, now: Date): Promise<DeskRentalRow[]> {
  const heldUnit = alias(units, "held_unit");
  const leaseUnit = alias(units, "lease_unit");
  const when = sql`coalesce(${leases.createdAt}, ${rentals.updatedAt})`;
  const day = localDay(when);
  const rows = await db
    .select({
      reference: rentalReference(rentals.id),
      day,
      locationId: rentals.locationId,
      location: locations.name,
      unitType: unitTypes.name,
      unit: sql<string | null>`coalesce(${leaseUnit.name}, ${heldUnit.name})`,
      details: rentals.tenantDetails,
      status: rentals.status,
      updatedAt: rentals.updatedAt,
      pendingMoveIn: sql<boolean>`${rentals.pendingMoveIn} is not null`,
      leaseId: rentals.completedLeaseId,
      amount: payments.amount,
      journalAttention: sql<boolean>`exists (select 1 from sitelink_writes w where w.idempotency_key like 'movein:' || ${rentals.id} || ':%' and (w.state = 'unknown' or (w.external_ids ->> 'attention') is not null))`,
    })
    .from(rentals)
    .innerJoin(locations, eq(locations.id, rentals.locationId))
    .innerJoin(unitTypes, eq(unitTypes.id, rentals.unitTypeId))
    .leftJoin(leases, eq(leases.id, rentals.completedLeaseId))
    .leftJoin(leaseUnit, eq(leaseUnit.id, leases.unitId))
    .leftJoin(heldUnit, eq(heldUnit.id, rentals.unitId))
    .leftJoin(payments, and(eq(payments.idempotencyKey, rentals.idempotencyKey), eq(payments.status, "approved")))
    .where(
      and(
        eq(locations.accountId, viewer.accountId),
        inLocations(rentals.locationId, query.locationIds),
        inArray(rentals.status, ["charging", "confirming", "completed"]),
        dayBetween(day, query.filter),
      ),
    )
    .orderBy(desc(when), desc(rentals.id));
  const out: DeskRentalRow[] = [];
  for (const r of rows) {
    const status = deskRentalStatus({ status: r.status, updatedAt: new Date(r.updatedAt), journalAttention: Boolean(r.journalAttention), pendingMoveIn: Boolean(r.pendingMoveIn) }, now);
    if (!status || (query.filter.status && status !== query.filter.status)) continue;
    const d = r.details ?? {};
    const renter = `${str(d.first_name)} ${str(d.last_name)}`.trim();
    const row: DeskRentalRow = {
      reference: r.reference,
      date: r.day,
      locationId: r.locationId,
      location: r.location,
      unitType: r.unitType,
      unit: r.unit,
      renter,
      email: str(d.email),
      phone: str(d.cell_phone),
      amount: r.amount ?? null,
      status,
      leaseId: r.leaseId ?? null,
    };
    if (!matchesSearch(query.filter.q, row.renter, row.email, row.phone, row.unit, row.reference)) continue;
    out.push(row);
  }
  return out;
}

export const DESK_RENTAL_CSV: CsvColumn<DeskRentalRow>[] = [
  { header: "Date", value: (r) => r.date },
  { header: "Location", value: (r) => r.location },
  { header: "Unit", value: (r) => r.unit ?? "" },
  { header: "Unit type", value: (r) => r.unitType },
  { header: "Renter", value: (r) => r.renter },
  { header: "E-mail", value: (r) => r.email },
  { header: "Phone", value: (r) => r.phone },
  { header: "Amount", value: (r) => (r.amount == null ? "" : formatCents(r.amount)) },
  { header: "Status", value: (r) => DESK_RENTAL_STATUS_LABELS[r.status] },
  { header: "Reference", value: (r) => r.reference },
];
