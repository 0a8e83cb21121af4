/**
 * The site's cacheable pages and their cache tags (issue 41, decision 570), read once per change
 * through the site cache: what the Cache-Tag header of each answer says, and which pages a purge of
 * some tags must drop from nginx's cache (app/domain/web/cache-tags.ts).
 */
import { asc, eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { cachedRead, type CacheContext } from "~/db/site-cache.server";
import { locations, unitTypes } from "~/db/schema";
import { taggedPages } from "~/domain/web/cache-tags";
import { publishedLocation } from "./published-locations";
import { unitTypeSlugs } from "~/domain/site/units";

export const readTaggedPages = (ctx: CacheContext & { db: Database }) => cachedRead(ctx, "taggedPages", () => loadTaggedPages(ctx.db));

async function loadTaggedPages(db: Database): Promise<Map<string, string[]>> {
  const [locationRows, typeRows] = await Promise.all([
    db.select({ id: locations.id, urlSlug: locations.urlSlug }).from(locations).where(publishedLocation).orderBy(asc(locations.id)),
    db
      .select({ id: unitTypes.id, locationId: unitTypes.locationId, name: unitTypes.name, width: unitTypes.width, length: unitTypes.length })
      .from(unitTypes)
      .where(eq(unitTypes.isHiddenOnline, false))
      .orderBy(asc(unitTypes.id)),
  ]);
  const unitTypesByLocation = new Map<number, number[]>();
  const unitTypePages: Array<{ path: string; id: number; locationId: number }> = [];
  for (const l of locationRows) {
    const types = typeRows.filter((t) => t.locationId === l.id);
    unitTypesByLocation.set(l.id, types.map((t) => t.id));
    // The same slugs the unit type pages are found by (`unitTypeSlugs`, over the location's types).
    const slugs = unitTypeSlugs(types.map((t) => ({ ...t, id: String(t.id) })));
    for (const t of types) unitTypePages.push({ path: `/locations/${l.urlSlug}/units/${slugs.get(String(t.id))}`, id: t.id, locationId: l.id });
  }
  return taggedPages({ locations: locationRows, unitTypePages, unitTypesByLocation });
}
