import { Link } from "~/components/ui/link";
import type { Route } from "./+types/about";
import { requireSite } from "~/services/site/context.server";
import { sanitizeOperatorHtml } from "~/domain/content/sanitize.server";
import { routeMeta } from "~/components/ui/route-meta";
import { ContentPage } from "~/components/site/content-page";

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
