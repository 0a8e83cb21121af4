import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/admin.preview";
import { adminMeta, CsrfInput, FormMessage } from "~/components/admin/console";
import { NO_STORE } from "~/domain/cache";
import { PREVIEW_BANNER_TEXT, previewReturnPath } from "~/domain/preview";
import { now as clockNow } from "~/platform/clock.server";
import { requireSite } from "~/services/site-context.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console.server";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { readPreview, setPreviewMode } from "~/services/preview.server";
import { requirePermission, signedInStaff } from "~/services/staff-context.server";

/**
 * Preview mode on and off (issue 24, decision 315). GET: whether this browser is previewing, with the
 * button to turn it on or off. POST (CSRF, rate limited, audited): sets or clears the preview cookie
 * (bound to this staff session), then back to the page given (`returnTo`, a local path). Turning it
 * on needs `content.edit`; anyone signed in may turn it off.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const { account } = await requireSite(context);
  const preview = await readPreview(context.db, request, { accountId: account.id, now: clockNow(), ip: staff.ip });
  const csrf = await getCsrfToken(request);
  return data(
    { on: preview.state === "on", hasDraft: preview.state === "on" && preview.draftId !== null, csrfToken: csrf.token },
    { headers: consoleHeaders(csrf.setCookie) },
  );
}

const PreviewForm = z.object({ intent: z.enum(["on", "off"]), returnTo: z.string().optional() });

export async function action({ request, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  const form = await request.formData();
  await validateCsrf(request, form);
  // Conform + the form's schema, like the console's other forms (two buttons: no field to point at).
  const submission = parseWithZod(form, { schema: PreviewForm });
  if (submission.status !== "success") return data({ formError: "Choose to turn preview on or off." }, { status: 400, headers: { "Cache-Control": NO_STORE } });
  const parsed = { data: submission.value };
  const on = parsed.data.intent === "on";
  if (on) requirePermission(staff, "content.edit");
  const result = await setPreviewMode(context.db, staff, on, clockNow());
  if (!result.ok) {
    return data(
      { formError: `Too many changes of preview mode. Try again in ${result.retryAfterMinutes} minute${result.retryAfterMinutes === 1 ? "" : "s"}.` },
      { status: 429, headers: { "Cache-Control": NO_STORE } },
    );
  }
  throw redirect(previewReturnPath(parsed.data.returnTo, on ? "/" : "/admin/changes"), { status: 303, headers: consoleHeaders(result.setCookie) });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Preview the site");

export default function AdminPreview({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <>
      <h1>Preview the site</h1>
      <FormMessage message={actionData?.formError} />
      <p>
        In preview, you see every page of the public site as it will look once the changes waiting to be published go live. Only you see it,
        in this browser, while you are signed in; visitors always see the live site. Pages in preview carry the banner “{PREVIEW_BANNER_TEXT}”.
        Forms are switched off in preview, and renting, reserving and paying always show the live site.
      </p>
      <p role="status">
        {loaderData.on ? "Preview is on in this browser." : "Preview is off."}
        {loaderData.on && !loaderData.hasDraft ? " No changes are waiting: the preview shows the live site." : null}
      </p>
      <div className="console-actions">
        <form method="post" action="/admin/preview">
          <CsrfInput token={loaderData.csrfToken} />
          <input type="hidden" name="intent" value={loaderData.on ? "off" : "on"} />
          <input type="hidden" name="returnTo" value={loaderData.on ? "/admin/preview" : "/"} />
          <button type="submit" className="console-button">
            {loaderData.on ? "Leave preview" : "Preview the site"}
          </button>
        </form>
      </div>
      <p>
        <a href="/admin/changes/diff">What will change</a> · <a href="/admin/changes">Changes waiting to be published</a>
      </p>
    </>
  );
}
