/**
 * The console's content forms (issue 24, decision 301): how a registry field (app/domain/content/editable.ts)
 * travels through an HTML form and back. Pure.
 *
 * - `formSchemaFor` turns the registry's schemas into the schema Conform parses a submitted form with
 *   (`parseWithZod`, on the server and, with JavaScript, in the browser): each control's text is
 *   turned into the field's value (a checkbox into true/false, a number box into a number, a list
 *   into one string a line, a JSON box into JSON), then checked by the field's own schema: the one
 *   rule the draft and the seed use too.
 * - `toFormValue` is the other way: the text a control shows for a value.
 * - `conflictMessage` is what a stale save says, with both values.
 */
import { z } from "zod";
import { EDITABLE_ENTITIES, type EditableEntityName, type EditableField, type FieldKind } from "./editable";
import { globalStylesSchema } from "../site/website-settings";
import { centsForInput, formatCents, parseDollars } from "../shared/money";

export const WEEKDAYS = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"] as const;
export const WEEKDAY_LABELS: Record<(typeof WEEKDAYS)[number], string> = {
  Mo: "Monday",
  Tu: "Tuesday",
  We: "Wednesday",
  Th: "Thursday",
  Fr: "Friday",
  Sa: "Saturday",
  Su: "Sunday",
};

/**
 * How a field is drawn: its kind, or a control made for one field (the days of an hours line:
 * checkboxes; a SiteLink discount plan: "choice", a select of the choices the page gives, holding a
 * number).
 */
type FormControl = FieldKind | "weekdays" | "choice";

type PropField = EditableField & { prop: string };

/**
 * The announcement bar (decision 304): three props inside the website's navComponent JSON, edited as
 * three fields; saving changes only those props and keeps the rest of navComponent.
 */
const ANNOUNCEMENT_BAR_FIELDS = {
  enabled: { label: "Show the announcement bar", kind: "bool", schema: z.boolean(), prop: "announcement_bar_enabled" },
  text: { label: "Announcement text", kind: "text", schema: z.string().trim().max(200, "Use at most 200 characters."), prop: "announcement_bar_text" },
  phone: {
    label: "Phone number in the bar",
    kind: "text",
    schema: z.string().trim().max(30, "Use at most 30 characters."),
    prop: "announcement_bar_phone",
    hint: "Leave empty to show the first location's number.",
  },
} as const satisfies Record<string, PropField>;

const menuName = (label: string, hint: string): PropField => ({ label, kind: "select", schema: z.string().trim().min(1, "Choose a menu."), prop: "", hint });
const style = (label: string, key: keyof typeof globalStylesSchema.shape, hint?: string): PropField => ({ label, kind: "text", schema: globalStylesSchema.shape[key], prop: key, ...(hint ? { hint } : {}) });
const COLOUR = "Six-digit hex, for example #14457a.";

/**
 * Groups of values stored inside one JSON field of the website (decision 362): the navigation bar's
 * and the footer's props (nav_component, footer_component: a name and a props list) and the global
 * styles (global_styles: an object). Each is one form; saving changes only its values and keeps the
 * rest of the JSON; each value is checked by the schema the registry checks the whole JSON with
 * (app/domain/site/website-settings.ts).
 */
export const WEBSITE_JSON_GROUPS = {
  announcementBar: { column: "navComponent", shape: "props", legend: "Announcement bar", fields: ANNOUNCEMENT_BAR_FIELDS },
  navigationBar: {
    column: "navComponent",
    shape: "props",
    legend: "Navigation bar",
    fields: {
      main_menu: { ...menuName("Main menu", "The menu the navigation bar shows."), prop: "main_menu" },
      rent_button_text: { label: "Button text", kind: "text", schema: z.string().trim().min(1, "Enter the button's text.").max(40, "Use at most 40 characters."), prop: "rent_button_text" },
      rent_button_url: {
        label: "Button link",
        kind: "text",
        schema: z.string().trim().max(500, "Use at most 500 characters.").regex(/^(\/(?!\/)\S*|https:\/\/\S+)$/, "Use a path on this site such as /view-locations, or an https:// address."),
        prop: "rent_button_url",
      },
    },
  },
  footer: {
    column: "footerComponent",
    shape: "props",
    legend: "Footer",
    fields: {
      first_menu: { ...menuName("First menu", "The footer's first column."), prop: "first_menu" },
      second_menu: { ...menuName("Second menu", "The footer's second column."), prop: "second_menu" },
    },
  },
  globalStyles: {
    column: "globalStyles",
    shape: "object",
    legend: "Colours, fonts and buttons",
    fields: {
      primary_color: style("Primary colour", "primary_color", COLOUR),
      secondary_color: style("Secondary colour", "secondary_color", COLOUR),
      accent_color: style("Accent colour", "accent_color", COLOUR),
      text_color: style("Text colour", "text_color", COLOUR),
      background_color: style("Background colour", "background_color", COLOUR),
      heading_font: style("Heading font", "heading_font", "A font name, for example Source Sans 3."),
      body_font: style("Body font", "body_font"),
      button_background_color: style("Button colour", "button_background_color", COLOUR),
      button_text_color: style("Button text colour", "button_text_color", COLOUR),
      button_border_radius: style("Button corner radius", "button_border_radius", "For example 6px, 1rem or 0px."),
      nav_background_color: style("Navigation bar colour", "nav_background_color", COLOUR),
      nav_text_color: style("Navigation bar text colour", "nav_text_color", COLOUR),
      footer_background_color: style("Footer colour", "footer_background_color", COLOUR),
      footer_text_color: style("Footer text colour", "footer_text_color", COLOUR),
    },
  },
} as const satisfies Record<string, { column: "navComponent" | "footerComponent" | "globalStyles"; shape: "props" | "object"; legend: string; fields: Record<string, PropField> }>;

export type WebsiteJsonGroupName = keyof typeof WEBSITE_JSON_GROUPS;

export function isWebsiteJsonGroup(name: string): name is WebsiteJsonGroupName {
  return Object.hasOwn(WEBSITE_JSON_GROUPS, name);
}

/** The fields of a group whose value names a menu (their choices are the website's menus). */
export const MENU_FIELDS: readonly string[] = ["main_menu", "first_menu", "second_menu"];

/** A form's subject: a registry entity, or a group of values stored inside one (decision 362). */
export type FormEntity = EditableEntityName | WebsiteJsonGroupName;

export function fieldOf(entity: FormEntity, field: string): EditableField {
  if (isWebsiteJsonGroup(entity)) return (WEBSITE_JSON_GROUPS[entity].fields as Record<string, PropField>)[field]!;
  return EDITABLE_ENTITIES[entity].fields[field]!;
}

const CONTROL_OVERRIDES: Partial<Record<FormEntity, Record<string, FormControl>>> = {
  hoursItem: { days: "weekdays" },
  unitType: { promotionPlanId: "choice" },
};

export function controlOf(entity: FormEntity, field: string): FormControl {
  return CONTROL_OVERRIDES[entity]?.[field] ?? fieldOf(entity, field).kind;
}

type Props = Array<{ name: string; value: string | boolean | number }>;

/** A group's values as stored in its JSON (a missing flag is off, a missing text empty). */
export function jsonGroupValues(group: WebsiteJsonGroupName, json: unknown): Record<string, unknown> {
  const g = WEBSITE_JSON_GROUPS[group];
  const obj = (json && typeof json === "object" ? json : {}) as Record<string, unknown> & { props?: Props };
  const get = (prop: string) => (g.shape === "props" ? (obj.props ?? []).find((p) => p.name === prop)?.value : obj[prop]);
  return Object.fromEntries(
    Object.entries(g.fields as Record<string, PropField>).map(([key, f]) => {
      const v = get(f.prop);
      return [key, f.kind === "bool" ? v === true : String(v ?? "")];
    }),
  );
}

/** The group's JSON with its values set, every other prop and key kept. */
export function withJsonGroup(group: WebsiteJsonGroupName, json: unknown, values: Record<string, unknown>): Record<string, unknown> {
  const g = WEBSITE_JSON_GROUPS[group];
  const fields = Object.entries(g.fields as Record<string, PropField>);
  if (g.shape === "object") {
    const base = (json && typeof json === "object" ? json : {}) as Record<string, unknown>;
    return { ...base, ...Object.fromEntries(fields.map(([key, f]) => [f.prop, values[key]])) };
  }
  const base = (json && typeof json === "object" ? json : { name: "default", props: [] }) as Record<string, unknown> & { props?: Props };
  const props: Props = [...(base.props ?? [])];
  for (const [key, f] of fields) {
    const value = values[key] as Props[number]["value"];
    const i = props.findIndex((p) => p.name === f.prop);
    if (i >= 0) props[i] = { ...props[i]!, value };
    else props.push({ name: f.prop, value });
  }
  return { ...base, props };
}

/** The announcement bar's values in a navComponent (JSON). */
export function announcementOf(nav: unknown): { enabled: boolean; text: string; phone: string } {
  return jsonGroupValues("announcementBar", nav) as { enabled: boolean; text: string; phone: string };
}

/** navComponent with the announcement bar's three props set, every other prop and key kept. */
export function withAnnouncement(nav: unknown, values: { enabled: boolean; text: string; phone: string }): Record<string, unknown> {
  return withJsonGroup("announcementBar", nav, values);
}

/** Kinds a form can edit (images are set by uploads on the photos pages; references by the page). */
export function isFormEditable(entity: EditableEntityName, field: string): boolean {
  const kind = EDITABLE_ENTITIES[entity].fields[field]?.kind;
  return kind !== undefined && kind !== "image" && kind !== "images" && kind !== "ref";
}

type Raw = string | string[] | undefined | null;
const first = (v: unknown): string => {
  const one = Array.isArray(v) ? v[0] : v;
  return typeof one === "string" ? one : "";
};

/** The schema of one control: the form's text in, the field's value out (checked by the registry's schema). */
function controlSchema(control: FormControl, field: EditableField): z.ZodType {
  const numericOptions = field.options?.length && field.options.every((o) => /^\d+$/.test(o));
  const coerce = z.any().transform((raw: Raw, ctx): unknown => {
    const text = first(raw);
    switch (control) {
      case "bool":
        return text !== "" && text !== "false";
      case "money": {
        if (text.trim() === "") return null;
        const cents = parseDollars(text);
        if (cents === null) {
          ctx.addIssue({ code: "custom", message: "Enter an amount in dollars, such as 25 or 25.50." });
          return z.NEVER;
        }
        return cents;
      }
      case "int":
      case "number":
      case "choice":
      case "ref": {
        const t = text.trim();
        if (t === "") return null;
        const n = Number(t);
        if (!Number.isFinite(n)) {
          ctx.addIssue({ code: "custom", message: control === "int" ? "Enter a whole number." : "Enter a number." });
          return z.NEVER;
        }
        return n;
      }
      case "time":
        return text.trim() === "" ? null : text.trim();
      case "date":
        return text.trim();
      case "select":
        return numericOptions && /^\d+$/.test(text) ? Number(text) : text;
      case "list":
        return text
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter(Boolean);
      case "json": {
        if (text.trim() === "") return {};
        try {
          return JSON.parse(text) as unknown;
        } catch (e) {
          ctx.addIssue({ code: "custom", message: `This is not valid JSON (${e instanceof Error ? e.message : "check the brackets and quotes"}). Nothing was saved.` });
          return z.NEVER;
        }
      }
      case "weekdays": {
        const chosen = new Set((Array.isArray(raw) ? raw : raw ? [raw] : []).map(String));
        return WEEKDAYS.filter((d) => chosen.has(d)).join(",");
      }
      default:
        return text;
    }
  });
  return coerce.pipe(field.schema as z.ZodType<unknown>);
}

/** The schema Conform parses one form with: the fields given, each through its control. */
export function formSchemaFor(entity: FormEntity, fields: readonly string[]) {
  const shape = z.object(Object.fromEntries(fields.map((f) => [f, controlSchema(controlOf(entity, f), fieldOf(entity, f))])));
  // A control the browser does not send (an unticked checkbox, no day ticked) is an empty one.
  return z.preprocess((input) => {
    const given = input && typeof input === "object" ? (input as Record<string, unknown>) : {};
    return Object.fromEntries(fields.map((f) => [f, given[f] ?? ""]));
  }, shape);
}

/** Plain messages for the few issues the registry's schemas leave to zod (a number out of range, no choice). */
export const formErrorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code === "too_small" && issue.origin === "number") return `Enter ${String(issue.minimum)} or more.`;
  if (issue.code === "too_big" && issue.origin === "number") return `Enter ${String(issue.maximum)} or less.`;
  if (issue.code === "invalid_type") return issue.expected === "number" ? "Enter a number." : "Enter a value.";
  if (issue.code === "invalid_union" || issue.code === "invalid_value") return "Choose one of the options.";
  return undefined;
};

/** The text (or, for the days' checkboxes, the list) a control shows for a value. */
export function toFormValue(control: FormControl, value: unknown): string | string[] {
  if (value === null || value === undefined) return control === "weekdays" ? [] : control === "json" ? "{}" : "";
  switch (control) {
    case "bool":
      return value === true ? "on" : "";
    case "list":
      return Array.isArray(value) ? value.map(String).join("\n") : String(value);
    case "json":
      return JSON.stringify(value, null, 2);
    case "weekdays":
      return String(value).split(",").filter(Boolean);
    case "money":
      return typeof value === "number" && Number.isInteger(value) ? centsForInput(value) : String(value);
    default:
      return typeof value === "object" ? JSON.stringify(value) : String(value);
  }
}

/** A value as a person reads it in a message: short, with empty said in words, money in dollars. */
function displayValue(value: unknown, control?: FormControl): string {
  if (value === null || value === undefined || value === "") return "(empty)";
  if (control === "money" && typeof value === "number" && Number.isInteger(value)) return formatCents(value);
  if (value === true) return "on";
  if (value === false) return "off";
  const text = Array.isArray(value) ? value.map(String).join(", ") : typeof value === "object" ? JSON.stringify(value) : String(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** What a stale save says beside the field (decision 302). */
export function conflictMessage(label: string, theirs: unknown, yours: unknown, control?: FormControl): string {
  return `Someone else changed ${label} to «${displayValue(theirs, control)}» since you opened this page; yours was «${displayValue(yours, control)}». Choose which to keep.`;
}

/** The location details page's forms: one per group of the location's fields. */
export const LOCATION_GROUPS = {
  "location-contact": { legend: "Name, status and contact", fields: ["name", "status", "phoneNumber", "sms", "email", "externalPaymentLink"] },
  "location-links": {
    legend: "Social and review links",
    fields: ["facebook", "yelp", "google", "twitter", "sparefoot", "linkedin", "instagram", "googleReviewLink", "yelpReviewLink", "facebookReviewLink"],
  },
  "location-messages": { legend: "Messages", fields: ["rentalSuccessMessage", "reservationSuccessMessage", "moveOutConfirmationMessage", "autopayTerms"] },
  "location-meta": { legend: "Search engines", fields: ["metaTitle", "metaTagline", "metaDescription"] },
  "location-flags": {
    legend: "Unit types and charges shown",
    fields: ["isShowOnlySpecificUnitTypes", "specificUnitTypesToShow", "isShowExtraChargesAtCheckout", "isHideExtraChargesForParkingOrOffice", "hasMatchOnLocationPageFilter"],
  },
} as const satisfies Record<string, { legend: string; fields: readonly string[] }>;

/** The fields each console content page edits (one form a record). */
export const UNIT_TYPE_FIELDS = ["isHiddenOnline", "description"] as const;
/** The unit type's promotion that applies at rent time (issue 40), its own form on the unit type's page: the fields at a location of this software: a SiteLink plan, or a local amount or percentage. */
export function unitTypePromotionFields(software: "local" | "sitelink"): readonly string[] {
  return software === "sitelink"
    ? ["promotionKind", "promotionPlanId", "promotionStartsOn", "promotionEndsOn"]
    : ["promotionKind", "promotionAmount", "promotionPercent", "promotionMonths", "promotionStartsOn", "promotionEndsOn"];
}
export const WEBSITE_GROUPS = {
  "website-general": { legend: "Website name and analytics", fields: ["websiteName", "analyticsId"] },
  "website-templates": { legend: "Unit page title and description", fields: ["unitPageTitle", "unitPageMeta"] },
  "website-code": { legend: "Custom code", fields: ["customCss", "customJs", "customHeaderCode", "customBodyCode"] },
} as const satisfies Record<string, { legend: string; fields: readonly string[] }>;
export const COMPANY_FIELDS = ["name", "tagline", "companyInformation", "privacyPolicy"] as const;
export const PAGE_FIELDS = ["title", "metaTitle", "metaDescription", "content"] as const;
export const CONTENT_ITEM_FIELDS = ["tag", "title", "content"] as const;
export const MENU_ITEM_FIELDS = ["name", "url", "parentId", "isInternal", "isTargetBlank"] as const;
export const REDIRECT_FIELDS = ["fromPath", "toPath", "statusCode", "isForced"] as const;
export const OLD_DOMAIN_FIELDS = ["hostname", "locationId"] as const;
