import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/preview";
import { adminMeta, CsrfInput, FormMessage } from "~/components/console/shell";
import { NO_STORE } from "~/domain/web/cache";
import { PREVIEW_BANNER_TEXT, previewReturnPath } from "~/domain/content/preview";
import { now as clockNow } from "~/platform/clock.server";
import { requireSite } from "~/services/site/context.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { turnPreviewOn } from "~/services/content/preview.server";
import { siteOriginFromConsole } from "~/services/site/origin.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/**
 * Preview mode on and off (issue 24, decision 315). The preview is shown by the public site, on
 * another origin than the console's (decision 450), whose cookie the console can neither set nor
 * read. GET: the buttons. POST (CSRF, rate limited, audited) "on": a two-minute grant handed to the
 * public site's /preview/start, which sets its preview cookie (bound to this staff session) and shows
 * the page given (`returnTo`, a local path). "off": to the public site's /preview/end, which clears
 * it. Turning it on needs `content.edit`; anyone signed in may turn it off.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const csrf = await getCsrfToken(request);
  return data({ csrfToken: csrf.token }, { headers: consoleHeaders(csrf.setCookie) });
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
  const { website } = await requireSite(context);
  const site = siteOriginFromConsole(website);
  if (parsed.data.intent === "off") throw redirect(`${site}/preview/end`, { status: 303, headers: consoleHeaders() });
  requirePermission(staff, "content.edit");
  const result = await turnPreviewOn(context.db, staff, clockNow());
  if (!result.ok) {
    return data(
      { formError: `Too many changes of preview mode. Try again in ${result.retryAfterMinutes} minute${result.retryAfterMinutes === 1 ? "" : "s"}.` },
      { status: 429, headers: { "Cache-Control": NO_STORE } },
    );
  }
  const start = new URL(`${site}/preview/start`);
  start.searchParams.set("grant", result.grant);
  start.searchParams.set("returnTo", previewReturnPath(parsed.data.returnTo, "/"));
  throw redirect(start.href, { status: 303, headers: consoleHeaders() });
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
      <p>The public site is on its own address: preview opens there, and “Leave preview” there or here ends it.</p>
      <div className="console-actions">
        <form method="post" action="/admin/preview">
          <CsrfInput token={loaderData.csrfToken} />
          <input type="hidden" name="intent" value="on" />
          <input type="hidden" name="returnTo" value="/" />
          <button type="submit" className="console-button">
            Preview the site
          </button>
        </form>
        <form method="post" action="/admin/preview">
          <CsrfInput token={loaderData.csrfToken} />
          <input type="hidden" name="intent" value="off" />
          <button type="submit" className="console-button">
            Leave preview
          </button>
        </form>
      </div>
      <p>
        <a href="/admin/changes/diff">What will change</a> · <a href="/admin/changes">Changes waiting to be published</a>
      </p>
    </>
  );
}
