import { data } from "react-router";
import type { Route } from "./+types/leads";
import { DeskList } from "~/components/desk/list";
import { NO_STORE } from "~/domain/web/cache";
import { DESK_LEAD_STATUS_LABELS, DESK_LEAD_STATUS_OPTIONS, DESK_LEAD_STATUSES, LEAD_KIND_LABELS, LEAD_KIND_OPTIONS, LEAD_KINDS } from "~/domain/desk/lists";
import { deskPage } from "~/services/desk/pages.server";
import { leadRecoverySummary, listDeskLeads, reminderLabel } from "~/services/desk/leads.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/** The desk's leads (issue 23): contact messages, "notify me" requests and abandoned rentals. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.view");
  const { all, query: _query, ...page } = await deskPage(context, request, staff, { statuses: DESK_LEAD_STATUSES, kinds: LEAD_KINDS, list: listDeskLeads });
  // Abandoned-rental recovery (issue 40, decision 519): what the reminders brought back, for this filter.
  const recovery = leadRecoverySummary(all);
  return data({ ...page, recovery, rows: page.rows.map((r) => ({ ...r, reminder: reminderLabel(r) })) }, { headers: { "Cache-Control": NO_STORE } });
}

export const meta: Route.MetaFunction = () => [{ title: "Leads · Console" }, { name: "robots", content: "noindex" }];

export default function AdminLeads({ loaderData }: Route.ComponentProps) {
  const d = loaderData;
  return (
    <DeskList
      title="Leads"
      path="/admin/leads"
      filter={d.filter}
      errors={d.errors}
      locations={d.locations}
      statuses={DESK_LEAD_STATUS_OPTIONS}
      searchLabel="Name, e-mail, phone, message or unit type"
      dateLabel="Came in between"
      kinds={LEAD_KIND_OPTIONS}
      rows={d.rows}
      rowKey={(r) => r.key}
      total={d.total}
      csvPath={d.canExport ? "/admin/leads.csv" : undefined}
      footer={
        <p data-testid="lead-recovery">
          Abandoned rentals sent a reminder: {d.recovery.remindersSent}. Came back and rented: {d.recovery.recovered}.
        </p>
      }
      columns={[
        { header: "Date", cell: (r) => r.date },
        { header: "Lead", cell: (r) => <a href={`/admin/leads/${r.key}`}>{LEAD_KIND_LABELS[r.kind]}</a> },
        { header: "Location", cell: (r) => r.location },
        { header: "Contact", cell: (r) => (<>{r.name}<br /><small>{[r.email, r.phone].filter(Boolean).join(" · ")}</small></>) },
        { header: "Unit type", cell: (r) => r.unitType || "—" },
        { header: "Step reached", cell: (r) => r.stepReached },
        { header: "Status", cell: (r) => DESK_LEAD_STATUS_LABELS[r.status] },
        { header: "Reminder", cell: (r) => r.reminder || "—" },
      ]}
    />
  );
}
