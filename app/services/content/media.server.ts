/**
 * Image uploads (issue 24, docs/decisions/320-image-uploads.md and 321-media-in-the-database.md).
 *
 * `storeUpload` checks an uploaded file by its content (sharp reads the header; the name and the
 * stated type are never trusted), refuses SVG, anything not JPEG/PNG/WebP/AVIF/GIF, files over
 * 10 MB and images outside the size limits, then stores WebP copies at the widths the pages use
 * (`variantWidths`), upright and without metadata (EXIF, GPS, XMP, ICC dropped), in the database, and
 * records the upload in the audit trail in the same transaction. It returns the Image record a
 * draft field takes. Nothing is shown on a page until a published record points at it.
 *
 * `readMediaVariant` answers the public `/media/<sha256>-<width>.webp` route.
 */
import { and, eq } from "drizzle-orm";
import { createHash } from "node:crypto";
import sharp, { type Metadata } from "sharp";
import type { Database } from "~/db/client.server";
import { mediaFiles, mediaVariants } from "~/db/schema";
import type { Image } from "~/db/schema/shared";
import {
  MAX_PIXELS,
  MAX_UPLOAD_BYTES,
  mediaFileName,
  mediaPath,
  parseMediaFileName,
  refuseImage,
  UPLOAD_MESSAGES,
  variantWidths,
} from "~/domain/content/media";
import { recordAudit } from "../audit/events.server";
import { hitRateLimit } from "../web/rate-limit.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";

/** Uploads per staff member per hour (each one decodes and encodes an image five times). */
const UPLOADS_PER_HOUR = 60;
const WEBP_QUALITY = 80;

type UploadResult = { ok: true; image: Image; mediaId: number } | { ok: false; message: string; limited?: true };

/** The file name as shown to staff: no folders, no control characters, at most 200 characters. */
function cleanName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex
  return base.replace(/[\u0000-\u001f\u007f]/g, "").slice(0, 200);
}

/** The Image record of a stored upload (its widest size), as a draft field takes it. */
export function imageRecord(sha256: string, width: number, height: number, originalName: string): Image {
  const src = mediaPath(sha256, width);
  return {
    width,
    height,
    type: "image/webp",
    alt: "",
    src,
    src_webp: src,
    title: null,
    file_name: mediaFileName(sha256, width),
    file_name_full: src,
    file_name_original: originalName || null,
    file_name_webp: mediaFileName(sha256, width),
    file_name_original_unmodified: originalName || null,
    file_type: "webp",
    file_base_url: "/media/",
  };
}

/** The rate limit's message, or null when this member may upload now. */
async function limitUploads(db: Database, staff: SignedInStaff, now: Date): Promise<string | null> {
  const r = await hitRateLimit(db, { key: `media-upload:staff:${staff.staffId}`, limit: UPLOADS_PER_HOUR, windowMs: 60 * 60 * 1000, now });
  return r.allowed ? null : `Too many uploads in a short time. Please wait ${r.retryAfterMinutes} minutes and try again.`;
}

/**
 * Stores an uploaded image (see the module comment). `file` is the form's file field as the request
 * parser gave it (the server already refused bodies over the upload limit before reading further).
 */
export async function storeUpload(
  db: Database,
  staff: SignedInStaff,
  file: FormDataEntryValue | null,
  now: Date,
  where: { locationId?: number | null } = {},
): Promise<UploadResult> {
  if (!file || typeof file === "string" || file.size === 0) return { ok: false, message: UPLOAD_MESSAGES.missing };
  if (file.size > MAX_UPLOAD_BYTES) return { ok: false, message: UPLOAD_MESSAGES.tooLarge };
  const limited = await limitUploads(db, staff, now);
  if (limited) return { ok: false, message: limited, limited: true };

  const bytes = Buffer.from(await file.arrayBuffer());
  const options = { limitInputPixels: MAX_PIXELS, failOn: "error" as const };
  let meta: Metadata;
  try {
    meta = await sharp(bytes, options).metadata();
  } catch {
    return { ok: false, message: UPLOAD_MESSAGES.notImage };
  }
  const upright = meta.autoOrient ?? { width: meta.width, height: meta.height };
  const refused = refuseImage(meta.format, upright.width, upright.height);
  if (refused) return { ok: false, message: refused };
  const width = upright.width!;
  const height = upright.height!;
  const format = meta.format!;

  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const originalName = cleanName(file.name);
  const actor = auditActor(staff);

  const [known] = await db
    .select({ id: mediaFiles.id, width: mediaFiles.width })
    .from(mediaFiles)
    .where(and(eq(mediaFiles.accountId, staff.accountId), eq(mediaFiles.sha256, sha256)));

  // Render every size first (outside the transaction: the slow part holds no lock).
  const sizes: Array<{ width: number; height: number; data: Buffer }> = [];
  if (!known) {
    try {
      const pipeline = sharp(bytes, options).rotate();
      for (const w of variantWidths(width)) {
        const out = await pipeline.clone().resize({ width: w, withoutEnlargement: true }).webp({ quality: WEBP_QUALITY }).toBuffer({ resolveWithObject: true });
        sizes.push({ width: out.info.width, height: out.info.height, data: out.data });
      }
    } catch {
      // A file whose header reads well but whose pixels do not (truncated, corrupt).
      return { ok: false, message: UPLOAD_MESSAGES.notImage };
    }
  }

  return db.transaction(async (tx): Promise<UploadResult> => {
    let mediaId = known?.id;
    let reused = Boolean(known);
    if (!mediaId) {
      const [inserted] = await tx
        .insert(mediaFiles)
        .values({
          accountId: staff.accountId,
          sha256,
          originalName,
          format,
          size: bytes.length,
          width,
          height,
          uploadedBy: staff.staffId,
        })
        .onConflictDoNothing()
        .returning({ id: mediaFiles.id });
      if (inserted) {
        mediaId = inserted.id;
        await tx.insert(mediaVariants).values(sizes.map((s) => ({ mediaId: inserted.id, width: s.width, height: s.height, contentType: "image/webp", bytes: s.data })));
      } else {
        // The same file uploaded at the same moment by another request: that one stored it.
        const [row] = await tx.select({ id: mediaFiles.id }).from(mediaFiles).where(and(eq(mediaFiles.accountId, staff.accountId), eq(mediaFiles.sha256, sha256)));
        mediaId = row!.id;
        reused = true;
      }
    }
    const [widest] = await tx
      .select({ width: mediaVariants.width, height: mediaVariants.height })
      .from(mediaVariants)
      .where(eq(mediaVariants.mediaId, mediaId))
      .orderBy(mediaVariants.width)
      .then((rows) => rows.slice(-1));
    await recordAudit(tx, {
      ...actor,
      action: "media.upload",
      entity: "media",
      entityId: mediaId,
      locationId: where.locationId ?? null,
      detail: { sha256, name: originalName, format, size: bytes.length, width, height, reused },
      at: now,
    });
    return { ok: true, mediaId, image: imageRecord(sha256, widest!.width, widest!.height, originalName) };
  });
}

/** One stored size for the public route, or null (unknown name, unknown file, no such size). */
export async function readMediaVariant(db: Database, fileName: string): Promise<{ bytes: Uint8Array; contentType: string } | null> {
  const parsed = parseMediaFileName(fileName);
  if (!parsed) return null;
  const [row] = await db
    .select({ bytes: mediaVariants.bytes, contentType: mediaVariants.contentType })
    .from(mediaVariants)
    .innerJoin(mediaFiles, eq(mediaFiles.id, mediaVariants.mediaId))
    .where(and(eq(mediaFiles.sha256, parsed.sha256), eq(mediaVariants.width, parsed.width)))
    .limit(1);
  return row ?? null;
}
