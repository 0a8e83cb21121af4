import { eq } from "drizzle-orm";
import type { RouterContextProvider } from "react-router";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, locations } from "~/db/schema";
import { getAccount } from "~/db/queries/site.server";
import { getAllUnitsListing, getLocationUnitListing, getUnitAvailability, getUnitsLocation, listUnitTypePagePaths } from "~/db/queries/units.server";
import { createTestDatabase } from "../support/db";
import { loadContext } from "../support/route-helpers";

const LUMBERTON = "lumberton-nc-28358";

describe("unit listing read models on the seeded database", () => {
  let handle: DatabaseHandle;
  let context: RouterContextProvider;
  const account = async () => (await getAccount(handle.db, (await handle.db.query.accounts.findFirst())!.id))!;
  const lumbertonListing = async (query = "") => {
    const a = await account();
    const location = (await getUnitsLocation(handle.db, a.id, LUMBERTON))!;
    return getLocationUnitListing(loadContext(handle.db), location, a, new URLSearchParams(query));
  };

  beforeAll(async () => {
    handle = await createTestDatabase();
    context = loadContext(handle.db);
  });
  afterAll(() => handle.close());
  beforeEach(async () => {
    await handle.db.update(accounts).set({ isSplitUnitsByUnitType: false });
    await handle.db
      .update(locations)
      .set({ isShowOnlySpecificUnitTypes: false, specificUnitTypesToShow: [], hasMatchOnLocationPageFilter: false });
  });

  it("reads a location's availability once per request", async () => {
    const location = (await getUnitsLocation(handle.db, (await account()).id, LUMBERTON))!;
    const first = getUnitAvailability(context, location);
    expect(getUnitAvailability(context, location)).toBe(first);
    expect(getUnitAvailability(loadContext(handle.db), location)).not.toBe(first);
    expect((await first).length).toBe(12);
  });

  it("lists every Lumberton type, sold-out ones included, with Rent links and no Reserve (seeded flags)", async () => {
    const listing = await lumbertonListing();
    const cards = listing.sections.flatMap((s) => s.cards);
    expect(listing.sections).toHaveLength(1);
    expect(cards).toHaveLength(12);
    expect(cards.filter((c) => c.actions.soldOut)).toHaveLength(2);
    for (const c of cards.filter((c) => !c.actions.soldOut)) {
      expect(c.actions.rentHref).toBe(`/rent/${c.id}`);
      expect(c.actions.reserveHref).toBeNull();
      expect(c.rate.wasRate).toBeNull();
    }
    expect(listing.notices).toEqual([]);
  });

  it("marks cards that do not match the query-string filters", async () => {
    const listing = await lumbertonListing("size=small&type=climate_controlled");
    const matching = listing.sections.flatMap((s) => s.cards).filter((c) => c.matches);
    expect(matching.map((c) => c.sizeKey)).toEqual(["5x5", "5x10"]);
    expect(listing.matchingCount).toBe(2);
    expect(listing.totalCount).toBe(12);
  });

  it("shows only the named unit types when is_show_only_specific_unit_types is on, everywhere", async () => {
    await handle.db
      .update(locations)
      .set({ isShowOnlySpecificUnitTypes: true, specificUnitTypesToShow: ["parking"] })
      .where(eq(locations.urlSlug, LUMBERTON));
    const cards = (await lumbertonListing()).sections.flatMap((s) => s.cards);
    expect(cards.map((c) => c.name)).toEqual(["Parking", "Parking"]);
    const all = await getAllUnitsListing(loadContext(handle.db), await account(), new URLSearchParams());
    const lumberton = all.listing.sections.find((s) => s.heading === "Lumberton")!;
    expect(new Set(lumberton.cards.map((c) => c.name))).toEqual(new Set(["Parking"]));
    const jacksonville = all.listing.sections.find((s) => s.heading === "Jacksonville")!;
    expect(jacksonville.cards.length).toBeGreaterThan(2);
  });

  it("offers only filter options with a match when has_match_on_location_page_filter is on", async () => {
    await handle.db
      .update(locations)
      .set({ isShowOnlySpecificUnitTypes: true, specificUnitTypesToShow: ["Parking"], hasMatchOnLocationPageFilter: true })
      .where(eq(locations.urlSlug, LUMBERTON));
    const { options } = await lumbertonListing();
    expect(options.groups.map((g) => g.value)).toEqual(["parking"]);
    expect(options.categories.map((c) => c.value)).toEqual(["parking"]);
  });

  it("splits the listing by unit type name when is_split_units_by_unit_type is on", async () => {
    await handle.db.update(accounts).set({ isSplitUnitsByUnitType: true });
    const listing = await lumbertonListing();
    expect(listing.sections.map((s) => s.heading)).toEqual(["Climate Controlled", "Indoor", "Drive-Up", "Parking"]);
    expect(listing.sections.flatMap((s) => s.cards)).toHaveLength(12);
  });

  it("/units lists only rentable types of live locations and filters by location", async () => {
    const { listing, locations: live } = await getAllUnitsListing(loadContext(handle.db), await account(), new URLSearchParams("location=jacksonville-nc-28546"));
    expect(live.map((l) => l.urlSlug)).toEqual([LUMBERTON, "jacksonville-nc-28546"]);
    const cards = listing.sections.flatMap((s) => s.cards);
    expect(cards.every((c) => c.availability.count > 0)).toBe(true);
    expect(cards.filter((c) => c.matches).every((c) => c.locationSlug === "jacksonville-nc-28546")).toBe(true);
    expect(cards.some((c) => c.locationSlug === LUMBERTON && !c.matches)).toBe(true);
  });
});

describe("unit type page paths", () => {
  it("lists one page per shown unit type of each live location", async () => {
    const handle = await createTestDatabase();
    try {
      const accountId = (await handle.db.query.accounts.findFirst())!.id;
      const paths = await listUnitTypePagePaths(loadContext(handle.db), accountId);
      expect(paths).toHaveLength(24);
      expect(paths).toContain("/locations/lumberton-nc-28358/units/10x10-drive-up");
      expect(paths.every((p) => /^\/locations\/(lumberton-nc-28358|jacksonville-nc-28546)\/units\/[a-z0-9-]+$/.test(p))).toBe(true);
    } finally {
      await handle.close();
    }
  });
});
