import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import type { Route } from "./+types/changes";
import { adminMeta, CsrfInput, FormMessage, TextField } from "~/components/console/shell";
import { changesetActionSchema, NO_DRAFT_MESSAGE, scheduleSchema } from "~/domain/content/publish-forms";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { countPublishAction, discardChangeset, publishDraft, scheduleChangeset, unscheduleChangeset } from "~/services/content/publish.server";
import { changesPage } from "~/services/content/changes-page.server";
import { FORBIDDEN_MESSAGE, requirePermission, signedInStaff } from "~/services/staff/context.server";

/**
 * The website's changes (issue 24, decisions 310–314): the draft record by record (each field before
 * → after, who changed it), Publish now, Schedule (a date and time in a location's time zone), Discard;
 * scheduled and failed changesets; the published versions, each with "Restore this version" (a
 * confirm page: /admin/changes/versions/:version). Owners, and managers for drafts wholly at their
 * locations (`content.edit`). Every form works without JavaScript.
 */
const DONE: Record<string, string> = {
  published: "Published: the website shows the changes now.",
  scheduled: "Scheduled. You can go on editing: new edits go into a new draft.",
  unscheduled: "No longer scheduled: it is the draft again.",
  discarded: "Discarded.",
  restored: "Restored: the website shows that version again, published as a new version.",
};

export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const csrf = await getCsrfToken(request);
  const url = new URL(request.url);
  const done = DONE[url.searchParams.get("done") ?? ""] ?? null;
  const version = url.searchParams.get("version");
  return data(
    { csrfToken: csrf.token, done: done && version ? `${done} (version ${Number(version)})` : done, ...(await changesPage(context.db, staff)) },
    { headers: consoleHeaders(csrf.setCookie) },
  );
}

type Errors = Partial<Record<"date" | "time" | "timeZone" | "form", string>>;
const answer = (form: string, errors: Errors, values: Record<string, string>, status: number, result: SubmissionResult<string[]> | null = null) =>
  data({ form, confirmId: null as number | null, errors, values, result }, { status, headers: consoleHeaders() });
const firstErrors = (error: Record<string, string[] | null> | null | undefined): Errors => {
  const errors: Record<string, string> = {};
  for (const [field, messages] of Object.entries(error ?? {})) if (messages?.[0]) errors[field] ??= messages[0];
  return errors;
};

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const now = clockNow();
  const intent = String(form.get("intent") ?? "");
  const changesetId = Number(form.get("changesetId"));
  const values = { date: String(form.get("date") ?? "").slice(0, 20), time: String(form.get("time") ?? "").slice(0, 10), timeZone: String(form.get("timeZone") ?? "").slice(0, 80) };
  const limit = await countPublishAction(context.db, staff, now);
  if (!limit.allowed) return answer(intent, { form: `Too many changes at once. Please wait ${limit.retryAfterMinutes} minutes.` }, values, 429);
  if (!Number.isInteger(changesetId) || changesetId <= 0) return answer(intent, { form: NO_DRAFT_MESSAGE }, values, 400);
  const forbidden = () => {
    throw data({ message: FORBIDDEN_MESSAGE }, { status: 403, headers: consoleHeaders() });
  };
  if (intent === "schedule") {
    // Conform + the same schema as the browser; the account's time zones and "in the future" are the service's.
    const submission = parseWithZod(form, { schema: scheduleSchema });
    if (submission.status !== "success") return answer(intent, firstErrors(submission.error), values, 400, submission.reply());
    const r = await scheduleChangeset(context.db, staff, { changesetId, date: submission.value.date, time: submission.value.time, timeZone: submission.value.timeZone, now });
    if (r.ok) throw redirect("/admin/changes?done=scheduled", { status: 303, headers: consoleHeaders() });
    if (r.status === 403) return forbidden();
    const { form: formError, ...fieldErrors } = r.errors;
    const reply = submission.reply({ formErrors: formError ? [formError] : undefined, fieldErrors: Object.fromEntries(Object.entries(fieldErrors).map(([k, v]) => [k, [v]])) });
    return answer(intent, r.errors, values, 400, reply);
  }
  // Publish now, discard, unschedule: hidden fields and the button, parsed on the server only.
  const submission = parseWithZod(form, { schema: changesetActionSchema });
  if (submission.status !== "success") return answer(intent, { form: submission.error?.intent?.[0] ?? NO_DRAFT_MESSAGE }, values, 400);
  const action = submission.value.intent;
  if (action === "publish") {
    const r = await publishDraft(context.db, staff, { changesetId, now });
    if (r.ok) throw redirect(`/admin/changes?done=published&version=${r.version}`, { status: 303, headers: consoleHeaders() });
    if (r.reason === "forbidden") return forbidden();
    return answer(action, { form: r.message }, values, 400);
  }
  if (action === "discard" && submission.value.confirmed !== "yes") {
    // Decision 630: asked first, naming what goes (the page draws the question for this changeset).
    return data({ form: "confirm-discard", confirmId: changesetId, errors: {} as Errors, values, result: null }, { headers: consoleHeaders() });
  }
  const r = action === "discard" ? await discardChangeset(context.db, staff, { changesetId }) : await unscheduleChangeset(context.db, staff, { changesetId });
  if (r.ok) throw redirect(`/admin/changes?done=${action === "discard" ? "discarded" : "unscheduled"}`, { status: 303, headers: consoleHeaders() });
  if (r.status === 403) return forbidden();
  return answer(`${action}-${changesetId}`, { form: r.message }, values, 400);
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Changes");

const counted = (c: { updates: number; creates: number; deletes: number }) => `${c.updates} changed, ${c.creates} added, ${c.deletes} removed`;

export default function ChangesPage({ loaderData, actionData }: Route.ComponentProps) {
  const { draft, pending, versions, timeZones, csrfToken } = loaderData;
  const errorsFor = (form: string): Errors => (actionData?.form === form ? actionData.errors : {});
  const [scheduleForm, scheduleFields] = useForm({
    id: "schedule-form",
    lastResult: actionData?.form === "schedule" ? actionData.result : null,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: scheduleSchema }),
  });
  const serverSchedule = errorsFor("schedule");
  const scheduleErrors: Errors = {
    form: serverSchedule.form,
    date: scheduleFields.date.errors?.[0] ?? serverSchedule.date,
    time: scheduleFields.time.errors?.[0] ?? serverSchedule.time,
    timeZone: scheduleFields.timeZone.errors?.[0] ?? serverSchedule.timeZone,
  };
  const typed = actionData?.form === "schedule" ? actionData.values : { date: "", time: "", timeZone: "" };
  const zoneError = scheduleErrors.timeZone;
  return (
    <>
      <h1>Changes to the website</h1>
      <FormMessage tone="success" message={loaderData.done} />
      <p>
        <a href="/admin/changes/diff">See the differences page by page</a> · <a href="/admin/content">Edit the website</a>
      </p>

      {actionData?.form === "confirm-discard" && actionData.confirmId != null ? (
        <DiscardQuestion changesetId={actionData.confirmId} draft={draft} pending={pending} csrfToken={csrfToken} />
      ) : null}

      <h2 id="draft">Draft</h2>
      {draft?.failure ? <FormMessage message={`The last publish failed: ${draft.failure}`} /> : null}
      {actionData && ["publish", "discard-" + String(draft?.id)].includes(actionData.form) && actionData.errors.form ? <FormMessage message={actionData.errors.form} /> : null}
      {!draft || draft.total === 0 ? (
        <p>No changes are waiting. Edits made in the website editor appear here until they are published.</p>
      ) : (
        <>
          <table>
            <caption>
              {draft.total} record{draft.total === 1 ? "" : "s"} changed in the draft
            </caption>
            <thead>
              <tr>
                <th scope="col">Record</th>
                <th scope="col">Location</th>
                <th scope="col">Change</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {draft.lines.map((line) => (
                <tr key={line.id}>
                  <td data-label="Record">
                    {line.entityLabel}: <strong>{line.recordName}</strong>
                    {line.op === "create" ? " (new)" : line.op === "delete" ? " (removed)" : ""}
                  </td>
                  <td data-label="Location">{line.location}</td>
                  <td data-label="Change">
                    <ul className="console-changes">
                      {line.fields.map((f) => (
                        <li key={f.field}>
                          {f.label}: <del>{f.before}</del> → <ins>{f.after}</ins>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td data-label="By">{line.by}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {draft.hidden ? (
            <p>
              {draft.hidden} more change{draft.hidden === 1 ? " is" : "s are"} at other locations or on the whole website: they stay in the draft for someone who may publish
              them. Publishing or discarding here acts on your changes only.
            </p>
          ) : null}
          {draft.mayPublish ? (
            <>
              <div className="console-actions">
                <Form method="post" reloadDocument>
                  <CsrfInput token={csrfToken} />
                  <input type="hidden" name="changesetId" value={draft.id} />
                  <button type="submit" name="intent" value="publish" className="console-button">
                    {draft.whole ? "Publish now" : "Publish your changes now"}
                  </button>
                </Form>
                <Form method="post" reloadDocument>
                  <CsrfInput token={csrfToken} />
                  <input type="hidden" name="changesetId" value={draft.id} />
                  <button type="submit" name="intent" value="discard" className="console-button console-button--danger">
                    {draft.whole ? "Discard the draft…" : "Discard your changes…"}
                  </button>
                </Form>
              </div>
              <h3 id="schedule">Schedule the publish</h3>
              {scheduleErrors.form ? <FormMessage message={scheduleErrors.form} /> : null}
              <Form method="post" reloadDocument {...getFormProps(scheduleForm)} aria-labelledby="schedule">
                <CsrfInput token={csrfToken} />
                <input type="hidden" name="changesetId" value={draft.id} />
                <TextField name="date" label="Date" type="date" hint="YYYY-MM-DD" defaultValue={typed.date} error={scheduleErrors.date} required />
                <TextField name="time" label="Time" type="time" hint="HH:MM, 24-hour clock" defaultValue={typed.time} error={scheduleErrors.time} required />
                <div className={zoneError ? "console-field console-field--invalid" : "console-field"}>
                  <label htmlFor="field-timeZone">Time zone</label>
                  <select id="field-timeZone" name="timeZone" defaultValue={typed.timeZone || timeZones[0]?.timeZone} aria-invalid={zoneError ? true : undefined} aria-describedby={zoneError ? "field-timeZone-error" : undefined}>
                    {timeZones.map((z) => (
                      <option key={z.timeZone} value={z.timeZone}>
                        {z.timeZone} ({z.locations.join(", ")})
                      </option>
                    ))}
                  </select>
                  {zoneError ? (
                    <p id="field-timeZone-error" className="console-error">
                      {zoneError}
                    </p>
                  ) : null}
                </div>
                <button type="submit" name="intent" value="schedule" className="console-button">
                  Schedule
                </button>
              </Form>
            </>
          ) : null}
        </>
      )}

      {pending.length ? (
        <>
          <h2 id="scheduled">Scheduled and failed</h2>
          <ul>
            {pending.map((p) => {
              const err = errorsFor(`unschedule-${p.id}`).form ?? errorsFor(`discard-${p.id}`).form;
              return (
                <li key={p.id}>
                  {p.status === "scheduled" ? `Goes live ${p.when}` : "Failed to publish"}: {counted(p.counts)}.
                  {p.failure ? <> {p.failure}</> : null}
                  {err ? <FormMessage message={err} /> : null}
                  {p.mayAct ? (
                    <div className="console-actions">
                      <Form method="post" reloadDocument>
                        <CsrfInput token={csrfToken} />
                        <input type="hidden" name="changesetId" value={p.id} />
                        <button type="submit" name="intent" value="unschedule" className="console-button console-button--quiet">
                          {p.status === "scheduled" ? "Unschedule" : "Make it the draft again"}
                        </button>
                      </Form>
                      <Form method="post" reloadDocument>
                        <CsrfInput token={csrfToken} />
                        <input type="hidden" name="changesetId" value={p.id} />
                        <button type="submit" name="intent" value="discard" className="console-button console-button--danger">
                          Discard…<span className="visually-hidden"> the changes {p.status === "scheduled" ? `scheduled for ${p.when}` : "that failed"}</span>
                        </button>
                      </Form>
                    </div>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </>
      ) : null}

      <h2 id="versions">Published versions</h2>
      {versions.length === 0 ? (
        <p>Nothing has been published yet.</p>
      ) : (
        <table>
          <caption>Versions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Published</th>
              <th scope="col">By</th>
              <th scope="col">Changes</th>
              <th scope="col">Restore</th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v, i) => (
              <tr key={v.version}>
                <td data-label="Version">
                  {v.version}
                  {v.version === 0 ? " (before the first publish)" : ""}
                  {v.restoresVersion != null ? ` (restores version ${v.restoresVersion})` : ""}
                </td>
                <td data-label="Published">{v.publishedAt}</td>
                <td data-label="By">{v.version === 0 ? "" : v.publishedByName || v.publishedBy || "Scheduled publish"}</td>
                <td data-label="Changes">{v.version === 0 ? "" : counted(v.counts)}</td>
                <td data-label="Restore">{i === 0 ? "Live now" : !v.restorable ? "No longer kept" : loaderData.mayRestore ? <a href={`/admin/changes/versions/${v.version}`}>Restore this version<span className="visually-hidden"> ({v.version})</span></a> : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

type ChangesData = Route.ComponentProps["loaderData"];

/**
 * "Discard …?" (decision 630): what would be thrown away (the member's changes, or the scheduled or
 * failed changeset's counts), what stays, and the two answers. A plain form: works without JavaScript.
 */
function DiscardQuestion({ changesetId, draft, pending, csrfToken }: { changesetId: number; draft: ChangesData["draft"]; pending: ChangesData["pending"]; csrfToken: string }) {
  const isDraft = draft?.id === changesetId;
  const other = pending.find((p) => p.id === changesetId);
  if (!isDraft && !other) return <FormMessage message="There is nothing to discard: it was published or discarded meanwhile." />;
  const count = isDraft ? draft!.lines.length : other!.counts.updates + other!.counts.creates + other!.counts.deletes;
  return (
    <section className="console-confirm" aria-labelledby="discard-question">
      <h2 id="discard-question">
        Discard {count} change{count === 1 ? "" : "s"}?
      </h2>
      {isDraft ? (
        <>
          <p>These are thrown away and cannot be published afterwards:</p>
          <ul>
            {draft!.lines.map((line) => (
              <li key={line.id}>
                {line.entityLabel}: {line.recordName} ({line.location}
                {line.op === "create" ? ", new" : line.op === "delete" ? ", removed" : ""})
              </li>
            ))}
          </ul>
          {draft!.hidden ? (
            <p>
              {draft!.hidden} change{draft!.hidden === 1 ? "" : "s"} by others, at other locations or on the whole website, stay{draft!.hidden === 1 ? "s" : ""} in the draft.
            </p>
          ) : null}
        </>
      ) : (
        <p>
          The changes {other!.status === "scheduled" ? `scheduled for ${other!.when}` : "that failed to publish"} are thrown away: {counted(other!.counts)}.
        </p>
      )}
      <div className="console-actions">
        <Form method="post" reloadDocument>
          <CsrfInput token={csrfToken} />
          <input type="hidden" name="changesetId" value={changesetId} />
          <input type="hidden" name="confirmed" value="yes" />
          <button type="submit" name="intent" value="discard" className="console-button console-button--danger">
            Yes, discard {count === 1 ? "it" : `these ${count}`}
          </button>
        </Form>
        <a href="/admin/changes" className="console-button console-button--quiet">
          No, keep {count === 1 ? "it" : "them"}
        </a>
      </div>
    </section>
  );
}
