/**
 * The console's image edits (issue 24, docs/decisions/322-photo-editing-through-drafts.md): a
 * location's photos, main image and logo, a unit type's photos, the website's logos and the
 * company's main image. Each upload is stored at once (app/services/content/media.server.ts) and the Image
 * record goes into the draft changeset through `saveDraftEdit` (scope, audit, conflicts): the live
 * site shows it only after a publish.
 *
 * A record in a form is named `id:<live id>` or `new:<createKey>` (a photo added in the draft).
 * An upload whose file was good but whose text alternative was missing is kept (`pending`): the form
 * sends it back as `media` (its /media/ address), so nobody has to choose the file again.
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations, mediaFiles, mediaVariants, unitTypes, websites } from "~/db/schema";
import { imageSchema, type Image } from "~/db/schema/shared";
import { UPLOAD_MESSAGES, parseMediaFileName, readAltText, type ImageFormReply } from "~/domain/content/media";
import { listEffectiveRecords, readEffectiveRecord, saveDraftEdit, type DraftEdit, type DraftResult, type EffectiveRecord } from "./changesets.server";
import { imageRecord, storeUpload } from "./media.server";
import { hitRateLimit } from "../web/rate-limit.server";
import type { SignedInStaff } from "../staff/context.server";

interface ImageFormErrors {
  file?: string;
  alt?: string;
  title?: string;
  form?: string;
}

/** A form refused with messages for its fields (the page is shown again). */
export interface ImageEditRefusal {
  ok: false;
  status: 400 | 409 | 429;
  errors: ImageFormErrors;
  pending: Image | null;
}

/** `missing`: the record is not there or outside the member's locations (the page answers "not found"). */
export type ImageEditResult = { ok: true } | ImageEditRefusal | { ok: false; missing: true };

/** What an upload form sends. */
export interface UploadInput {
  file: FormDataEntryValue | null;
  /** The /media/ address of a file uploaded by an earlier try of this form (see the module comment). */
  media: string | null;
  alt: string;
  decorative: boolean;
}

const NOT_FOUND: ImageEditResult = { ok: false, missing: true };
const CONFLICT = "Someone else changed these images a moment ago. The page now shows their version: check it and try again.";

function refused(result: Exclude<DraftResult, { ok: true }>, pending: Image | null = null): ImageEditResult {
  if (result.reason === "not-found") return NOT_FOUND;
  if (result.reason === "conflict") return { ok: false, status: 409, errors: { form: CONFLICT }, pending };
  return { ok: false, status: 400, errors: { form: Object.values(result.errors).join(" ") || "Check the values." }, pending };
}

/** The Image of a file this account uploaded before, from its /media/ address, or null. */
async function uploadedImage(db: Database, staff: SignedInStaff, src: string): Promise<Image | null> {
  const parsed = src.startsWith("/media/") ? parseMediaFileName(src.slice("/media/".length)) : null;
  if (!parsed) return null;
  const [row] = await db
    .select({ originalName: mediaFiles.originalName, width: mediaVariants.width, height: mediaVariants.height })
    .from(mediaFiles)
    .innerJoin(mediaVariants, eq(mediaVariants.mediaId, mediaFiles.id))
    .where(and(eq(mediaFiles.accountId, staff.accountId), eq(mediaFiles.sha256, parsed.sha256), eq(mediaVariants.width, parsed.width)));
  return row ? imageRecord(parsed.sha256, row.width, row.height, row.originalName) : null;
}

/**
 * The image an upload form gives, with its text alternative, or the messages for its fields. A good
 * file is stored even when the text is missing, and handed back as `pending`.
 */
async function readUpload(
  db: Database,
  staff: SignedInStaff,
  input: UploadInput,
  now: Date,
  locationId: number | null,
): Promise<{ ok: true; image: Image } | ImageEditRefusal> {
  const alt = readAltText(input);
  const hasFile = input.file instanceof File && input.file.size > 0;
  let image: Image | null = null;
  const errors: ImageFormErrors = {};
  let status: 400 | 429 = 400;
  if (hasFile) {
    const stored = await storeUpload(db, staff, input.file, now, { locationId });
    if (stored.ok) image = stored.image;
    else {
      errors.file = stored.message;
      if (stored.limited) status = 429;
    }
  } else if (input.media) {
    image = await uploadedImage(db, staff, input.media);
    if (!image) errors.file = UPLOAD_MESSAGES.missing;
  } else errors.file = UPLOAD_MESSAGES.missing;
  if (!alt.ok) errors.alt = alt.message;
  if (errors.file || errors.alt) return { ok: false, status, errors, pending: errors.file ? null : image };
  return { ok: true, image: { ...image!, alt: alt.ok ? alt.alt : "" } };
}

/** One photo field of a form with several ("Add a location", decision 680): its messages, and the file received. */
export interface PhotoSlotReply {
  errors: { file?: string; alt?: string };
  pending: ImageFormReply["pending"];
}

/**
 * The photos given on "Add a location" (decision 680), each read as the photos page reads its upload
 * (`readUpload`: the same checks, limits, text alternative and messages; a good file is stored at
 * once and handed back, so it need not be chosen again). A field left wholly empty is no photo. The
 * same file twice is refused the second time, as the photos page refuses a photo the location has.
 * `images`: the photos in the form's order, complete only when `ok`.
 */
export async function readPhotoUploads(
  db: Database,
  staff: SignedInStaff,
  inputs: readonly UploadInput[],
  now: Date,
): Promise<{ ok: boolean; images: Image[]; replies: PhotoSlotReply[] }> {
  const images: Image[] = [];
  const replies: PhotoSlotReply[] = [];
  let ok = true;
  for (const input of inputs) {
    const empty = !(input.file instanceof File && input.file.size > 0) && !input.media && !input.alt.trim() && !input.decorative;
    if (empty) {
      replies.push({ errors: {}, pending: null });
      continue;
    }
    const read = await readUpload(db, staff, input, now, null);
    const image = read.ok ? read.image : read.pending;
    const pending = image ? { src: image.src, width: image.width, height: image.height, file_name_original: image.file_name_original } : null;
    if (read.ok && images.some((i) => i.src === read.image.src)) {
      ok = false;
      replies.push({ errors: { file: "This photo is already one of the location's photos." }, pending: null });
      continue;
    }
    if (!read.ok) {
      ok = false;
      replies.push({ errors: { file: read.errors.file ?? read.errors.form, alt: read.errors.alt }, pending });
      continue;
    }
    images.push(read.image);
    replies.push({ errors: {}, pending });
  }
  return { ok, images, replies };
}

/** Image edits (other than uploads, limited on their own) per member per ten minutes. */
const EDITS_PER_WINDOW = 120;

/** The rate limit's message, or null when this member may edit now. */
export async function limitImageEdit(db: Database, staff: SignedInStaff, now: Date): Promise<string | null> {
  const r = await hitRateLimit(db, { key: `image-edit:staff:${staff.staffId}`, limit: EDITS_PER_WINDOW, windowMs: 10 * 60 * 1000, now });
  return r.allowed ? null : `Too many changes in a short time. Please wait ${r.retryAfterMinutes} minutes and try again.`;
}

// ---- image fields (one image: logos and main images) -------------------------------------------

export type ImageField = { entity: "website"; field: "logo" | "footerLogo" } | { entity: "account"; field: "mainImage" } | { entity: "location"; field: "mainImage" | "mainLogo" };

/** Uploads an image into a field (the draft's value for it). */
export async function uploadImageField(
  db: Database,
  staff: SignedInStaff,
  target: ImageField & { recordId: number },
  input: UploadInput,
  now: Date,
): Promise<ImageEditResult> {
  const record = await readEffectiveRecord(db, staff, target.entity, target.recordId);
  if (!record) return NOT_FOUND;
  const upload = await readUpload(db, staff, input, now, record.locationId);
  if (!upload.ok) return upload;
  const saved = await saveDraftEdit(db, staff, { op: "update", entity: target.entity, recordId: target.recordId, values: { [target.field]: upload.image }, base: {} });
  return saved.ok ? { ok: true } : refused(saved, upload.image);
}

/** Takes the image out of a field (in the draft). */
export async function clearImageField(db: Database, staff: SignedInStaff, target: ImageField & { recordId: number }): Promise<ImageEditResult> {
  const saved = await saveDraftEdit(db, staff, { op: "update", entity: target.entity, recordId: target.recordId, values: { [target.field]: null }, base: {} });
  return saved.ok ? { ok: true } : refused(saved);
}

/** A list of photos a page edits (a location's, a unit type's): add, describe, remove, move. */
export interface PhotoSet {
  add(db: Database, staff: SignedInStaff, id: number, upload: UploadInput, now: Date): Promise<ImageEditResult>;
  update(db: Database, staff: SignedInStaff, id: number, input: { ref: string; alt: string; decorative: boolean; title: string; base: { alt: string; title: string } }): Promise<ImageEditResult>;
  remove(db: Database, staff: SignedInStaff, id: number, ref: string): Promise<ImageEditResult>;
  move(db: Database, staff: SignedInStaff, id: number, ref: string, direction: "up" | "down"): Promise<ImageEditResult>;
}

// ---- a location's photos (locationImage records) ------------------------------------------------

interface PhotoView {
  /** `id:<id>` or `new:<createKey>`. */
  ref: string;
  image: Image;
  /** Not live yet, or changed in the draft. */
  pending: boolean;
}

function toImage(values: Record<string, unknown>): Image {
  return imageSchema.parse({
    width: values.width ?? null,
    height: values.height ?? null,
    alt: values.alt ?? "",
    src: values.src ?? "",
    src_webp: values.srcWebp ?? null,
    title: values.title ?? null,
  });
}

const refOf = (r: EffectiveRecord) => (r.id != null ? `id:${r.id}` : `new:${r.createKey}`);

/** Reads an image out of a stored field value (a jsonb Image), or null. */
function storedImage(value: unknown): Image | null {
  const parsed = imageSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

interface LocationPhotosPage {
  location: { id: number; name: string; mainImage: Image | null; mainLogo: Image | null; pending: string[] };
  photos: PhotoView[];
  unitTypes: Array<{ id: number; name: string; photos: number }>;
  /** The location's amenities and their images (`ref` as a photo's: `id:<id>` or `new:<createKey>`). */
  amenities: Array<{ ref: string; label: string; image: Image | null; pending: boolean }>;
}

/** The location's images as they will be after publishing, or null (not found or outside the scope). */
export async function locationPhotosPage(db: Database, staff: SignedInStaff, locationId: number): Promise<LocationPhotosPage | null> {
  const location = await readEffectiveRecord(db, staff, "location", locationId);
  if (!location) return null;
  const photos = await listEffectiveRecords(db, staff, "locationImage", { column: "locationId", value: locationId });
  const types = await db
    .select({ id: unitTypes.id, name: unitTypes.name, width: unitTypes.width, length: unitTypes.length, images: unitTypes.images })
    .from(unitTypes)
    .where(eq(unitTypes.locationId, locationId))
    .orderBy(asc(unitTypes.width), asc(unitTypes.length), asc(unitTypes.id));
  return {
    location: {
      id: locationId,
      name: String(location.values.name ?? ""),
      mainImage: storedImage(location.values.mainImage),
      mainLogo: storedImage(location.values.mainLogo),
      pending: location.pending,
    },
    photos: photos.map((p) => ({ ref: refOf(p), image: toImage(p.values), pending: p.pending.length > 0 })),
    unitTypes: types.map((t) => ({ id: t.id, name: `${t.width}×${t.length} ${t.name}`, photos: t.images.length })),
    amenities: (await listEffectiveRecords(db, staff, "amenity", { column: "locationId", value: locationId })).map((a) => ({
      ref: refOf(a),
      label: String(a.values.label ?? ""),
      image: storedImage(a.values.image),
      pending: a.pending.includes("image"),
    })),
  };
}

async function findPhoto(db: Database, staff: SignedInStaff, locationId: number, ref: string) {
  const list = await listEffectiveRecords(db, staff, "locationImage", { column: "locationId", value: locationId });
  return { list, found: list.find((p) => refOf(p) === ref) ?? null };
}

/** Adds an uploaded photo to the location's photos (a drafted locationImage), after the others. */
async function addLocationPhoto(db: Database, staff: SignedInStaff, locationId: number, input: UploadInput, now: Date): Promise<ImageEditResult> {
  const location = await readEffectiveRecord(db, staff, "location", locationId);
  if (!location) return NOT_FOUND;
  const upload = await readUpload(db, staff, input, now, locationId);
  if (!upload.ok) return upload;
  const { list } = await findPhoto(db, staff, locationId, "");
  if (list.some((p) => p.values.src === upload.image.src)) return { ok: false, status: 400, errors: { file: "This photo is already one of the location's photos." }, pending: null };
  const index = list.reduce((max, p) => Math.max(max, Number(p.values.index ?? 0)), -1) + 1;
  const i = upload.image;
  const saved = await saveDraftEdit(db, staff, {
    op: "create",
    entity: "locationImage",
    values: { locationId, index, alt: i.alt, title: null, src: i.src, srcWebp: i.src_webp, width: i.width, height: i.height },
  });
  return saved.ok ? { ok: true } : refused(saved, upload.image);
}

/** Changes a photo's text alternative and caption. `base` is what the form showed (conflicts, decision 300). */
async function updateLocationPhoto(
  db: Database,
  staff: SignedInStaff,
  locationId: number,
  input: { ref: string; alt: string; decorative: boolean; title: string; base: { alt: string; title: string } },
): Promise<ImageEditResult> {
  const { found } = await findPhoto(db, staff, locationId, input.ref);
  if (!found) return NOT_FOUND;
  const alt = readAltText(input);
  const title = input.title.trim();
  const errors: ImageFormErrors = {};
  if (!alt.ok) errors.alt = alt.message;
  if (title.length > 200) errors.title = "Use at most 200 characters.";
  if (!alt.ok || errors.title) return { ok: false, status: 400, errors, pending: null };
  const values = { alt: alt.alt, title: title || null };
  const saved = await saveDraftEdit(
    db,
    staff,
    found.id != null
      ? { op: "update", entity: "locationImage", recordId: found.id, values, base: { alt: input.base.alt, title: input.base.title || null } }
      : { op: "updateCreate", entity: "locationImage", createKey: found.createKey!, values },
  );
  return saved.ok ? { ok: true } : refused(saved);
}

/** Removes a photo (a drafted delete; a photo added in the draft is simply dropped). */
async function removeLocationPhoto(db: Database, staff: SignedInStaff, locationId: number, ref: string): Promise<ImageEditResult> {
  const { found } = await findPhoto(db, staff, locationId, ref);
  if (!found) return NOT_FOUND;
  const saved = await saveDraftEdit(
    db,
    staff,
    found.id != null ? { op: "delete", entity: "locationImage", recordId: found.id } : { op: "dropCreate", entity: "locationImage", createKey: found.createKey! },
  );
  return saved.ok ? { ok: true } : refused(saved);
}

/** Moves a photo one place up or down: the photos are numbered again 0, 1, 2 … in the new order. */
async function moveLocationPhoto(db: Database, staff: SignedInStaff, locationId: number, ref: string, direction: "up" | "down"): Promise<ImageEditResult> {
  const { list, found } = await findPhoto(db, staff, locationId, ref);
  if (!found) return NOT_FOUND;
  const order = [...list];
  const at = order.indexOf(found);
  const to = direction === "up" ? at - 1 : at + 1;
  if (to < 0 || to >= order.length) return { ok: true };
  [order[at], order[to]] = [order[to]!, order[at]!];
  for (const [index, photo] of order.entries()) {
    if (Number(photo.values.index) === index) continue;
    const edit: DraftEdit =
      photo.id != null
        ? { op: "update", entity: "locationImage", recordId: photo.id, values: { index }, base: { index: photo.values.index } }
        : { op: "updateCreate", entity: "locationImage", createKey: photo.createKey!, values: { index } };
    const saved = await saveDraftEdit(db, staff, edit);
    if (!saved.ok) return refused(saved);
  }
  return { ok: true };
}

// ---- a unit type's photos (unitType.images, a list of Image records) -------------------------------

interface UnitTypePhotosPage {
  unitType: { id: number; name: string; locationId: number; locationName: string };
  photos: PhotoView[];
}

async function unitTypeImages(db: Database, staff: SignedInStaff, unitTypeId: number): Promise<{ images: Image[]; locationId: number } | null> {
  const record = await readEffectiveRecord(db, staff, "unitType", unitTypeId);
  if (!record || record.locationId == null) return null;
  const images = Array.isArray(record.values.images) ? (record.values.images as unknown[]).map(storedImage).filter((i): i is Image => i !== null) : [];
  return { images, locationId: record.locationId };
}

export async function unitTypePhotosPage(db: Database, staff: SignedInStaff, unitTypeId: number): Promise<UnitTypePhotosPage | null> {
  const found = await unitTypeImages(db, staff, unitTypeId);
  if (!found) return null;
  const [row] = await db
    .select({ name: unitTypes.name, width: unitTypes.width, length: unitTypes.length, locationName: locations.name })
    .from(unitTypes)
    .innerJoin(locations, eq(locations.id, unitTypes.locationId))
    .where(eq(unitTypes.id, unitTypeId));
  const record = await readEffectiveRecord(db, staff, "unitType", unitTypeId);
  return {
    unitType: { id: unitTypeId, name: `${row!.width}×${row!.length} ${row!.name}`, locationId: found.locationId, locationName: row!.locationName },
    photos: found.images.map((image) => ({ ref: image.src, image, pending: record!.pending.includes("images") })),
  };
}

/** Saves the unit type's new list of photos; `current` is the list the change was made to. */
async function saveUnitTypeImages(db: Database, staff: SignedInStaff, unitTypeId: number, current: Image[], next: Image[]): Promise<ImageEditResult> {
  const saved = await saveDraftEdit(db, staff, { op: "update", entity: "unitType", recordId: unitTypeId, values: { images: next }, base: { images: current } });
  return saved.ok ? { ok: true } : refused(saved);
}

async function addUnitTypePhoto(db: Database, staff: SignedInStaff, unitTypeId: number, input: UploadInput, now: Date): Promise<ImageEditResult> {
  const found = await unitTypeImages(db, staff, unitTypeId);
  if (!found) return NOT_FOUND;
  const upload = await readUpload(db, staff, input, now, found.locationId);
  if (!upload.ok) return upload;
  if (found.images.some((i) => i.src === upload.image.src)) return { ok: false, status: 400, errors: { file: "This photo is already one of the unit type's photos." }, pending: null };
  return saveUnitTypeImages(db, staff, unitTypeId, found.images, [...found.images, upload.image]);
}

async function updateUnitTypePhoto(
  db: Database,
  staff: SignedInStaff,
  unitTypeId: number,
  input: { ref: string; alt: string; decorative: boolean; title: string },
): Promise<ImageEditResult> {
  const found = await unitTypeImages(db, staff, unitTypeId);
  if (!found) return NOT_FOUND;
  const at = found.images.findIndex((i) => i.src === input.ref);
  if (at === -1) return NOT_FOUND;
  const alt = readAltText(input);
  const title = input.title.trim();
  const errors: ImageFormErrors = {};
  if (!alt.ok) errors.alt = alt.message;
  if (title.length > 200) errors.title = "Use at most 200 characters.";
  if (!alt.ok || errors.title) return { ok: false, status: 400, errors, pending: null };
  const next = found.images.map((img, i) => (i === at ? { ...img, alt: alt.alt, title: title || null } : img));
  return saveUnitTypeImages(db, staff, unitTypeId, found.images, next);
}

async function removeUnitTypePhoto(db: Database, staff: SignedInStaff, unitTypeId: number, ref: string): Promise<ImageEditResult> {
  const found = await unitTypeImages(db, staff, unitTypeId);
  if (!found) return NOT_FOUND;
  if (!found.images.some((i) => i.src === ref)) return NOT_FOUND;
  return saveUnitTypeImages(db, staff, unitTypeId, found.images, found.images.filter((i) => i.src !== ref));
}

async function moveUnitTypePhoto(db: Database, staff: SignedInStaff, unitTypeId: number, ref: string, direction: "up" | "down"): Promise<ImageEditResult> {
  const found = await unitTypeImages(db, staff, unitTypeId);
  if (!found) return NOT_FOUND;
  const at = found.images.findIndex((i) => i.src === ref);
  if (at === -1) return NOT_FOUND;
  const to = direction === "up" ? at - 1 : at + 1;
  if (to < 0 || to >= found.images.length) return { ok: true };
  const next = [...found.images];
  [next[at], next[to]] = [next[to]!, next[at]!];
  return saveUnitTypeImages(db, staff, unitTypeId, found.images, next);
}

// ---- an amenity's image (amenity.image; decision 363) --------------------------------------------

/** Images of records listed on a page, named `<prefix><ref>` in its forms (an amenity's). */
export interface RecordImages {
  prefix: string;
  upload(db: Database, staff: SignedInStaff, id: number, ref: string, upload: UploadInput, now: Date): Promise<ImageEditResult>;
  clear(db: Database, staff: SignedInStaff, id: number, ref: string): Promise<ImageEditResult>;
}

async function setAmenityImage(db: Database, staff: SignedInStaff, locationId: number, ref: string, image: () => Promise<{ ok: true; image: Image | null } | ImageEditRefusal>): Promise<ImageEditResult> {
  const list = await listEffectiveRecords(db, staff, "amenity", { column: "locationId", value: locationId });
  const found = list.find((a) => refOf(a) === ref);
  if (!found) return NOT_FOUND;
  const chosen = await image();
  if (!chosen.ok) return chosen;
  const values = { image: chosen.image };
  const saved = await saveDraftEdit(
    db,
    staff,
    found.id != null ? { op: "update", entity: "amenity", recordId: found.id, values, base: {} } : { op: "updateCreate", entity: "amenity", createKey: found.createKey!, values },
  );
  return saved.ok ? { ok: true } : refused(saved, chosen.image);
}

/** The images of the location's amenities (forms' target `amenity:<ref>`). */
export const AMENITY_IMAGES: RecordImages = {
  prefix: "amenity:",
  upload: (db, staff, locationId, ref, input, now) => setAmenityImage(db, staff, locationId, ref, () => readUpload(db, staff, input, now, locationId)),
  clear: (db, staff, locationId, ref) => setAmenityImage(db, staff, locationId, ref, async () => ({ ok: true, image: null })),
};

/** The location's photos (locationImage records). */
export const LOCATION_PHOTOS: PhotoSet = { add: addLocationPhoto, update: updateLocationPhoto, remove: removeLocationPhoto, move: moveLocationPhoto };

/** The unit type's photos (its `images` list). */
export const UNIT_TYPE_PHOTOS: PhotoSet = { add: addUnitTypePhoto, update: updateUnitTypePhoto, remove: removeUnitTypePhoto, move: moveUnitTypePhoto };

// ---- the account's images (website logos, company main image) -----------------------------------

interface AccountImagesPage {
  /** Null for members who do not cover every location (account-wide records are owners'). */
  account: { logo: Image | null; footerLogo: Image | null; mainImage: Image | null; pending: string[] } | null;
  locations: Array<{ id: number; name: string }>;
}

export async function accountImagesPage(db: Database, staff: SignedInStaff): Promise<AccountImagesPage> {
  const scoped = staff.scope.all ? undefined : staff.scope.locationIds;
  const locs = await db
    .select({ id: locations.id, name: locations.name })
    .from(locations)
    .where(and(eq(locations.accountId, staff.accountId), scoped ? inArray(locations.id, scoped.length ? [...scoped] : [-1]) : undefined))
    .orderBy(asc(locations.name));
  if (!staff.scope.all) return { account: null, locations: locs };
  const websiteId = await websiteOf(db, staff);
  const website = websiteId ? await readEffectiveRecord(db, staff, "website", websiteId) : null;
  const account = await readEffectiveRecord(db, staff, "account", staff.accountId);
  if (!website || !account) return { account: null, locations: locs };
  return {
    account: {
      logo: storedImage(website.values.logo),
      footerLogo: storedImage(website.values.footerLogo),
      mainImage: storedImage(account.values.mainImage),
      pending: [...website.pending.map((f) => `website.${f}`), ...account.pending.map((f) => `account.${f}`)],
    },
    locations: locs,
  };
}

/** The account's website row's id (the record the logos belong to), or null. */
export async function websiteOf(db: Database, staff: SignedInStaff): Promise<number | null> {
  const [row] = await db.select({ id: websites.id }).from(websites).where(eq(websites.accountId, staff.accountId)).orderBy(asc(websites.id)).limit(1);
  return row?.id ?? null;
}

/** Entities whose image fields this module edits (for the routes' parsing). */
export const IMAGE_FIELDS: Record<string, ImageField> = {
  "website.logo": { entity: "website", field: "logo" },
  "website.footerLogo": { entity: "website", field: "footerLogo" },
  "account.mainImage": { entity: "account", field: "mainImage" },
  "location.mainImage": { entity: "location", field: "mainImage" },
  "location.mainLogo": { entity: "location", field: "mainLogo" },
};

// ---- the forms ----------------------------------------------------------------------------------

const IMAGE_INTENTS = ["upload", "clear", "add-photo", "update-photo", "remove-photo", "move"] as const;
export type ImageIntent = (typeof IMAGE_INTENTS)[number];

/** An image form's fields, as sent (strings trimmed to their limits, the file as given). */
export interface ImageForm {
  intent: ImageIntent | null;
  target: string;
  upload: UploadInput;
  title: string;
  base: { alt: string; title: string };
  direction: "up" | "down";
}

export function readImageForm(form: FormData): ImageForm {
  const text = (name: string, max = 2000) => {
    const v = form.get(name);
    return typeof v === "string" ? v.slice(0, max) : "";
  };
  const intent = text("intent");
  return {
    intent: (IMAGE_INTENTS as readonly string[]).includes(intent) ? (intent as ImageIntent) : null,
    target: text("target", 300),
    upload: { file: form.get("file"), media: text("media", 300) || null, alt: text("alt", 1000), decorative: form.get("decorative") === "1" },
    title: text("title", 1000),
    base: { alt: text("baseAlt", 1000), title: text("baseTitle", 1000) },
    direction: text("direction") === "up" ? "up" : "down",
  };
}

/** The page's answer to a refused form: its messages, what was typed, and a file already received. */
export function imageFormReply(form: ImageForm, result: ImageEditRefusal): ImageFormReply {
  const p = result.pending;
  return {
    intent: form.intent ?? "",
    target: form.target,
    errors: result.errors,
    values: { alt: form.upload.alt, title: form.title, decorative: form.upload.decorative },
    pending: p ? { src: p.src, width: p.width, height: p.height, file_name_original: p.file_name_original } : null,
  };
}

/** A refusal before any edit (the rate limit, an unknown intent). */
export function imageFormRefusal(status: 400 | 429, message: string): ImageEditRefusal {
  return { ok: false, status, errors: { form: message }, pending: null };
}
