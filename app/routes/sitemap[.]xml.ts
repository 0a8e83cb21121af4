import type { Route } from "./+types/sitemap[.]xml";
import { requireSite } from "~/services/site-context.server";
import { listLocations } from "~/db/queries/locations.server";
import { buildSitemap, PUBLIC_PATHS } from "~/domain/sitemap";

export async function loader({ context }: Route.LoaderArgs) {
  const { website, account } = await requireSite(context);
  const locations = await listLocations(context.db, account.id);
  const xml = buildSitemap(`https://${website.domain}`, [
    ...PUBLIC_PATHS,
    ...locations.map((l) => `/locations/${l.urlSlug}`),
  ]);
  return new Response(xml, {
    headers: { "Content-Type": "application/xml; charset=utf-8", "Cache-Control": "public, max-age=3600" },
  });
}
