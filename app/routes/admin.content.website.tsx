import { data } from "react-router";
import type { Route } from "./+types/admin.content.website";
import { adminMeta } from "~/components/admin/console";
import { CONTENT_DONE, DraftNote, ImageFieldNote, RecordForm, type ContentActionData } from "~/components/admin/content-form";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console.server";
import { saveAnnouncementBar, submitContentForm } from "~/services/content-editor.server";
import { answerContentForm, doneOf, requireAccountWide, websitePage, websiteTargets } from "~/services/content-pages.server";
import { WEBSITE_GROUPS } from "~/domain/content-form";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { requirePermission, signedInStaff } from "~/services/staff-context.server";

/**
 * The website's settings (issue 24, owners): the announcement bar (three props inside navComponent,
 * decision 304), analytics, unit page templates and custom code (never run on pages with card fields).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  requireAccountWide(staff);
  const page = await websitePage(context.db, staff);
  const csrf = await getCsrfToken(request);
  return data({ ...page, csrfToken: csrf.token, done: doneOf(request) }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  requireAccountWide(staff);
  const form = await request.formData();
  await validateCsrf(request, form);
  const now = clockNow();
  if (form.get("target") === "announcementBar") {
    const { websiteId } = await websitePage(context.db, staff);
    return answerContentForm(await saveAnnouncementBar(context.db, staff, websiteId, form, now), request);
  }
  return answerContentForm(await submitContentForm(context.db, staff, websiteTargets(), form, now), request);
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Website");

const CODE_NOTE = "Never runs on pages with card fields (the pay steps and the portal's card pages).";

export default function WebsiteContent({ loaderData, actionData }: Route.ComponentProps) {
  const act = (actionData ?? null) as ContentActionData | null;
  const { groups, announcement, csrfToken, websiteId } = loaderData;
  return (
    <>
      <p>
        <a href="/admin/content">All content</a>
      </p>
      <h1>Website</h1>
      <DraftNote done={loaderData.done ? CONTENT_DONE[loaderData.done]! : null} />
      <RecordForm
        formId="announcement-bar"
        target="announcementBar"
        entity="announcementBar"
        fields={["enabled", "text", "phone"]}
        intent="save"
        values={announcement.values}
        base={announcement.base}
        pending={announcement.pending}
        recordId={websiteId}
        csrfToken={csrfToken}
        actionData={act}
        legend="Announcement bar"
        submitLabel="Save announcement bar"
      />
      {Object.entries(WEBSITE_GROUPS).map(([key, g]) => {
        const record = groups[key]!;
        return (
          <RecordForm
            key={key}
            formId={key}
            target={key}
            entity="website"
            fields={g.fields}
            intent="save"
            values={record.values}
            base={record.base}
            pending={record.pending}
            recordId={websiteId}
            csrfToken={csrfToken}
            actionData={act}
            legend={g.legend}
            submitLabel={`Save ${g.legend.toLowerCase()}`}
            hints={key === "website-code" ? { customCss: "Added to every page of the public site.", customJs: CODE_NOTE, customHeaderCode: CODE_NOTE, customBodyCode: CODE_NOTE } : key === "website-templates" ? { unitPageTitle: "Placeholders: {width}, {length}, {unit_type}, {location_name}, {location_address}. Empty: the default title." } : undefined}
          >
            {key === "website-code" ? <p className="console-hint">{CODE_NOTE}</p> : null}
          </RecordForm>
        );
      })}
      <ImageFieldNote label="Logo and footer logo" count={null} />
    </>
  );
}
