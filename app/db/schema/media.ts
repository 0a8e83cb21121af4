import { customType, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./account";
import { staffMembers } from "./staff";

/** PostgreSQL bytea, read as bytes on both drivers (pg gives a Buffer, PGlite a Uint8Array). */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
});

/**
 * Uploaded images (issue 24, docs/decisions/320-image-uploads.md): one row per distinct file an
 * account uploaded, named by the SHA-256 of the bytes sent. The row and its sizes are written once
 * and never changed (an upload of the same file again finds it); only an Image record in a published
 * field makes a page show it. The original file itself is not kept: only its WebP sizes.
 */
export const mediaFiles = pgTable(
  "media_files",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    sha256: text().notNull(),
    /** The file's name as the browser sent it (shown to staff only; never used to decide anything). */
    originalName: text().notNull().default(""),
    /** The format its content was read as (jpeg, png, webp, avif, gif). */
    format: text().notNull(),
    /** Bytes of the file sent. */
    size: integer().notNull(),
    /** The image's size after turning it upright. */
    width: integer().notNull(),
    height: integer().notNull(),
    uploadedBy: integer().references(() => staffMembers.id, { onDelete: "set null" }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("media_files_account_sha_idx").on(t.accountId, t.sha256), index("media_files_sha_idx").on(t.sha256)],
);

/** One stored size of an uploaded image: WebP bytes, served at /media/<sha256>-<width>.webp. */
export const mediaVariants = pgTable(
  "media_variants",
  {
    mediaId: integer()
      .notNull()
      .references(() => mediaFiles.id, { onDelete: "cascade" }),
    width: integer().notNull(),
    height: integer().notNull(),
    contentType: text().notNull(),
    bytes: bytea().notNull(),
  },
  (t) => [primaryKey({ columns: [t.mediaId, t.width] })],
);
