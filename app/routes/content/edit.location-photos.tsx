import { Link, useActionData } from "react-router";
import type { Route } from "./+types/edit.location-photos";
import { DoneMessage, ImageFieldEditor, ImageUploadForm, PhotoList } from "~/components/content/images";
import type { ImageFormReply } from "~/domain/content/media";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { imageEdits, imageRoute } from "~/services/content/image-route.server";
import { AMENITY_IMAGES, LOCATION_PHOTOS, locationPhotosPage } from "~/services/content/media-edits.server";

/**
 * A location's images (issue 24, decision 322): its photos (add with a description, describe,
 * reorder, remove), its main image and its logo. Every change goes into the draft; the public page
 * changes when the draft is published (/admin/changes).
 */
export const meta: Route.MetaFunction = ({ data: d }) => [{ title: `Photos of ${d?.page.location.name ?? "a location"} | Back office` }, { name: "robots", content: "noindex" }];

export const headers: Route.HeadersFunction = consoleRouteHeaders;

const route = imageRoute({
  param: "locationId",
  page: locationPhotosPage,
  edit: imageEdits({ photos: LOCATION_PHOTOS, records: AMENITY_IMAGES, fields: ["location.mainImage", "location.mainLogo"] }),
  path: (id) => `/admin/content/locations/${id}/photos`,
});
export const loader = route.loader;
export const action = route.action;

export default function LocationPhotos({ loaderData }: Route.ComponentProps) {
  const { page, csrfToken, done } = loaderData;
  const reply = useActionData<typeof action>() as ImageFormReply | undefined;
  const l = page.location;
  return (
    <article>
      <p>
        <Link to={`/admin/content/locations/${l.id}`}>{l.name}</Link> · <Link to="/admin/content/images">All images</Link>
      </p>
      <h1>Photos of {l.name}</h1>
      <p>Changes go into the draft. The location’s page shows them once they are published on the <Link to="/admin/changes">changes page</Link>.</p>
      <DoneMessage done={done} />

      <section aria-labelledby="photos-title">
        <h2 id="photos-title">Photos</h2>
        <PhotoList csrfToken={csrfToken} photos={page.photos} reply={reply} label={`Photos of ${l.name}`} />
        <ImageUploadForm csrfToken={csrfToken} idPrefix="new-photo" intent="add-photo" target="new" submitLabel="Add a photo" fileLabel="Photo" reply={reply} />
      </section>

      <ImageFieldEditor
        csrfToken={csrfToken}
        target="location.mainImage"
        label="Main image"
        image={l.mainImage}
        pending={l.pending.includes("mainImage")}
        reply={reply}
      />
      <ImageFieldEditor
        csrfToken={csrfToken}
        target="location.mainLogo"
        label="Logo"
        image={l.mainLogo}
        pending={l.pending.includes("mainLogo")}
        reply={reply}
        altHint={`The words of the logo, for example “${l.name}”.`}
      />

      {page.amenities.length ? (
        <section aria-labelledby="amenities-title">
          <h2 id="amenities-title">Images of the amenities</h2>
          <p className="console-hint">
            Shown beside each amenity on the location&apos;s page. <Link to={`/admin/content/locations/${l.id}/amenities`}>Edit the amenities</Link>
          </p>
          {page.amenities.map((a) => (
            <ImageFieldEditor
              key={a.ref}
              csrfToken={csrfToken}
              target={`amenity:${a.ref}`}
              label={`Image of ${a.label}`}
              image={a.image}
              pending={a.pending}
              reply={reply}
              altHint="What the picture shows, or tick decorative when the amenity's name beside it says it all."
            />
          ))}
        </section>
      ) : null}

      {page.unitTypes.length ? (
        <section aria-labelledby="unit-types-title">
          <h2 id="unit-types-title">Photos of the unit types</h2>
          <ul>
            {page.unitTypes.map((t) => (
              <li key={t.id}>
                <Link to={`/admin/content/unit-types/${t.id}/photos`}>{t.name}</Link> ({t.photos === 1 ? "1 photo" : `${t.photos} photos`})
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </article>
  );
}
