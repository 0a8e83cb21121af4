import {
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { locations } from "./location";
import { timestamps, type Image } from "./shared";

/** What kind of space a unit is (issue 3). */
export const unitCategories = ["climate_controlled", "drive_up", "indoor", "parking"] as const;
export type UnitCategory = (typeof unitCategories)[number];

export const unitStatuses = ["available", "reserved", "rented", "unavailable"] as const;
export type UnitStatus = (typeof unitStatuses)[number];

/**
 * A unit type: the units of one size and kind at one location, sold at one price. Sizes in feet,
 * rates in cents per month.
 */
export const unitTypes = pgTable(
  "unit_types",
  {
    id: serial().primaryKey(),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    /** The name the software gives the type, e.g. "Climate Controlled"; matched by specific_unit_types_to_show. */
    name: text().notNull(),
    category: text({ enum: unitCategories }).notNull(),
    width: doublePrecision().notNull(),
    length: doublePrecision().notNull(),
    height: doublePrecision(),
    floor: integer().notNull().default(1),
    features: jsonb().$type<string[]>().notNull().default([]),
    description: text().notNull().default(""),
    /** Kept off the website (issue 24): not listed, not rentable online. */
    isHiddenOnline: boolean().notNull().default(false),
    /**
     * The promotion that applies at rent time (issue 40, decisions 600–603, 672–674): "none", "amount"
     * or "percent" off the first `promotionMonths` months (local locations), or "plan", one of the
     * SiteLink site's discount plans (`promotionPlanId` = ConcessionID; what it gives is read from
     * SiteLink, sitelink_discount_plans). There is no typed promotion text (decision 674).
     * In the location's dates `promotionStartsOn`..`promotionEndsOn` (either open). The text shown is
     * generated from it (app/domain/rental/promotion.ts).
     */
    promotionKind: text().notNull().default("none"),
    /** Cents off each month (kind "amount", or a plan's fixed discount). */
    promotionAmount: integer().notNull().default(0),
    /** Percent off each month (kind "percent", or a plan's percentage). */
    promotionPercent: integer().notNull().default(0),
    promotionMonths: integer().notNull().default(1),
    promotionPlanId: integer(),
    /** What the plan gave, in the promotion's words, when the promotion was saved (decision 673). */
    promotionPlanWording: text().notNull().default(""),
    promotionStartsOn: text(),
    promotionEndsOn: text(),
    /** The type's photos (Image records). */
    images: jsonb().$type<Image[]>().notNull().default([]),
    standardRate: integer().notNull(),
    webRate: integer().notNull(),
    /** The management software's id for the type (SiteLink UnitTypeID); null for local-only data. */
    externalId: text(),
    ...timestamps,
  },
  (t) => [
    index("unit_types_location_idx").on(t.locationId),
    // The SiteLink sync upserts on it (study §3.1: SiteLink's type + size key per site).
    uniqueIndex("unit_types_location_external_idx").on(t.locationId, t.externalId),
  ],
);

/** An individual rentable space. A unit can be held for a short time during a rental. */
export const units = pgTable(
  "units",
  {
    id: serial().primaryKey(),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    unitTypeId: integer()
      .notNull()
      .references(() => unitTypes.id, { onDelete: "cascade" }),
    /** The unit's number on the property, e.g. "A104". */
    name: text().notNull(),
    floor: integer().notNull().default(1),
    status: text({ enum: unitStatuses }).notNull().default("available"),
    /** A rental hold: the unit is kept for one visitor until this time. */
    heldUntil: timestamp({ withTimezone: true }),
    holdToken: text(),
    externalId: text(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("units_location_name_idx").on(t.locationId, t.name),
    index("units_type_status_idx").on(t.unitTypeId, t.status),
    // SiteLink's UnitID per site (the sync upserts on it).
    uniqueIndex("units_location_external_idx").on(t.locationId, t.externalId),
  ],
);
