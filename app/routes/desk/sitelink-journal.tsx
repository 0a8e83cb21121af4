import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect, useActionData } from "react-router";
import type { Route } from "./+types/sitelink-journal";
import { DeskList } from "~/components/desk/list";
import { CsrfInput } from "~/components/ui/form";
import { deskFilterQuery, parseDeskFilter } from "~/domain/desk/filters";
import { JOURNAL_DESK_STATUSES, JOURNAL_DESK_STATUS_LABELS, RESOLVE_NOTE_MAX, resolveJournalSchema, retryJournalSchema } from "~/domain/desk/journal";
import { formatDeskTime } from "~/domain/desk/time";
import { can } from "~/domain/staff/roles";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { deskGoLive, listDeskJournal, resolveJournalRow, retryJournalRow } from "~/services/desk/journal.server";
import { deskLocations } from "~/services/desk/tenants.server";
import { limitDeskAction } from "~/services/desk/pages.server";
import { notFound } from "~/services/web/responses.server";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * SiteLink write-journal rows that need attention (issue 23, decision 261): by location, start date
 * and status; "Check again" reads SiteLink back (never resends), "Mark resolved" takes a note. Below,
 * whether each SiteLink location is live: its go-live check (issue 37, decision 470).
 */
export const meta: Route.MetaFunction = () => [{ title: "SiteLink journal | Back office" }, { name: "robots", content: "noindex" }];

/** No-store, noindex, and the loader's and action's cookies (the console's own headers). */
export const headers: Route.HeadersFunction = consoleRouteHeaders;

const NO_STORE = { "Cache-Control": "no-store" };
const PATH = "/admin/sitelink-journal";

export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.view");
  const url = new URL(request.url);
  const now = clockNow();
  const parsed = parseDeskFilter(url.searchParams, JOURNAL_DESK_STATUSES);
  const errors: Record<string, string> = parsed.ok ? {} : { ...parsed.errors };
  let filter = parsed.filter;
  let result = await listDeskJournal(context.db, staff, filter, now);
  if (!result.ok) {
    errors[result.field] = result.message;
    filter = { ...filter, location: undefined };
    result = await listDeskJournal(context.db, staff, filter, now);
  }
  const csrf = await getCsrfToken(request);
  const headers = new Headers(NO_STORE);
  if (csrf.setCookie) headers.append("Set-Cookie", csrf.setCookie);
  const rows = result.ok
    ? result.rows.map((r) => ({
        key: r.key,
        location: r.locationName,
        operation: r.operation,
        kind: r.kind,
        noCheck: r.noCheck,
        state: r.state,
        status: r.status,
        startedAt: formatDeskTime(r.startedAt, r.timeZone),
        lastError: r.lastError,
        ids: Object.entries(r.ids)
          .map(([k, v]) => `${k} ${v}`)
          .join(", "),
        resolved: r.resolvedAt ? { at: formatDeskTime(r.resolvedAt, r.timeZone), note: r.resolutionNote ?? "" } : null,
        actions: r.actions,
      }))
    : [];
  return data(
    {
      filter,
      errors,
      locations: (await deskLocations(context.db, staff)).map((l) => ({ id: l.id, name: l.name })),
      rows,
      total: result.ok ? result.total : 0,
      canAct: can(staff.role, "journal.act"),
      goLive: await deskGoLive(context.db, staff),
      csrfToken: csrf.token,
      done: url.searchParams.get("done"),
    },
    { status: Object.keys(errors).length ? 400 : 200, headers },
  );
}

type ActionReply = { intent: string; key: string; note?: string; message: string; field?: "note"; result?: SubmissionResult<string[]> };

export async function action({ request, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "journal.act");
  const form = await request.formData();
  await validateCsrf(request, form);
  const intent = String(form.get("intent") ?? "");
  const key = String(form.get("key") ?? "");
  const note = String(form.get("note") ?? "");
  const reply = (r: Omit<ActionReply, "intent" | "key">, status: number) => data<ActionReply>({ intent, key, ...r }, { status, headers: NO_STORE });
  const now = clockNow();
  if (intent !== "resolve" && intent !== "retry") return reply({ message: "Choose one of the actions on this page." }, 400);
  // Conform + the forms' schemas (the resolve form checks the same schema in the browser).
  const submission = parseWithZod(form, { schema: intent === "resolve" ? resolveJournalSchema : retryJournalSchema });
  if (submission.status !== "success") {
    const errors = submission.error ?? {};
    const noteError = intent === "resolve" ? errors.note?.[0] : undefined;
    const message = noteError ?? errors.key?.[0] ?? Object.values(errors).flat()[0] ?? "This row is missing. Reload the page.";
    return reply({ note, message, field: noteError ? "note" : undefined, result: submission.reply() }, 400);
  }
  const limited = await limitDeskAction(context.db, staff, now);
  if (limited) return reply({ note, message: limited, result: submission.reply({ formErrors: [limited] }) }, 429);
  const parsed = submission.value;
  const outcome =
    intent === "resolve" && "note" in parsed
      ? await resolveJournalRow(context.db, staff, { key: String(parsed.key), note: String(parsed.note), now })
      : await retryJournalRow(context.db, staff, { key: String(parsed.key), now });
  if (!outcome) throw notFound(NO_STORE);
  if (!outcome.ok) return reply({ note, message: outcome.message, result: submission.reply({ formErrors: [outcome.message] }) }, intent === "retry" ? 200 : 400);
  if (intent === "retry") return reply({ message: outcome.message }, 200);
  const back = new URL(request.url).searchParams;
  back.set("done", "resolved");
  throw redirect(`${PATH}?${back.toString()}`, { status: 303, headers: NO_STORE });
}

export default function AdminSiteLinkJournal({ loaderData }: Route.ComponentProps) {
  const d = loaderData;
  const reply = useActionData<typeof action>() as ActionReply | undefined;
  const here = `${PATH}${deskFilterQuery(d.filter, d.filter.page)}`;
  type Row = (typeof d.rows)[number];
  const actions = (r: Row) => {
    const mine = reply?.key === r.key ? reply : undefined;
    const noteError = mine?.intent === "resolve" && mine.field === "note";
    return (
      <div className="desk-actions">
        {r.resolved ? (
          <p>
            Resolved {r.resolved.at}: {r.resolved.note}
          </p>
        ) : null}
        {r.noCheck ? <p className="desk-actions__note">{r.noCheck}</p> : null}
        {mine && !noteError ? (
          <p role={mine.intent === "retry" ? "status" : "alert"} className={mine.intent === "retry" ? undefined : "field__errors"}>
            {mine.message}
          </p>
        ) : null}
        {d.canAct && r.actions.retry ? (
          <Form method="post" action={here}>
            <CsrfInput token={d.csrfToken} />
            <input type="hidden" name="intent" value="retry" />
            <input type="hidden" name="key" value={r.key} />
            <button type="submit" className="button">
              Check SiteLink again
            </button>
          </Form>
        ) : null}
        {d.canAct && r.actions.resolve ? <ResolveForm rowKey={r.key} here={here} csrfToken={d.csrfToken} reply={mine?.intent === "resolve" ? mine : undefined} /> : null}
      </div>
    );
  };
  return (
    <>
      {d.done === "resolved" ? (
        <p className="alert alert--success" role="status">
          Marked resolved.
        </p>
      ) : null}
      <DeskList
        title="SiteLink writes needing attention"
        path={PATH}
        filter={d.filter}
        errors={d.errors}
        locations={d.locations}
        statuses={JOURNAL_DESK_STATUSES.map((s) => ({ value: s, label: JOURNAL_DESK_STATUS_LABELS[s] }))}
        dateLabel="Started"
        columns={[
          { header: "Started", cell: (r) => r.startedAt },
          { header: "Location", cell: (r) => r.location },
          {
            header: "Write",
            cell: (r) => (
              <>
                {r.kind}
                <br />
                <small>{r.operation}</small>
              </>
            ),
          },
          { header: "Status", cell: (r) => (r.status ? JOURNAL_DESK_STATUS_LABELS[r.status] : r.state) },
          { header: "Ids", cell: (r) => r.ids || "—" },
          { header: "Last error", cell: (r) => r.lastError ?? "" },
          { header: "Actions", cell: actions },
        ]}
        rows={d.rows}
        rowKey={(r) => r.key}
        total={d.total}
        empty="No SiteLink write needs attention."
      />
      {d.goLive.length ? (
        <section aria-labelledby="go-live-heading">
          <h2 id="go-live-heading">Going live on SiteLink</h2>
          <p>Online rentals and payments at a SiteLink location are on only after <code>npm run sitelink:verify</code> has passed for it with its current settings.</p>
          <ul>
            {d.goLive.map((g) => (
              <li key={g.location}>
                <strong>
                  {g.location}: {g.live ? "live (online rentals and payments on)" : "off (visitors are asked to call the office)"}
                </strong>
                {g.checkedAt ? ` Latest check ${g.checkedAt} (${g.source}), ${g.live ? "passed" : "not live"}: ${g.reason}.` : ` ${g.reason}.`}
                {g.saw.length ? (
                  <ul>
                    {g.saw.map((line) => (
                      <li key={line}>{line}</li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}

/**
 * "Mark resolved" for one row: Conform with the server's schema (checked in the browser with
 * JavaScript, on the server always), the message beside the note, the note kept. Works without JavaScript.
 */
function ResolveForm({ rowKey, here, csrfToken, reply }: { rowKey: string; here: string; csrfToken: string; reply?: ActionReply }) {
  const [form, fields] = useForm({
    id: `resolve-${rowKey}`,
    lastResult: reply?.result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: resolveJournalSchema }),
  });
  const noteId = `note-${rowKey}`;
  const noteError = fields.note.errors?.[0] ?? (reply?.field === "note" ? reply.message : undefined);
  return (
    <Form method="post" action={here} {...getFormProps(form)}>
      <CsrfInput token={csrfToken} />
      <input type="hidden" name="intent" value="resolve" />
      <input type="hidden" name="key" value={rowKey} />
      <div className={noteError ? "field field--invalid" : "field"}>
        <label htmlFor={noteId}>What was done</label>
        <textarea
          id={noteId}
          name="note"
          rows={2}
          maxLength={RESOLVE_NOTE_MAX}
          defaultValue={reply?.note ?? ""}
          aria-invalid={noteError ? true : undefined}
          aria-describedby={noteError ? `${noteId}-error` : undefined}
        />
        {noteError ? (
          <p id={`${noteId}-error`} className="field__errors">
            {noteError}
          </p>
        ) : null}
      </div>
      <button type="submit" className="button">
        Mark resolved
      </button>
    </Form>
  );
}
