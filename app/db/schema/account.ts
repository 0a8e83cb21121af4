import {
  boolean,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  index,
} from "drizzle-orm/pg-core";
import { timestamps, type Image } from "./shared";
import type { AccountGlobalSettings } from "~/domain/shared/account-settings";

export const accounts = pgTable("accounts", {
  id: serial().primaryKey(),
  clientCode: text().notNull().unique(),
  name: text().notNull(),
  /** HTML, sanitised on render. */
  privacyPolicy: text().notNull().default(""),
  /** HTML, sanitised on render. */
  companyInformation: text().notNull().default(""),
  tagline: text().notNull().default(""),
  useDemoUnits: boolean().notNull().default(false),
  isSplitUnitsByUnitType: boolean().notNull().default(false),
  isReviewsAutoUpdate: boolean().notNull().default(false),
  /** Portal flags and business constants of spec §9; parsed with `accountGlobalSettingsSchema` on read. */
  globalSettings: jsonb().$type<AccountGlobalSettings>().notNull(),
  mainImage: jsonb().$type<Image | null>(),
  ...timestamps,
});

export const contentItemTags = ["FAQ", "Storage Tip"] as const;
export type ContentItemTag = (typeof contentItemTags)[number];

export const contentItems = pgTable(
  "content_items",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    title: text().notNull(),
    /** HTML, sanitised on render. */
    content: text().notNull(),
    tag: text({ enum: contentItemTags }).notNull(),
    index: integer().notNull().default(0),
    ...timestamps,
  },
  (t) => [index("content_items_account_tag_idx").on(t.accountId, t.tag, t.index)],
);
