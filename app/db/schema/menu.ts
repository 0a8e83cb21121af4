import {
  boolean,
  integer,
  pgTable,
  serial,
  text,
  index,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";
import { websites } from "./website";
import { timestamps } from "./shared";

export const menus = pgTable("menus", {
  id: serial().primaryKey(),
  websiteId: integer()
    .notNull()
    .references(() => websites.id, { onDelete: "cascade" }),
  name: text().notNull(),
  heading: text().notNull().default(""),
  ...timestamps,
});

/** nav_menu_items; `children` are the rows whose parent_id points here. */
export const navMenuItems = pgTable(
  "nav_menu_items",
  {
    id: serial().primaryKey(),
    menuId: integer()
      .notNull()
      .references(() => menus.id, { onDelete: "cascade" }),
    parentId: integer().references((): AnyPgColumn => navMenuItems.id, {
      onDelete: "cascade",
    }),
    name: text().notNull(),
    url: text().notNull().default(""),
    index: integer().notNull().default(0),
    isInternal: boolean().notNull().default(true),
    isTargetBlank: boolean().notNull().default(false),
    ...timestamps,
  },
  (t) => [index("nav_menu_items_menu_idx").on(t.menuId, t.parentId, t.index)],
);
