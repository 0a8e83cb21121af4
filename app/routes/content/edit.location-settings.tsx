import { data, redirect } from "react-router";
import type { Route } from "./+types/edit.location-settings";
import { adminMeta, FormMessage } from "~/components/console/shell";
import { SettingsForm } from "~/components/content/settings-form";
import { LocationContentNav } from "~/components/content/record-forms";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { saveSettings, settingsPage } from "~/services/content/settings.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { notFound } from "~/services/web/responses.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/**
 * A location's own settings (issue 39, decision 632; owners and the location's managers): any of the
 * account's rental settings set differently here, each "Same as the website" unless chosen, saved
 * into the draft. A location outside the member's locations: 404.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const page = await settingsPage(context.db, staff, "location", Number(params.locationId));
  if (!page) throw notFound(consoleHeaders());
  const csrf = await getCsrfToken(request);
  const saved = new URL(request.url).searchParams.get("done") === "saved";
  return data({ ...page, csrfToken: csrf.token, saved }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  if (!(await settingsPage(context.db, staff, "location", Number(params.locationId)))) throw notFound(consoleHeaders());
  const outcome = await saveSettings(context.db, staff, "location", Number(params.locationId), form, clockNow());
  if (outcome.ok) throw redirect(`/admin/content/locations/${Number(params.locationId)}/settings?done=saved`, { status: 303, headers: consoleHeaders() });
  return data(outcome, { status: outcome.status, headers: consoleHeaders() });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Location settings");

export default function LocationSettings({ loaderData, actionData, params }: Route.ComponentProps) {
  const failed = actionData && !actionData.ok ? actionData : null;
  return (
    <>
      <LocationContentNav locationId={Number(params.locationId)} current="settings" />
      <h1 id="settings-heading">Settings at {loaderData.name}</h1>
      <p>Each setting is the website&apos;s unless you choose otherwise here. Saved into the draft: they take effect when the draft is published.</p>
      <FormMessage tone="success" message={loaderData.saved ? "Saved to the draft. Publish it on the Changes page." : null} />
      {loaderData.pending ? <p>The draft changes these settings (not published yet).</p> : null}
      {loaderData.unknownKeys.length ? <p>Stored settings no longer used, dropped at the next save: {loaderData.unknownKeys.join(", ")}.</p> : null}
      <SettingsForm
        mode="location"
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
