import type { Route } from "./+types/rentals[.]csv";
import { DESK_RENTAL_STATUSES } from "~/domain/desk/lists";
import { deskCsv } from "~/services/desk/pages.server";
import { DESK_RENTAL_CSV, listDeskRentals } from "~/services/desk/rentals.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/** The online rentals the filter shows, as CSV (same query string as /admin/rentals). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.export");
  return deskCsv(context, request, staff, { name: "online-rentals", statuses: DESK_RENTAL_STATUSES, list: listDeskRentals, columns: DESK_RENTAL_CSV });
}
