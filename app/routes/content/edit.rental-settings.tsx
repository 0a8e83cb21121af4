import { data, redirect } from "react-router";
import type { Route } from "./+types/edit.rental-settings";
import { adminMeta } from "~/components/console/shell";
import { SettingsPage } from "~/components/content/settings-form";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { requireAccountWide } from "~/services/content/pages.server";
import { saveSettings, settingsPage } from "~/services/content/settings.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { notFound } from "~/services/web/responses.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/**
 * The account's rental settings (issue 39, decision 632; owners): spec §9's portal flags and business
 * constants as a form, each with its meaning, saved into the draft (published like other content).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  requireAccountWide(staff);
  const page = await settingsPage(context.db, staff, "account", null);
  if (!page) throw notFound(consoleHeaders());
  const csrf = await getCsrfToken(request);
  const saved = new URL(request.url).searchParams.get("done") === "saved";
  return data({ ...page, csrfToken: csrf.token, saved }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  requireAccountWide(staff);
  const outcome = await saveSettings(context.db, staff, "account", null, form, clockNow());
  if (outcome.ok) throw redirect("/admin/content/rental-settings?done=saved", { status: 303, headers: consoleHeaders() });
  return data(outcome, { status: outcome.status, headers: consoleHeaders() });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Rental settings");

export default function RentalSettings({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <>
      <p>
        <a href="/admin/content">All content</a>
      </p>
      <SettingsPage
        mode="account"
        heading="Rental settings"
        intro="These apply at every location unless a location sets its own. Saved into the draft: they take effect when the draft is published."
        page={loaderData}
        refused={actionData && !actionData.ok ? actionData : null}
      />
    </>
  );
}
