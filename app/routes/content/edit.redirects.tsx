import type { Route } from "./+types/edit.redirects";
import { adminMeta } from "~/components/console/shell";
import { CONTENT_DONE, DraftNote, newSuffix, RecordForm, RecordForms, type ContentActionData } from "~/components/content/record-forms";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { redirectsPage, redirectsTargets } from "~/services/content/pages.server";
import { contentRoute } from "~/services/content/route.server";
import { OLD_DOMAIN_FIELDS, REDIRECT_FIELDS } from "~/domain/content/form";

/**
 * Redirects and old domains (issue 24, owners): add, change, remove. A redirect that would loop, or
 * lead into a chain that never ends, is refused with the path it follows, judged over the live rules
 * with the draft over them (decisions 009 and 309).
 */
const route = contentRoute({ page: redirectsPage, targets: redirectsTargets });
export const loader = route.loader;
export const action = route.action;

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Redirects and old domains");

/** A target off the site says so, with its host (issue 36): "(external: pay.example.com)". */
const externalNote = (r: { externalHost?: string | null }) => (r.externalHost ? ` (external: leaves the site for ${r.externalHost})` : "");

export default function RedirectsContent({ loaderData, actionData }: Route.ComponentProps) {
  const act = (actionData ?? null) as ContentActionData | null;
  const { csrfToken } = loaderData;
  const choices = { locationId: loaderData.locations };
  return (
    <>
      <p>
        <a href="/admin/content">All content</a>
      </p>
      <h1>Redirects and old domains</h1>
      <DraftNote done={loaderData.done ? CONTENT_DONE[loaderData.done]! : null} />
      <h2 id="redirects">Redirects</h2>
      <RecordForms
        records={loaderData.redirects}
        idPrefix="redirect"
        target="redirect"
        entity="redirect"
        fields={REDIRECT_FIELDS}
        csrfToken={csrfToken}
        actionData={act}
        legend={(r) => `${String(r.raw.fromPath)} → ${String(r.raw.toPath)}${externalNote(r)}${newSuffix(r)}`}
        submitLabel="Save this redirect"
        removable
      />
      <RecordForm formId="new-redirect" target="redirect" entity="redirect" fields={REDIRECT_FIELDS} intent="create" values={loaderData.blankRedirect} csrfToken={csrfToken} actionData={act} legend="Add a redirect" submitLabel="Add this redirect" />
      <h2 id="old-domains">Old domains</h2>
      <p className="console-hint">A visit to an old domain goes to the location&apos;s page.</p>
      <RecordForms
        records={loaderData.domains}
        idPrefix="domain"
        target="oldDomain"
        entity="oldDomain"
        fields={OLD_DOMAIN_FIELDS}
        choices={choices}
        csrfToken={csrfToken}
        actionData={act}
        legend={(d) => `${String(d.raw.hostname)}${newSuffix(d)}`}
        submitLabel="Save this domain"
        removable
      />
      <RecordForm formId="new-domain" target="oldDomain" entity="oldDomain" fields={OLD_DOMAIN_FIELDS} intent="create" values={loaderData.blankDomain} choices={choices} csrfToken={csrfToken} actionData={act} legend="Add an old domain" submitLabel="Add this domain" />
    </>
  );
}
