import type { Route } from "./+types/edit.location-special-hours";
import { adminMeta } from "~/components/console/shell";
import { CONTENT_DONE, DraftNote, LocationContentNav, newSuffix, RecordForm, RecordForms, type ContentActionData } from "~/components/content/record-forms";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { specialHoursPage, specialHoursTargets } from "~/services/content/pages.server";
import { contentRoute } from "~/services/content/route.server";

/** A location's special hours (issue 24): a date, its occasion, closed all day or open–close. */
const route = contentRoute({ param: "locationId", page: specialHoursPage, targets: (_db, _staff, id) => specialHoursTargets(id) });
export const loader = route.loader;
export const action = route.action;

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
      <RecordForms
        records={dates}
        idPrefix="date"
        target="specialHours"
        entity="specialHours"
        fields={FIELDS}
        csrfToken={csrfToken}
        actionData={act}
        legend={(d) => `${String(d.raw.date)}${d.raw.label ? ` (${String(d.raw.label)})` : ""}${newSuffix(d)}`}
        submitLabel="Save this date"
        removable
      />
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
