import type { Route } from "./+types/edit.location-amenities";
import { adminMeta } from "~/components/console/shell";
import { CONTENT_DONE, DraftNote, LocationContentNav, newSuffix, RecordForm, RecordForms, type ContentActionData } from "~/components/content/record-forms";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { amenitiesPage, amenitiesTargets } from "~/services/content/pages.server";
import { contentRoute } from "~/services/content/route.server";

/** A location's amenities (issue 24): add, change, reorder, remove. Their images are on the photos page. */
const route = contentRoute({ param: "locationId", page: amenitiesPage, targets: amenitiesTargets });
export const loader = route.loader;
export const action = route.action;

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = ({ data: d }) => adminMeta(d ? `Amenities: ${d.name}` : "Amenities");

const FIELDS = ["label", "description"] as const;

export default function LocationAmenities({ loaderData, actionData }: Route.ComponentProps) {
  const { csrfToken, amenities, locationId } = loaderData;
  const act = (actionData ?? null) as ContentActionData | null;
  return (
    <>
      <LocationContentNav locationId={locationId} current="amenities" />
      <h1>Amenities: {loaderData.name}</h1>
      <DraftNote done={loaderData.done ? CONTENT_DONE[loaderData.done]! : null} />
      {amenities.length === 0 ? <p>No amenities yet.</p> : null}
      <RecordForms
        records={amenities}
        idPrefix="amenity"
        target="amenity"
        entity="amenity"
        fields={FIELDS}
        csrfToken={csrfToken}
        actionData={act}
        legend={(a) => `${String(a.raw.label)}${newSuffix(a)}`}
        submitLabel="Save this amenity"
        removable
        movable
        extra={(a) => (
          <p className="console-hint">
            Image: {a.hasImage ? "set" : "none"}. <a href={`/admin/content/locations/${locationId}/photos#amenities-title`}>Change on the photos page</a>
          </p>
        )}
      />
      <h2 id="add">Add an amenity</h2>
      <RecordForm formId="new-amenity" target="amenity" entity="amenity" fields={FIELDS} intent="create" values={loaderData.blank} csrfToken={csrfToken} actionData={act} legend="New amenity" submitLabel="Add this amenity" />
    </>
  );
}
