import { describe, expect, it } from "vitest";
import { allUnitsListing, locationUnitListing, type ListingUnitType } from "./units-listing";
import { isAmongSpecificUnitTypes, isUnitTypeShown, NO_FILTERS } from "./units";

const t = (id: string, extra: Partial<ListingUnitType> = {}): ListingUnitType => ({
  id,
  name: "Climate Controlled",
  category: "climate_controlled",
  width: 10,
  length: Number(id) * 5,
  standardRate: 10_000,
  webRate: 9_000,
  availableCount: 3,
  features: [],
  description: "",
  floor: 1,
  totalCount: 3,
  isHiddenOnline: false,
  promotion: "",
  images: [],
  ...extra,
});
const location = { name: "Lumberton", urlSlug: "lumberton", phoneNumber: "(910) 555-0134", hasMatchOnLocationPageFilter: false, isShowOnlySpecificUnitTypes: false, specificUnitTypesToShow: [] };
const settings = { webRatesEnabled: true, rentalsEnabled: true, reservationsEnabled: true, splitByUnitType: false };
const photo = { src: "/media/a.jpg", alt: "A", width: 10, height: 10, src_webp: null };

describe("unit types' website content on the listing (decisions 305, 326)", () => {
  const types = [t("1", { promotion: "  First month $1 ", description: " Wide door. ", images: [{ ...photo, src: " " }, photo] }), t("2", { isHiddenOnline: true }), t("3")];

  it("a hidden type is listed nowhere; the others keep their slugs", () => {
    const cards = locationUnitListing(types, location, settings, NO_FILTERS).sections.flatMap((s) => s.cards);
    expect(cards.map((c) => c.id)).toEqual(["1", "3"]);
    const all = allUnitsListing([{ location, types }], settings, NO_FILTERS).sections.flatMap((s) => s.cards);
    expect(all.map((c) => c.id)).toEqual(["1", "3"]);
    expect(locationUnitListing(types.filter((x) => x.id !== "2"), location, settings, NO_FILTERS).sections[0]!.cards.map((c) => c.slug)).toEqual(cards.map((c) => c.slug));
  });

  it("the card carries the promotion and description trimmed, and the first photo with a source; the price ignores the promotion", () => {
    const [card] = locationUnitListing(types, location, settings, NO_FILTERS).sections[0]!.cards;
    expect(card).toMatchObject({ promotion: "First month $1", description: "Wide door.", image: photo });
    expect(card!.rate.rate).toBe(9_000);
    expect(locationUnitListing([t("1")], location, settings, NO_FILTERS).sections[0]!.cards[0]).toMatchObject({ promotion: "", image: null });
  });

  it("the hidden flag wins over the specific-types list; the list alone is isAmongSpecificUnitTypes", () => {
    const listed = { isShowOnlySpecificUnitTypes: true, specificUnitTypesToShow: ["Climate Controlled"] };
    expect(isUnitTypeShown(t("1", { isHiddenOnline: true }), listed)).toBe(false);
    expect(isUnitTypeShown(t("1"), listed)).toBe(true);
    expect(isAmongSpecificUnitTypes(t("1", { isHiddenOnline: true }), listed)).toBe(true);
  });
});
