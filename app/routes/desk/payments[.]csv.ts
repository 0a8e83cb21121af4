import type { Route } from "./+types/payments[.]csv";
import { DESK_PAYMENT_STATUSES } from "~/domain/desk/lists";
import { deskCsv } from "~/services/desk/pages.server";
import { DESK_PAYMENT_CSV, listDeskPayments } from "~/services/desk/payments.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/** The payments the filter shows, as CSV (same query string as /admin/payments). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.export");
  return deskCsv(context, request, staff, { name: "payments", statuses: DESK_PAYMENT_STATUSES, list: listDeskPayments, columns: DESK_PAYMENT_CSV });
}
