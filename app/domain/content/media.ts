/**
 * Uploaded images (issue 24, docs/decisions/320-image-uploads.md): the limits an upload must meet,
 * the widths it is stored at, and the public address of each stored size. Pure.
 *
 * An upload is kept as WebP at each width of `MEDIA_WIDTHS` narrower than the image, and at the
 * image's own width (capped at the widest), under `/media/<sha256 of the original>-<width>.webp`.
 * Pages find the sizes from the Image record's `src` and `width` alone (`mediaSrcSet`): the ladder
 * is part of the stored data's shape, so changing it means rendering the stored images again.
 */

/** The largest file accepted, in bytes (10 MB). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/**
 * The request body of an upload form, counted as it arrives (server/guards.ts): the file plus the
 * other fields and the framing, with room for a file somewhat over the limit to be answered beside
 * the field (a larger body gets the plain 413 page).
 */
export const UPLOAD_BODY_LIMIT = MAX_UPLOAD_BYTES + 2 * 1024 * 1024;

/** The console's pages with an upload form (their bodies may be `UPLOAD_BODY_LIMIT` long). */
function isUploadPath(path: string): boolean {
  return /^\/admin\/content\/(?:locations\/\d+\/photos|unit-types\/\d+\/photos|images)$/.test(path);
}

/** How many photos the "Add a location" form takes (decision 680); more on the location's photos page afterwards. */
export const NEW_LOCATION_PHOTOS = 3;
const NEW_LOCATION_PATH = "/admin/content/locations/new";

/**
 * The body limit of a console page with an upload form, or null for any other path: one file's worth
 * (`UPLOAD_BODY_LIMIT`) on the image pages, one per photo field on "Add a location".
 */
export function uploadBodyLimitFor(path: string): number | null {
  if (path === NEW_LOCATION_PATH) return NEW_LOCATION_PHOTOS * MAX_UPLOAD_BYTES + (UPLOAD_BODY_LIMIT - MAX_UPLOAD_BYTES);
  return isUploadPath(path) ? UPLOAD_BODY_LIMIT : null;
}
/** Neither side may be longer than this, and the image may hold at most this many pixels. */
export const MAX_DIMENSION = 8000;
export const MAX_PIXELS = 40_000_000;
/** Narrower images are refused: they would look blurred at the sizes the pages use. */
export const MIN_WIDTH = 200;

/**
 * The widths stored (CSS pixels × density): 240 (header and footer logos at 220 px, a photo's
 * thumbnail), 480 (logos at 2×, the gallery's columns, the location's main image at 1×), 960 (the
 * main image and gallery at 2×, a phone's full width), 1440 and 1920 (the home page's hero at 2×).
 */
const MEDIA_WIDTHS = [240, 480, 960, 1440, 1920] as const;

/** The formats accepted, by what the file's content says it is (never its name or stated type). */
const ACCEPTED_FORMATS = ["jpeg", "png", "webp", "avif", "gif"] as const;

export const UPLOAD_MESSAGES = {
  missing: "Choose an image file to upload.",
  tooLarge: `This file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB. Choose a smaller image.`,
  notImage: "This file is not an image we can use. Upload a JPEG, PNG, WebP, AVIF or GIF photo.",
  svg: "SVG files cannot be uploaded (they can carry scripts). Upload a JPEG, PNG, WebP, AVIF or GIF image.",
  tooNarrow: `This image is too small. Upload one at least ${MIN_WIDTH} pixels wide.`,
  tooBig: `This image is too large. Upload one at most ${MAX_DIMENSION} × ${MAX_DIMENSION} pixels.`,
} as const;

/** Why an image of this format and size cannot be stored, or null when it can. */
export function refuseImage(format: string | undefined, width: number | undefined, height: number | undefined): string | null {
  if (format === "svg") return UPLOAD_MESSAGES.svg;
  if (!format || !(ACCEPTED_FORMATS as readonly string[]).includes(format) || !width || !height) return UPLOAD_MESSAGES.notImage;
  if (width > MAX_DIMENSION || height > MAX_DIMENSION || width * height > MAX_PIXELS) return UPLOAD_MESSAGES.tooBig;
  if (width < MIN_WIDTH) return UPLOAD_MESSAGES.tooNarrow;
  return null;
}

/** The widths stored for an image this wide (ascending; the last is the image's own, capped). */
export function variantWidths(width: number): number[] {
  const top = Math.min(width, MEDIA_WIDTHS[MEDIA_WIDTHS.length - 1]!);
  return [...MEDIA_WIDTHS.filter((w) => w < top), top];
}

const MEDIA_FILE = /^([0-9a-f]{64})-(\d{1,5})\.webp$/;

export function mediaFileName(sha256: string, width: number): string {
  return `${sha256}-${width}.webp`;
}

export function mediaPath(sha256: string, width: number): string {
  return `/media/${mediaFileName(sha256, width)}`;
}

/** The hash and width a `/media/…` file name names, or null for anything else. */
export function parseMediaFileName(name: string): { sha256: string; width: number } | null {
  const m = MEDIA_FILE.exec(name);
  return m ? { sha256: m[1]!, width: Number(m[2]) } : null;
}

/**
 * The `srcset` of an uploaded image (its `src` is the widest size, its `width` that size's width),
 * or null for any other image (the seeded files under /images/ have one size).
 */
export function mediaSrcSet(image: { src: string; width: number | null }): string | null {
  if (!image.src.startsWith("/media/") || !image.width) return null;
  const parsed = parseMediaFileName(image.src.slice("/media/".length));
  if (!parsed || parsed.width !== image.width) return null;
  return variantWidths(parsed.width)
    .map((w) => `${mediaPath(parsed.sha256, w)} ${w}w`)
    .join(", ");
}

/** The names of an upload's fields: `file`, `alt`, `decorative`, `media` on the image pages; prefixed where one form has several ("Add a location"). */
export const uploadFieldNames = (prefix = "") => ({ file: `${prefix}file`, alt: `${prefix}alt`, decorative: `${prefix}decorative`, media: `${prefix}media` });

export const ALT_MAX = 300;
export const ALT_MESSAGES = {
  missing: "Describe the image for people who cannot see it, or mark it as decorative.",
  tooLong: `Use at most ${ALT_MAX} characters.`,
} as const;

/**
 * The text alternative of an image (WCAG 1.1.1): required, unless staff say the image is decorative
 * (it adds nothing a screen-reader user misses: the page then gives it alt="").
 */
export function readAltText(input: { alt: string; decorative: boolean }): { ok: true; alt: string } | { ok: false; message: string } {
  const alt = input.alt.trim();
  if (alt.length > ALT_MAX) return { ok: false, message: ALT_MESSAGES.tooLong };
  if (input.decorative) return { ok: true, alt: "" };
  if (!alt) return { ok: false, message: ALT_MESSAGES.missing };
  return { ok: true, alt };
}

/** A console image form's answer when it is refused (the page shows each message beside its field). */
export interface ImageFormReply {
  intent: string;
  /** Which form answered: the field ("location.mainImage") or the photo's ref. */
  target: string;
  errors: { file?: string; alt?: string; title?: string; form?: string };
  values: { alt: string; title: string; decorative: boolean };
  /** A file already received (its text alternative was missing): the form sends it back as `media`. */
  pending: { src: string; width: number | null; height: number | null; file_name_original: string | null } | null;
}
