import { data } from "react-router";
import type { Route } from "./+types/reservations";
import { DeskList } from "~/components/desk/list";
import { NO_STORE } from "~/domain/web/cache";
import { formatDeskDate as formatDate } from "~/domain/desk/time";
import { DESK_RESERVATION_STATUS_LABELS, DESK_RESERVATION_STATUS_OPTIONS, DESK_RESERVATION_STATUSES } from "~/domain/desk/lists";
import { deskPage } from "~/services/desk/pages.server";
import { listDeskReservations } from "~/services/desk/reservations.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/** The desk's reservations (issue 23): active, cancelled, expired. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.view");
  const { all: _all, query: _query, ...page } = await deskPage(context, request, staff, { statuses: DESK_RESERVATION_STATUSES, due: true, list: listDeskReservations });
  return data(page, { headers: { "Cache-Control": NO_STORE } });
}

export const meta: Route.MetaFunction = () => [{ title: "Reservations · Console" }, { name: "robots", content: "noindex" }];

export default function AdminReservations({ loaderData }: Route.ComponentProps) {
  const d = loaderData;
  return (
    <DeskList
      title="Reservations"
      path="/admin/reservations"
      filter={d.filter}
      errors={d.errors}
      locations={d.locations}
      statuses={DESK_RESERVATION_STATUS_OPTIONS}
      searchLabel="Name, e-mail, phone, unit or code"
      dateLabel="Reserved between"
      dueLabel="Moving in between"
      rows={d.rows}
      rowKey={(r) => r.id}
      total={d.total}
      csvPath={d.canExport ? "/admin/reservations.csv" : undefined}
      columns={[
        { header: "Reserved on", cell: (r) => r.date },
        { header: "Location", cell: (r) => r.location },
        { header: "Unit", cell: (r) => `${r.unit} (${r.unitType})` },
        { header: "Name", cell: (r) => (<>{r.name}<br /><small>{r.email} · {r.phone}</small></>) },
        { header: "Move-in", cell: (r) => formatDate(r.moveInDate) },
        { header: "Expires", cell: (r) => r.expiresOn },
        { header: "Status", cell: (r) => DESK_RESERVATION_STATUS_LABELS[r.status] },
      ]}
    />
  );
}
