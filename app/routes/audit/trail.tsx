import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { GONE_OR_OUT_OF_SCOPE } from "~/services/web/responses.server";
import type { Route } from "./+types/trail";
import { adminMeta, CsrfInput, FormMessage } from "~/components/console/shell";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { countPublishAction } from "~/services/content/publish.server";
import { revertFieldSchema } from "~/domain/content/publish-forms";
import { revertableFields, revertAuditedField } from "~/services/content/changes-page.server";
import { AUDIT_PAGE_SIZE, auditFilterQuery, parseAuditFilter, type AuditFilterErrors } from "~/domain/audit/filter";
import { auditFilterChoices, auditNames, auditTimeZone, listAuditEvents } from "~/services/audit/trail.server";
import { actionWords, changeSentences, fieldWords, recordWords, valueWords } from "~/domain/audit/words";
import { formatCents } from "~/domain/shared/money";
import { formatDeskTime } from "~/domain/desk/time";
import { formToActOn, requireFreshFactorForPage } from "~/services/staff/step-up.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";
import { now as clockNow } from "~/platform/clock.server";

/** The audit trail (owners, `audit.view`): filtered by dates, staff member, action and location; paged; CSV. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "audit.view");
  requireFreshFactorForPage(staff, request, clockNow());
  const { filter, errors } = parseAuditFilter(new URL(request.url).searchParams);
  // Dates and times in the account's time zone (its first live location's), as the desk's lists.
  const timeZone = await auditTimeZone(context.db, staff.accountId);
  const [{ rows, total }, choices] = await Promise.all([listAuditEvents(context.db, staff.accountId, filter, timeZone), auditFilterChoices(context.db, staff.accountId)]);
  const csrf = await getCsrfToken(request);
  // The operator's words (decision 644): actions as sentences, records by name, changes as sentences.
  const { records, names } = await auditNames(context.db, staff.accountId, rows);
  const instant = (iso: string) => formatDeskTime(new Date(iso), timeZone);
  return data(
    {
      csrfToken: csrf.token,
      reverted: new URL(request.url).searchParams.get("reverted") === "1",
      filter,
      errors,
      total,
      choices: { ...choices, actions: choices.actions.map((a) => ({ value: a, label: actionWords(a) })) },
      query: auditFilterQuery(filter),
      timeZone,
      rows: rows.map((r) => ({
        ...r,
        at: r.at.toISOString(),
        when: formatDeskTime(r.at, timeZone),
        actionText: actionWords(r.action),
        record: recordWords(r.entity, r.entityId, r.entity && r.entityId ? (records.get(`${r.entity}:${r.entityId}`) ?? null) : null),
        sentences: changeSentences(r.changes, names, formatCents, instant),
        detailText: r.detail
          ? Object.entries(r.detail)
              .map(([k, v]) => `${fieldWords(k)}: ${typeof v === "string" && /^\d{4}-\d{2}-\d{2}T/.test(v) ? instant(v) : valueWords(k, v, names, formatCents)}`)
              .join("; ")
          : "",
        revertable: revertableFields(r.action, r.entity, r.entityId, Object.keys(r.changes ?? {})),
      })),
    },
    { headers: consoleHeaders(csrf.setCookie) },
  );
}

/**
 * "Revert this field" (issue 24): a content edit's field set back to its value before, as a new change
 * in the draft (app/services/content/changes-page.server.ts `revertAuditedField`); published like any edit.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const posted = await request.formData();
  await validateCsrf(request, posted);
  const staff = signedInStaff(context);
  const now = clockNow();
  // Owners who edit content, with a fresh second factor: a stale one holds the revert until the code (decision 660).
  const form = await formToActOn(context.db, staff, request, posted, now, () => ({ permissions: ["audit.view", "content.edit"], fresh: true }));
  const eventId = Number(form.get("eventId"));
  const key = `${eventId}:${String(form.get("field") ?? "").slice(0, 100)}`;
  const limit = await countPublishAction(context.db, staff, now);
  if (!limit.allowed) return data({ key, message: `Too many changes at once. Please wait ${limit.retryAfterMinutes} minutes.` }, { status: 429, headers: consoleHeaders() });
  // Conform + the form's schema on the server (hidden fields only: nothing for the browser to check).
  const submission = parseWithZod(form, { schema: revertFieldSchema });
  if (submission.status !== "success") return data({ key, message: "That change cannot be reverted from here." }, { status: GONE_OR_OUT_OF_SCOPE, headers: consoleHeaders() });
  const { field } = submission.value;
  const result = await revertAuditedField(context.db, staff, { eventId, field });
  if (result.ok) {
    const back = new URL(request.url);
    back.searchParams.set("reverted", "1");
    throw redirect(`/admin/audit${back.search}`, { status: 303, headers: consoleHeaders() });
  }
  return data({ key, message: result.message }, { status: result.status, headers: consoleHeaders() });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Audit trail");

export default function AuditTrail({ loaderData, actionData }: Route.ComponentProps) {
  const { filter, total, choices, rows, timeZone } = loaderData;
  const errors: AuditFilterErrors = loaderData.errors;
  const pages = Math.max(1, Math.ceil(total / AUDIT_PAGE_SIZE));
  const err = (k: keyof AuditFilterErrors) => (errors[k] ? { "aria-invalid": true as const, "aria-describedby": `audit-${k}-error` } : {});
  const msg = (k: keyof AuditFilterErrors) =>
    errors[k] ? (
      <p id={`audit-${k}-error`} className="console-error">
        {errors[k]}
      </p>
    ) : null;
  const pageLink = (page: number) => `/admin/audit${auditFilterQuery(filter, page)}`;
  return (
    <>
      <h1>Audit trail</h1>
      <FormMessage tone="success" message={loaderData.reverted ? "The field's earlier value is in the draft: publish it on the Changes page." : null} />
      <form method="get" action="/admin/audit" className="console-filter" aria-label="Filter the audit trail">
        <div className="console-field">
          <label htmlFor="audit-from">From (date, {timeZone})</label>
          <input id="audit-from" name="from" type="date" defaultValue={filter.from ?? ""} {...err("from")} />
          {msg("from")}
        </div>
        <div className="console-field">
          <label htmlFor="audit-to">To (date, {timeZone})</label>
          <input id="audit-to" name="to" type="date" defaultValue={filter.to ?? ""} {...err("to")} />
          {msg("to")}
        </div>
        <div className="console-field">
          <label htmlFor="audit-staff">Staff member</label>
          <select id="audit-staff" name="staff" defaultValue={filter.staff ?? ""} {...err("staff")}>
            <option value="">Anyone</option>
            {choices.staff.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name ? `${s.name} (${s.email})` : s.email}
              </option>
            ))}
          </select>
          {msg("staff")}
        </div>
        <div className="console-field">
          <label htmlFor="audit-action">Action</label>
          <select id="audit-action" name="action" defaultValue={filter.action ?? ""} {...err("action")}>
            <option value="">Any action</option>
            {choices.actions.map((a) => (
              <option key={a.value} value={a.value}>
                {a.label}
              </option>
            ))}
          </select>
          {msg("action")}
        </div>
        <div className="console-field">
          <label htmlFor="audit-location">Location</label>
          <select id="audit-location" name="location" defaultValue={filter.location ?? ""} {...err("location")}>
            <option value="">Any location</option>
            {choices.locations.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
          {msg("location")}
        </div>
        <button type="submit" className="console-button">
          Filter
        </button>
      </form>
      <p>
        <a href={`/admin/audit.csv${loaderData.query}`}>Download these {total} entries as CSV</a>
      </p>
      <table>
        <caption>
          {total} entr{total === 1 ? "y" : "ies"}, newest first{pages > 1 ? ` (page ${filter.page} of ${pages})` : ""}
        </caption>
        <thead>
          <tr>
            <th scope="col">When ({timeZone})</th>
            <th scope="col">Who</th>
            <th scope="col">Address</th>
            <th scope="col">Action</th>
            <th scope="col">Record</th>
            <th scope="col">Changes and detail</th>
          </tr>
        </thead>
        <tbody>
          {rows.length ? (
            rows.map((r) => (
              <tr key={r.id}>
                <td data-label="When">
                  <time dateTime={r.at}>{r.when}</time>
                </td>
                <td data-label="Who">{r.actor}</td>
                <td data-label="Address">{r.ip ?? ""}</td>
                <td data-label="Action">{r.actionText}</td>
                <td data-label="Record">{r.record}</td>
                <td data-label="Changes and detail">
                  {r.sentences.map((line, i) => (
                    <span key={i} className="audit-change">
                      {line}{" "}
                    </span>
                  ))}
                  {r.revertable.map(({ field, label }) => {
                    const failed = actionData?.key === `${r.id}:${field}` ? actionData.message : null;
                    return (
                      <Form key={field} method="post" reloadDocument className="console-inline-form">
                        <CsrfInput token={loaderData.csrfToken} />
                        <input type="hidden" name="eventId" value={r.id} />
                        <input type="hidden" name="field" value={field} />
                        <button type="submit" className="console-button console-button--quiet" aria-describedby={failed ? `revert-${r.id}-${field}-error` : undefined}>
                          {`Revert “${label}”`}
                          <span className="visually-hidden"> of {r.record}</span>
                        </button>
                        {failed ? (
                          <p id={`revert-${r.id}-${field}-error`} className="console-error">
                            {failed}
                          </p>
                        ) : null}
                      </Form>
                    );
                  })}
                  {r.sentences.length && r.detailText ? <br /> : null}
                  {r.detailText}
                </td>
              </tr>
            ))
          ) : (
            <tr>
              <td colSpan={6}>Nothing matches this filter.</td>
            </tr>
          )}
        </tbody>
      </table>
      <nav aria-label="Pages" className="console-pager">
        {filter.page > 1 ? <a href={pageLink(filter.page - 1)}>Previous page</a> : null}
        {filter.page < pages ? <a href={pageLink(filter.page + 1)}>Next page</a> : null}
      </nav>
    </>
  );
}
