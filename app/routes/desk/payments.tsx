import { data } from "react-router";
import type { Route } from "./+types/payments";
import { DeskList } from "~/components/desk/list";
import { NO_STORE } from "~/domain/web/cache";
import { DESK_PAYMENT_STATUS_LABELS, DESK_PAYMENT_STATUS_OPTIONS, DESK_PAYMENT_STATUSES } from "~/domain/desk/lists";
import { formatCents } from "~/domain/shared/money";
import { deskPage } from "~/services/desk/pages.server";
import { deskPaymentTotals, listDeskPayments } from "~/services/desk/payments.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/** The desk's payments (issue 23): approved, declined and refunded, by location and day, with the day's totals and the ledger's. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.view");
  const { all, query, ...page } = await deskPage(context, request, staff, { statuses: DESK_PAYMENT_STATUSES, list: listDeskPayments });
  const totals = await deskPaymentTotals(context.db, { accountId: staff.accountId, scope: staff.scope }, query, all);
  // The ledger's day is every payment taken less every refund given back (decision 280): the
  // comparison is meaningful when no status or search narrows the list.
  const comparable = !query.filter.q && !query.filter.status;
  return data({ ...page, totals, comparable }, { headers: { "Cache-Control": NO_STORE } });
}

export const meta: Route.MetaFunction = () => [{ title: "Payments · Console" }, { name: "robots", content: "noindex" }];

export default function AdminPayments({ loaderData }: Route.ComponentProps) {
  const d = loaderData;
  const footer = d.totals.length ? (
    <section aria-labelledby="day-totals" className="desk-totals">
      <h2 id="day-totals">Totals by location and day</h2>
      <div className="desk-table" role="region" aria-labelledby="day-totals" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Location</th>
              <th scope="col" className="numeric">Approved</th>
              <th scope="col" className="numeric">Refunded</th>
              <th scope="col" className="numeric">Net</th>
              <th scope="col" className="numeric">Ledger</th>
              <th scope="col" className="numeric">Declined</th>
            </tr>
          </thead>
          <tbody>
            {d.totals.map((t) => (
              <tr key={`${t.locationId}-${t.day}`}>
                <th scope="row" data-label="Day">{t.day}</th>
                <td data-label="Location">{t.location}</td>
                <td className="numeric" data-label="Approved">
                  {formatCents(t.approved)} ({t.approvedCount})
                </td>
                <td className="numeric" data-label="Refunded">
                  {formatCents(t.refunded)} ({t.refundedCount})
                </td>
                <td className="numeric" data-label="Net">{formatCents(t.net)}</td>
                <td className="numeric" data-label="Ledger">
                  {formatCents(t.ledger)}
                  {d.comparable && t.ledger !== t.net ? <strong> does not match</strong> : null}
                </td>
                <td className="numeric" data-label="Declined">
                  {formatCents(t.declined)} ({t.declinedCount})
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  ) : null;
  return (
    <DeskList
      title="Payments"
      path="/admin/payments"
      filter={d.filter}
      errors={d.errors}
      locations={d.locations}
      statuses={DESK_PAYMENT_STATUS_OPTIONS}
      searchLabel="Tenant, e-mail, unit, card or reference"
      dateLabel="Days"
      rows={d.rows}
      rowKey={(r) => r.id}
      total={d.total}
      csvPath={d.canExport ? "/admin/payments.csv" : undefined}
      footer={footer}
      columns={[
        { header: "Day", cell: (r) => r.day },
        { header: "Location", cell: (r) => r.location },
        {
          header: "Tenant",
          cell: (r) =>
            r.tenant ? (
              <>
                {r.tenantId ? <a href={`/admin/tenants/${r.tenantId}`}>{r.tenant}</a> : r.tenant}
                <br />
                <small>{r.email}</small>
              </>
            ) : (
              "—"
            ),
        },
        { header: "Unit", cell: (r) => r.unit || "—" },
        { header: "Source", cell: (r) => r.source },
        { header: "Card", cell: (r) => r.card },
        { header: "Amount", numeric: true, cell: (r) => formatCents(r.amount) },
        {
          header: "Status",
          cell: (r) =>
            r.declineReason ? (
              <>{DESK_PAYMENT_STATUS_LABELS[r.status]}<br /><small>{r.declineReason}</small></>
            ) : r.refundDay && r.status === "approved" ? (
              <>{DESK_PAYMENT_STATUS_LABELS[r.status]}<br /><small>{formatCents(r.refunded)} refunded, last on {r.refundDay}</small></>
            ) : r.refundDay ? (
              <>{DESK_PAYMENT_STATUS_LABELS[r.status]}<br /><small>on {r.refundDay}</small></>
            ) : (
              DESK_PAYMENT_STATUS_LABELS[r.status]
            ),
        },
      ]}
    />
  );
}
