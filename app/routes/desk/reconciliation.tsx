import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect, useActionData } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/reconciliation";
import { CsrfInput } from "~/components/ui/form";
import { formatCents } from "~/domain/shared/money";
import { RESOLVE_NOTE_MAX } from "~/domain/desk/journal";
import { can } from "~/domain/staff/roles";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { limitDeskAction } from "~/services/desk/pages.server";
import { reconciliationPage, resolveDifference } from "~/services/desk/reconciliation.server";
import { notFound } from "~/services/web/responses.server";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * Reconciliation (issue 35, decision 440): for a location and a day, what the card processor says it
 * charged and refunded, what we recorded, and every difference with what to do; "Mark resolved" takes
 * a note. Plain GET form and POST forms: works without JavaScript.
 */
export const meta: Route.MetaFunction = () => [{ title: "Reconciliation | Back office" }, { name: "robots", content: "noindex" }];
export const headers: Route.HeadersFunction = consoleRouteHeaders;

const NO_STORE = { "Cache-Control": "no-store" };
const PATH = "/admin/reconciliation";

const resolveSchema = z.object({
  id: z.coerce.number({ error: "This difference is missing. Reload the page." }).int().positive("This difference is missing. Reload the page."),
  note: z
    .string({ error: "Say what was done, so the next person knows." })
    .trim()
    .min(3, "Say what was done, so the next person knows.")
    .max(RESOLVE_NOTE_MAX, `Keep the note under ${RESOLVE_NOTE_MAX} characters.`),
});

export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.view");
  const url = new URL(request.url);
  const page = await reconciliationPage(context.db, staff, { location: url.searchParams.get("location"), day: url.searchParams.get("day"), now: clockNow() });
  const csrf = await getCsrfToken(request);
  const h = new Headers(NO_STORE);
  if (csrf.setCookie) h.append("Set-Cookie", csrf.setCookie);
  return data(
    {
      locations: page.locations.map((l) => ({ id: l.id, name: l.name })),
      location: page.location ? { id: page.location.id, name: page.location.name, timeZone: page.location.timeZone } : null,
      day: page.day,
      errors: page.errors,
      result: page.result,
      canResolve: can(staff.role, "journal.act"),
      csrfToken: csrf.token,
      done: url.searchParams.get("done") === "resolved",
    },
    { status: Object.keys(page.errors).length ? 400 : 200, headers: h },
  );
}

type ActionReply = { id: number | null; note: string; message: string };

export async function action({ request, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "journal.act");
  const form = await request.formData();
  await validateCsrf(request, form);
  const note = String(form.get("note") ?? "");
  const rawId = Number(form.get("id"));
  const reply = (message: string, status: number) => data<ActionReply>({ id: Number.isInteger(rawId) ? rawId : null, note, message }, { status, headers: NO_STORE });
  const submission = parseWithZod(form, { schema: resolveSchema });
  if (submission.status !== "success") {
    const errors = submission.error ?? {};
    return reply(errors.note?.[0] ?? errors.id?.[0] ?? "This difference is missing. Reload the page.", 400);
  }
  const now = clockNow();
  const limited = await limitDeskAction(context.db, staff, now);
  if (limited) return reply(limited, 429);
  const outcome = await resolveDifference(context.db, staff, { id: submission.value.id, note: submission.value.note, now });
  if (!outcome) throw notFound(NO_STORE);
  if (!outcome.ok) return reply(outcome.message, 400);
  const back = new URL(request.url).searchParams;
  back.set("done", "resolved");
  throw redirect(`${PATH}?${back.toString()}`, { status: 303, headers: NO_STORE });
}

function Totals({ label, t }: { label: string; t: { charged: number; refunded: number; net: number; count: number } }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <td className="numeric">
        {formatCents(t.charged)} ({t.count})
      </td>
      <td className="numeric">{formatCents(t.refunded)}</td>
      <td className="numeric">{formatCents(t.net)}</td>
    </tr>
  );
}

export default function AdminReconciliation({ loaderData }: Route.ComponentProps) {
  const d = loaderData;
  const reply = useActionData<typeof action>() as ActionReply | undefined;
  const here = d.location ? `${PATH}?location=${d.location.id}&day=${d.day}` : PATH;
  const r = d.result;
  const open = r?.kind === "done" ? r.differences.filter((x) => !x.resolved) : [];
  const resolved = r?.kind === "done" ? r.differences.filter((x) => x.resolved) : [];
  return (
    <>
      <h1>Reconciliation</h1>
      <p>What the card processor says it charged and refunded, set against the payments we recorded, for one location and day (in the location&rsquo;s time zone).</p>
      {d.done ? (
        <p className="alert alert--success" role="status">
          Marked resolved.
        </p>
      ) : null}
      <Form method="get" action={PATH} className="desk-filter">
        <div className={d.errors.location ? "field field--invalid" : "field"}>
          <label htmlFor="rec-location">Location</label>
          <select id="rec-location" name="location" defaultValue={d.location?.id ?? ""} aria-invalid={d.errors.location ? true : undefined} aria-describedby={d.errors.location ? "rec-location-error" : undefined}>
            {d.locations.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
          {d.errors.location ? (
            <p id="rec-location-error" className="field__errors">
              {d.errors.location}
            </p>
          ) : null}
        </div>
        <div className={d.errors.day ? "field field--invalid" : "field"}>
          <label htmlFor="rec-day">Day</label>
          <input id="rec-day" name="day" type="date" defaultValue={d.day} aria-invalid={d.errors.day ? true : undefined} aria-describedby={d.errors.day ? "rec-day-error" : undefined} />
          {d.errors.day ? (
            <p id="rec-day-error" className="field__errors">
              {d.errors.day}
            </p>
          ) : null}
        </div>
        <button type="submit" className="button">
          Compare
        </button>
      </Form>
      {!d.location ? <p>You have no locations to reconcile.</p> : null}
      {r && r.kind !== "done" ? <p role="status">{r.message}</p> : null}
      {r?.kind === "done" ? (
        <>
          <section aria-labelledby="rec-totals">
            <h2 id="rec-totals">
              {d.location!.name}, {d.day}
            </h2>
            <div className="desk-table" role="region" aria-labelledby="rec-totals" tabIndex={0}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Source</th>
                    <th scope="col" className="numeric">Charged</th>
                    <th scope="col" className="numeric">Refunded</th>
                    <th scope="col" className="numeric">Net</th>
                  </tr>
                </thead>
                <tbody>
                  <Totals label="Card processor" t={r.processor} />
                  <Totals label="Our records" t={r.recorded} />
                </tbody>
              </table>
            </div>
          </section>
          <section aria-labelledby="rec-differences">
            <h2 id="rec-differences">Differences</h2>
            {open.length === 0 ? <p className="rec-none">No differences: the card processor and our records agree for this day.</p> : null}
            {open.map((x) => (
              <article key={x.id} id={`difference-${x.id}`} className="rec-difference" aria-labelledby={`difference-${x.id}-title`}>
                <h3 id={`difference-${x.id}-title`}>{x.label}</h3>
                <p>
                  {x.location} · {x.day} · reference <code>{x.reference}</code>
                </p>
                <p>{x.detail}</p>
                <p>
                  <strong>What to do:</strong> {x.whatToDo}
                </p>
                {d.canResolve ? <ResolveForm id={x.id} here={here} csrfToken={d.csrfToken} reply={reply?.id === x.id ? reply : undefined} /> : null}
              </article>
            ))}
            {resolved.length ? (
              <>
                <h3>Resolved</h3>
                <ul>
                  {resolved.map((x) => (
                    <li key={x.id}>
                      {x.label}, <code>{x.reference}</code>: resolved {x.resolved!.at}: {x.resolved!.note}
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
          </section>
        </>
      ) : null}
    </>
  );
}

function ResolveForm({ id, here, csrfToken, reply }: { id: number; here: string; csrfToken: string; reply?: ActionReply }) {
  const noteId = `note-${id}`;
  return (
    <Form method="post" action={here}>
      <CsrfInput token={csrfToken} />
      <input type="hidden" name="id" value={id} />
      <div className={reply ? "field field--invalid" : "field"}>
        <label htmlFor={noteId}>What was done</label>
        <textarea id={noteId} name="note" rows={2} maxLength={RESOLVE_NOTE_MAX} defaultValue={reply?.note ?? ""} aria-invalid={reply ? true : undefined} aria-describedby={reply ? `${noteId}-error` : undefined} />
        {reply ? (
          <p id={`${noteId}-error`} className="field__errors" role="alert">
            {reply.message}
          </p>
        ) : null}
      </div>
      <button type="submit" className="button">
        Mark resolved
      </button>
    </Form>
  );
}
