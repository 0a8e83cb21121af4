import type { Route } from "./+types/faqs";
import { requireSite } from "~/services/site/context.server";
import { readContentItems } from "~/db/queries/cached-reads.server";
import { routeMeta } from "~/components/ui/route-meta";
import { HtmlContent } from "~/components/ui/html-content";

export async function loader({ context }: Route.LoaderArgs) {
  const { account } = await requireSite(context);
  return { faqs: await readContentItems(context, account.id, "FAQ") };
}

export const meta: Route.MetaFunction = ({ data, matches }) =>
  routeMeta(matches, {
    title: "Frequently Asked Questions",
    description: "Answers to common questions about renting a storage unit, gate access, protection plans and paying your bill.",
    path: "/faqs",
    jsonLd: data?.faqs.length
      ? {
          "@context": "https://schema.org",
          "@type": "FAQPage",
          mainEntity: data.faqs.map((f) => ({
            "@type": "Question",
            name: f.title,
            acceptedAnswer: { "@type": "Answer", text: f.content },
          })),
        }
      : undefined,
  });

/** FAQs as disclosure widgets (<details>): keyboard and screen-reader accessible, no JavaScript. */
export default function Faqs({ loaderData }: Route.ComponentProps) {
  return (
    <div className="container page page--narrow">
      <h1>Frequently asked questions</h1>
      {loaderData.faqs.length === 0 ? <p>There are no questions here yet. Call the office and we will help.</p> : null}
      <div className="faq-list">
        {loaderData.faqs.map((f) => (
          <details key={f.id} id={`faq-${f.id}`} className="faq">
            <summary className="faq__question">
              <h2>{f.title}</h2>
            </summary>
            <HtmlContent html={f.content} className="faq__answer" />
          </details>
        ))}
      </div>
    </div>
  );
}
