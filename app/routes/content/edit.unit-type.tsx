import type { Route } from "./+types/edit.unit-type";
import { adminMeta } from "~/components/console/shell";
import { CONTENT_DONE, DraftNote, ImageFieldNote, RecordForm, type ContentActionData } from "~/components/content/record-forms";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { unitTypePage, unitTypeTargets } from "~/services/content/pages.server";
import { contentRoute } from "~/services/content/route.server";
import { UNIT_TYPE_FIELDS } from "~/domain/content/form";

/**
 * A unit type as the website shows it (issue 24): hidden online or not, and its description. Rates, sizes and names come from the management software and are not edited here.
 * And its promotion that applies at rent time (issue 40, decisions 600–603, 670–674): at a SiteLink
 * location one of the site's discount plans (a select naming what each gives), at a local one an
 * amount (typed in dollars) or a percentage off the first months, with its dates; the text shown comes
 * from what it gives, and a plan SiteLink changed or removed since is said here.
 */
const route = contentRoute({ param: "unitTypeId", page: unitTypePage, targets: (db, _staff, id) => unitTypeTargets(db, id) });
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
      <section aria-labelledby="promotion-heading">
        <h2 id="promotion-heading">Promotion that applies at rent time</h2>
        <p className="console-hint">
          The rental&rsquo;s quote, review step, lease, receipt and move-in all apply it, and the website shows what it gives
          {loaderData.software === "sitelink" ? ": SiteLink applies the plan at move-in and bills its later months." : "."} It is published with the draft, between
          its dates (the location&rsquo;s calendar).
        </p>
        {loaderData.promotionAttention ? (
          <div className="console-alert console-alert--error" data-testid="promotion-attention">
            <p>
              <strong>Needs attention:</strong>
              {` ${loaderData.promotionAttention}`}
            </p>
          </div>
        ) : null}
        <p data-testid="promotion-shown">
          {loaderData.promotionShown ? `Shown as: \u201c${loaderData.promotionShown}\u201d` : "No promotion applies."}
        </p>
        <RecordForm
          formId="promotion-applies"
          target="unitTypePromotion"
          entity="unitType"
          fields={loaderData.promotionFields}
          intent="save"
          values={loaderData.promotionForm.values}
          base={loaderData.promotionForm.base}
          pending={loaderData.promotionForm.pending}
          recordId={unitTypeId}
          csrfToken={csrfToken}
          actionData={act}
          legend="What the promotion gives"
          submitLabel="Save promotion"
          choices={loaderData.promotionChoices}
          hints={loaderData.plansProblem ? { promotionPlanId: loaderData.plansProblem } : undefined}
        />
        {loaderData.plansNotOffered.length ? (
          <>
            <h3>The site&rsquo;s plans not offered here</h3>
            <ul data-testid="plans-not-offered">
              {loaderData.plansNotOffered.map((p) => (
                <li key={p.id}>{`${p.name} (plan ${p.id}): ${p.reason}.`}</li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
      <ImageFieldNote label="Photos" photosHref={`/admin/content/unit-types/${unitTypeId}/photos`} count={loaderData.photoCount} />
    </>
  );
}
