import type { Route } from "./+types/leads[.]csv";
import { DESK_LEAD_STATUSES, LEAD_KINDS } from "~/domain/desk/lists";
import { deskCsv } from "~/services/desk/pages.server";
import { DESK_LEAD_CSV, listDeskLeads } from "~/services/desk/leads.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/** The leads the filter shows, as CSV (same query string as /admin/leads). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.export");
  return deskCsv(context, request, staff, { name: "leads", statuses: DESK_LEAD_STATUSES, kinds: LEAD_KINDS, list: listDeskLeads, columns: DESK_LEAD_CSV });
}
