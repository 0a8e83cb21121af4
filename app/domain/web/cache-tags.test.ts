import { describe, expect, it } from "vitest";
import { cacheTagHeader, pathsForTags, taggedPages, tagsForPath } from "./cache-tags";

const pages = taggedPages({
  locations: [
    { id: 1, urlSlug: "north" },
    { id: 2, urlSlug: "south" },
  ],
  unitTypePages: [
    { path: "/locations/north/units/10x10-drive-up", id: 11, locationId: 1 },
    { path: "/locations/south/units/5x5-locker", id: 21, locationId: 2 },
  ],
  unitTypesByLocation: new Map([
    [1, [11, 12]],
    [2, [21]],
  ]),
});

describe("cache tags (decision 570)", () => {
  it("names what each page shows", () => {
    expect(tagsForPath(pages, "/locations/north")).toEqual(["site", "locations", "location-1", "unit-type-11", "unit-type-12"]);
    expect(tagsForPath(pages, "/locations/south/units/5x5-locker")).toEqual(["site", "locations", "location-2", "unit-type-21"]);
    expect(tagsForPath(pages, "/")).toEqual(["site", "locations", "page-home", "location-1", "location-2", "faqs"]);
    expect(tagsForPath(pages, "/faqs")).toEqual(["site", "locations", "page-faqs", "faqs"]);
    // Anything else a shared cache may store (a redirect, a medium): the layout's tags.
    expect(tagsForPath(pages, "/media/logo.png")).toEqual(["site", "locations"]);
  });

  it("a purge names exactly the pages that carry one of its tags", () => {
    expect(pathsForTags(pages, ["unit-type-21"]).sort()).toEqual(["/locations/south", "/locations/south/units/5x5-locker"]);
    expect(pathsForTags(pages, ["location-2"]).sort()).toEqual(["/", "/locations/south", "/locations/south/units/5x5-locker", "/sitemap.xml", "/size-guide", "/units", "/view-locations"]);
    expect(pathsForTags(pages, ["page-portable-storage"])).toEqual(["/portable-storage"]);
    expect(pathsForTags(pages, ["storage-tips"])).toEqual(["/storage-tips"]);
    expect(pathsForTags(pages, ["site"])).toHaveLength(pages.size);
    expect(pathsForTags(pages, [])).toEqual([]);
  });

  it("writes Cloudflare's header: comma-separated, no repeats, within 16 KB", () => {
    expect(cacheTagHeader(["site", "locations", "site", "location-1"])).toBe("site,locations,location-1");
    const many = Array.from({ length: 3_000 }, (_, i) => `unit-type-${i}`);
    expect(cacheTagHeader(many).length).toBeLessThanOrEqual(16_000);
  });
});
