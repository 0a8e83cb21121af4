import { redirect } from "react-router";
import type { Route } from "./+types/preview.start";
import { NO_STORE } from "~/domain/web/cache";
import { previewReturnPath } from "~/domain/content/preview";
import { now as clockNow } from "~/platform/clock.server";
import { startPreview } from "~/services/content/preview.server";
import { requireSite } from "~/services/site/context.server";

/**
 * The public site's end of "Preview the site" (decision 450): the console, on its own origin, cannot
 * set this site's cookie, so it sends the browser here with a two-minute grant; a valid one becomes
 * the preview cookie, then the page asked for (a local path) without the grant in its address. An
 * invalid or expired grant changes nothing.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { account } = await requireSite(context);
  const url = new URL(request.url);
  const setCookie = await startPreview(context.db, url.searchParams.get("grant"), { accountId: account.id, now: clockNow(), ip: context.clientIp });
  const headers = new Headers({ "Cache-Control": NO_STORE, "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex" });
  if (setCookie) headers.append("Set-Cookie", setCookie);
  throw redirect(previewReturnPath(url.searchParams.get("returnTo"), "/"), { status: 303, headers });
}
