import { data } from "react-router";
import type { Route } from "./+types/rent.unsubscribe";
import { Link } from "~/components/ui/link";
import { routeMeta } from "~/components/ui/route-meta";
import { NO_STORE } from "~/domain/web/cache";
import { now as clockNow } from "~/platform/clock.server";
import { unsubscribeFromRecovery } from "~/services/rental/recovery.server";
import { notFound } from "~/services/web/responses.server";
import { isOneClickUnsubscribe } from "~/services/mail/unsubscribe-headers.server";
import { limitOneClickUnsubscribe } from "~/services/web/one-click-limits.server";

/**
 * The reminder's unsubscribe link (issue 40, decision 518): one click, no JavaScript and no form: the
 * address is recorded at once, and no rental reminder goes to it again. Following it again changes nothing.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const result = await unsubscribeFromRecovery(context.db, params.token, clockNow());
  if (!result.ok) throw notFound({ "Cache-Control": NO_STORE });
  return data({ email: result.email }, { headers: { "Cache-Control": NO_STORE } });
}

/**
 * RFC 8058's one-click unsubscribe (decision 612): the mail client POSTs `List-Unsubscribe=One-Click`
 * to the header's link, with no cookie and no page, so there is no CSRF token to ask for: the signed
 * token in the address is what authorises it (a cross-site forger would need it, and could then only
 * unsubscribe). Limited per token, not per address (a mail provider's few addresses send for everyone).
 */
export async function action({ request, params, context }: Route.ActionArgs) {
  const form = await request.formData();
  if (!isOneClickUnsubscribe(form)) throw data({ message: "This address takes the one-click unsubscribe request only." }, { status: 400, headers: { "Cache-Control": NO_STORE } });
  const now = clockNow();
  if (await limitOneClickUnsubscribe(context.db, `rental-recovery:${params.token}`, now)) throw data({ message: "Too many requests for this link." }, { status: 429, headers: { "Cache-Control": NO_STORE } });
  const result = await unsubscribeFromRecovery(context.db, params.token, now);
  if (!result.ok) throw notFound({ "Cache-Control": NO_STORE });
  return data({ email: result.email }, { headers: { "Cache-Control": NO_STORE } });
}

export const headers: Route.HeadersFunction = () => ({ "Cache-Control": NO_STORE });

export const meta: Route.MetaFunction = ({ matches }) => [
  ...routeMeta(matches, { title: "Unsubscribed from rental reminders", description: "No more rental reminders.", path: "/rent/unsubscribe" }),
  { name: "robots", content: "noindex" },
];

export default function RentUnsubscribe({ loaderData: d }: Route.ComponentProps) {
  return (
    <div className="container page page--narrow">
      <h1>You are unsubscribed</h1>
      <div className="alert alert--success" role="status">
        <p>We will not send {d.email} reminders about rentals left unfinished again.</p>
      </div>
      <p>
        Mail about a rental or reservation you complete (receipts, your gate code) still comes as usual. <Link to="/view-locations">Back to our locations</Link>
      </p>
    </div>
  );
}
