import { redirect } from "react-router";
import type { Route } from "./+types/preview.end";
import { NO_STORE } from "~/domain/web/cache";
import { previewReturnPath } from "~/domain/content/preview";
import { now as clockNow } from "~/platform/clock.server";
import { endPreview } from "~/services/content/preview.server";
import { requireSite } from "~/services/site/context.server";
import { consoleOrigin } from "~/services/site/origin.server";

/**
 * Leaving preview on the public site (decision 450): the banner's button and the console's "Leave
 * preview" come here; the preview cookie is cleared (audited when preview was on), then the live page
 * given (a local path) or the console's preview page. Leaving is harmless, so a plain GET does it.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { account, website } = await requireSite(context);
  const setCookie = await endPreview(context.db, request, { accountId: account.id, now: clockNow(), ip: context.clientIp });
  const back = new URL(request.url).searchParams.get("returnTo");
  const location = back ? previewReturnPath(back, "/") : `${consoleOrigin(website)}/admin/preview`;
  throw redirect(location, { status: 303, headers: { "Cache-Control": NO_STORE, "X-Robots-Tag": "noindex", "Set-Cookie": setCookie } });
}
