import type { Route } from "./+types/edit.unit-type";
import { adminMeta } from "~/components/console/shell";
import { CONTENT_DONE, DraftNote, ImageFieldNote, RecordForm, type ContentActionData } from "~/components/content/record-forms";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { UNIT_TYPE_TARGETS, unitTypePage } from "~/services/content/pages.server";
import { contentRoute } from "~/services/content/route.server";
import { UNIT_TYPE_FIELDS } from "~/domain/content/form";

/**
 * A unit type as the website shows it (issue 24): hidden online or not, its promotion and its
 * description. Rates, sizes and names come from the management software and are not edited here.
 */
const route = contentRoute({ param: "unitTypeId", page: unitTypePage, targets: () => UNIT_TYPE_TARGETS });
export const loader = route.loader;
export const action = route.action;

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = ({ data: d }) => adminMeta(d ? `Unit type: ${d.heading.label}` : "Unit type");

export default function UnitTypeContent({ loaderData, actionData }: Route.ComponentProps) {
  const { csrfToken, heading, form, unitTypeId } = loaderData;
  const act = (actionData ?? null) as ContentActionData | null;
  return (
    <>
      <p>
        <a href={`/admin/content/locations/${heading.locationId}`}>{heading.locationName}</a>
      </p>
      <h1>
        Unit type: {heading.label} at {heading.locationName}
      </h1>
      <DraftNote done={loaderData.done ? CONTENT_DONE[loaderData.done]! : null} />
      <p className="console-hint">The name, size and rates come from the management software.</p>
      <RecordForm
        formId="unit-type"
        target="unitType"
        entity="unitType"
        fields={UNIT_TYPE_FIELDS}
        intent="save"
        values={form.values}
        base={form.base}
        pending={form.pending}
        recordId={unitTypeId}
        csrfToken={csrfToken}
        actionData={act}
        legend="How the website shows this unit type"
        submitLabel="Save unit type"
      />
      <ImageFieldNote label="Photos" photosHref={`/admin/content/unit-types/${unitTypeId}/photos`} count={loaderData.photoCount} />
    </>
  );
}
