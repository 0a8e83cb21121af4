import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { CHANGESET_STATUSES, CHANGE_OPS, EDITABLE_ENTITY_NAMES } from "~/domain/content/editable";
import { accounts } from "./account";
import { staffMembers } from "./staff";

/**
 * Changesets (issue 24, docs/decisions/300-changesets.md): every staff edit of what the site renders
 * goes into the account's one open draft; publishing applies the whole draft in one transaction and
 * gives it the next version number. `snapshot` is the editable content as it stood right after the
 * publish (every editable entity's editable fields, app/domain/content/editable.ts), so any version can
 * be restored by a new changeset that brings the content back to that snapshot.
 */
export const changesets = pgTable(
  "changesets",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    status: text({ enum: CHANGESET_STATUSES }).notNull().default("draft"),
    /** What the staff member calls it ("Spring promotion"); optional. */
    title: text().notNull().default(""),
    /** Published version number (1, 2, …), unique per account; null until published. */
    version: integer(),
    /** For a scheduled changeset: when it goes live, and the IANA zone the staff member entered it in. */
    scheduledFor: timestamp({ withTimezone: true }),
    scheduledTimeZone: text(),
    /** When this changeset restores an earlier version: that version's number. */
    restoresVersion: integer(),
    createdBy: integer().references(() => staffMembers.id, { onDelete: "set null" }),
    publishedBy: integer().references(() => staffMembers.id, { onDelete: "set null" }),
    publishedAt: timestamp({ withTimezone: true }),
    /** Why the last publish attempt failed (nothing was changed). */
    failure: text(),
    /** The editable content right after this version was published (see above). */
    snapshot: jsonb().$type<ContentSnapshot>(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true })
      .notNull()
      .defaultNow()
      .$onUpdate(() => new Date()),
  },
  (t) => [
    // At most one open draft per account: every edit joins it.
    uniqueIndex("changesets_one_draft_idx").on(t.accountId).where(sql`${t.status} = 'draft'`),
    uniqueIndex("changesets_account_version_idx").on(t.accountId, t.version),
    index("changesets_scheduled_idx").on(t.status, t.scheduledFor),
  ],
);

/**
 * One record's pending change inside a changeset, merged as edits arrive (one row per record):
 * - update: `values` holds the new value of each changed field, `base` the value each field had
 *   (live or earlier draft) when the staff member's form was loaded — the second save of the same
 *   field from a stale form is refused with both values (decision 300);
 * - create: `values` holds every field of the new record, `recordId` is null and `createKey` names it
 *   (a child created in the same changeset points at it with `{ "$create": createKey }`);
 * - delete: `values` is empty; `base` holds the record's fields as they were, for the diff.
 */
export const changesetChanges = pgTable(
  "changeset_changes",
  {
    id: serial().primaryKey(),
    changesetId: integer()
      .notNull()
      .references(() => changesets.id, { onDelete: "cascade" }),
    entity: text({ enum: EDITABLE_ENTITY_NAMES }).notNull(),
    op: text({ enum: CHANGE_OPS }).notNull(),
    recordId: integer(),
    createKey: text(),
    /** The location the record belongs to (null: account-wide), for scoping and the diff. */
    locationId: integer(),
    values: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    base: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    /** The last staff member who changed it. */
    staffId: integer().references(() => staffMembers.id, { onDelete: "set null" }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp({ withTimezone: true })
      .notNull()
      .defaultNow()
      .$onUpdate(() => new Date()),
  },
  (t) => [
    uniqueIndex("changeset_changes_record_idx").on(t.changesetId, t.entity, t.recordId).where(sql`${t.recordId} is not null`),
    uniqueIndex("changeset_changes_create_idx").on(t.changesetId, t.createKey).where(sql`${t.createKey} is not null`),
  ],
);

/** Every editable entity's records as { id → { field → value } } (only the registry's editable fields). */
export type ContentSnapshot = Record<string, Record<string, Record<string, unknown>>>;
