import type { Route } from "./+types/sitemap[.]xml";
import { requireSite } from "~/services/site/context.server";
import { readLocations } from "~/db/queries/cached-reads.server";
import { listUnitTypePagePaths } from "~/db/queries/units.server";
import { buildSitemap, PUBLIC_PATHS } from "~/domain/site/sitemap";
import { publicOrigin } from "~/services/site/origin.server";

/** Every public page: the fixed pages, each location page and each unit type page of the live locations. */
export async function loader({ context }: Route.LoaderArgs) {
  const { website, account } = await requireSite(context);
  const [locations, unitTypePaths] = await Promise.all([
    readLocations(context, account.id),
    listUnitTypePagePaths(context, account.id),
  ]);
  const xml = buildSitemap(publicOrigin(website), [
    ...PUBLIC_PATHS,
    ...locations.map((l) => `/locations/${l.urlSlug}`),
    ...unitTypePaths,
  ]);
  return new Response(xml, {
    headers: { "Content-Type": "application/xml; charset=utf-8", "Cache-Control": "public, max-age=3600" },
  });
}
