import { describe, expect, it } from "vitest";
import {
  availabilityText,
  compareUnitTypes,
  filterOptions,
  isUnitTypeShown,
  matchesUnitFilters,
  NO_FILTERS,
  parseUnitFilters,
  rateDisplay,
  sizeGroup,
  splitByUnitType,
  unitActions,
  unitFiltersQuery,
  unitTypeSlugs,
  type UnitCategory,
  type UnitTypeFacts,
} from "./units";

const t = (over: Partial<UnitTypeFacts> = {}): UnitTypeFacts => ({
  id: "1",
  name: "Drive-Up",
  category: "drive_up",
  width: 10,
  length: 10,
  standardRate: 9500,
  webRate: 8600,
  availableCount: 5,
  ...over,
});

describe("rateDisplay", () => {
  it.each([
    ["web rates off: the standard rate only", { standardRate: 9500, webRate: 8600 }, false, { rate: 9500, wasRate: null, saving: 0, label: "Standard rate" }],
    ["web rates on, web rate lower: web rate against the struck standard rate", { standardRate: 9500, webRate: 8600 }, true, { rate: 8600, wasRate: 9500, saving: 900, label: "Web rate" }],
    ["web rates on, same rates: no saving shown", { standardRate: 9500, webRate: 9500 }, true, { rate: 9500, wasRate: null, saving: 0, label: "Web rate" }],
    ["web rates on, web rate higher: charged, never a negative saving", { standardRate: 9500, webRate: 9900 }, true, { rate: 9900, wasRate: null, saving: 0, label: "Web rate" }],
    ["web rates on, no web rate: the standard rate", { standardRate: 9500, webRate: 0 }, true, { rate: 9500, wasRate: null, saving: 0, label: "Standard rate" }],
  ])("%s", (_name, rates, on, expected) => {
    expect(rateDisplay(rates, on)).toEqual(expected);
  });
});

describe("sizeGroup", () => {
  it.each<[number, number, UnitCategory, string]>([
    [5, 5, "climate_controlled", "small"],
    [5, 10, "drive_up", "small"],
    [5, 15, "indoor", "medium"],
    [10, 10, "drive_up", "medium"],
    [10, 15, "climate_controlled", "medium"],
    [10, 20, "drive_up", "large"],
    [10, 30, "drive_up", "large"],
    [10, 20, "parking", "parking"],
    [5, 5, "parking", "parking"],
  ])("%ix%i %s is %s", (width, length, category, group) => {
    expect(sizeGroup({ width, length, category })).toBe(group);
  });
});

describe("availability and actions", () => {
  it.each([
    [0, "Sold out"],
    [1, "Only 1 left"],
    [2, "Only 2 left"],
    [3, "Only 3 left"],
    [4, "Available"],
  ])("%i available reads %s", (n, text) => expect(availabilityText(n)).toBe(text));

  it("links Rent to /rent/{id}; Reserve only when reservations are on", () => {
    expect(unitActions(t({ id: "42" }), { rentalsEnabled: true, reservationsEnabled: false })).toEqual({
      soldOut: false,
      rentalsDisabled: false,
      callToRent: false,
      rentHref: "/rent/42",
      reserveHref: null,
    });
    expect(unitActions(t({ id: "42" }), { rentalsEnabled: true, reservationsEnabled: true }).reserveHref).toBe("/reserve/42");
  });

  it("replaces Rent with the maintenance message when rentals are off", () => {
    expect(unitActions(t(), { rentalsEnabled: false, reservationsEnabled: false })).toMatchObject({ rentHref: null, rentalsDisabled: true });
  });

  it("offers neither button for a sold-out type", () => {
    expect(unitActions(t({ availableCount: 0 }), { rentalsEnabled: true, reservationsEnabled: true })).toEqual({
      soldOut: true,
      rentalsDisabled: false,
      callToRent: false,
      rentHref: null,
      reserveHref: null,
    });
  });

  // Decision 200: no payment gateway for this location's cards: call to rent instead of Rent.
  it.each([
    [{ rentalsEnabled: true, reservationsEnabled: true, cardPaymentsOnline: false }, 3, { rentHref: null, callToRent: true, rentalsDisabled: false, reserveHref: "/reserve/1" }],
    [{ rentalsEnabled: false, reservationsEnabled: false, cardPaymentsOnline: false }, 3, { rentHref: null, callToRent: false, rentalsDisabled: true }],
    [{ rentalsEnabled: true, reservationsEnabled: false, cardPaymentsOnline: false }, 0, { rentHref: null, callToRent: false, soldOut: true }],
    [{ rentalsEnabled: true, reservationsEnabled: false, cardPaymentsOnline: true }, 3, { rentHref: "/rent/1", callToRent: false }],
  ])("%j with %i free: %j", (flags, availableCount, want) => {
    expect(unitActions(t({ id: "1", availableCount }), flags)).toMatchObject(want);
  });
});

describe("filters", () => {
  it("reads groups, exact sizes, types and locations from the query string and ignores junk", () => {
    expect(parseUnitFilters(new URLSearchParams("size=small&type=drive_up"))).toEqual({ ...NO_FILTERS, group: "small", category: "drive_up" });
    expect(parseUnitFilters(new URLSearchParams("size=10X10&location=lumberton-nc-28358"))).toEqual({ ...NO_FILTERS, size: "10x10", location: "lumberton-nc-28358" });
    expect(parseUnitFilters(new URLSearchParams("size=huge&type=<script>&location=../x"))).toEqual(NO_FILTERS);
  });

  it("matches by group, exact size, type and location", () => {
    const unit = t({ width: 10, length: 10, category: "climate_controlled" });
    expect(matchesUnitFilters(unit, NO_FILTERS)).toBe(true);
    expect(matchesUnitFilters(unit, { ...NO_FILTERS, group: "medium" })).toBe(true);
    expect(matchesUnitFilters(unit, { ...NO_FILTERS, group: "small" })).toBe(false);
    expect(matchesUnitFilters(unit, { ...NO_FILTERS, size: "10x10" })).toBe(true);
    expect(matchesUnitFilters(unit, { ...NO_FILTERS, size: "10x15" })).toBe(false);
    expect(matchesUnitFilters(unit, { ...NO_FILTERS, category: "drive_up" })).toBe(false);
    expect(matchesUnitFilters(unit, { ...NO_FILTERS, location: "a-nc-11111" }, "b-nc-22222")).toBe(false);
  });

  it("writes the query string back in a stable order", () => {
    expect(unitFiltersQuery({ group: "large", size: null, category: "parking", location: "x-nc-12345" })).toBe("?size=large&type=parking&location=x-nc-12345");
    expect(unitFiltersQuery(NO_FILTERS)).toBe("");
  });

  it("offers only options with a match when has_match_on_location_page_filter is on, keeping the selected one", () => {
    const types = [t({ category: "drive_up", width: 10, length: 10 }), t({ category: "climate_controlled", width: 5, length: 5 })];
    const all = filterOptions(types, { onlyMatching: false, selected: NO_FILTERS });
    expect(all.groups.map((g) => g.value)).toEqual(["small", "medium", "large", "parking"]);
    expect(all.groups.find((g) => g.value === "large")!.count).toBe(0);
    const matching = filterOptions(types, { onlyMatching: true, selected: { ...NO_FILTERS, category: "parking" } });
    expect(matching.groups.map((g) => g.value)).toEqual(["small", "medium"]);
    expect(matching.categories.map((c) => c.value)).toEqual(["climate_controlled", "drive_up", "parking"]);
  });
});

describe("which types are shown", () => {
  const unit = t({ id: "7", name: "Climate Controlled", width: 10, length: 10 });
  it.each([
    ["off shows everything", { isShowOnlySpecificUnitTypes: false, specificUnitTypesToShow: [] }, true],
    ["on, by name, any case", { isShowOnlySpecificUnitTypes: true, specificUnitTypesToShow: ["climate controlled "] }, true],
    ["on, by size and name", { isShowOnlySpecificUnitTypes: true, specificUnitTypesToShow: ["10x10 Climate Controlled"] }, true],
    ["on, by id", { isShowOnlySpecificUnitTypes: true, specificUnitTypesToShow: ["7"] }, true],
    ["on, another name", { isShowOnlySpecificUnitTypes: true, specificUnitTypesToShow: ["Drive-Up"] }, false],
    ["on, empty list shows none", { isShowOnlySpecificUnitTypes: true, specificUnitTypesToShow: [] }, false],
  ])("%s", (_name, settings, shown) => expect(isUnitTypeShown(unit, settings)).toBe(shown));
});

describe("ordering, sections and slugs", () => {
  it("sorts smallest first", () => {
    const list = [t({ id: "1", width: 10, length: 20 }), t({ id: "2", width: 5, length: 5 }), t({ id: "3", width: 10, length: 10, category: "climate_controlled" }), t({ id: "4", width: 10, length: 10 })];
    expect([...list].sort(compareUnitTypes).map((x) => x.id)).toEqual(["2", "3", "4", "1"]);
  });

  it("splits by unit type name in first-seen order", () => {
    const list = [t({ id: "1", name: "Indoor" }), t({ id: "2", name: "Drive-Up" }), t({ id: "3", name: "Indoor" })];
    expect(splitByUnitType(list).map((s) => [s.name, s.types.map((x) => x.id)])).toEqual([
      ["Indoor", ["1", "3"]],
      ["Drive-Up", ["2"]],
    ]);
  });

  it("gives each type a readable slug, the older one keeping it on a clash", () => {
    const slugs = unitTypeSlugs([
      t({ id: "12", name: "Climate Controlled", width: 10, length: 10 }),
      t({ id: "3", name: "Climate Controlled", width: 10, length: 10 }),
      t({ id: "5", name: "Drive-Up", width: 7.5, length: 10 }),
    ]);
    expect(slugs.get("3")).toBe("10x10-climate-controlled");
    expect(slugs.get("12")).toBe("10x10-climate-controlled-12");
    expect(slugs.get("5")).toBe("7-5x10-drive-up");
  });
});
