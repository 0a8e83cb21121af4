/**
 * The loader and action the console's image pages share (issue 24, decisions 322 and 360): the
 * location's photos, a unit type's photos and the site's images. Each page names its record's route
 * parameter, its page data and which forms it takes; the checks (member, `content.edit`, CSRF, the
 * edit rate limit), the refusals (the form again with its messages) and the redirect after a change
 * (`?done=<intent>`) live here once.
 */
import { data, redirect, type RouterContextProvider } from "react-router";
import type { Database } from "~/db/client.server";
import { parseRecordId } from "~/domain/desk/tenants";
import type { ImageFormReply } from "~/domain/content/media";
import { now as clockNow } from "~/platform/clock.server";
import { getCsrfToken, validateCsrf } from "../web/csrf.server";
import { notFound } from "../web/responses.server";
import {
  clearImageField,
  IMAGE_FIELDS,
  imageFormRefusal,
  imageFormReply,
  limitImageEdit,
  readImageForm,
  uploadImageField,
  type ImageEditResult,
  type ImageField,
  type ImageForm,
  type PhotoSet,
  type RecordImages,
} from "./media-edits.server";
import { requirePermission, signedInStaff, type SignedInStaff } from "../staff/context.server";

const NO_STORE = { "Cache-Control": "no-store" };
const UNKNOWN_FORM = "Choose one of the forms on this page.";

interface RouteArgs {
  request: Request;
  params: Readonly<Record<string, string | undefined>>;
  context: Readonly<RouterContextProvider>;
}

/** One image edit: the member, the page's record id (0 on a page that names none), the form, the time. */
type ImageEdit = (db: Database, staff: SignedInStaff, id: number, form: ImageForm, now: Date) => Promise<ImageEditResult>;

interface ImageRouteSpec<P> {
  /** The route parameter naming the page's record; absent: the page names none (id 0). */
  param?: string;
  /** The page's data; null when the record is not there or outside the member's locations (404). */
  page: (db: Database, staff: SignedInStaff, id: number) => Promise<P | null>;
  edit: ImageEdit;
  /** The page's own address (the redirect after a change). */
  path: (id: number) => string;
}

/** The loader and action of an image page (see the module comment). */
export function imageRoute<P>(spec: ImageRouteSpec<P>) {
  function authorise({ params, context }: RouteArgs): { staff: SignedInStaff; id: number } {
    const staff = signedInStaff(context);
    requirePermission(staff, "content.edit");
    const id = spec.param === undefined ? 0 : parseRecordId(params[spec.param]);
    if (id === null) throw notFound(NO_STORE);
    return { staff, id };
  }

  async function loader(args: RouteArgs) {
    const { staff, id } = authorise(args);
    const page = await spec.page(args.context.db, staff, id);
    if (!page) throw notFound(NO_STORE);
    const csrf = await getCsrfToken(args.request);
    const headers = new Headers(NO_STORE);
    if (csrf.setCookie) headers.append("Set-Cookie", csrf.setCookie);
    return data({ page, csrfToken: csrf.token, done: new URL(args.request.url).searchParams.get("done") }, { headers });
  }

  async function action(args: RouteArgs) {
    const { staff, id } = authorise(args);
    const { db } = args.context;
    const form = await args.request.formData();
    await validateCsrf(args.request, form);
    const f = readImageForm(form);
    const now = clockNow();
    const limited = await limitImageEdit(db, staff, now);
    const result = limited ? imageFormRefusal(429, limited) : await spec.edit(db, staff, id, f, now);
    if (!result.ok && "missing" in result) throw notFound(NO_STORE);
    if (!result.ok) return data<ImageFormReply>(imageFormReply(f, result), { status: result.status, headers: NO_STORE });
    throw redirect(`${spec.path(id)}?done=${f.intent}`, { status: 303, headers: NO_STORE });
  }

  return { loader, action };
}

/**
 * The forms of an image page: its photos' (when it has a list), its records' images (an amenity's,
 * target `amenity:<ref>`) and its single-image fields' (their
 * `target`s, e.g. `location.mainImage`; `recordOf` names the record each belongs to, null when the
 * site has none).
 */
export function imageEdits(options: {
  photos?: PhotoSet;
  records?: RecordImages;
  fields?: readonly string[];
  recordOf?: (db: Database, staff: SignedInStaff, field: ImageField, id: number) => Promise<number | null>;
}): ImageEdit {
  const { photos, records, fields = [], recordOf = async (_db, _staff, _field, id) => id } = options;
  return async (db, staff, id, f, now) => {
    if (photos && f.intent === "add-photo") return photos.add(db, staff, id, f.upload, now);
    if (photos && f.intent === "update-photo") return photos.update(db, staff, id, { ref: f.target, alt: f.upload.alt, decorative: f.upload.decorative, title: f.title, base: f.base });
    if (photos && f.intent === "remove-photo") return photos.remove(db, staff, id, f.target);
    if (photos && f.intent === "move") return photos.move(db, staff, id, f.target, f.direction);
    if (records && f.target.startsWith(records.prefix)) {
      const ref = f.target.slice(records.prefix.length);
      if (f.intent === "upload") return records.upload(db, staff, id, ref, f.upload, now);
      if (f.intent === "clear") return records.clear(db, staff, id, ref);
      return imageFormRefusal(400, UNKNOWN_FORM);
    }
    const field = fields.includes(f.target) ? IMAGE_FIELDS[f.target]! : null;
    if (!field || (f.intent !== "upload" && f.intent !== "clear")) return imageFormRefusal(400, UNKNOWN_FORM);
    const recordId = await recordOf(db, staff, field, id);
    if (!recordId) return imageFormRefusal(400, "The site has no website record yet.");
    return f.intent === "upload" ? uploadImageField(db, staff, { ...field, recordId }, f.upload, now) : clearImageField(db, staff, { ...field, recordId });
  };
}
