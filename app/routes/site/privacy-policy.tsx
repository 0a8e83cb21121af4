import type { Route } from "./+types/privacy-policy";
import { requireSite } from "~/services/site/context.server";
import { sanitizeOperatorHtml } from "~/domain/content/sanitize.server";
import { routeMeta } from "~/components/ui/route-meta";
import { ContentPage } from "~/components/site/content-page";

export async function loader({ context }: Route.LoaderArgs) {
  const { account } = await requireSite(context);
  return { name: account.name, html: sanitizeOperatorHtml(account.privacyPolicy) };
}

export const meta: Route.MetaFunction = ({ data, matches }) =>
  routeMeta(matches, {
    title: "Privacy Policy",
    description: data ? `How ${data.name} collects, uses and protects your information.` : undefined,
    path: "/privacy-policy",
  });

export default function PrivacyPolicy({ loaderData }: Route.ComponentProps) {
  return <ContentPage title="Privacy policy" html={loaderData.html} />;
}
