import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import type { Route } from "./+types/admin.lead";
import { CsrfInput, FieldErrors, FormErrors } from "~/components/form";
import { NO_STORE } from "~/domain/cache";
import { DESK_LEAD_STATUS_LABELS, LEAD_KIND_LABELS, LEAD_NOTE_MAX, leadContactedSchema } from "~/domain/desk-lists";
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
  // Conform + the form's schema (as in the browser): the message beside the field, the note kept.
  const submission = parseWithZod(formData, { schema: leadContactedSchema });
  const reply = (status: number, formError: string | null, fieldErrors: Record<string, string>, result: SubmissionResult<string[]>) =>
    data({ formError, fieldErrors, note, result }, { status, headers: { "Cache-Control": NO_STORE } });
  if (submission.status !== "success") return reply(400, null, { note: submission.error?.note?.[0] ?? "Write what was said or agreed (a short note is enough)." }, submission.reply());
  const limited = await limitDeskAction(context.db, staff, now);
  if (limited) return reply(429, limited, {}, submission.reply({ formErrors: [limited] }));
  const result = await markLeadContacted(context.db, deskViewer(staff), auditActor(staff), { key: params.leadKey, note: submission.value.note, now });
  if (!result.ok && result.notFound) throw notFound();
  if (!result.ok) return reply(400, null, result.fieldErrors, submission.reply({ fieldErrors: Object.fromEntries(Object.entries(result.fieldErrors).map(([k, v]) => [k, [v]])) }));
  throw redirect(`/admin/leads/${params.leadKey}?saved=1`, { status: 303 });
}

export const meta: Route.MetaFunction = () => [{ title: "Lead · Console" }, { name: "robots", content: "noindex" }];

export default function AdminLead({ loaderData, actionData }: Route.ComponentProps) {
  const { lead } = loaderData;
  const [form, fields] = useForm({
    id: "lead-contacted",
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: leadContactedSchema }),
  });
  const noteError = fields.note.errors?.[0] ?? actionData?.fieldErrors?.note;
  const formError = form.errors?.[0] ?? actionData?.formError;
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
        <form method="post" {...getFormProps(form)} aria-labelledby="contacted-title">
          <h2 id="contacted-title">{lead.status === "contacted" ? "Update the follow-up" : "Mark contacted"}</h2>
          <CsrfInput token={loaderData.csrfToken} />
          <FormErrors id="contacted-form-errors" errors={formError ? [formError] : undefined} />
          <div className="field">
            <label htmlFor="lead-note">Note</label>
            <textarea
              id="lead-note"
              name="note"
              rows={4}
              maxLength={LEAD_NOTE_MAX}
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
