import { data } from "react-router";
import type { Route } from "./+types/admin.content.company";
import { adminMeta } from "~/components/admin/console";
import { CONTENT_DONE, DraftNote, ImageFieldNote, RecordForm, type ContentActionData } from "~/components/admin/content-form";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console.server";
import { submitContentForm } from "~/services/content-editor.server";
import { answerContentForm, COMPANY_TARGETS, companyPage, doneOf, requireAccountWide } from "~/services/content-pages.server";
import { COMPANY_FIELDS } from "~/domain/content-form";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { requirePermission, signedInStaff } from "~/services/staff-context.server";

/** The company (issue 24, owners): name, tagline, company information and privacy policy (HTML, sanitised when shown). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  requireAccountWide(staff);
  const page = await companyPage(context.db, staff);
  const csrf = await getCsrfToken(request);
  return data({ ...page, csrfToken: csrf.token, done: doneOf(request) }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  requireAccountWide(staff);
  const form = await request.formData();
  await validateCsrf(request, form);
  return answerContentForm(await submitContentForm(context.db, staff, COMPANY_TARGETS, form, clockNow()), request);
}

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
