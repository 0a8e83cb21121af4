import type { Route } from "./+types/robots[.]txt";
import { requireSite } from "~/services/site-context.server";
import { publicOrigin } from "~/services/site-origin.server";

export async function loader({ context }: Route.LoaderArgs) {
  const { website } = await requireSite(context);
  const body = [
    "User-agent: *",
    // The portal and the rental and reservation steps are personal: keep them out of search results.
    "Disallow: /customer-portal/",
    "Allow: /customer-portal/login",
    "Disallow: /rent/",
    "Disallow: /reserve/",
    "",
    `Sitemap: ${publicOrigin(website)}/sitemap.xml`,
    "",
  ].join("\n");
  return new Response(body, { headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=3600" } });
}
