import type { Route } from "./+types/edit.faqs";
import { adminMeta } from "~/components/console/shell";
import { CONTENT_DONE, DraftNote, newSuffix, RecordForm, RecordForms, type ContentActionData } from "~/components/content/record-forms";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import type { FormRecord } from "~/services/content/editor.server";
import { faqsPage, faqsTargets } from "~/services/content/pages.server";
import { contentRoute } from "~/services/content/route.server";
import { CONTENT_ITEM_FIELDS } from "~/domain/content/form";

/** FAQs and storage tips (issue 24, owners): add, change, reorder, remove. */
const route = contentRoute({ page: faqsPage, targets: faqsTargets });
export const loader = route.loader;
export const action = route.action;

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("FAQs and storage tips");

export default function FaqsContent({ loaderData, actionData }: Route.ComponentProps) {
  const act = (actionData ?? null) as ContentActionData | null;
  const list = (items: FormRecord[]) => (
    <RecordForms
      records={items}
      idPrefix="item"
      target="contentItem"
      entity="contentItem"
      fields={CONTENT_ITEM_FIELDS}
      csrfToken={loaderData.csrfToken}
      actionData={act}
      legend={(i) => `${String(i.raw.title)}${newSuffix(i)}`}
      submitLabel="Save"
      removable
      movable
    />
  );
  return (
    <>
      <p>
        <a href="/admin/content">All content</a>
      </p>
      <h1>FAQs and storage tips</h1>
      <DraftNote done={loaderData.done ? CONTENT_DONE[loaderData.done]! : null} />
      <h2>FAQs</h2>
      {list(loaderData.faqs)}
      <h2>Storage tips</h2>
      {list(loaderData.tips)}
      <h2 id="add">Add a question or tip</h2>
      <RecordForm formId="new-item" target="contentItem" entity="contentItem" fields={CONTENT_ITEM_FIELDS} intent="create" values={loaderData.blank} csrfToken={loaderData.csrfToken} actionData={act} legend="New FAQ or storage tip" submitLabel="Add" />
    </>
  );
}
