import { data } from "react-router";
import type { Route } from "./+types/admin.content.location-special-hours";
import { adminMeta } from "~/components/admin/console";
import { CONTENT_DONE, DraftNote, LocationContentNav, RecordForm, type ContentActionData } from "~/components/admin/content-form";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console.server";
import { submitContentForm } from "~/services/content-editor.server";
import { answerContentForm, doneOf, specialHoursPage, specialHoursTargets } from "~/services/content-pages.server";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { notFound } from "~/services/http.server";
import { requirePermission, signedInStaff } from "~/services/staff-context.server";

/** A location's special hours (issue 24): a date, its occasion, closed all day or open–close. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const locationId = Number(params.locationId);
  const page = Number.isInteger(locationId) ? await specialHoursPage(context.db, staff, locationId) : null;
  if (!page) throw notFound(consoleHeaders());
  const csrf = await getCsrfToken(request);
  return data({ ...page, locationId, csrfToken: csrf.token, done: doneOf(request) }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const form = await request.formData();
  await validateCsrf(request, form);
  const locationId = Number(params.locationId);
  if (!Number.isInteger(locationId) || !(await specialHoursPage(context.db, staff, locationId))) throw notFound(consoleHeaders());
  return answerContentForm(await submitContentForm(context.db, staff, specialHoursTargets(locationId), form, clockNow()), request);
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = ({ data: d }) => adminMeta(d ? `Special hours: ${d.name}` : "Special hours");

const FIELDS = ["date", "label", "isClosed", "open", "close"] as const;

export default function LocationSpecialHours({ loaderData, actionData }: Route.ComponentProps) {
  const { csrfToken, dates, locationId } = loaderData;
  const act = (actionData ?? null) as ContentActionData | null;
  return (
    <>
      <LocationContentNav locationId={locationId} current="special-hours" />
      <h1>Special hours: {loaderData.name}</h1>
      <DraftNote done={loaderData.done ? CONTENT_DONE[loaderData.done]! : null} />
      <p>Dates whose opening differs from the usual week: a holiday closing, a late opening. Times are the location&apos;s local time.</p>
      {dates.length === 0 ? <p>No special dates yet.</p> : null}
      {dates.map((d) => (
        <RecordForm
          key={d.key}
          formId={`date-${d.key}`}
          target="specialHours"
          entity="specialHours"
          fields={FIELDS}
          intent="save"
          values={d.values}
          base={d.base}
          pending={d.pending}
          recordId={d.id}
          createKey={d.createKey}
          csrfToken={csrfToken}
          actionData={act}
          legend={`${String(d.raw.date)}${d.raw.label ? ` (${String(d.raw.label)})` : ""}${d.id === null ? " (new)" : ""}`}
          submitLabel="Save this date"
          removable
        />
      ))}
      <h2 id="add">Add a date</h2>
      <RecordForm
        formId="new-date"
        target="specialHours"
        entity="specialHours"
        fields={FIELDS}
        intent="create"
        values={loaderData.blank}
        csrfToken={csrfToken}
        actionData={act}
        legend="New special date"
        submitLabel="Add this date"
      />
    </>
  );
}
