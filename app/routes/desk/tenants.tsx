import { data, Link } from "react-router";
import type { Route } from "./+types/tenants";
import { DeskList } from "~/components/desk/list";
import { parseDeskFilter } from "~/domain/desk/filters";
import { DESK_TENANT_STATUS_OPTIONS, DESK_TENANT_STATUSES, tenantStatusText } from "~/domain/desk/tenants";
import { can } from "~/domain/staff/roles";
import { listDeskTenants, deskLocations } from "~/services/desk/tenants.server";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * The desk's tenants (issue 23, decisions 260 and 340): search by name, e-mail, phone or unit; by
 * location, move-in dates and status; paged; CSV of exactly what the filter shows.
 */
export const meta: Route.MetaFunction = () => [{ title: "Tenants | Back office" }, { name: "robots", content: "noindex" }];

/** No-store, noindex, and the loader's and action's cookies (the console's own headers). */
export const headers: Route.HeadersFunction = consoleRouteHeaders;

export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.view");
  const parsed = parseDeskFilter(new URL(request.url).searchParams, DESK_TENANT_STATUSES, { due: true });
  const errors: Record<string, string> = parsed.ok ? {} : { ...parsed.errors };
  let result = await listDeskTenants(context.db, staff, parsed.filter, { now: clockNow() });
  if (!result.ok) {
    errors[result.field] = result.message;
    result = await listDeskTenants(context.db, staff, { ...parsed.filter, location: undefined }, { now: clockNow() });
  }
  const filter = result.ok && errors.location ? { ...parsed.filter, location: undefined } : parsed.filter;
  return data(
    {
      filter,
      errors,
      locations: (await deskLocations(context.db, staff)).map((l) => ({ id: l.id, name: l.name })),
      rows: result.ok ? result.rows : [],
      total: result.ok ? result.total : 0,
      canExport: can(staff.role, "desk.export"),
    },
    { status: Object.keys(errors).length ? 400 : 200, headers: { "Cache-Control": "no-store" } },
  );
}

export default function AdminTenants({ loaderData }: Route.ComponentProps) {
  const d = loaderData;
  return (
    <DeskList
      title="Tenants"
      path="/admin/tenants"
      filter={d.filter}
      errors={d.errors}
      locations={d.locations}
      searchLabel="Name, e-mail, phone or unit"
      statuses={DESK_TENANT_STATUS_OPTIONS}
      dateLabel="Moved in between"
      dueLabel="Moving out between"
      columns={[
        { header: "Name", cell: (r) => <Link to={`/admin/tenants/${r.id}`}>{r.name || `Tenant ${r.id}`}</Link> },
        { header: "E-mail", cell: (r) => r.email },
        { header: "Phone", cell: (r) => r.phone },
        { header: "Units", cell: (r) => r.units || "—" },
        { header: "Since", cell: (r) => r.since },
        { header: "Moved in", cell: (r) => r.movedIn ?? "—" },
        { header: "Status", cell: (r) => tenantStatusText(r.statuses) },
      ]}
      rows={d.rows}
      rowKey={(r) => r.id}
      total={d.total}
      csvPath={d.canExport ? "/admin/tenants.csv" : undefined}
      empty="No tenant matches this search."
    />
  );
}
