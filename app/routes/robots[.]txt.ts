import type { Route } from "./+types/robots[.]txt";
import { requireSite } from "~/services/site-context.server";

export async function loader({ context }: Route.LoaderArgs) {
  const { website } = await requireSite(context);
  const body = [
    "User-agent: *",
    "Disallow: /customer-portal/",
    "Allow: /customer-portal/login",
    "",
    `Sitemap: https://${website.domain}/sitemap.xml`,
    "",
  ].join("\n");
  return new Response(body, { headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=3600" } });
}
