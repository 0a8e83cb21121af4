import { Link } from "~/components/link";
import type { Route } from "./+types/about";
import { requireSite } from "~/services/site-context.server";
import { sanitizeOperatorHtml } from "~/services/sanitize.server";
import { routeMeta } from "~/components/route-meta";
import { ContentPage } from "~/components/content-page";

export async function loader({ context }: Route.LoaderArgs) {
  const { account } = await requireSite(context);
  return { name: account.name, tagline: account.tagline, html: sanitizeOperatorHtml(account.companyInformation) };
}

export const meta: Route.MetaFunction = ({ data, matches }) =>
  routeMeta(matches, {
    title: "About Us",
    description: data ? `About ${data.name}: ${data.tagline}.` : undefined,
    path: "/about",
  });

export default function About({ loaderData }: Route.ComponentProps) {
  return (
    <ContentPage title={`About ${loaderData.name}`} lead={loaderData.tagline} html={loaderData.html}>
      <p>
        <Link to="/view-locations" className="button button--primary">
          See our locations
        </Link>
      </p>
    </ContentPage>
  );
}
