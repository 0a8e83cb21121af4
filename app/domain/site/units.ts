/**
 * Unit types as visitors see them: size groups, type labels, rate display, availability wording,
 * filters, which types a location shows, and the Rent / Reserve actions. Pure: no I/O, no clock.
 * Money in integer cents. See docs/decisions/031-unit-listing-rules.md.
 */
import { hasWebRate, monthlyRateFor } from "./rates";
import { slugify } from "../shared/slug";

export type UnitCategory = "climate_controlled" | "drive_up" | "indoor" | "parking";

/** The fields of a unit type these rules need (a subset of the port's UnitTypeAvailability). */
export interface UnitTypeFacts {
  id: string;
  name: string;
  category: UnitCategory;
  width: number;
  length: number;
  standardRate: number;
  webRate: number;
  availableCount: number;
}

// ---------------------------------------------------------------- sizes

export const SIZE_GROUPS = ["small", "medium", "large", "parking"] as const;
export type SizeGroup = (typeof SIZE_GROUPS)[number];

export const SIZE_GROUP_LABELS: Record<SizeGroup, string> = {
  small: "Small",
  medium: "Medium",
  large: "Large",
  parking: "Parking",
};

/** Largest area (sq ft) of each storage group; bigger than MEDIUM_MAX is large. */
const SMALL_MAX_AREA = 50;
const MEDIUM_MAX_AREA = 150;

/** Parking spaces are "parking" whatever their size; storage units are grouped by floor area. */
export function sizeGroup(t: { category: UnitCategory; width: number; length: number }): SizeGroup {
  if (t.category === "parking") return "parking";
  const area = t.width * t.length;
  if (area <= SMALL_MAX_AREA) return "small";
  if (area <= MEDIUM_MAX_AREA) return "medium";
  return "large";
}

/** 10 → "10", 7.5 → "7.5" (feet as the operator writes them). */
export function feet(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
}

/** "10' x 10'" */
export function sizeText(t: { width: number; length: number }): string {
  return `${feet(t.width)}' x ${feet(t.length)}'`;
}

/** "10x10": the size key used in links such as /units?size=10x10. */
export function sizeKey(t: { width: number; length: number }): string {
  return `${feet(t.width)}x${feet(t.length)}`;
}

export function area(t: { width: number; length: number }): number {
  return Math.round(t.width * t.length * 100) / 100;
}

// ---------------------------------------------------------------- types

const UNIT_CATEGORIES: readonly UnitCategory[] = ["climate_controlled", "drive_up", "indoor", "parking"];

export const CATEGORY_LABELS: Record<UnitCategory, string> = {
  climate_controlled: "Climate controlled",
  drive_up: "Drive-up",
  indoor: "Indoor",
  parking: "Parking",
};

// ---------------------------------------------------------------- rates

export interface RateDisplay {
  /** What the visitor pays per month, in cents. */
  rate: number;
  /** The standard rate to show struck through next to the web rate, or null. */
  wasRate: number | null;
  /** Cents saved per month against the standard rate (0 when there is no web-rate saving). */
  saving: number;
  /** "Web rate" when the web rate is what is charged, else "Standard rate". */
  label: "Web rate" | "Standard rate";
}

/**
 * Which rate is charged and shown (docs/decisions/031):
 * - web rates off: the standard rate, nothing else;
 * - web rates on: the web rate is charged; the standard rate is shown struck through only when it is
 *   higher (a real saving). A missing (0 or negative) web rate falls back to the standard rate.
 */
export function rateDisplay(t: { standardRate: number; webRate: number }, webRatesEnabled: boolean): RateDisplay {
  const rate = monthlyRateFor(t, webRatesEnabled);
  if (!webRatesEnabled || !hasWebRate(t)) {
    return { rate, wasRate: null, saving: 0, label: "Standard rate" };
  }
  const saving = t.standardRate - rate;
  return saving > 0 ? { rate, wasRate: t.standardRate, saving, label: "Web rate" } : { rate, wasRate: null, saving: 0, label: "Web rate" };
}

// ---------------------------------------------------------------- availability

/** At or below this many available units a card says "Only N left". */
const FEW_LEFT_THRESHOLD = 3;

export type AvailabilityState = "sold_out" | "few_left" | "available";

export function availabilityState(availableCount: number): AvailabilityState {
  if (availableCount <= 0) return "sold_out";
  if (availableCount <= FEW_LEFT_THRESHOLD) return "few_left";
  return "available";
}

export function availabilityText(availableCount: number): string {
  const state = availabilityState(availableCount);
  if (state === "sold_out") return "Sold out";
  if (state === "few_left") return `Only ${availableCount} left`;
  return "Available";
}

// ---------------------------------------------------------------- actions

interface UnitActionFlags {
  rentalsEnabled: boolean;
  reservationsEnabled: boolean;
  /** False when the location's cards need our payment gateway and none is configured (decision 200). Default true. */
  cardPaymentsOnline?: boolean;
}

export interface UnitActions {
  /** /rent/{id}, or null (sold out, or rentals off). */
  rentHref: string | null;
  /** /reserve/{id}, or null (sold out, or reservations off). */
  reserveHref: string | null;
  /** Rentals are switched off: show RENTALS_DISABLED_MESSAGE with the phone number instead of Rent. */
  rentalsDisabled: boolean;
  /** Rentals are on but no card is taken online here (no payment gateway, decision 200): call to rent instead of Rent. */
  callToRent: boolean;
  soldOut: boolean;
}

/** The buttons of a unit type (contracts: Rent → /rent/{unitTypeId}, Reserve → /reserve/{unitTypeId}). */
export function unitActions(t: { id: string; availableCount: number }, flags: UnitActionFlags): UnitActions {
  const soldOut = t.availableCount <= 0;
  const id = encodeURIComponent(t.id);
  const online = flags.cardPaymentsOnline ?? true;
  return {
    soldOut,
    rentalsDisabled: !soldOut && !flags.rentalsEnabled,
    callToRent: !soldOut && flags.rentalsEnabled && !online,
    rentHref: !soldOut && flags.rentalsEnabled && online ? `/rent/${id}` : null,
    reserveHref: !soldOut && flags.reservationsEnabled ? `/reserve/${id}` : null,
  };
}

// ---------------------------------------------------------------- which types a location shows

export interface VisibilitySettings {
  isShowOnlySpecificUnitTypes: boolean;
  specificUnitTypesToShow: readonly string[];
}

const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, " ");

/**
 * Whether the website shows a unit type anywhere it lists types: not when the type is hidden online
 * (issue 24, decision 326), nor when the location's specific-types list leaves it out.
 */
export function isUnitTypeShown(t: Pick<UnitTypeFacts, "id" | "name" | "width" | "length"> & { isHiddenOnline?: boolean }, s: VisibilitySettings): boolean {
  if (t.isHiddenOnline) return false;
  return isAmongSpecificUnitTypes(t, s);
}

/**
 * is_show_only_specific_unit_types with specific_unit_types_to_show (decision 031): when on, only the
 * unit types named in the list are shown (anywhere on the site). An entry matches a type by its name
 * ("Climate Controlled"), by its size and name ("10x10 Climate Controlled") or by its id, ignoring
 * case and extra spaces. When on with an empty list, no type is shown. When off, every type is shown.
 */
export function isAmongSpecificUnitTypes(t: Pick<UnitTypeFacts, "id" | "name" | "width" | "length">, s: VisibilitySettings): boolean {
  if (!s.isShowOnlySpecificUnitTypes) return true;
  const wanted = new Set(s.specificUnitTypesToShow.map(norm));
  return wanted.has(norm(t.name)) || wanted.has(norm(`${sizeKey(t)} ${t.name}`)) || wanted.has(norm(t.id));
}

// ---------------------------------------------------------------- filters

export interface UnitFilters {
  /** A size group, or null for any. */
  group: SizeGroup | null;
  /** An exact size key such as "10x10" (links from the size guide), or null. */
  size: string | null;
  category: UnitCategory | null;
  /** A location slug (/units only), or null. */
  location: string | null;
}

export const NO_FILTERS: UnitFilters = { group: null, size: null, category: null, location: null };

const SIZE_KEY = /^(\d{1,3}(?:\.\d{1,2})?)x(\d{1,3}(?:\.\d{1,2})?)$/;

/**
 * Reads the filters from a query string: `size` (a group name or an exact size like "10x10"),
 * `type` (a category) and `location` (a slug). Unknown values are ignored, never an error.
 */
export function parseUnitFilters(params: URLSearchParams): UnitFilters {
  const size = (params.get("size") ?? "").trim().toLowerCase();
  const type = (params.get("type") ?? "").trim().toLowerCase();
  const location = (params.get("location") ?? "").trim().toLowerCase();
  const exact = SIZE_KEY.exec(size.replace(/\s+/g, "").replace(/[×*]/g, "x"));
  return {
    group: (SIZE_GROUPS as readonly string[]).includes(size) ? (size as SizeGroup) : null,
    size: exact ? `${feet(Number(exact[1]))}x${feet(Number(exact[2]))}` : null,
    category: (UNIT_CATEGORIES as readonly string[]).includes(type) ? (type as UnitCategory) : null,
    location: /^[a-z0-9-]{1,100}$/.test(location) ? location : null,
  };
}

/** The query string of a set of filters ("" when none), in a stable order. */
export function unitFiltersQuery(f: UnitFilters): string {
  const p = new URLSearchParams();
  const size = f.size ?? f.group;
  if (size) p.set("size", size);
  if (f.category) p.set("type", f.category);
  if (f.location) p.set("location", f.location);
  const q = p.toString();
  return q ? `?${q}` : "";
}

export function matchesUnitFilters(
  t: Pick<UnitTypeFacts, "category" | "width" | "length">,
  f: UnitFilters,
  locationSlug?: string,
): boolean {
  if (f.group && sizeGroup(t) !== f.group) return false;
  if (f.size && sizeKey(t) !== f.size) return false;
  if (f.category && t.category !== f.category) return false;
  if (f.location && locationSlug !== undefined && locationSlug !== f.location) return false;
  return true;
}

export function hasAnyFilter(f: UnitFilters): boolean {
  return Boolean(f.group || f.size || f.category || f.location);
}

export interface FilterOption<V extends string> {
  value: V;
  label: string;
  /** Unit types with this value among those shown. */
  count: number;
}

/**
 * The options of the size and type filters. With `onlyMatching` (has_match_on_location_page_filter)
 * only options that match at least one shown unit type are offered; otherwise every option is offered.
 * A selected option is always kept so the form shows what the page is filtered by.
 */
export function filterOptions(
  types: ReadonlyArray<Pick<UnitTypeFacts, "category" | "width" | "length">>,
  options: { onlyMatching: boolean; selected: UnitFilters },
): { groups: FilterOption<SizeGroup>[]; categories: FilterOption<UnitCategory>[] } {
  const groups = SIZE_GROUPS.map((g) => ({
    value: g,
    label: SIZE_GROUP_LABELS[g],
    count: types.filter((t) => sizeGroup(t) === g).length,
  })).filter((o) => !options.onlyMatching || o.count > 0 || options.selected.group === o.value);
  const categories = UNIT_CATEGORIES.map((c) => ({
    value: c,
    label: CATEGORY_LABELS[c],
    count: types.filter((t) => t.category === c).length,
  })).filter((o) => !options.onlyMatching || o.count > 0 || options.selected.category === o.value);
  return { groups, categories };
}

// ---------------------------------------------------------------- ordering, sections and slugs

/** Smallest first, then by type label, then by id: the order of every list. */
export function compareUnitTypes(a: UnitTypeFacts, b: UnitTypeFacts): number {
  return (
    a.width * a.length - b.width * b.length ||
    a.width - b.width ||
    CATEGORY_LABELS[a.category].localeCompare(CATEGORY_LABELS[b.category]) ||
    a.name.localeCompare(b.name) ||
    Number(a.id) - Number(b.id) ||
    a.id.localeCompare(b.id)
  );
}

/**
 * is_split_units_by_unit_type: when on, the listing is split into one section per unit type name
 * (in the order the names first appear in the size-sorted list); when off, one list.
 */
export function splitByUnitType<T extends Pick<UnitTypeFacts, "name">>(types: readonly T[]): { name: string; types: T[] }[] {
  const sections = new Map<string, T[]>();
  for (const t of types) {
    const key = t.name.trim();
    const list = sections.get(key) ?? [];
    list.push(t);
    sections.set(key, list);
  }
  return [...sections].map(([name, list]) => ({ name, types: list }));
}

/**
 * URL slugs of a location's unit types, e.g. "10x10-climate-controlled". When two types would share a
 * slug, the one with the lower id keeps it and the others get "-{id}" appended, so existing links stay.
 */
export function unitTypeSlugs(types: ReadonlyArray<Pick<UnitTypeFacts, "id" | "name" | "width" | "length">>): Map<string, string> {
  const base = (t: (typeof types)[number]) => `${sizeKey(t).replace(/\./g, "-")}-${slugify(t.name) || "unit"}`;
  const byId = [...types].sort((a, b) => Number(a.id) - Number(b.id) || a.id.localeCompare(b.id));
  const used = new Set<string>();
  const slugs = new Map<string, string>();
  for (const t of byId) {
    let slug = base(t);
    if (used.has(slug)) slug = `${slug}-${slugify(t.id) || "x"}`;
    used.add(slug);
    slugs.set(t.id, slug);
  }
  return slugs;
}

// ---------------------------------------------------------------- caching

/**
 * Cache-Control of pages that show unit availability (docs/decisions/033): browsers always revalidate,
 * a CDN may serve a copy for 60 s and a stale one for 5 more minutes while it refetches in the
 * background, so counts are at most about a minute old on a busy page.
 */
export const UNIT_AVAILABILITY_CACHE = "public, max-age=0, s-maxage=60, stale-while-revalidate=300";
