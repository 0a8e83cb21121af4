/**
 * What the back office may edit (issue 24, docs/decisions/300-changesets.md): every entity the site
 * renders, its editable fields, how each is validated, and which location it belongs to (for the
 * role's scope). Pure data: `app/db/editable-tables.server.ts` maps each entity to its table, and
 * `app/services/content/changesets.server.ts` stores edits in the draft changeset and applies them.
 *
 * A field's `schema` is the one rule for its value: the console's forms, the draft, the publish and
 * the seed (seeds/seed.ts validates the operator's data through `validateRecord`) all use it.
 * Fields not listed here (ids, foreign keys the console does not move, software-owned columns such as
 * rates, slugs, SiteLink ids, timestamps) are never changed through a changeset.
 */
import { z } from "zod";
import { componentSettingSchema, globalStylesSchema } from "../site/website-settings";
import { PROMOTION_KINDS, promotionProblems } from "../rental/promotion";
import { locationSettingsSchema, rentalSettingsSchema } from "../shared/account-settings";
import { formatCents } from "../shared/money";

export const EDITABLE_ENTITY_NAMES = [
  "website",
  "account",
  "menu",
  "menuItem",
  "page",
  "contentItem",
  "redirect",
  "oldDomain",
  "location",
  "address",
  "hoursBlock",
  "hoursItem",
  "specialHours",
  "amenity",
  "locationImage",
  "unitType",
] as const;
export type EditableEntityName = (typeof EDITABLE_ENTITY_NAMES)[number];

export const CHANGE_OPS = ["update", "create", "delete"] as const;

/**
 * draft: the one open changeset edits go into; scheduled: frozen, published by the scheduler at
 * `scheduledFor`; published: live (has a version); failed: a publish that changed nothing (it keeps
 * its changes and can be published again); discarded: thrown away by staff.
 */
export const CHANGESET_STATUSES = ["draft", "scheduled", "published", "failed", "discarded"] as const;

/**
 * How a field is edited: the console draws one control per kind.
 * - text / textarea: plain text; html: HTML (sanitised on render, as today); bool: a checkbox;
 * - int / number: numbers; money: an amount typed in dollars ("25", "25.50", "$25.00"), stored as
 *   integer cents (decision 670); time: "HH:MM"; date: "YYYY-MM-DD"; select: one of `options`;
 * - list: a list of strings (one per line); json: a JSON value edited by a field-specific form;
 * - image: an Image record (shared.ts `imageSchema`), set by an upload;
 * - images: a list of Image records; ref: the id of another record (FK), chosen from a list.
 */
export type FieldKind =
  | "text"
  | "textarea"
  | "html"
  | "bool"
  | "int"
  | "number"
  | "money"
  | "time"
  | "date"
  | "select"
  | "list"
  | "json"
  | "image"
  | "images"
  | "ref";

export interface EditableField {
  label: string;
  kind: FieldKind;
  schema: z.ZodType;
  options?: readonly string[];
  /** For kind "ref": the entity the id points at. */
  ref?: EditableEntityName;
  /** A short hint shown under the control. */
  hint?: string;
}

/**
 * Which location a record belongs to:
 * - account: none (account-wide: website, menus, pages, FAQs, redirects); only roles that cover
 *   every location (owners) may edit these;
 * - self: the record is a location;
 * - column: the record's `locationId` column;
 * - parent: through the parent record named by `column` (an hours item through its hours block).
 */
type LocationVia =
  | { kind: "account" }
  | { kind: "self" }
  | { kind: "column" }
  | { kind: "parent"; entity: EditableEntityName; column: string };

interface EditableEntity {
  name: EditableEntityName;
  /** Singular, as staff read it. */
  label: string;
  location: LocationVia;
  /** Staff may add and remove records (hours items, FAQs, redirects …), not only edit them. */
  canCreate: boolean;
  fields: Record<string, EditableField>;
  /**
   * Rules between fields of one record (an hours line closes after it opens), given the record's
   * values after the edit. The console, the draft and the seed run it through `validateRecord`.
   */
  check?: (values: Record<string, unknown>) => FieldErrors;
}

// ---- field schemas (one rule each) ------------------------------------------------------------

const trimmed = (max: number) => z.string().trim().max(max, `Use at most ${max} characters.`);
const required = (max: number, message = "Enter a value.") => trimmed(max).min(1, message);
const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `Use at most ${max} characters.`)
    .nullable()
    .transform((v) => (v ? v : null));
const html = (max = 50_000) => z.string().max(max, `Use at most ${max} characters.`);
const time = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Enter a time as HH:MM, for example 09:00.")
  .nullable();
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "Enter a date as YYYY-MM-DD.");
const optionalDate = z
  .string()
  .trim()
  .regex(/^(\d{4}-\d{2}-\d{2})?$/, "Enter a date as YYYY-MM-DD.")
  .nullable()
  .transform((v) => (v ? v : null));
const bool = z.boolean();
const int = (min: number, max: number) => z.number().int("Enter a whole number.").min(min).max(max);
/** Cents, typed in dollars (the form's control turns "25.50" into 2550); its limits said in dollars. */
const money = (min: number, max: number) =>
  z
    .number({ error: "Enter an amount in dollars, such as 25 or 25.50." })
    .int("Enter an amount in dollars, with at most two decimals.")
    .min(min, `Enter ${formatCents(min)} or more.`)
    .max(max, `Enter at most ${formatCents(max)}.`);
const url = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => v === "" || /^https:\/\/\S+$/.test(v), "Enter a web address starting with https://.")
  .nullable()
  .transform((v) => (v ? v : null));
const image = z.unknown().nullable();
const images = z.array(z.unknown());

const text = (label: string, max = 200, hint?: string): EditableField => ({ label, kind: "text", schema: required(max), hint });
const optional = (label: string, max = 200, hint?: string): EditableField => ({ label, kind: "text", schema: optionalText(max), hint });
const link = (label: string): EditableField => ({ label, kind: "text", schema: url });
const htmlField = (label: string): EditableField => ({ label, kind: "html", schema: html() });
const flag = (label: string): EditableField => ({ label, kind: "bool", schema: bool });

export const EDITABLE_ENTITIES: Record<EditableEntityName, EditableEntity> = {
  website: {
    name: "website",
    label: "Website",
    location: { kind: "account" },
    canCreate: false,
    fields: {
      websiteName: text("Website name"),
      analyticsId: { label: "Analytics id", kind: "text", schema: optionalText(40), hint: "G-XXXXXXX or GTM-XXXXXXX" },
      unitPageTitle: { label: "Unit page title template", kind: "text", schema: trimmed(300) },
      unitPageMeta: { label: "Unit page description template", kind: "textarea", schema: trimmed(1000) },
      customCss: { label: "Custom CSS", kind: "textarea", schema: trimmed(100_000) },
      customJs: { label: "Custom JavaScript", kind: "textarea", schema: trimmed(100_000), hint: "Never runs on pages with card fields." },
      customHeaderCode: { label: "Custom header code", kind: "textarea", schema: trimmed(100_000), hint: "Never runs on pages with card fields." },
      customBodyCode: { label: "Custom body code", kind: "textarea", schema: trimmed(100_000), hint: "Never runs on pages with card fields." },
      /** The announcement bar lives in navComponent's props (announcement_bar_enabled, _text, _phone). */
      // Unknown keys refused (decision 632); edited through the website's forms (decision 362).
      navComponent: { label: "Navigation bar and announcement bar", kind: "json", schema: componentSettingSchema.strict() },
      footerComponent: { label: "Footer", kind: "json", schema: componentSettingSchema.strict() },
      globalStyles: { label: "Colours, fonts and buttons", kind: "json", schema: globalStylesSchema.strict() },
      logo: { label: "Logo", kind: "image", schema: image },
      footerLogo: { label: "Footer logo", kind: "image", schema: image },
    },
  },
  account: {
    name: "account",
    label: "Company",
    location: { kind: "account" },
    canCreate: false,
    fields: {
      name: text("Company name"),
      tagline: { label: "Tagline", kind: "text", schema: trimmed(200) },
      companyInformation: htmlField("Company information"),
      privacyPolicy: htmlField("Privacy policy"),
      mainImage: { label: "Main image", kind: "image", schema: image },
      // Decision 632: the rental settings form (/admin/content/rental-settings); unknown keys refused.
      globalSettings: { label: "Rental settings", kind: "json", schema: rentalSettingsSchema },
    },
  },
  menu: {
    name: "menu",
    label: "Menu",
    location: { kind: "account" },
    canCreate: false,
    fields: { heading: { label: "Heading", kind: "text", schema: trimmed(100) } },
  },
  menuItem: {
    name: "menuItem",
    label: "Menu item",
    location: { kind: "account" },
    canCreate: true,
    fields: {
      menuId: { label: "Menu", kind: "ref", ref: "menu", schema: z.number().int() },
      parentId: { label: "Under", kind: "ref", ref: "menuItem", schema: z.number().int().nullable() },
      name: text("Label", 60),
      url: { label: "Link", kind: "text", schema: required(2000, "Enter a path such as /faqs or a web address."), hint: "A path on this site (/faqs) or a full web address." },
      index: { label: "Position", kind: "int", schema: int(0, 1000) },
      isInternal: flag("A page of this site"),
      isTargetBlank: flag("Opens in a new tab"),
    },
  },
  page: {
    name: "page",
    label: "Page",
    location: { kind: "account" },
    canCreate: false,
    fields: {
      title: text("Title"),
      metaTitle: { label: "Title for search engines", kind: "text", schema: trimmed(70) },
      metaDescription: { label: "Description for search engines", kind: "textarea", schema: trimmed(300) },
      content: htmlField("Content"),
    },
  },
  contentItem: {
    name: "contentItem",
    label: "FAQ or storage tip",
    location: { kind: "account" },
    canCreate: true,
    fields: {
      /** The owner column of a new record: set by the server from the member's account, never by a form. */
      accountId: { label: "Account", kind: "ref", ref: "account", schema: z.number().int() },
      tag: { label: "Kind", kind: "select", options: ["FAQ", "Storage Tip"], schema: z.enum(["FAQ", "Storage Tip"]) },
      title: text("Question or title", 300),
      content: htmlField("Answer or text"),
      index: { label: "Position", kind: "int", schema: int(0, 1000) },
    },
  },
  redirect: {
    name: "redirect",
    label: "Redirect",
    location: { kind: "account" },
    canCreate: true,
    fields: {
      /** The owner column of a new record: set by the server from the member's website, never by a form. */
      websiteId: { label: "Website", kind: "ref", ref: "website", schema: z.number().int() },
      fromPath: { label: "From path", kind: "text", schema: required(2000, "Enter the old path, for example /old-page."), hint: "A path on this site, such as /old-page." },
      toPath: { label: "To", kind: "text", schema: required(2000, "Enter where it should go."), hint: "A path on this site or a full web address." },
      statusCode: { label: "Kind", kind: "select", options: ["301", "302"], schema: z.union([z.literal(301), z.literal(302)]) },
      isForced: flag("Redirect even when the old path still has a page"),
    },
  },
  oldDomain: {
    name: "oldDomain",
    label: "Old domain",
    location: { kind: "column" },
    canCreate: true,
    fields: {
      /** The owner column of a new record: set by the server from the member's website, never by a form. */
      websiteId: { label: "Website", kind: "ref", ref: "website", schema: z.number().int() },
      hostname: { label: "Old domain", kind: "text", schema: required(253, "Enter a domain such as old-storage.example."), hint: "Without https:// or www." },
      locationId: { label: "Goes to location", kind: "ref", ref: "location", schema: z.number().int() },
    },
  },
  location: {
    name: "location",
    label: "Location",
    location: { kind: "self" },
    canCreate: false,
    fields: {
      name: text("Name"),
      status: { label: "Status", kind: "select", options: ["Live", "Coming Soon"], schema: z.enum(["Live", "Coming Soon"]) },
      phoneNumber: text("Phone number", 30),
      sms: optional("Text message number", 30),
      email: { label: "E-mail", kind: "text", schema: z.string().trim().max(320).email("Enter an e-mail address such as office@example.com.").nullable().or(z.literal("").transform(() => null)) },
      externalPaymentLink: link("External payment link"),
      facebook: link("Facebook"),
      yelp: link("Yelp"),
      google: link("Google"),
      twitter: link("X (Twitter)"),
      sparefoot: link("SpareFoot"),
      linkedin: link("LinkedIn"),
      instagram: link("Instagram"),
      googleReviewLink: link("Google review link"),
      yelpReviewLink: link("Yelp review link"),
      facebookReviewLink: link("Facebook review link"),
      rentalSuccessMessage: htmlField("Message after a rental"),
      reservationSuccessMessage: htmlField("Message after a reservation"),
      moveOutConfirmationMessage: { label: "Message after notice to move out", kind: "textarea", schema: trimmed(5000) },
      autopayTerms: { label: "Autopay terms", kind: "textarea", schema: trimmed(10_000) },
      metaTitle: { label: "Title for search engines", kind: "text", schema: trimmed(70) },
      metaTagline: { label: "Tagline", kind: "text", schema: trimmed(200) },
      metaDescription: { label: "Description for search engines", kind: "textarea", schema: trimmed(300) },
      isShowOnlySpecificUnitTypes: flag("Show only the unit types listed below"),
      specificUnitTypesToShow: { label: "Unit types to show", kind: "list", schema: z.array(trimmed(100)) },
      isShowExtraChargesAtCheckout: flag("Show extra charges at the pay step"),
      isHideExtraChargesForParkingOrOffice: flag("Hide extra charges for parking and office"),
      hasMatchOnLocationPageFilter: flag("Filter unit types on the location page"),
      // Decision 632: the settings form (/admin/content/locations/:id/settings); unknown keys refused.
      globalSettings: { label: "Location settings", kind: "json", schema: locationSettingsSchema },
      mainImage: { label: "Main image", kind: "image", schema: image },
      mainLogo: { label: "Logo", kind: "image", schema: image },
      /**
       * A location added from the console is saved unpublished with this change in the draft
       * (decision 620): publishing the draft puts it on the website; no form edits it otherwise.
       */
      isPublished: flag("Shown on the website"),
    },
  },
  address: {
    name: "address",
    label: "Address",
    location: { kind: "column" },
    canCreate: false,
    fields: {
      street1: text("Street"),
      street2: optional("Street, line 2"),
      city: text("City", 100),
      stateProvince: text("State", 50),
      postal: { label: "ZIP code", kind: "text", schema: z.string().trim().regex(/^\d{5}(-\d{4})?$/, "Enter a ZIP code such as 28358.") },
      lat: { label: "Latitude", kind: "number", schema: z.number().min(-90).max(90).nullable() },
      lon: { label: "Longitude", kind: "number", schema: z.number().min(-180).max(180).nullable() },
    },
  },
  hoursBlock: {
    name: "hoursBlock",
    label: "Hours",
    location: { kind: "column" },
    canCreate: false,
    fields: {
      isAvailable: flag("Show these hours"),
      displayText: text("Heading", 60),
    },
  },
  hoursItem: {
    name: "hoursItem",
    label: "Hours line",
    location: { kind: "parent", entity: "hoursBlock", column: "hoursBlockId" },
    canCreate: true,
    fields: {
      hoursBlockId: { label: "Hours", kind: "ref", ref: "hoursBlock", schema: z.number().int() },
      days: { label: "Days", kind: "text", schema: z.string().regex(/^(Mo|Tu|We|Th|Fr|Sa|Su)(,(Mo|Tu|We|Th|Fr|Sa|Su))*$/, "Choose at least one day.") },
      open: { label: "Opens", kind: "time", schema: time },
      close: { label: "Closes", kind: "time", schema: time },
      isOpen24Hours: flag("Open 24 hours"),
      isClosed: flag("Closed"),
      isDisplayText: flag("Show the text below instead of times"),
      displayText: { label: "Text", kind: "text", schema: trimmed(100) },
    },
    check: (v) => openingProblems(v, { closed: v.isClosed === true || v.isOpen24Hours === true || v.isDisplayText === true, both: v.isClosed === true && v.isOpen24Hours === true }),
  },
  specialHours: {
    name: "specialHours",
    label: "Special hours",
    location: { kind: "column" },
    canCreate: true,
    fields: {
      locationId: { label: "Location", kind: "ref", ref: "location", schema: z.number().int() },
      date: { label: "Date", kind: "date", schema: date },
      label: { label: "Occasion", kind: "text", schema: trimmed(100), hint: "For example Thanksgiving." },
      isClosed: flag("Closed all day"),
      open: { label: "Opens", kind: "time", schema: time },
      close: { label: "Closes", kind: "time", schema: time },
    },
    check: (v) => openingProblems(v, { closed: v.isClosed === true, both: false }),
  },
  amenity: {
    name: "amenity",
    label: "Amenity",
    location: { kind: "column" },
    canCreate: true,
    fields: {
      locationId: { label: "Location", kind: "ref", ref: "location", schema: z.number().int() },
      label: text("Amenity", 100),
      description: { label: "Description", kind: "textarea", schema: trimmed(1000) },
      index: { label: "Position", kind: "int", schema: int(0, 1000) },
      image: { label: "Image", kind: "image", schema: image },
    },
  },
  locationImage: {
    name: "locationImage",
    label: "Photo",
    location: { kind: "column" },
    canCreate: true,
    fields: {
      locationId: { label: "Location", kind: "ref", ref: "location", schema: z.number().int() },
      index: { label: "Position", kind: "int", schema: int(0, 1000) },
      alt: { label: "Description for screen readers", kind: "text", schema: trimmed(300) },
      title: optional("Title", 200),
      src: { label: "Image", kind: "text", schema: required(2000) },
      srcWebp: optional("WebP image", 2000),
      width: { label: "Width", kind: "int", schema: int(1, 20_000).nullable() },
      height: { label: "Height", kind: "int", schema: int(1, 20_000).nullable() },
    },
  },
  unitType: {
    name: "unitType",
    label: "Unit type",
    location: { kind: "column" },
    canCreate: false,
    fields: {
      isHiddenOnline: flag("Hide this unit type on the website"),
      description: { label: "Description", kind: "textarea", schema: trimmed(2000) },
      images: { label: "Photos", kind: "images", schema: images },
      // The promotion that applies at rent time (issue 40, decisions 600–603, 670–674). Its text is
      // generated from what it gives; there is no typed promotion text (decision 674).
      promotionKind: {
        label: "What the promotion gives",
        kind: "select",
        options: PROMOTION_KINDS,
        schema: z.enum(PROMOTION_KINDS),
        hint: "An amount or a percentage off the first months (local locations), or one of the SiteLink site's discount plans.",
      },
      promotionAmount: { label: "Amount off each month", kind: "money", schema: money(0, 10_000_000), hint: "In dollars, for example 20 or 12.50. For an amount off." },
      promotionPercent: { label: "Percent off each month", kind: "int", schema: int(0, 100), hint: "100 is free. For a percentage off." },
      promotionMonths: { label: "Number of months", kind: "int", schema: int(1, 12), hint: "The first months of the rental it applies to." },
      promotionPlanId: { label: "SiteLink discount plan", kind: "int", schema: int(1, 2_147_483_647).nullable(), hint: "One of the site's discount plans, as SiteLink lists them now." },
      /**
       * What the plan gave, in the promotion's words, when the promotion was saved: set by the server
       * from SiteLink, never typed; the office is told when SiteLink's plan no longer gives it (decision 673).
       */
      promotionPlanWording: { label: "What the plan gave when saved", kind: "text", schema: trimmed(200) },
      promotionStartsOn: { label: "Starts on", kind: "date", schema: optionalDate, hint: "YYYY-MM-DD in the location's time zone; empty: from publishing." },
      promotionEndsOn: { label: "Ends on", kind: "date", schema: optionalDate, hint: "YYYY-MM-DD, the last day; empty: until changed." },
    },
    check: promotionProblems,
  },
};

export type FieldErrors = Record<string, string>;

/**
 * An opening (an hours line, a special date): unless it is closed (or open 24 hours, or shown as
 * text), it has both times and closes after it opens.
 */
function openingProblems(v: Record<string, unknown>, state: { closed: boolean; both: boolean }): FieldErrors {
  const errors: FieldErrors = {};
  if (state.both) errors.isOpen24Hours = "Choose either closed or open 24 hours, not both.";
  if (state.closed) return errors;
  const open = typeof v.open === "string" && v.open ? v.open : null;
  const close = typeof v.close === "string" && v.close ? v.close : null;
  if (!open) errors.open = "Enter the opening time, or tick closed.";
  if (!close) errors.close = "Enter the closing time, or tick closed.";
  if (open && close && close <= open) errors.close = `The closing time must be after the opening time (${open}).`;
  return errors;
}

/**
 * Validates some fields of a record against their schemas. Unknown fields are errors (a form cannot
 * change what the registry does not list). Returns the parsed values or a message per field.
 */
export function validateFields(
  entity: EditableEntity,
  values: Record<string, unknown>,
): { ok: true; values: Record<string, unknown> } | { ok: false; errors: FieldErrors } {
  const out: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const [name, value] of Object.entries(values)) {
    const field = entity.fields[name];
    if (!field) {
      errors[name] = "This field cannot be changed here.";
      continue;
    }
    const parsed = field.schema.safeParse(value);
    if (parsed.success) out[name] = parsed.data;
    else errors[name] = parsed.error.issues[0]?.message ?? "Check this value.";
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, values: out };
}

/**
 * Validates a whole record (every field given, then the rules between fields): what the seed runs on
 * the operator's records and the console on a record after an edit.
 */
export function validateRecord(
  entity: EditableEntity,
  values: Record<string, unknown>,
): { ok: true; values: Record<string, unknown> } | { ok: false; errors: FieldErrors } {
  const checked = validateFields(entity, values);
  if (!checked.ok) return checked;
  const problems = entity.check?.(checked.values) ?? {};
  return Object.keys(problems).length ? { ok: false, errors: problems } : checked;
}

/** The same value? (JSON equality: field values are JSON.) */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}
