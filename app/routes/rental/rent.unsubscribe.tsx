import { data } from "react-router";
import type { Route } from "./+types/rent.unsubscribe";
import { Link } from "~/components/ui/link";
import { routeMeta } from "~/components/ui/route-meta";
import { NO_STORE } from "~/domain/web/cache";
import { now as clockNow } from "~/platform/clock.server";
import { unsubscribeFromRecovery } from "~/services/rental/recovery.server";
import { notFound } from "~/services/web/responses.server";

/**
 * The reminder's unsubscribe link (issue 40, decision 518): one click, no JavaScript and no form: the
 * address is recorded at once, and no rental reminder goes to it again. Following it again changes nothing.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const result = await unsubscribeFromRecovery(context.db, params.token, clockNow());
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
