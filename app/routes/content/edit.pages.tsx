import type { Route } from "./+types/edit.pages";
import { adminMeta } from "~/components/console/shell";
import { CONTENT_DONE, DraftNote, RecordForm, type ContentActionData } from "~/components/content/record-forms";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { PAGE_TARGETS, pagesPage } from "~/services/content/pages.server";
import { contentRoute } from "~/services/content/route.server";
import { PAGE_FIELDS } from "~/domain/content/form";

/** The site's content pages (issue 24, owners): title, search-engine texts, content (HTML, sanitised when shown). */
const route = contentRoute({ page: pagesPage, targets: () => PAGE_TARGETS });
export const loader = route.loader;
export const action = route.action;

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Pages");

export default function PagesContent({ loaderData, actionData }: Route.ComponentProps) {
  const act = (actionData ?? null) as ContentActionData | null;
  return (
    <>
      <p>
        <a href="/admin/content">All content</a>
      </p>
      <h1>Pages</h1>
      <DraftNote done={loaderData.done ? CONTENT_DONE[loaderData.done]! : null} />
      {loaderData.pages.length === 0 ? <p>No pages.</p> : null}
      {loaderData.pages.map((p) => (
        <RecordForm
          key={p.key}
          formId={`page-${p.key}`}
          target="page"
          entity="page"
          fields={PAGE_FIELDS}
          intent="save"
          values={p.values}
          base={p.base}
          pending={p.pending}
          recordId={p.id}
          csrfToken={loaderData.csrfToken}
          actionData={act}
          legend={`${String(p.raw.title)} (/${p.slug})`}
          submitLabel="Save this page"
        />
      ))}
    </>
  );
}
