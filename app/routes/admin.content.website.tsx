import type { Route } from "./+types/admin.content.website";
import { adminMeta } from "~/components/admin/console";
import { CONTENT_DONE, DraftNote, ImageFieldNote, RecordForm, type ContentActionData } from "~/components/admin/content-form";
import { consoleRouteHeaders } from "~/services/console.server";
import { websitePage, websiteTargets, saveAnnouncementForm } from "~/services/content-pages.server";
import { contentRoute } from "~/services/content-route.server";
import { WEBSITE_GROUPS } from "~/domain/content-form";

/**
 * The website's settings (issue 24, owners): the announcement bar (three props inside navComponent,
 * decision 304), analytics, unit page templates and custom code (never run on pages with card fields).
 */
const route = contentRoute({ page: websitePage, targets: websiteTargets, save: saveAnnouncementForm });
export const loader = route.loader;
export const action = route.action;

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
