import { index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./account";
import { leadKinds, staffMembers } from "./staff";
import { tenants } from "./tenant";

/**
 * The desk's notes on a tenant (issue 39, decision 640): a history, add-only. Each note says who wrote
 * it and when; nothing edits or deletes one (a correction is a new note).
 */
export const tenantNotes = pgTable(
  "tenant_notes",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    tenantId: integer()
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    staffId: integer()
      .notNull()
      .references(() => staffMembers.id),
    body: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("tenant_notes_tenant_idx").on(t.tenantId, t.createdAt)],
);

/**
 * A lead's notes (issue 39, decision 642): every "mark contacted" note kept, newest first on the
 * lead's page (lead_follow_ups keeps the latest, for the list and its CSV). Add-only.
 */
export const leadNotes = pgTable(
  "lead_notes",
  {
    id: serial().primaryKey(),
    kind: text({ enum: leadKinds }).notNull(),
    /** The contact message's id, or the rental's reference (lead_follow_ups.lead_id). */
    leadId: text().notNull(),
    staffId: integer()
      .notNull()
      .references(() => staffMembers.id),
    body: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("lead_notes_lead_idx").on(t.kind, t.leadId, t.createdAt)],
);

/**
 * An action "Confirm it's you" interrupted (issue 39, decision 643): the form's fields held on the
 * server, tied to the member's session, good once and for ten minutes, then completed after the code.
 * Only the SHA-256 of its token is kept; never card data, passwords or codes (those fields are dropped).
 */
export const staffHeldActions = pgTable(
  "staff_held_actions",
  {
    id: serial().primaryKey(),
    tokenHash: text().notNull(),
    staffId: integer()
      .notNull()
      .references(() => staffMembers.id, { onDelete: "cascade" }),
    /** The staff session (staff_sessions.id) it belongs to. */
    sessionHash: text().notNull(),
    /** The console path the form was posted to. */
    path: text().notNull(),
    fields: jsonb().$type<Array<[string, string]>>().notNull(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("staff_held_actions_token_idx").on(t.tokenHash), index("staff_held_actions_expires_idx").on(t.expiresAt)],
);
