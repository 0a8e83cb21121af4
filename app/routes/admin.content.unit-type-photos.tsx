import { data, Link, redirect, useActionData } from "react-router";
import type { Route } from "./+types/admin.content.unit-type-photos";
import { DoneMessage, ImageUploadForm, PhotoList } from "~/components/console-images";
import { parseRecordId } from "~/domain/desk-tenants";
import type { ImageFormReply } from "~/domain/media";
import { consoleRouteHeaders } from "~/services/console.server";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { notFound } from "~/services/http.server";
import {
  addUnitTypePhoto,
  imageFormRefusal,
  imageFormReply,
  limitImageEdit,
  moveUnitTypePhoto,
  readImageForm,
  removeUnitTypePhoto,
  unitTypePhotosPage,
  updateUnitTypePhoto,
} from "~/services/media-edits.server";
import { requirePermission, signedInStaff } from "~/services/staff-context.server";
import { now as clockNow } from "~/platform/clock.server";

/** A unit type's photos (issue 24, decision 322): add, describe, reorder, remove; all in the draft. */
export const meta: Route.MetaFunction = ({ data: d }) => [{ title: `Photos of ${d?.page.unitType.name ?? "a unit type"} | Back office` }, { name: "robots", content: "noindex" }];

export const headers: Route.HeadersFunction = consoleRouteHeaders;

const NO_STORE = { "Cache-Control": "no-store" };

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const unitTypeId = parseRecordId(params.unitTypeId);
  const page = unitTypeId ? await unitTypePhotosPage(context.db, staff, unitTypeId) : null;
  if (!page) throw notFound(NO_STORE);
  const csrf = await getCsrfToken(request);
  const headers = new Headers(NO_STORE);
  if (csrf.setCookie) headers.append("Set-Cookie", csrf.setCookie);
  return data({ page, csrfToken: csrf.token, done: new URL(request.url).searchParams.get("done") }, { headers });
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const unitTypeId = parseRecordId(params.unitTypeId);
  if (!unitTypeId) throw notFound(NO_STORE);
  const form = await request.formData();
  await validateCsrf(request, form);
  const f = readImageForm(form);
  const now = clockNow();
  const limited = await limitImageEdit(context.db, staff, now);
  const db = context.db;
  const result = limited
    ? imageFormRefusal(429, limited)
    : f.intent === "add-photo"
      ? await addUnitTypePhoto(db, staff, unitTypeId, f.upload, now)
      : f.intent === "update-photo"
        ? await updateUnitTypePhoto(db, staff, unitTypeId, { ref: f.target, alt: f.upload.alt, decorative: f.upload.decorative, title: f.title })
        : f.intent === "remove-photo"
          ? await removeUnitTypePhoto(db, staff, unitTypeId, f.target)
          : f.intent === "move"
            ? await moveUnitTypePhoto(db, staff, unitTypeId, f.target, f.direction)
            : imageFormRefusal(400, "Choose one of the forms on this page.");
  if (!result.ok && "missing" in result) throw notFound(NO_STORE);
  if (!result.ok) return data<ImageFormReply>(imageFormReply(f, result), { status: result.status, headers: NO_STORE });
  throw redirect(`/admin/content/unit-types/${unitTypeId}/photos?done=${f.intent}`, { status: 303, headers: NO_STORE });
}

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
