import { Link, useActionData } from "react-router";
import type { Route } from "./+types/edit.unit-type-photos";
import { DoneMessage, ImageUploadForm, PhotoList } from "~/components/content/images";
import type { ImageFormReply } from "~/domain/content/media";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { imageEdits, imageRoute } from "~/services/content/image-route.server";
import { UNIT_TYPE_PHOTOS, unitTypePhotosPage } from "~/services/content/media-edits.server";

/** A unit type's photos (issue 24, decision 322): add, describe, reorder, remove; all in the draft. */
export const meta: Route.MetaFunction = ({ data: d }) => [{ title: `Photos of ${d?.page.unitType.name ?? "a unit type"} | Back office` }, { name: "robots", content: "noindex" }];

export const headers: Route.HeadersFunction = consoleRouteHeaders;

const route = imageRoute({
  param: "unitTypeId",
  page: unitTypePhotosPage,
  edit: imageEdits({ photos: UNIT_TYPE_PHOTOS }),
  path: (id) => `/admin/content/unit-types/${id}/photos`,
});
export const loader = route.loader;
export const action = route.action;

export default function UnitTypePhotos({ loaderData }: Route.ComponentProps) {
  const { page, csrfToken, done } = loaderData;
  const reply = useActionData<typeof action>() as ImageFormReply | undefined;
  const t = page.unitType;
  return (
    <article>
      <p>
        <Link to={`/admin/content/unit-types/${t.id}`}>{t.name}</Link> · <Link to={`/admin/content/locations/${t.locationId}/photos`}>Photos of {t.locationName}</Link>
      </p>
      <h1>
        Photos of {t.name}, {t.locationName}
      </h1>
      <p>Changes go into the draft. The site shows them once they are published on the <Link to="/admin/changes">changes page</Link>.</p>
      <DoneMessage done={done} />
      <PhotoList csrfToken={csrfToken} photos={page.photos} reply={reply} label={`Photos of ${t.name}`} />
      <ImageUploadForm csrfToken={csrfToken} idPrefix="new-photo" intent="add-photo" target="new" submitLabel="Add a photo" fileLabel="Photo" reply={reply} />
    </article>
  );
}
