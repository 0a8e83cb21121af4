import { index, integer, pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";
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

/** Every email the site sends, kept so the office can see what went out and tests can read it. */
export const emailOutbox = pgTable("email_outbox", {
  id: serial().primaryKey(),
  to: text().notNull(),
  subject: text().notNull(),
  text: text().notNull(),
  html: text(),
  sentAt: timestamp({ withTimezone: true }),
  error: text(),
  ...timestamps,
});
