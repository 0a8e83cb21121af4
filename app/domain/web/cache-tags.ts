/**
 * Cache tags (issue 41, decision 570): what a public page shows, named the way the database's triggers
 * name what a change touches (drizzle/0020_cache_purges.sql), so a shared cache in front (a CDN, nginx)
 * can drop exactly the pages a change touches. Sent as `Cache-Tag` (Cloudflare's header: comma-separated).
 *
 * - `site`: the website, the account, menus, redirects: every cacheable answer carries it;
 * - `locations`: the list of locations every page's layout shows (a location's name, phone, status);
 * - `location-<id>`: a location's details, its unit types and units (availability, prices), its hours;
 * - `unit-type-<id>`: one unit type (its price, its availability);
 * - `faqs`, `storage-tips`: the content items; `page-<slug>`: a content page (`page-home`, `page-faqs`…).
 *
 * One table, `taggedPages`, gives both each page's tags (the header) and the pages a tag touches (what
 * the nginx purge sends): a page is purged exactly when it says it shows what changed.
 */

interface TagSources {
  locations: ReadonlyArray<{ id: number; urlSlug: string }>;
  /** Each unit type page's path (`/locations/<slug>/units/<type slug>`), with its unit type and location. */
  unitTypePages: ReadonlyArray<{ path: string; id: number; locationId: number }>;
  /** Every unit type's id by location (a location page shows them all). */
  unitTypesByLocation: ReadonlyMap<number, readonly number[]>;
}

const SITE_TAG = "site";
const LOCATIONS_TAG = "locations";
const locationTag = (id: number) => `location-${id}`;
const unitTypeTag = (id: number) => `unit-type-${id}`;
const pageTag = (slug: string) => `page-${slug}`;

/** What every cacheable answer carries (the layout: the website, its menus and the location list). */
export const EVERY_PAGE_TAGS: readonly string[] = [SITE_TAG, LOCATIONS_TAG];

/** The fixed public pages and what each shows besides the layout (`*` : every location). */
const FIXED_PAGES: ReadonlyArray<[path: string, name: string, shows: readonly string[]]> = [
  ["/", "home", ["*", "faqs"]],
  ["/view-locations", "view-locations", ["*"]],
  ["/units", "units", ["*"]],
  ["/size-guide", "size-guide", ["*"]],
  ["/sitemap.xml", "sitemap", ["*"]],
  ["/faqs", "faqs", ["faqs"]],
  ["/storage-tips", "storage-tips", ["storage-tips"]],
  ["/portable-storage", "portable-storage", []],
  ["/about", "about", []],
  ["/privacy-policy", "privacy-policy", []],
  ["/robots.txt", "robots", []],
];

/** Every cacheable page the site has (no query string), with its tags. */
export function taggedPages(sources: TagSources): Map<string, string[]> {
  const allLocations = sources.locations.map((l) => locationTag(l.id));
  const pages = new Map<string, string[]>();
  for (const [path, name, shows] of FIXED_PAGES) {
    pages.set(path, [...EVERY_PAGE_TAGS, pageTag(name), ...shows.flatMap((s) => (s === "*" ? allLocations : [s]))]);
  }
  for (const l of sources.locations) {
    const types = sources.unitTypesByLocation.get(l.id) ?? [];
    pages.set(`/locations/${l.urlSlug}`, [...EVERY_PAGE_TAGS, locationTag(l.id), ...types.map(unitTypeTag)]);
  }
  for (const t of sources.unitTypePages) pages.set(t.path, [...EVERY_PAGE_TAGS, locationTag(t.locationId), unitTypeTag(t.id)]);
  return pages;
}

/** A path's tags: its own if the site has it, else the layout's (any other cacheable answer: a redirect, a medium). */
export function tagsForPath(pages: ReadonlyMap<string, readonly string[]>, path: string): readonly string[] {
  return pages.get(path) ?? EVERY_PAGE_TAGS;
}

/** The pages a purge of `tags` touches (`site` or `locations`: all of them). */
export function pathsForTags(pages: ReadonlyMap<string, readonly string[]>, tags: Iterable<string>): string[] {
  const wanted = new Set(tags);
  return [...pages].filter(([, own]) => own.some((t) => wanted.has(t))).map(([path]) => path);
}

/** The Cache-Tag header's value (Cloudflare: comma-separated, at most 16 KB in all). */
export function cacheTagHeader(tags: readonly string[]): string {
  let header = "";
  for (const tag of new Set(tags)) {
    const next = header ? `${header},${tag}` : tag;
    if (next.length > 16_000) break;
    header = next;
  }
  return header;
}
