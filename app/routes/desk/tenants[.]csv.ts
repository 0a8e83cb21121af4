import { data } from "react-router";
import type { Route } from "./+types/tenants[.]csv";
import { parseDeskFilter } from "~/domain/desk/filters";
import { DESK_TENANT_STATUSES } from "~/domain/desk/tenants";
import { localDate } from "~/domain/shared/calendar";
import { csvResponse, toCsv } from "~/services/web/csv.server";
import { deskLocations, listDeskTenants, TENANT_CSV_COLUMNS } from "~/services/desk/tenants.server";
import { recordAudit } from "~/services/audit/events.server";
import { requireFreshFactorForPage } from "~/services/staff/step-up.server";
import { auditActor, requirePermission, signedInStaff } from "~/services/staff/context.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * The tenants list as CSV: the same query string, so exactly the rows the filter shows (every page).
 * Personal data: the export permission and a second factor given in the last few minutes.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.view");
  requirePermission(staff, "desk.export");
  const now = clockNow();
  // Exports of personal data need a second factor given in the last few minutes (decision 250).
  requireFreshFactorForPage(staff, request, now);
  const parsed = parseDeskFilter(new URL(request.url).searchParams, DESK_TENANT_STATUSES, { due: true });
  if (!parsed.ok) throw data({ message: `Fix the filter on the list first, then export. ${Object.values(parsed.errors).join(" ")}`.trim() }, { status: 400 });
  const result = await listDeskTenants(context.db, staff, parsed.filter, { all: true, now });
  if (!result.ok) throw data({ message: result.message }, { status: 400 });
  await recordAudit(context.db, {
    ...auditActor(staff),
    action: "tenants.exported",
    entity: "tenant",
    locationId: parsed.filter.location ?? null,
    detail: {
      filter: { location: parsed.filter.location ?? null, from: parsed.filter.from ?? null, to: parsed.filter.to ?? null, status: parsed.filter.status ?? null, q: parsed.filter.q ?? null, move_out_from: parsed.filter.due_from ?? null, move_out_to: parsed.filter.due_to ?? null },
      rows: result.rows.length,
    },
    at: now,
  });
  const zone = (await deskLocations(context.db, staff))[0]?.timeZone ?? "America/New_York";
  return csvResponse("tenants", toCsv(TENANT_CSV_COLUMNS, result.rows), localDate(now, zone));
}
