import type { Route } from "./+types/reservations[.]csv";
import { DESK_RESERVATION_STATUSES } from "~/domain/desk/lists";
import { deskCsv } from "~/services/desk/pages.server";
import { DESK_RESERVATION_CSV, listDeskReservations } from "~/services/desk/reservations.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/** The reservations the filter shows, as CSV (same query string as /admin/reservations). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.export");
  return deskCsv(context, request, staff, { name: "reservations", statuses: DESK_RESERVATION_STATUSES, due: true, list: listDeskReservations, columns: DESK_RESERVATION_CSV });
}
