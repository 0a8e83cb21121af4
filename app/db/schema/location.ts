import {
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { accounts } from "./account";
import { timestamps, type Image } from "./shared";
import type { LocationTimeZone, ReviewSettings } from "~/domain/site/location-settings";

export const locationStatuses = ["Live", "Coming Soon"] as const;
export type LocationStatus = (typeof locationStatuses)[number];
export const softwareValues = ["sitelink", "no_api"] as const;
export type Software = (typeof softwareValues)[number];

export const locations = pgTable(
  "locations",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text().notNull(),
    urlSlug: text().notNull(),
    status: text({ enum: locationStatuses }).notNull(),
    software: text({ enum: softwareValues }).notNull(),
    externalPaymentLink: text(),
    phoneNumber: text().notNull(),
    sms: text(),
    email: text(),
    facebook: text(),
    yelp: text(),
    google: text(),
    twitter: text(),
    sparefoot: text(),
    linkedin: text(),
    instagram: text(),
    googleReviewLink: text(),
    yelpReviewLink: text(),
    facebookReviewLink: text(),
    timeZone: jsonb().$type<LocationTimeZone>().notNull(),
    /** HTML, sanitised on render. */
    rentalSuccessMessage: text().notNull().default(""),
    /** HTML, sanitised on render. */
    reservationSuccessMessage: text().notNull().default(""),
    moveOutConfirmationMessage: text().notNull().default(""),
    autopayTerms: text().notNull().default(""),
    metaTitle: text().notNull().default(""),
    metaTagline: text().notNull().default(""),
    metaDescription: text().notNull().default(""),
    hasImportedUnits: boolean().notNull().default(false),
    isShowOnlySpecificUnitTypes: boolean().notNull().default(false),
    /** Unit type names to show when is_show_only_specific_unit_types is on. */
    specificUnitTypesToShow: jsonb().$type<string[]>().notNull().default([]),
    isShowExtraChargesAtCheckout: boolean().notNull().default(false),
    isHideExtraChargesForParkingOrOffice: boolean().notNull().default(false),
    /** Extra charge entries as a JSON text list (spec §3); parsed with `parseExtraCharges` on read. */
    chargesToShowAtCheckout: text().notNull().default("[]"),
    globalSettings: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    reviewSettings: jsonb().$type<ReviewSettings>().notNull(),
    mainImage: jsonb().$type<Image | null>(),
    mainLogo: jsonb().$type<Image | null>(),
    hasMatchOnLocationPageFilter: boolean().notNull().default(false),
    /**
     * Shown on the public site (issue 40, decision 620). A location added from the console is made
     * with false and goes public when the draft that sets it true is published; every public read
     * filters on it (`publishedLocations`, app/db/queries/published-locations.ts).
     */
    isPublished: boolean().notNull().default(true),
    ...timestamps,
  },
  (t) => [uniqueIndex("locations_url_slug_idx").on(t.urlSlug)],
);

export const addresses = pgTable("addresses", {
  id: serial().primaryKey(),
  locationId: integer()
    .notNull()
    .unique()
    .references(() => locations.id, { onDelete: "cascade" }),
  street1: text("street_1").notNull(),
  street2: text("street_2"),
  city: text().notNull(),
  stateProvince: text().notNull(),
  postal: text().notNull(),
  country: text().notNull().default("US"),
  lat: doublePrecision(),
  lon: doublePrecision(),
  ...timestamps,
});

export const hoursBlockTypes = ["gate", "office"] as const;
export type HoursBlockType = (typeof hoursBlockTypes)[number];

export const hoursBlocks = pgTable(
  "hours_blocks",
  {
    id: serial().primaryKey(),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    type: text({ enum: hoursBlockTypes }).notNull(),
    isAvailable: boolean().notNull().default(true),
    displayText: text().notNull().default(""),
    showOnGoogleMyBusiness: boolean().notNull().default(true),
    ...timestamps,
  },
  (t) => [uniqueIndex("hours_blocks_location_type_idx").on(t.locationId, t.type)],
);

export const hoursItems = pgTable("hours_items", {
  id: serial().primaryKey(),
  hoursBlockId: integer()
    .notNull()
    .references(() => hoursBlocks.id, { onDelete: "cascade" }),
  idJsonFormattedText: text().notNull().default(""),
  /** Comma-separated two-letter day codes, e.g. "Mo,Tu,We,Th,Fr". */
  days: text().notNull(),
  /** "HH:MM", 24-hour, in the location's time zone. */
  open: text(),
  close: text(),
  isOpen24Hours: boolean("is_open_24_hours").notNull().default(false),
  open24HoursText: text("open_24_hours_text").notNull().default("Open 24 hours"),
  isClosed: boolean().notNull().default(false),
  closedText: text().notNull().default("Closed"),
  isDisplayText: boolean().notNull().default(false),
  displayText: text().notNull().default(""),
  ...timestamps,
});

/**
 * Special hours (issue 24): one date's opening that differs from the usual week (a holiday closing,
 * a late opening), in the location's time zone. Shown on the location page; "open now" follows it.
 */
export const specialHours = pgTable(
  "special_hours",
  {
    id: serial().primaryKey(),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    /** "YYYY-MM-DD" in the location's time zone. */
    date: text().notNull(),
    label: text().notNull().default(""),
    isClosed: boolean().notNull().default(true),
    /** "HH:MM", 24-hour; null when closed. */
    open: text(),
    close: text(),
    ...timestamps,
  },
  (t) => [uniqueIndex("special_hours_location_date_idx").on(t.locationId, t.date)],
);

export const amenities = pgTable("amenities", {
  id: serial().primaryKey(),
  locationId: integer()
    .notNull()
    .references(() => locations.id, { onDelete: "cascade" }),
  label: text().notNull(),
  description: text().notNull().default(""),
  index: integer().notNull().default(0),
  image: jsonb().$type<Image | null>(),
  ...timestamps,
});

/** A location's `media`: the Image records of spec §3. */
export const locationImages = pgTable(
  "location_images",
  {
    id: serial().primaryKey(),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    index: integer().notNull().default(0),
    width: integer(),
    height: integer(),
    type: text(),
    alt: text().notNull().default(""),
    src: text().notNull(),
    srcWebp: text(),
    title: text(),
    fileName: text(),
    fileNameFull: text(),
    fileNameOriginal: text(),
    fileNameWebp: text(),
    fileNameOriginalUnmodified: text(),
    fileType: text(),
    fileBaseUrl: text(),
    ...timestamps,
  },
  (t) => [index("location_images_location_idx").on(t.locationId, t.index)],
);

export const insurancePlans = pgTable("insurance_plans", {
  id: serial().primaryKey(),
  locationId: integer()
    .notNull()
    .references(() => locations.id, { onDelete: "cascade" }),
  sitelinkId: text(),
  /** Coverage in whole dollars' worth of cents (1,000.00 = 100000). */
  coverage: integer().notNull(),
  /** As the software reports it: 1 means the description's percentage applies. */
  percentOfTheftCoverage: numeric({ precision: 5, scale: 2 }).notNull(),
  siteId: text(),
  description: text().notNull().default(""),
  /** Monthly premium in cents. */
  premium: integer().notNull(),
  provider: text().notNull().default(""),
  ...timestamps,
});

export const paymentTypeCategories = ["mastercard", "visa", "discover"] as const;
export type PaymentTypeCategory = (typeof paymentTypeCategories)[number];

export const paymentTypes = pgTable("payment_types", {
  id: serial().primaryKey(),
  locationId: integer()
    .notNull()
    .references(() => locations.id, { onDelete: "cascade" }),
  version: integer().notNull().default(1),
  deletedAt: timestamp({ withTimezone: true }),
  value: text().notNull(),
  label: text().notNull(),
  category: text({ enum: paymentTypeCategories }).notNull(),
  ...timestamps,
});
