/**
 * The cards a location takes: its payment_types (spec §3: category mastercard, visa or discover),
 * not a constant. Pure. docs/decisions/091-accepted-cards-and-offered-types.md.
 */
import type { CardBrand } from "./cards";
import { CARD_BRAND_LABELS } from "./cards";

const BRAND_ORDER: readonly CardBrand[] = ["visa", "mastercard", "discover"];

/** The brands of the location's live (not deleted) payment types, in a stable order, each once. */
export function acceptedCardBrands(types: ReadonlyArray<{ category: string; deletedAt?: Date | null }>): CardBrand[] {
  const present = new Set(types.filter((t) => !t.deletedAt).map((t) => t.category));
  return BRAND_ORDER.filter((b) => present.has(b));
}

/** "Visa, Master Card and Discover" */
export function cardBrandList(brands: readonly CardBrand[]): string {
  const names = brands.map((b) => CARD_BRAND_LABELS[b]);
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** "We accept Visa, Master Card and Discover." */
export function acceptedCardsText(brands: readonly CardBrand[]): string {
  return brands.length ? `We accept ${cardBrandList(brands)}.` : "We do not take card payments online.";
}

/** The message beside the card number when its brand is not one the location takes. */
export function cardNotAcceptedMessage(brands: readonly CardBrand[]): string {
  return `This card is not accepted here. ${acceptedCardsText(brands)}`;
}
