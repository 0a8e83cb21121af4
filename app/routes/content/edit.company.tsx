import type { Route } from "./+types/edit.company";
import { adminMeta } from "~/components/console/shell";
import { CONTENT_DONE, DraftNote, ImageFieldNote, RecordForm, type ContentActionData } from "~/components/content/record-forms";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { COMPANY_TARGETS, companyPage } from "~/services/content/pages.server";
import { contentRoute } from "~/services/content/route.server";
import { COMPANY_FIELDS } from "~/domain/content/form";

/** The company (issue 24, owners): name, tagline, company information and privacy policy (HTML, sanitised when shown). */
const route = contentRoute({ page: companyPage, targets: () => COMPANY_TARGETS });
export const loader = route.loader;
export const action = route.action;

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Company");

export default function CompanyContent({ loaderData, actionData }: Route.ComponentProps) {
  const { form } = loaderData;
  return (
    <>
      <p>
        <a href="/admin/content">All content</a>
      </p>
      <h1>Company</h1>
      <DraftNote done={loaderData.done ? CONTENT_DONE[loaderData.done]! : null} />
      <p className="console-hint">Company information and the privacy policy are HTML: when a page shows them, scripts, styles and unsafe attributes are removed, as for every HTML field.</p>
      <RecordForm
        formId="company"
        target="account"
        entity="account"
        fields={COMPANY_FIELDS}
        intent="save"
        values={form.values}
        base={form.base}
        pending={form.pending}
        recordId={loaderData.accountId}
        csrfToken={loaderData.csrfToken}
        actionData={(actionData ?? null) as ContentActionData | null}
        legend="Company"
        submitLabel="Save company"
      />
      <ImageFieldNote label="Main image" count={loaderData.hasMainImage ? 1 : 0} />
    </>
  );
}
