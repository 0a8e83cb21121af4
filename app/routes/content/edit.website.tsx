import type { Route } from "./+types/edit.website";
import { adminMeta } from "~/components/console/shell";
import { CONTENT_DONE, DraftNote, GroupForms, ImageFieldNote, RecordForm, type ContentActionData } from "~/components/content/record-forms";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { websitePage, websiteTargets, saveWebsiteJsonForm } from "~/services/content/pages.server";
import { contentRoute } from "~/services/content/route.server";
import { MENU_FIELDS, WEBSITE_GROUPS, WEBSITE_JSON_GROUPS, type WebsiteJsonGroupName } from "~/domain/content/form";

/**
 * The website's settings (issue 24, owners): the announcement bar, navigation bar, footer and global styles (values inside its JSON fields,
 * decisions 304 and 362), analytics, unit page templates and custom code (never run on pages with card fields).
 */
const route = contentRoute({ page: websitePage, targets: websiteTargets, save: saveWebsiteJsonForm });
export const loader = route.loader;
export const action = route.action;

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Website");

const JSON_FORM_IDS: Record<WebsiteJsonGroupName, string> = { announcementBar: "announcement-bar", navigationBar: "navigation-bar", footer: "footer", globalStyles: "global-styles" };

const CODE_NOTE = "Never runs on pages with card fields (the pay steps and the portal's card pages).";

export default function WebsiteContent({ loaderData, actionData }: Route.ComponentProps) {
  const act = (actionData ?? null) as ContentActionData | null;
  const { groups, jsonGroups, menuChoices, csrfToken, websiteId } = loaderData;
  return (
    <>
      <p>
        <a href="/admin/content">All content</a>
      </p>
      <h1>Website</h1>
      <DraftNote done={loaderData.done ? CONTENT_DONE[loaderData.done]! : null} />
      {(Object.keys(WEBSITE_JSON_GROUPS) as WebsiteJsonGroupName[]).map((key) => {
        const g = WEBSITE_JSON_GROUPS[key];
        const record = jsonGroups[key];
        const fields = Object.keys(g.fields);
        return (
          <RecordForm
            key={key}
            formId={JSON_FORM_IDS[key]}
            target={key}
            entity={key}
            fields={fields}
            intent="save"
            values={record.values}
            base={record.base}
            pending={record.pending}
            recordId={websiteId}
            choices={Object.fromEntries(fields.filter((f) => MENU_FIELDS.includes(f)).map((f) => [f, menuChoices]))}
            csrfToken={csrfToken}
            actionData={act}
            legend={g.legend}
            submitLabel={`Save ${g.legend.toLowerCase()}`}
          />
        );
      })}
      <GroupForms
        groups={WEBSITE_GROUPS}
        records={groups}
        entity="website"
        recordId={websiteId}
        csrfToken={csrfToken}
        actionData={act}
        hints={(key): Record<string, string> | undefined =>
          key === "website-code"
            ? { customCss: "Added to every page of the public site.", customJs: CODE_NOTE, customHeaderCode: CODE_NOTE, customBodyCode: CODE_NOTE }
            : key === "website-templates"
              ? { unitPageTitle: "Placeholders: {width}, {length}, {unit_type}, {location_name}, {location_address}. Empty: the default title." }
              : undefined
        }
        extra={(key) => (key === "website-code" ? <p className="console-hint">{CODE_NOTE}</p> : null)}
      />
      <ImageFieldNote label="Logo and footer logo" count={null} />
    </>
  );
}
