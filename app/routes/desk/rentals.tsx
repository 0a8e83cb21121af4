import { data } from "react-router";
import type { Route } from "./+types/rentals";
import { DeskList } from "~/components/desk/list";
import { NO_STORE } from "~/domain/web/cache";
import { DESK_RENTAL_STATUS_LABELS, DESK_RENTAL_STATUS_OPTIONS, DESK_RENTAL_STATUSES } from "~/domain/desk/lists";
import { formatCents } from "~/domain/shared/money";
import { deskPage } from "~/services/desk/pages.server";
import { listDeskRentals } from "~/services/desk/rentals.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/** The desk's online rentals (issue 23): date, location, unit, renter, amount, status. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.view");
  const { all: _all, query: _query, ...page } = await deskPage(context, request, staff, { statuses: DESK_RENTAL_STATUSES, list: listDeskRentals });
  return data(page, { headers: { "Cache-Control": NO_STORE } });
}

export const meta: Route.MetaFunction = () => [{ title: "Online rentals · Console" }, { name: "robots", content: "noindex" }];

export default function AdminRentals({ loaderData }: Route.ComponentProps) {
  const d = loaderData;
  return (
    <DeskList
      title="Online rentals"
      path="/admin/rentals"
      filter={d.filter}
      errors={d.errors}
      locations={d.locations}
      statuses={DESK_RENTAL_STATUS_OPTIONS}
      searchLabel="Renter, e-mail, phone or unit"
      dateLabel="Rented between"
      rows={d.rows}
      rowKey={(r) => r.reference}
      total={d.total}
      csvPath={d.canExport ? "/admin/rentals.csv" : undefined}
      columns={[
        { header: "Date", cell: (r) => r.date },
        { header: "Location", cell: (r) => r.location },
        { header: "Unit", cell: (r) => (r.unit ? `${r.unit} (${r.unitType})` : r.unitType) },
        { header: "Renter", cell: (r) => (<>{r.renter}<br /><small>{r.email}</small></>) },
        { header: "Amount", numeric: true, cell: (r) => (r.amount == null ? "—" : formatCents(r.amount)) },
        { header: "Status", cell: (r) => DESK_RENTAL_STATUS_LABELS[r.status] },
      ]}
    />
  );
}
