import { data, redirect } from "react-router";
import type { Route } from "./+types/admin.lead";
import { CsrfInput, FieldErrors, FormErrors } from "~/components/form";
import { NO_STORE } from "~/domain/cache";
import { DESK_LEAD_STATUS_LABELS, LEAD_KIND_LABELS } from "~/domain/desk-lists";
import { can } from "~/domain/staff-roles";
import { now as clockNow } from "~/platform/clock.server";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { getDeskLead, markLeadContacted } from "~/services/desk-leads.server";
import { notFound } from "~/services/http.server";
import { deskViewer, limitDeskAction } from "~/services/desk-pages.server";
import { auditActor, requirePermission, signedInStaff } from "~/services/staff-context.server";

/** One lead (issue 23): its contact details and what was done; staff mark it contacted with a note. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.view");
  const lead = await getDeskLead(context.db, deskViewer(staff), params.leadKey, clockNow());
  if (!lead) throw notFound();
  const csrf = await getCsrfToken(request);
  const saved = new URL(request.url).searchParams.get("saved") === "1";
  return data(
    { lead, canAct: can(staff.role, "desk.act"), csrfToken: csrf.token, saved },
    { headers: { "Cache-Control": NO_STORE, ...(csrf.setCookie ? { "Set-Cookie": csrf.setCookie } : {}) } },
  );
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.act");
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const note = String(formData.get("note") ?? "");
  const now = clockNow();
  const limited = await limitDeskAction(context.db, staff, now);
  if (limited) return data({ formError: limited, fieldErrors: {} as Record<string, string>, note }, { status: 429, headers: { "Cache-Control": NO_STORE } });
  const result = await markLeadContacted(context.db, deskViewer(staff), auditActor(staff), { key: params.leadKey, note, now });
  if (!result.ok && result.notFound) throw notFound();
  if (!result.ok) return data({ formError: null, fieldErrors: result.fieldErrors, note }, { status: 400, headers: { "Cache-Control": NO_STORE } });
  throw redirect(`/admin/leads/${params.leadKey}?saved=1`, { status: 303 });
}

export const meta: Route.MetaFunction = () => [{ title: "Lead · Console" }, { name: "robots", content: "noindex" }];

export default function AdminLead({ loaderData, actionData }: Route.ComponentProps) {
  const { lead } = loaderData;
  const noteError = actionData?.fieldErrors?.note;
  return (
    <section aria-labelledby="lead-title">
      <p>
        <a href="/admin/leads">All leads</a>
      </p>
      <h1 id="lead-title">
        {LEAD_KIND_LABELS[lead.kind]}: {lead.name || lead.email}
      </h1>
      {loaderData.saved ? <p role="status">Marked contacted.</p> : null}
      <dl>
        <dt>Came in</dt>
        <dd>{lead.date}</dd>
        <dt>Location</dt>
        <dd>{lead.location}</dd>
        <dt>E-mail</dt>
        <dd>{lead.email ? <a href={`mailto:${lead.email}`}>{lead.email}</a> : "—"}</dd>
        <dt>Phone</dt>
        <dd>{lead.phone ? <a href={`tel:${lead.phone.replace(/[^\d+]/g, "")}`}>{lead.phone}</a> : "—"}</dd>
        {lead.unitType ? (
          <>
            <dt>Unit type</dt>
            <dd>{lead.unitType}</dd>
          </>
        ) : null}
        <dt>Step reached</dt>
        <dd>{lead.stepReached}</dd>
        {lead.message ? (
          <>
            <dt>Message</dt>
            <dd style={{ whiteSpace: "pre-wrap" }}>{lead.message}</dd>
          </>
        ) : null}
        <dt>Status</dt>
        <dd>
          {DESK_LEAD_STATUS_LABELS[lead.status]}
          {lead.contactedAt ? ` (${new Date(lead.contactedAt).toUTCString()} by ${lead.contactedBy})` : null}
        </dd>
        {lead.note ? (
          <>
            <dt>Note</dt>
            <dd style={{ whiteSpace: "pre-wrap" }}>{lead.note}</dd>
          </>
        ) : null}
      </dl>
      {loaderData.canAct ? (
        <form method="post" noValidate aria-labelledby="contacted-title">
          <h2 id="contacted-title">{lead.status === "contacted" ? "Update the follow-up" : "Mark contacted"}</h2>
          <CsrfInput token={loaderData.csrfToken} />
          <FormErrors id="contacted-form-errors" errors={actionData?.formError ? [actionData.formError] : undefined} />
          <div className="field">
            <label htmlFor="lead-note">Note</label>
            <textarea
              id="lead-note"
              name="note"
              rows={4}
              maxLength={2000}
              required
              defaultValue={actionData?.note ?? lead.note}
              aria-invalid={noteError ? true : undefined}
              aria-describedby={noteError ? "lead-note-error" : undefined}
            />
            <FieldErrors id="lead-note-error" errors={noteError ? [noteError] : undefined} />
          </div>
          <button type="submit" className="button">
            Mark contacted
          </button>
        </form>
      ) : null}
    </section>
  );
}
