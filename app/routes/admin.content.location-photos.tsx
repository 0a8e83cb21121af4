import { data, Link, redirect, useActionData } from "react-router";
import type { Route } from "./+types/admin.content.location-photos";
import { DoneMessage, ImageFieldEditor, ImageUploadForm, PhotoList } from "~/components/console-images";
import { parseRecordId } from "~/domain/desk-tenants";
import type { ImageFormReply } from "~/domain/media";
import { consoleRouteHeaders } from "~/services/console.server";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { notFound } from "~/services/http.server";
import {
  addLocationPhoto,
  clearImageField,
  IMAGE_FIELDS,
  imageFormRefusal,
  imageFormReply,
  limitImageEdit,
  locationPhotosPage,
  moveLocationPhoto,
  readImageForm,
  removeLocationPhoto,
  updateLocationPhoto,
  uploadImageField,
} from "~/services/media-edits.server";
import { requirePermission, signedInStaff } from "~/services/staff-context.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * A location's images (issue 24, decision 322): its photos (add with a description, describe,
 * reorder, remove), its main image and its logo. Every change goes into the draft; the public page
 * changes when the draft is published (/admin/changes).
 */
export const meta: Route.MetaFunction = ({ data: d }) => [{ title: `Photos of ${d?.page.location.name ?? "a location"} | Back office` }, { name: "robots", content: "noindex" }];

export const headers: Route.HeadersFunction = consoleRouteHeaders;

const NO_STORE = { "Cache-Control": "no-store" };
const FIELDS = ["location.mainImage", "location.mainLogo"];

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const locationId = parseRecordId(params.locationId);
  const page = locationId ? await locationPhotosPage(context.db, staff, locationId) : null;
  if (!page) throw notFound(NO_STORE);
  const csrf = await getCsrfToken(request);
  const headers = new Headers(NO_STORE);
  if (csrf.setCookie) headers.append("Set-Cookie", csrf.setCookie);
  return data({ page, csrfToken: csrf.token, done: new URL(request.url).searchParams.get("done") }, { headers });
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const locationId = parseRecordId(params.locationId);
  if (!locationId) throw notFound(NO_STORE);
  const form = await request.formData();
  await validateCsrf(request, form);
  const f = readImageForm(form);
  const now = clockNow();
  const limited = await limitImageEdit(context.db, staff, now);
  const db = context.db;
  const field = FIELDS.includes(f.target) ? IMAGE_FIELDS[f.target]! : null;
  const result = limited
    ? imageFormRefusal(429, limited)
    : f.intent === "add-photo"
      ? await addLocationPhoto(db, staff, locationId, f.upload, now)
      : f.intent === "update-photo"
        ? await updateLocationPhoto(db, staff, locationId, { ref: f.target, alt: f.upload.alt, decorative: f.upload.decorative, title: f.title, base: f.base })
        : f.intent === "remove-photo"
          ? await removeLocationPhoto(db, staff, locationId, f.target)
          : f.intent === "move"
            ? await moveLocationPhoto(db, staff, locationId, f.target, f.direction)
            : f.intent === "upload" && field
              ? await uploadImageField(db, staff, { ...field, recordId: locationId }, f.upload, now)
              : f.intent === "clear" && field
                ? await clearImageField(db, staff, { ...field, recordId: locationId })
                : imageFormRefusal(400, "Choose one of the forms on this page.");
  if (!result.ok && "missing" in result) throw notFound(NO_STORE);
  if (!result.ok) return data<ImageFormReply>(imageFormReply(f, result), { status: result.status, headers: NO_STORE });
  throw redirect(`/admin/content/locations/${locationId}/photos?done=${f.intent}`, { status: 303, headers: NO_STORE });
}

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
