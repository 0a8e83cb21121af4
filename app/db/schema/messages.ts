import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";
import { accounts } from "./account";
import { locations } from "./location";
import { timestamps } from "./shared";

export const contactMessageKinds = ["contact", "notify"] as const;

/** Messages sent from the contact form and the coming-soon "notify me" form. */
export const contactMessages = pgTable(
  "contact_messages",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    locationId: integer().references(() => locations.id, { onDelete: "set null" }),
    kind: text({ enum: contactMessageKinds }).notNull().default("contact"),
    name: text().notNull(),
    email: text().notNull(),
    phone: text(),
    message: text().notNull().default(""),
    ...timestamps,
  },
  (t) => [index("contact_messages_created_idx").on(t.createdAt)],
);

/**
 * Every email the site sends, kept so the office can see what went out and tests can read it.
 * Delivery and retries: docs/decisions/070-outbox-delivery.md; secrets and pruning: 071.
 */
export const emailOutbox = pgTable(
  "email_outbox",
  {
    id: serial().primaryKey(),
    to: text().notNull(),
    subject: text().notNull(),
    text: text().notNull(),
    html: text(),
    /**
     * The secrets of an unsent mail, sealed (decision 198): `{ sealed }` (AES-256-GCM, see
     * services/email.server.ts); text/html hold placeholders for them. Null once the mail is sent or
     * given up (the placeholders become "[redacted]"). A plain list: a row written before 198.
     */
    secrets: jsonb().$type<string[] | { sealed: string }>(),
    /**
     * Extra message headers (issue 40, decision 612: `List-Unsubscribe`, `List-Unsubscribe-Post`). A
     * value holding a secret (the unsubscribe link) carries the body's placeholder for it, filled from
     * the sealed secrets when sent and "[redacted]" after.
     */
    headers: jsonb().$type<Record<string, string>>(),
    sentAt: timestamp({ withTimezone: true }),
    error: text(),
    /** SMTP attempts made so far. */
    attempts: integer().notNull().default(0),
    /** When the retry job may try again. */
    nextAttemptAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** A sender holds the row until then (claimed before sending, so it is sent once). */
    claimedUntil: timestamp({ withTimezone: true }),
    /** Given up (too old to retry); the office should follow up. */
    failedAt: timestamp({ withTimezone: true }),
    /**
     * The location the mail is about (a tenant's lease, a rental, a reservation), where there is one
     * (issue 39, decision 645): the console home counts mail that could not be sent per location.
     */
    locationId: integer().references(() => locations.id, { onDelete: "set null" }),
    ...timestamps,
  },
  (t) => [index("email_outbox_location_idx").on(t.locationId), index("email_outbox_pending_idx").on(t.nextAttemptAt).where(sql`${t.sentAt} is null and ${t.failedAt} is null`)],
);
