import { describe, expect, it } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { locationUnitListing, type ListingUnitType } from "~/domain/site/units-listing";
import { NO_FILTERS } from "~/domain/site/units";
import { UnitPrice } from "./unit-card";

const t = (id: string, width: number, length: number, standardRate: number, webRate: number, extra: Partial<ListingUnitType> = {}): ListingUnitType => ({
  id,
  name: "Drive-Up",
  category: "drive_up",
  width,
  length,
  standardRate,
  webRate,
  availableCount: 5,
  features: [],
  description: "",
  floor: 1,
  totalCount: 5,
  isHiddenOnline: false,
  promotion: "",
  images: [],
  ...extra,
});
const location = { name: "Lumberton", urlSlug: "lumberton", phoneNumber: "(910) 555-0134", hasMatchOnLocationPageFilter: false, isShowOnlySpecificUnitTypes: false, specificUnitTypesToShow: [] };
const settings = { webRatesEnabled: false, rentalsEnabled: true, reservationsEnabled: false, splitByUnitType: false, valuePricingEnabled: false };
const types = [t("1", 10, 10, 10_000, 9_000), t("2", 10, 15, 12_000, 11_000), t("3", 5, 5, 4_000, 3_600), t("4", 10, 20, 20_000, 0), t("5", 10, 20, 18_000, 0, { name: "Parking", category: "parking" })];
const cards = (s: Partial<typeof settings>) => locationUnitListing(types, location, { ...settings, ...s }, NO_FILTERS).sections.flatMap((x) => x.cards);

describe("web rates", () => {
  it("off (seed): the standard rate alone", () => {
    expect(cards({}).map((c) => [c.rate.rate, c.rate.wasRate])).toEqual([
      [4_000, null],
      [10_000, null],
      [12_000, null],
      [20_000, null],
      [18_000, null],
    ]);
  });

  it("on: the web rate, with the standard rate beside it when higher (a missing web rate falls back)", () => {
    expect(cards({ webRatesEnabled: true }).map((c) => [c.id, c.rate.rate, c.rate.wasRate])).toEqual([
      ["3", 3_600, 4_000],
      ["1", 9_000, 10_000],
      ["2", 11_000, 12_000],
      ["4", 20_000, null],
      ["5", 18_000, null],
    ]);
  });

  it("renders the standard rate struck through, labelled for screen readers", () => {
    const card = cards({ webRatesEnabled: true }).find((c) => c.id === "1")!;
    const html = renderToStaticMarkup(createElement(UnitPrice, { card }));
    expect(html).toContain('<span class="visually-hidden">Web rate </span><strong class="unit-price__rate">$90.00</strong>');
    expect(html).toContain('<span class="visually-hidden">, standard rate </span><s class="unit-price__was" data-testid="standard-rate">$100.00</s>');
  });
});

describe("value pricing (decision 092)", () => {
  it("off (seed): no value line", () => {
    expect(cards({}).every((c) => c.value === null)).toBe(true);
  });

  it("on: price per square foot of the charged rate, the cheapest per sq ft of each size group marked best value; parking not priced by area", () => {
    const v = cards({ valuePricingEnabled: true, webRatesEnabled: true }).map((c) => [c.id, c.value?.text ?? null, c.value?.bestValue ?? null]);
    expect(v).toEqual([
      ["3", "$1.44 per sq ft", false], // alone in "small": nothing to compare
      ["1", "$0.90 per sq ft", false],
      ["2", "$0.73 per sq ft", true], // medium: 110.00 / 150 beats 90.00 / 100
      ["4", "$1.00 per sq ft", false],
      ["5", null, null],
    ]);
  });

  it("a sold-out type is never the best value", () => {
    const soldOut = locationUnitListing(
      [t("1", 10, 10, 10_000, 0), t("2", 10, 15, 9_000, 0, { availableCount: 0 }), t("6", 10, 10, 11_000, 0)],
      location,
      { ...settings, valuePricingEnabled: true },
      NO_FILTERS,
    ).sections[0]!.cards;
    expect(soldOut.filter((c) => c.value?.bestValue).map((c) => c.id)).toEqual(["1"]);
  });
});
