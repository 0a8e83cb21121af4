import { and, desc, eq, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations, reservations, unitTypes, units } from "~/db/schema";
import { DESK_RESERVATION_STATUS_LABELS, deskReservationStatus } from "~/domain/desk/lists";
import type { DeskFilter } from "~/domain/desk/filters";
import { formatPhone } from "~/domain/shared/phone";
import type { CsvColumn } from "../web/csv.server";
import { dayBetween, inLocations, localDay, matchesSearch, type DeskViewer } from "./scope.server";

/**
 * The desk's reservations (issue 23): active, cancelled and expired (and rented, once the renter moved
 * in). Dated by the day they were made, in the location's calendar.
 */
interface DeskReservationRow {
  id: number;
  date: string;
  locationId: number;
  location: string;
  unit: string;
  unitType: string;
  name: string;
  email: string;
  phone: string;
  moveInDate: string;
  expiresOn: string;
  code: string;
  status: keyof typeof DESK_RESERVATION_STATUS_LABELS;
}


export async function listDeskReservations(db: Database, viewer: DeskViewer, query: { filter: DeskFilter; locationIds: readonly number[] }, now: Date): Promise<DeskReservationRow[]> {
  const day = localDay(reservations.createdAt);
  const rows = await db
    .select({
      id: reservations.id,
      day,
      expiresOn: localDay(reservations.expiresAt),
      locationId: reservations.locationId,
      location: locations.name,
      unit: units.name,
      unitType: unitTypes.name,
      firstName: reservations.firstName,
      lastName: reservations.lastName,
      email: reservations.email,
      phone: reservations.phone,
      moveInDate: reservations.desiredMoveInDate,
      code: reservations.confirmationCode,
      status: reservations.status,
      expiresAt: reservations.expiresAt,
    })
    .from(reservations)
    .innerJoin(locations, eq(locations.id, reservations.locationId))
    .innerJoin(units, eq(units.id, reservations.unitId))
    .innerJoin(unitTypes, eq(unitTypes.id, reservations.unitTypeId))
    .where(
      and(
        eq(locations.accountId, viewer.accountId),
        inLocations(reservations.locationId, query.locationIds),
        dayBetween(day, query.filter),
        // Move-ins due (issue 39, decision 514): by the move-in date the renter chose.
        dayBetween(sql<string>`${reservations.desiredMoveInDate}::text`, { from: query.filter.due_from, to: query.filter.due_to }),
      ),
    )
    .orderBy(desc(reservations.createdAt), desc(reservations.id));
  const out: DeskReservationRow[] = [];
  for (const r of rows) {
    const status = deskReservationStatus({ status: r.status, expiresAt: new Date(r.expiresAt) }, now);
    if (query.filter.status && status !== query.filter.status) continue;
    const row: DeskReservationRow = {
      id: r.id,
      date: r.day,
      locationId: r.locationId,
      location: r.location,
      unit: r.unit,
      unitType: r.unitType,
      name: `${r.firstName} ${r.lastName}`.trim(),
      email: r.email,
      phone: formatPhone(r.phone),
      moveInDate: r.moveInDate,
      expiresOn: r.expiresOn,
      code: r.code,
      status,
    };
    if (!matchesSearch(query.filter.q, row.name, row.email, r.phone, row.unit, row.code)) continue;
    out.push(row);
  }
  return out;
}

export const DESK_RESERVATION_CSV: CsvColumn<DeskReservationRow>[] = [
  { header: "Reserved on", value: (r) => r.date },
  { header: "Location", value: (r) => r.location },
  { header: "Unit", value: (r) => r.unit },
  { header: "Unit type", value: (r) => r.unitType },
  { header: "Name", value: (r) => r.name },
  { header: "E-mail", value: (r) => r.email },
  { header: "Phone", value: (r) => r.phone },
  { header: "Move-in date", value: (r) => r.moveInDate },
  { header: "Expires on", value: (r) => r.expiresOn },
  { header: "Confirmation code", value: (r) => r.code },
  { header: "Status", value: (r) => DESK_RESERVATION_STATUS_LABELS[r.status] },
];
