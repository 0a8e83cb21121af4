/**
 * The unit listing of a location page, of /units and of a unit type page, as plain data for the
 * components: every rule of ./units.ts applied once, on the server. Pure.
 */
import { formatCents } from "../shared/money";
import {
  area,
  availabilityState,
  availabilityText,
  CATEGORY_LABELS,
  compareUnitTypes,
  filterOptions,
  isUnitTypeShown,
  matchesUnitFilters,
  rateDisplay,
  SIZE_GROUP_LABELS,
  sizeGroup,
  sizeKey,
  sizeText,
  splitByUnitType,
  unitActions,
  unitTypeSlugs,
  type AvailabilityState,
  type FilterOption,
  type RateDisplay,
  type SizeGroup,
  type UnitActions,
  type UnitCategory,
  type UnitFilters,
  type UnitTypeFacts,
  type VisibilitySettings,
} from "./units";

/** What a card needs of a unit type's photo (an Image record, spec §3, carries these and more). */
export interface UnitPhoto {
  src: string;
  alt: string;
  width: number | null;
  height: number | null;
  src_webp: string | null;
}

export interface ListingUnitType extends UnitTypeFacts {
  features: string[];
  description: string;
  floor: number;
  totalCount: number;
  /** Kept off the website (decision 326): never listed. */
  isHiddenOnline: boolean;
  /** Display text shown with the type; it changes no price (decision 305). Empty: none. */
  promotion: string;
  images: readonly UnitPhoto[];
}

export interface ListingLocation extends VisibilitySettings {
  name: string;
  urlSlug: string;
  phoneNumber: string;
  hasMatchOnLocationPageFilter: boolean;
}

export interface AccountUnitSettings {
  webRatesEnabled: boolean;
  rentalsEnabled: boolean;
  /** False: the location takes no card online (no payment gateway, decision 200); its cards say to call to rent. */
  cardPaymentsOnline?: boolean;
  reservationsEnabled: boolean;
  /** accounts.is_split_units_by_unit_type */
  splitByUnitType: boolean;
  /** is_value_pricing_enabled (decision 092): price per square foot and the best value of each size group. */
  valuePricingEnabled?: boolean;
}

/** Value pricing (decision 092): what a card shows when it is on. */
export interface ValueView {
  /** Cents per square foot per month, rounded half up. */
  perSqFt: number;
  /** "$0.90 per sq ft" */
  text: string;
  /** The lowest price per square foot among the rentable storage units of its size group at its location. */
  bestValue: boolean;
}

export interface UnitCardView {
  id: string;
  /** The unit type page. */
  href: string;
  slug: string;
  name: string;
  category: UnitCategory;
  categoryLabel: string;
  sizeText: string;
  sizeKey: string;
  sizeGroup: SizeGroup;
  sizeGroupLabel: string;
  area: number;
  floor: number;
  features: string[];
  description: string;
  /** The promotion's text (decision 305), trimmed; empty for none. Display only. */
  promotion: string;
  /** The type's first photo, shown small on its card; null without one. */
  image: UnitPhoto | null;
  rate: RateDisplay;
  /** Value pricing, or null when it is off (or for parking, which is not priced by area). */
  value: ValueView | null;
  availability: { state: AvailabilityState; text: string; count: number };
  actions: UnitActions;
  locationName: string;
  locationSlug: string;
  phoneNumber: string;
  /** Whether the card matches the current filters (non-matching cards are rendered hidden). */
  matches: boolean;
}

export interface UnitSectionView {
  key: string;
  heading: string | null;
  /** A link for the heading (the location page on /units). */
  headingHref: string | null;
  cards: UnitCardView[];
}

export interface UnitListingView {
  sections: UnitSectionView[];
  /** Cards matching the filters. */
  matchingCount: number;
  /** Cards on the page (matching or not). */
  totalCount: number;
  options: { groups: FilterOption<SizeGroup>[]; categories: FilterOption<UnitCategory>[] };
  filters: UnitFilters;
  /** Sentences for visitors when a location's software could not be read (the page still renders). */
  notices: string[];
  /** "Availability as of 2:41 PM." per location whose counts come from a sync (SiteLink); empty when live. */
  freshness: string[];
}

function unitCardView(
  t: ListingUnitType,
  location: ListingLocation,
  slug: string,
  settings: AccountUnitSettings,
  filters: UnitFilters,
): UnitCardView {
  return {
    id: t.id,
    slug,
    href: `/locations/${location.urlSlug}/units/${slug}`,
    name: t.name,
    category: t.category,
    categoryLabel: CATEGORY_LABELS[t.category],
    sizeText: sizeText(t),
    sizeKey: sizeKey(t),
    sizeGroup: sizeGroup(t),
    sizeGroupLabel: SIZE_GROUP_LABELS[sizeGroup(t)],
    area: area(t),
    floor: t.floor,
    features: t.features,
    description: t.description.trim(),
    promotion: t.promotion.trim(),
    image: t.images.find((i) => i.src.trim() !== "") ?? null,
    rate: rateDisplay(t, settings.webRatesEnabled),
    value: settings.valuePricingEnabled ? valueView(rateDisplay(t, settings.webRatesEnabled).rate, t) : null,
    availability: { state: availabilityState(t.availableCount), text: availabilityText(t.availableCount), count: t.availableCount },
    actions: unitActions(t, settings),
    locationName: location.name,
    locationSlug: location.urlSlug,
    phoneNumber: location.phoneNumber,
    matches: matchesUnitFilters(t, filters, location.urlSlug),
  };
}

function valueView(rate: number, t: Pick<ListingUnitType, "width" | "length" | "category">): ValueView | null {
  const sqft = t.width * t.length;
  if (t.category === "parking" || sqft <= 0) return null;
  const perSqFt = Math.round(rate / sqft);
  return { perSqFt, text: `${formatCents(perSqFt)} per sq ft`, bestValue: false };
}

/**
 * Marks the best value of each size group of one location: the rentable card with the lowest price
 * per square foot (ties: the smaller, then the first listed). Only when at least two cards compete.
 */
function markBestValue(cards: UnitCardView[]): UnitCardView[] {
  const best = new Map<string, UnitCardView>();
  const counts = new Map<string, number>();
  for (const c of cards) {
    if (!c.value || c.actions.soldOut) continue;
    const key = `${c.locationSlug}:${c.sizeGroup}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const current = best.get(key);
    if (!current || c.value.perSqFt < current.value!.perSqFt) best.set(key, c);
  }
  const winners = new Set([...best].filter(([key]) => (counts.get(key) ?? 0) > 1).map(([, c]) => c));
  return cards.map((c) => (winners.has(c) && c.value ? { ...c, value: { ...c.value, bestValue: true } } : c));
}

/** The unit types of one location a visitor may see (is_show_only_specific_unit_types), smallest first. */
export function shownUnitTypes<T extends ListingUnitType>(types: readonly T[], location: VisibilitySettings): T[] {
  return types.filter((t) => isUnitTypeShown(t, location)).sort(compareUnitTypes);
}

/** A location page's listing: every shown type, sold-out ones included, split by type name when asked. */
export function locationUnitListing(
  types: readonly ListingUnitType[],
  location: ListingLocation,
  settings: AccountUnitSettings,
  filters: UnitFilters,
): UnitListingView {
  const shown = shownUnitTypes(types, location);
  const slugs = unitTypeSlugs(types);
  const f = { ...filters, location: null };
  const cards = markBestValue(shown.map((t) => unitCardView(t, location, slugs.get(t.id)!, settings, f)));
  const sections: UnitSectionView[] = settings.splitByUnitType
    ? splitByUnitType(cards).map((s) => ({ key: `type-${s.name}`, heading: s.name, headingHref: null, cards: s.types }))
    : [{ key: "all", heading: null, headingHref: null, cards }];
  return {
    sections,
    matchingCount: cards.filter((c) => c.matches).length,
    totalCount: cards.length,
    options: filterOptions(shown, { onlyMatching: location.hasMatchOnLocationPageFilter, selected: f }),
    filters: f,
    notices: [],
    freshness: [],
  };
}

/**
 * /units: the rentable (not sold-out, shown) unit types of every live location, one section per
 * location, filtered by size, type and location.
 */
export function allUnitsListing(
  /** `settings`: the location's own, when they differ from the account's (decision 201). */
  locations: ReadonlyArray<{ location: ListingLocation; types: readonly ListingUnitType[]; settings?: AccountUnitSettings }>,
  accountSettings: AccountUnitSettings,
  filters: UnitFilters,
): UnitListingView {
  const sections: UnitSectionView[] = [];
  const everyShown: ListingUnitType[] = [];
  for (const { location, types, settings = accountSettings } of locations) {
    const rentable = shownUnitTypes(types, location).filter((t) => t.availableCount > 0);
    const slugs = unitTypeSlugs(types);
    everyShown.push(...rentable);
    sections.push({
      key: `location-${location.urlSlug}`,
      heading: location.name,
      headingHref: `/locations/${location.urlSlug}`,
      cards: markBestValue(rentable.map((t) => unitCardView(t, location, slugs.get(t.id)!, settings, filters))),
    });
  }
  const cards = sections.flatMap((s) => s.cards);
  return {
    sections,
    matchingCount: cards.filter((c) => c.matches).length,
    totalCount: cards.length,
    options: filterOptions(everyShown, { onlyMatching: false, selected: filters }),
    filters,
    notices: [],
    freshness: [],
  };
}

/** "Showing 4 of 12 unit types" */
export function listingSummary(matching: number, total: number): string {
  if (total === 0) return "No unit types to show";
  if (matching === total) return `Showing all ${total} unit ${total === 1 ? "type" : "types"}`;
  return `Showing ${matching} of ${total} unit ${total === 1 ? "type" : "types"}`;
}
