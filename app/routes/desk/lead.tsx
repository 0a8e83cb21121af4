import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import type { Route } from "./+types/lead";
import { CsrfInput, FieldErrors, FormErrors } from "~/components/ui/form";
import { NO_STORE } from "~/domain/web/cache";
import { DESK_LEAD_STATUS_LABELS, LEAD_KIND_LABELS, LEAD_NOTE_MAX, leadContactedSchema } from "~/domain/desk/lists";
import { can } from "~/domain/staff/roles";
import { now as clockNow } from "~/platform/clock.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { getDeskLead, listLeadNotes, markLeadContacted } from "~/services/desk/leads.server";
import { formatDeskTime } from "~/domain/desk/time";
import { notFound } from "~/services/web/responses.server";
import { deskViewer, limitDeskAction } from "~/services/desk/pages.server";
import { auditActor, requirePermission, signedInStaff } from "~/services/staff/context.server";
import { leadTexts, textLead } from "~/services/texts/leads.server";
import { LEAD_TEXT_MAX } from "~/domain/texts/rules";
import { deskLocations } from "~/services/desk/scope.server";

/** One lead (issue 23): its contact details and what was done; staff mark it contacted with a note. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.view");
  const lead = await getDeskLead(context.db, deskViewer(staff), params.leadKey, clockNow());
  if (!lead) throw notFound();
  const csrf = await getCsrfToken(request);
  const saved = new URL(request.url).searchParams.get("saved") === "1";
  const texted = new URL(request.url).searchParams.get("texted") === "1";
  const zone = (await deskLocations(context.db, deskViewer(staff))).find((l) => l.id === lead.locationId)?.timeZone ?? "America/New_York";
  const texts = await leadTexts(context.db, staff.accountId, lead, zone);
  const notes = await listLeadNotes(context.db, lead, zone);
  // Times in the lead's location's zone, the zone named (decision 644).
  const shown = {
    reminderSentAt: lead.reminderSentAt ? formatDeskTime(new Date(lead.reminderSentAt), zone) : null,
    contactedAt: lead.contactedAt ? formatDeskTime(new Date(lead.contactedAt), zone) : null,
  };
  return data(
    { lead, notes, shown, canAct: can(staff.role, "desk.act"), csrfToken: csrf.token, saved, texted, texts },
    { headers: { "Cache-Control": NO_STORE, ...(csrf.setCookie ? { "Set-Cookie": csrf.setCookie } : {}) } },
  );
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.act");
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const now = clockNow();
  if (formData.get("intent") === "text") {
    // A text to the lead (issue 40, decision 495): answered beside the text's own form.
    const textBody = String(formData.get("text_body") ?? "");
    const answer = (status: number, fieldErrors: Record<string, string>) => data({ text: { body: textBody, fieldErrors } }, { status, headers: { "Cache-Control": NO_STORE } });
    const limited = await limitDeskAction(context.db, staff, now);
    if (limited) return answer(429, { text_body: limited });
    const sent = await textLead(context.db, deskViewer(staff), auditActor(staff), { key: params.leadKey, body: textBody, consentGiven: formData.get("text_consent") === "on", now });
    if (!sent.ok && sent.notFound) throw notFound();
    if (!sent.ok) return answer(400, sent.fieldErrors);
    throw redirect(`/admin/leads/${params.leadKey}?texted=1`, { status: 303 });
  }
  const note = String(formData.get("note") ?? "");
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

export default function AdminLead({ loaderData, actionData: answered }: Route.ComponentProps) {
  const { lead, texts, notes, shown } = loaderData;
  const textAnswer = answered && "text" in answered ? answered.text : undefined;
  const actionData = answered && "result" in answered ? answered : undefined;
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
        {lead.kind === "abandoned_rental" ? (
          <>
            <dt>Reminder</dt>
            <dd>{shown.reminderSentAt ? `Sent ${shown.reminderSentAt}${lead.recovered ? "; came back and rented" : ""}` : "Not sent"}</dd>
          </>
        ) : null}
        {lead.message ? (
          <>
            <dt>Message</dt>
            <dd style={{ whiteSpace: "pre-wrap" }}>{lead.message}</dd>
          </>
        ) : null}
        <dt>Status</dt>
        <dd>
          {DESK_LEAD_STATUS_LABELS[lead.status]}
          {shown.contactedAt ? ` (${shown.contactedAt} by ${lead.contactedBy})` : null}
        </dd>
      </dl>
      <section aria-labelledby="lead-notes-title">
        <h2 id="lead-notes-title">Notes</h2>
        {notes.length ? (
          <ol className="desk-notes">
            {notes.map((n) => (
              <li key={n.id}>
                <p className="desk-note__meta">
                  <time dateTime={n.iso}>{n.at}</time>, {n.by}
                </p>
                <p style={{ whiteSpace: "pre-wrap" }}>{n.body}</p>
              </li>
            ))}
          </ol>
        ) : (
          <p>No notes yet.</p>
        )}
      </section>
      <section aria-labelledby="texts-title">
        <h2 id="texts-title">Texts</h2>
        {loaderData.texted ? <p role="status">The text is on its way.</p> : null}
        {texts.conversation.length ? (
          <ol className="text-conversation">
            {texts.conversation.map((m) => (
              <li key={m.id}>
                <strong>{m.direction === "inbound" ? "They wrote" : "We wrote"}</strong> {`(${m.at}${m.direction === "outbound" ? `, ${m.status.replace(/_/g, " ")}` : ""}):`}{" "}
                <span style={{ whiteSpace: "pre-wrap" }}>{m.body}</span>
              </li>
            ))}
          </ol>
        ) : (
          <p>No texts yet.</p>
        )}
        {texts.cannot ? (
          <p>{texts.cannot}</p>
        ) : loaderData.canAct ? (
          <form method="post" aria-labelledby="text-form-title">
            <h3 id="text-form-title">Text {lead.name || "this lead"}</h3>
            <CsrfInput token={loaderData.csrfToken} />
            <input type="hidden" name="intent" value="text" />
            <div className="field">
              <label htmlFor="text-body">Text</label>
              <textarea
                id="text-body"
                name="text_body"
                rows={3}
                maxLength={LEAD_TEXT_MAX}
                required
                defaultValue={textAnswer?.body ?? ""}
                aria-invalid={textAnswer?.fieldErrors.text_body ? true : undefined}
                aria-describedby={textAnswer?.fieldErrors.text_body ? "text-body-error" : "text-body-hint"}
              />
              <p id="text-body-hint" className="hint">
                Sent from {lead.location}&apos;s text number, between 8 am and 9 pm there. Their answer appears here.
              </p>
              <FieldErrors id="text-body-error" errors={textAnswer?.fieldErrors.text_body ? [textAnswer.fieldErrors.text_body] : undefined} />
            </div>
            {texts.needsConsent ? (
              <div className="checkbox-field">
                <input type="checkbox" id="text-consent" name="text_consent" value="on" aria-invalid={textAnswer?.fieldErrors.text_consent ? true : undefined} aria-describedby={textAnswer?.fieldErrors.text_consent ? "text-consent-error" : undefined} />
                <label htmlFor="text-consent">They agreed to receive texts from us (by phone or in person)</label>
                <FieldErrors id="text-consent-error" errors={textAnswer?.fieldErrors.text_consent ? [textAnswer.fieldErrors.text_consent] : undefined} />
              </div>
            ) : null}
            <button type="submit" className="button">
              Send the text
            </button>
          </form>
        ) : null}
      </section>
      {loaderData.canAct ? (
        <form method="post" {...getFormProps(form)} aria-labelledby="contacted-title">
          <h2 id="contacted-title">{lead.status === "contacted" ? "Add a note to the follow-up" : "Mark contacted"}</h2>
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
              defaultValue={actionData?.note ?? ""}
              aria-invalid={noteError ? true : undefined}
              aria-describedby={noteError ? "lead-note-error" : undefined}
            />
            <FieldErrors id="lead-note-error" errors={noteError ? [noteError] : undefined} />
          </div>
          <button type="submit" className="button">
            {lead.status === "contacted" ? "Add the note" : "Mark contacted"}
          </button>
        </form>
      ) : null}
    </section>
  );
}
