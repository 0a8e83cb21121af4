import { data, Form, redirect } from "react-router";
import type { Route } from "./+types/changes.version";
import { adminMeta, CsrfInput, FormMessage } from "~/components/console/shell";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { countPublishAction, previewRestore, restoreVersion } from "~/services/content/publish.server";
import { restorePage } from "~/services/content/changes-page.server";
import { notFound } from "~/services/web/responses.server";
import { FORBIDDEN_MESSAGE, requirePermission, signedInStaff, type SignedInStaff } from "~/services/staff/context.server";

/**
 * "Restore this version" (issue 24, decision 312): what restoring would change now, record by record,
 * and the button that does it (the confirmation). Owners only: a restore may touch every record.
 */
function requireOwnerScope(staff: SignedInStaff) {
  requirePermission(staff, "content.edit");
  if (!staff.scope.all) throw data({ message: FORBIDDEN_MESSAGE }, { status: 403, headers: consoleHeaders() });
}

function versionOf(params: { version?: string }): number {
  const v = Number(params.version);
  if (!/^\d{1,9}$/.test(params.version ?? "") || !Number.isSafeInteger(v)) throw notFound();
  return v;
}

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requireOwnerScope(staff);
  const version = versionOf(params);
  const plan = await previewRestore(context.db, staff.accountId, version);
  if (!plan) throw notFound();
  const csrf = await getCsrfToken(request);
  return data({ csrfToken: csrf.token, version, lines: await restorePage(context.db, plan) }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const staff = signedInStaff(context);
  requireOwnerScope(staff);
  const version = versionOf(params);
  const now = clockNow();
  const limit = await countPublishAction(context.db, staff, now);
  if (!limit.allowed) return data({ message: `Too many changes at once. Please wait ${limit.retryAfterMinutes} minutes.` }, { status: 429, headers: consoleHeaders() });
  const r = await restoreVersion(context.db, staff, version, { now });
  if (r.ok) throw redirect(`/admin/changes?done=restored&version=${r.version}`, { status: 303, headers: consoleHeaders() });
  if (r.reason === "not-found") throw notFound();
  return data({ message: r.message }, { status: 400, headers: consoleHeaders() });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = ({ params }) => adminMeta(`Restore version ${params.version}`);

export default function RestoreVersion({ loaderData, actionData }: Route.ComponentProps) {
  const { lines, version, csrfToken } = loaderData;
  return (
    <>
      <p>
        <a href="/admin/changes#versions">All versions</a>
      </p>
      <h1>Restore version {version}</h1>
      {actionData?.message ? <FormMessage message={actionData.message} /> : null}
      {lines.length === 0 ? (
        <p>The website already shows version {version}: there is nothing to restore.</p>
      ) : (
        <>
          <p>
            Restoring publishes these {lines.length} change{lines.length === 1 ? "" : "s"} at once, as a new version. The draft, if any, is kept.
          </p>
          <table>
            <caption>What changes on the website</caption>
            <thead>
              <tr>
                <th scope="col">Record</th>
                <th scope="col">Location</th>
                <th scope="col">Now → after the restore</th>
              </tr>
            </thead>
            <tbody>
              {lines.map((line) => (
                <tr key={line.id}>
                  <td data-label="Record">
                    {line.entityLabel}: <strong>{line.recordName}</strong>
                    {line.op === "create" ? " (put back)" : line.op === "delete" ? " (removed)" : ""}
                  </td>
                  <td data-label="Location">{line.location}</td>
                  <td data-label="Now → after the restore">
                    <ul className="console-changes">
                      {line.fields.map((f) => (
                        <li key={f.field}>
                          {f.label}: <del>{f.before}</del> → <ins>{f.after}</ins>
                        </li>
                      ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Form method="post" reloadDocument>
            <CsrfInput token={csrfToken} />
            <button type="submit" className="console-button console-button--danger">
              Restore version {version} now
            </button>
          </Form>
        </>
      )}
    </>
  );
}
