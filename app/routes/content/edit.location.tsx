import type { Route } from "./+types/edit.location";
import { adminMeta } from "~/components/console/shell";
import { CONTENT_DONE, DraftNote, GroupForms, ImageFieldNote, LocationContentNav, RecordForm, type ContentActionData } from "~/components/content/record-forms";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { locationDetailsPage, locationDetailsTargets } from "~/services/content/pages.server";
import { contentRoute } from "~/services/content/route.server";
import { redraftLocationPublication } from "~/services/content/new-location.server";
import { CsrfInput } from "~/components/console/shell";
import { LOCATION_GROUPS } from "~/domain/content/form";

/**
 * A location's details (issue 24): name, status, contact, links, messages, search-engine texts,
 * flags, the unit types to show, its settings (JSON, checked before saving), its address, and the
 * list of its unit types with the promotion each will show; above them, the promotions whose SiteLink
 * plan changed or went (decision 673: the console home's number links here). Edits go into the draft.
 */
const route = contentRoute({
  param: "locationId",
  page: locationDetailsPage,
  targets: (db, _staff, id) => locationDetailsTargets(db, id),
  // A location added from the console whose draft was discarded goes back into the draft (decision 620).
  save: async (db, staff, form) => {
    if (form.get("intent") !== "draft-publication") return null;
    const ok = await redraftLocationPublication(db, staff, Number(form.get("recordId")));
    return ok ? { ok: true, done: "saved" } : { ok: false, notFound: true };
  },
});
export const loader = route.loader;
export const action = route.action;

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = ({ data: d }) => adminMeta(d ? `Location: ${d.name}` : "Location");

export default function LocationContent({ loaderData, actionData }: Route.ComponentProps) {
  const { csrfToken, groups, address, locationId, unitTypes } = loaderData;
  const act = (actionData ?? null) as ContentActionData | null;
  return (
    <>
      <LocationContentNav locationId={locationId} current="details" />
      <h1>Location: {loaderData.name}</h1>
      <DraftNote done={loaderData.done ? CONTENT_DONE[loaderData.done]! : null} />
      {loaderData.publication ? <PublicationNote locationId={locationId} csrfToken={csrfToken} publication={loaderData.publication} /> : null}
      <GroupForms
        groups={LOCATION_GROUPS}
        records={groups}
        entity="location"
        recordId={locationId}
        csrfToken={csrfToken}
        actionData={act}
      />
      <ImageFieldNote label="Main image and logo" photosHref={`/admin/content/locations/${locationId}/photos`} count={null} />
      {address ? (
        <RecordForm
          formId="address"
          target="address"
          entity="address"
          fields={Object.keys(address.values)}
          intent="save"
          values={address.values}
          base={address.base}
          pending={address.pending}
          recordId={address.id}
          csrfToken={csrfToken}
          actionData={act}
          legend="Address"
          submitLabel="Save address"
        />
      ) : null}
      {loaderData.promotionsAttention.length ? (
        <section aria-labelledby="promotions-attention" className="console-alert console-alert--error" id="promotions-attention-list">
          <h2 id="promotions-attention">Promotions that need attention</h2>
          <p className="desk-list__count">{`${loaderData.promotionsAttention.length} ${loaderData.promotionsAttention.length === 1 ? "result" : "results"}`}</p>
          <table className="console-table">
            <thead>
              <tr>
                <th scope="col">Unit type</th>
                <th scope="col">What SiteLink changed, and what to do</th>
              </tr>
            </thead>
            <tbody>
              {loaderData.promotionsAttention.map((a) => (
                <tr key={a.unitTypeId}>
                  <th scope="row">
                    <a href={`/admin/content/unit-types/${a.unitTypeId}`}>{a.label}</a>
                  </th>
                  <td>{a.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      <section aria-labelledby="unit-types">
        <h2 id="unit-types">Unit types</h2>
        {unitTypes.length === 0 ? <p>This location has no unit types yet.</p> : null}
        <ul>
          {unitTypes.map((t) => (
            <li key={t.id}>
              <a href={`/admin/content/unit-types/${t.id}`}>{t.label}</a>
              {t.hidden ? " · hidden online" : ""}
              {t.promotion ? ` · promotion: ${t.promotion}` : ""}
              {t.pending ? <span className="console-badge"> Changed, not published</span> : null}
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}

/** A location not yet on the website (decision 620): how it gets there, and SiteLink's go-live state (decision 623). */
function PublicationNote({ locationId, csrfToken, publication }: { locationId: number; csrfToken: string; publication: NonNullable<Route.ComponentProps["loaderData"]["publication"]> }) {
  return (
    <section aria-labelledby="publication" className="console-alert console-alert--info">
      <h2 id="publication">Not on the website yet</h2>
      {publication.drafted ? (
        <p>
          This location goes on the website at {`/locations/${publication.slug}`} when the draft is published on <a href="/admin/changes">Changes</a>. Until then only
          preview shows it.
        </p>
      ) : (
        <form method="post">
          <CsrfInput token={csrfToken} />
          <input type="hidden" name="recordId" value={locationId} />
          <p>The draft that would have put this location on the website was discarded.</p>
          <button type="submit" name="intent" value="draft-publication" className="console-button">
            Put it in the draft again
          </button>
        </form>
      )}
      {publication.goLive ? (
        <p data-testid="go-live">
          {publication.goLive.live ? "SiteLink: the go-live check passed with these settings. " : "SiteLink: the go-live check has not passed with these settings, so publishing is refused. "}
          <a href={`/admin/content/locations/${locationId}/settings#go-live-check`}>{publication.goLive.live ? "The go-live check" : "Run the go-live check"}</a>
        </p>
      ) : null}
    </section>
  );
}
