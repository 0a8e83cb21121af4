import { data } from "react-router";
import type { Route } from "./+types/admin.content.location-amenities";
import { adminMeta } from "~/components/admin/console";
import { CONTENT_DONE, DraftNote, LocationContentNav, RecordForm, type ContentActionData } from "~/components/admin/content-form";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console.server";
import { submitContentForm } from "~/services/content-editor.server";
import { amenitiesPage, amenitiesTargets, answerContentForm, doneOf } from "~/services/content-pages.server";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { notFound } from "~/services/http.server";
import { requirePermission, signedInStaff } from "~/services/staff-context.server";

/** A location's amenities (issue 24): add, change, reorder, remove. Their images are on the photos page. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const locationId = Number(params.locationId);
  const page = Number.isInteger(locationId) ? await amenitiesPage(context.db, staff, locationId) : null;
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
  if (!Number.isInteger(locationId) || !(await amenitiesPage(context.db, staff, locationId))) throw notFound(consoleHeaders());
  return answerContentForm(await submitContentForm(context.db, staff, await amenitiesTargets(context.db, staff, locationId), form, clockNow()), request);
}

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
      {amenities.map((a) => (
        <RecordForm
          key={a.key}
          formId={`amenity-${a.key}`}
          target="amenity"
          entity="amenity"
          fields={FIELDS}
          intent="save"
          values={a.values}
          base={a.base}
          pending={a.pending}
          recordId={a.id}
          createKey={a.createKey}
          csrfToken={csrfToken}
          actionData={act}
          legend={`${String(a.raw.label)}${a.id === null ? " (new)" : ""}`}
          submitLabel="Save this amenity"
          removable
          movable
        >
          <p className="console-hint">
            Image: {a.hasImage ? "set" : "none"}. <a href={`/admin/content/locations/${locationId}/photos`}>Change on the photos page</a>
          </p>
        </RecordForm>
      ))}
      <h2 id="add">Add an amenity</h2>
      <RecordForm formId="new-amenity" target="amenity" entity="amenity" fields={FIELDS} intent="create" values={loaderData.blank} csrfToken={csrfToken} actionData={act} legend="New amenity" submitLabel="Add this amenity" />
    </>
  );
}
