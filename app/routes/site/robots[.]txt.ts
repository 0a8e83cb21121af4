import type { Route } from "./+types/robots[.]txt";
import { requireSite } from "~/services/site/context.server";
import { publicOrigin } from "~/services/site/origin.server";
import { isStagingHost, STAGING_ROBOTS_HEADER, STAGING_ROBOTS_TXT } from "~/domain/site/staging";

export async function loader({ context, request }: Route.LoaderArgs) {
  const { website } = await requireSite(context);
  if (isStagingHost(new URL(request.url).host, website.stagingDomain)) {
    return new Response(STAGING_ROBOTS_TXT, {
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=3600", "X-Robots-Tag": STAGING_ROBOTS_HEADER },
    });
  }
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
