import { data, redirect } from "react-router";
import type { Route } from "./+types/edit.rental-settings";
import { adminMeta, FormMessage } from "~/components/console/shell";
import { SettingsForm } from "~/components/content/settings-form";
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
  const failed = actionData && !actionData.ok ? actionData : null;
  return (
    <>
      <p>
        <a href="/admin/content">All content</a>
      </p>
      <h1 id="settings-heading">Rental settings</h1>
      <p>These apply at every location unless a location sets its own. Saved into the draft: they take effect when the draft is published.</p>
      <FormMessage tone="success" message={loaderData.saved ? "Saved to the draft. Publish it on the Changes page." : null} />
      {loaderData.pending ? <p>The draft changes these settings (not published yet).</p> : null}
      {loaderData.unknownKeys.length ? <p>Stored settings no longer used, dropped at the next save: {loaderData.unknownKeys.join(", ")}.</p> : null}
      <SettingsForm
        mode="account"
        values={failed?.values ?? loaderData.values}
        accountValues={loaderData.accountValues}
        errors={failed?.errors ?? {}}
        formError={failed?.formError ?? null}
        base={loaderData.base}
        csrfToken={loaderData.csrfToken}
      />
    </>
  );
}
