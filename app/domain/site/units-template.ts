/**
 * The website's unit_page_title and unit_page_meta templates (spec §3): placeholders for the unit's
 * width and length, the unit type, the location name and the location address, e.g.
 * "{width}' x {length}' {unit_type} Storage Unit in {location_name}".
 */
import { feet } from "./units";

type UnitTemplatePlaceholder = "width" | "length" | "unit_type" | "location_name" | "location_address";

interface UnitTemplateValues {
  width: number;
  length: number;
  unitType: string;
  locationName: string;
  locationAddress: string;
}

/** Fallbacks when the website leaves a template empty. */
const DEFAULT_UNIT_PAGE_TITLE = "{width}' x {length}' {unit_type} Storage Unit in {location_name}";
const DEFAULT_UNIT_PAGE_META =
  "Rent a {width}' x {length}' {unit_type} storage unit at {location_name}, {location_address}. See today's price and rent online.";

/** Aliases operators commonly type for the same placeholders. */
const ALIASES: Record<string, UnitTemplatePlaceholder> = {
  width: "width",
  unit_width: "width",
  length: "length",
  unit_length: "length",
  unit_type: "unit_type",
  type: "unit_type",
  location_name: "location_name",
  location: "location_name",
  location_address: "location_address",
  address: "location_address",
};

/**
 * Fills a template. Placeholders are written `{name}` or `{{name}}`, any case, spaces allowed inside
 * the braces. An unknown placeholder is removed (visitors never see braces) and the spaces it leaves
 * are collapsed. An empty template gives "" (callers pick the default).
 */
export function fillUnitTemplate(template: string, v: UnitTemplateValues): string {
  const values: Record<UnitTemplatePlaceholder, string> = {
    width: feet(v.width),
    length: feet(v.length),
    unit_type: v.unitType.trim(),
    location_name: v.locationName.trim(),
    location_address: v.locationAddress.trim(),
  };
  return template
    .replace(/\{\{\s*([a-z_]+)\s*\}\}|\{\s*([a-z_]+)\s*\}/gi, (_m, a: string | undefined, b: string | undefined) => {
      const key = ALIASES[(a ?? b ?? "").toLowerCase()];
      return key ? values[key] : "";
    })
    .replace(/\s+([,.;:!?])/g, "$1")
    .replace(/\s{2,}/g, " ")
    .trim();
}

/** The unit page's title and meta description, from the website's templates or the defaults. */
export function unitPageTexts(templates: { title: string; meta: string }, v: UnitTemplateValues): { title: string; description: string } {
  return {
    title: fillUnitTemplate(templates.title.trim() || DEFAULT_UNIT_PAGE_TITLE, v),
    description: fillUnitTemplate(templates.meta.trim() || DEFAULT_UNIT_PAGE_META, v),
  };
}

/** "4350 Fayetteville Rd, Lumberton, NC 28358" */
export function oneLineAddress(a: { street1: string; street2?: string | null; city: string; stateProvince: string; postal: string } | null): string {
  if (!a) return "";
  return [a.street1, a.street2, a.city, `${a.stateProvince} ${a.postal}`.trim()].filter(Boolean).join(", ");
}
