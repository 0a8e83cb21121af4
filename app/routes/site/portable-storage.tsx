import type { Route } from "./+types/portable-storage";
import { requireSite } from "~/services/site/context.server";
import { readPage } from "~/db/queries/cached-reads.server";
import { routeMeta } from "~/components/ui/route-meta";
import { ContentPage } from "~/components/site/content-page";
import { notFound } from "~/services/web/responses.server";

export async function loader({ context }: Route.LoaderArgs) {
  const { account } = await requireSite(context);
  const page = await readPage(context, account.id, "portable-storage");
  if (!page) throw notFound();
  return { page };
}

export const meta: Route.MetaFunction = ({ data, matches }) =>
  routeMeta(matches, {
    title: data?.page.metaTitle || data?.page.title || "Portable Storage",
    description: data?.page.metaDescription,
    path: "/portable-storage",
  });

export default function PortableStorage({ loaderData }: Route.ComponentProps) {
  return <ContentPage title={loaderData.page.title} html={loaderData.page.content} />;
}
