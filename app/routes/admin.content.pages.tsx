import { data } from "react-router";
import type { Route } from "./+types/admin.content.pages";
import { adminMeta } from "~/components/admin/console";
import { CONTENT_DONE, DraftNote, RecordForm, type ContentActionData } from "~/components/admin/content-form";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console.server";
import { submitContentForm } from "~/services/content-editor.server";
import { answerContentForm, doneOf, PAGE_TARGETS, pagesPage, requireAccountWide } from "~/services/content-pages.server";
import { PAGE_FIELDS } from "~/domain/content-form";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { requirePermission, signedInStaff } from "~/services/staff-context.server";

/** The site's content pages (issue 24, owners): title, search-engine texts, content (HTML, sanitised when shown). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  requireAccountWide(staff);
  const page = await pagesPage(context.db, staff);
  const csrf = await getCsrfToken(request);
  return data({ ...page, csrfToken: csrf.token, done: doneOf(request) }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  requireAccountWide(staff);
  const form = await request.formData();
  await validateCsrf(request, form);
  return answerContentForm(await submitContentForm(context.db, staff, PAGE_TARGETS, form, clockNow()), request);
}

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
