import type { Route } from "./+types/trail[.]csv";
import { recordAudit } from "~/services/audit/events.server";
import { parseAuditFilter } from "~/domain/audit/filter";
import { auditCsv, auditTimeZone } from "~/services/audit/trail.server";
import { localDate } from "~/domain/shared/calendar";
import { csvResponse } from "~/services/web/csv.server";
import { requireFreshFactorForPage } from "~/services/staff/step-up.server";
import { auditActor, requirePermission, signedInStaff } from "~/services/staff/context.server";
import { now as clockNow } from "~/platform/clock.server";

/** The audit trail's CSV: exactly the rows the same filter selects (every page). The export is audited too. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "audit.view");
  const now = clockNow();
  requireFreshFactorForPage(staff, request, now);
  const { filter } = parseAuditFilter(new URL(request.url).searchParams);
  const { csv, rows } = await auditCsv(context.db, staff.accountId, filter);
  const { page: _page, ...shown } = filter;
  await recordAudit(context.db, { ...auditActor(staff), action: "audit.exported", detail: { filter: shown, rows }, at: now });
  // The file is named for today in the account's calendar, as the trail's dates are.
  return csvResponse("audit-trail", csv, localDate(now, await auditTimeZone(context.db, staff.accountId)));
}
