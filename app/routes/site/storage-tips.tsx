import type { Route } from "./+types/storage-tips";
import { requireSite } from "~/services/site/context.server";
import { readContentItems } from "~/db/queries/cached-reads.server";
import { routeMeta } from "~/components/ui/route-meta";
import { HtmlContent } from "~/components/ui/html-content";

export async function loader({ context }: Route.LoaderArgs) {
  const { account } = await requireSite(context);
  return { tips: await readContentItems(context, account.id, "Storage Tip") };
}

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, {
    title: "Storage Tips",
    description: "Packing and storage tips: box weights, labelling, stacking and protecting furniture in your storage unit.",
    path: "/storage-tips",
  });

export default function StorageTips({ loaderData }: Route.ComponentProps) {
  return (
    <div className="container page page--narrow">
      <h1>Storage tips</h1>
      <ol className="tip-list">
        {loaderData.tips.map((t) => (
          <li key={t.id} id={`tip-${t.id}`} className="tip">
            <h2>{t.title}</h2>
            <HtmlContent html={t.content} />
          </li>
        ))}
      </ol>
    </div>
  );
}
