import { data, redirect } from "react-router";
import type { Route } from "./+types/edit.location-settings";
import { adminMeta } from "~/components/console/shell";
import { SettingsPage } from "~/components/content/settings-form";
import { LocationContentNav } from "~/components/content/record-forms";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { saveSettings, settingsPage } from "~/services/content/settings.server";
import { goLivePanel, runGoLiveCheck, saveProposedSettings } from "~/services/content/go-live.server";
import { GO_LIVE_DONE, GoLiveSection, type GoLiveRefusal } from "~/components/content/go-live";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { notFound } from "~/services/web/responses.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/**
 * A location's own settings (issue 39, decision 632; owners and the location's managers): any of the
 * account's rental settings set differently here, each "Same as the website" unless chosen, saved
 * into the draft. A location outside the member's locations: 404. At a SiteLink location, its
 * go-live check (issue 40, decision 681): the state and the latest check for every editor, and for
 * owners the check itself and the settings it proposes (`intent` go-live-check,
 * use-go-live-suggestions; a post without an intent is the settings form).
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const locationId = Number(params.locationId);
  const page = await settingsPage(context.db, staff, "location", locationId);
  if (!page) throw notFound(consoleHeaders());
  const csrf = await getCsrfToken(request);
  const done = new URL(request.url).searchParams.get("done");
  const goLive = await goLivePanel(context.db, staff, locationId);
  return data({ ...page, csrfToken: csrf.token, saved: done === "saved", goLive, goLiveDone: done && done in GO_LIVE_DONE ? done : null }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const locationId = Number(params.locationId);
  if (!(await settingsPage(context.db, staff, "location", locationId))) throw notFound(consoleHeaders());
  const intent = form.get("intent");
  const here = `/admin/content/locations/${locationId}/settings`;
  if (intent === "go-live-check" || intent === "use-go-live-suggestions") {
    const values = { tenantId: String(form.get("tenantId") ?? "").slice(0, 20), unitId: String(form.get("unitId") ?? "").slice(0, 20) };
    const outcome =
      intent === "go-live-check" ? await runGoLiveCheck(context.db, staff, locationId, values, clockNow()) : await saveProposedSettings(context.db, staff, locationId, clockNow());
    if (outcome.ok) throw redirect(`${here}?done=${intent === "go-live-check" ? "go-live-checked" : "go-live-settings"}#go-live-check`, { status: 303, headers: consoleHeaders() });
    if (outcome.status === 404) throw notFound(consoleHeaders());
    const refused: GoLiveRefusal = { message: outcome.message, ...(outcome.field ? { field: outcome.field } : {}), values };
    return data({ ok: false as const, goLive: refused }, { status: outcome.status, headers: consoleHeaders() });
  }
  const outcome = await saveSettings(context.db, staff, "location", locationId, form, clockNow());
  if (outcome.ok) throw redirect(`${here}?done=saved`, { status: 303, headers: consoleHeaders() });
  return data(outcome, { status: outcome.status, headers: consoleHeaders() });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Location settings");

export default function LocationSettings({ loaderData, actionData, params }: Route.ComponentProps) {
  const goLiveRefused = actionData && "goLive" in actionData ? actionData.goLive : null;
  const settingsRefused = actionData && !actionData.ok && !("goLive" in actionData) ? actionData : null;
  return (
    <>
      <LocationContentNav locationId={Number(params.locationId)} current="settings" />
      <SettingsPage
        before={loaderData.goLive ? <GoLiveSection panel={loaderData.goLive} csrfToken={loaderData.csrfToken} done={loaderData.goLiveDone} refused={goLiveRefused} /> : undefined}
        mode="location"
        heading={`Settings at ${loaderData.name}`}
        intro="Each setting is the website's unless you choose otherwise here. Saved into the draft: they take effect when the draft is published."
        page={loaderData}
        refused={settingsRefused}
      />
    </>
  );
}
