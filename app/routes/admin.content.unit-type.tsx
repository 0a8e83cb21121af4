import { data } from "react-router";
import type { Route } from "./+types/admin.content.unit-type";
import { adminMeta } from "~/components/admin/console";
import { CONTENT_DONE, DraftNote, ImageFieldNote, RecordForm, type ContentActionData } from "~/components/admin/content-form";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console.server";
import { submitContentForm } from "~/services/content-editor.server";
import { answerContentForm, doneOf, UNIT_TYPE_TARGETS, unitTypePage } from "~/services/content-pages.server";
import { UNIT_TYPE_FIELDS } from "~/domain/content-form";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { notFound } from "~/services/http.server";
import { requirePermission, signedInStaff } from "~/services/staff-context.server";

/**
 * A unit type as the website shows it (issue 24): hidden online or not, its promotion and its
 * description. Rates, sizes and names come from the management software and are not edited here.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const unitTypeId = Number(params.unitTypeId);
  const page = Number.isInteger(unitTypeId) ? await unitTypePage(context.db, staff, unitTypeId) : null;
  if (!page) throw notFound(consoleHeaders());
  const csrf = await getCsrfToken(request);
  return data({ ...page, unitTypeId, csrfToken: csrf.token, done: doneOf(request) }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const form = await request.formData();
  await validateCsrf(request, form);
  const unitTypeId = Number(params.unitTypeId);
  if (!Number.isInteger(unitTypeId) || !(await unitTypePage(context.db, staff, unitTypeId))) throw notFound(consoleHeaders());
  return answerContentForm(await submitContentForm(context.db, staff, UNIT_TYPE_TARGETS, form, clockNow()), request);
}

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
