import {
  bigint,
  boolean,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { accounts } from "./account";
import { locations } from "./location";
import { timestamps, type Image } from "./shared";
import type { ComponentSetting, GlobalStyles } from "~/domain/site/website-settings";

export const websites = pgTable("websites", {
  id: serial().primaryKey(),
  accountId: integer()
    .notNull()
    .references(() => accounts.id, { onDelete: "cascade" }),
  websiteName: text().notNull(),
  domain: text().notNull(),
  stagingDomain: text(),
  /** The operator's redirect list as imported (one "from to" pair a line). The enforced rules are the rows of `redirects`. */
  redirects: text().notNull().default(""),
  analyticsId: text(),
  unitPageTitle: text().notNull().default(""),
  unitPageMeta: text().notNull().default(""),
  customCss: text().notNull().default(""),
  customJs: text().notNull().default(""),
  customHeaderCode: text().notNull().default(""),
  customBodyCode: text().notNull().default(""),
  logo: jsonb().$type<Image | null>(),
  footerLogo: jsonb().$type<Image | null>(),
  globalStyles: jsonb().$type<GlobalStyles>().notNull(),
  navComponent: jsonb().$type<ComponentSetting>().notNull(),
  footerComponent: jsonb().$type<ComponentSetting>().notNull(),
  hasNewChanges: boolean().notNull().default(false),
  hasRedeployStarted: boolean().notNull().default(false),
  ...timestamps,
});

/** Permanent redirects of paths on the primary domain (spec §2). */
export const redirects = pgTable(
  "redirects",
  {
    id: serial().primaryKey(),
    websiteId: integer()
      .notNull()
      .references(() => websites.id, { onDelete: "cascade" }),
    /** Normalised: leading slash, no trailing slash, lowercase. */
    fromPath: text().notNull(),
    toPath: text().notNull(),
    statusCode: integer().notNull().default(301),
    isForced: boolean().notNull().default(true),
    ...timestamps,
  },
  (t) => [uniqueIndex("redirects_website_from_path_idx").on(t.websiteId, t.fromPath)],
);

/** Old domains that redirect to a location page (spec §2). Stored without "www.". */
export const oldDomains = pgTable(
  "old_domains",
  {
    id: serial().primaryKey(),
    websiteId: integer()
      .notNull()
      .references(() => websites.id, { onDelete: "cascade" }),
    hostname: text().notNull(),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    ...timestamps,
  },
  (t) => [uniqueIndex("old_domains_hostname_idx").on(t.hostname)],
);

/**
 * Shared-cache purges waiting to be sent (issue 41, decision 570): the `gatehouse_changed` triggers of
 * every table a public page reads add the cache tags a changed row touches (`location-12`,
 * `unit-type-40`, `site`…) here, in the writing transaction. A server process claims them (DELETE …
 * RETURNING, SKIP LOCKED) when the change's notification arrives and purges them once, through the
 * configured purge adapter (CACHE_PURGE); whichever process claims first purges, the others find nothing.
 */
export const cachePurges = pgTable("cache_purges", {
  id: serial().primaryKey(),
  tag: text().notNull(),
});

/**
 * How many committed changes to what public pages show there have been (issue 41, decision 710): one
 * row, bumped once by each transaction that queued a purge (a deferred trigger on `cache_purges`, so
 * the row is locked only while that transaction commits, and the values follow the commit order), and
 * notified with its new value on `gatehouse_changed`. A server process that has dropped its caches on
 * the notification of value N has caught up to N; before it answers a request a shared cache may
 * store, it reads this row and catches up first if it is behind (server/shared-cache-guard.ts).
 */
export const pageChanges = pgTable("page_changes", {
  id: integer().primaryKey(),
  count: bigint({ mode: "number" }).notNull().default(0),
});
