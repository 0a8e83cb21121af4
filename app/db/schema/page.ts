import { integer, pgTable, serial, text, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./account";
import { timestamps } from "./shared";

/**
 * Free-standing content pages the spec routes to but gives no entity for (portable storage).
 * See docs/decisions/002-demo-data-in-the-seed.md (the pages table has no record of its own; their wording is demo data).
 */
export const pages = pgTable(
  "pages",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    slug: text().notNull(),
    title: text().notNull(),
    metaTitle: text().notNull().default(""),
    metaDescription: text().notNull().default(""),
    /** HTML, sanitised on render. */
    content: text().notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex("pages_account_slug_idx").on(t.accountId, t.slug)],
);
