import { data, redirect } from "react-router";
import type { Route } from "./+types/rent.back";
import { Link } from "~/components/ui/link";
import { routeMeta } from "~/components/ui/route-meta";
import { NO_STORE } from "~/domain/web/cache";
import { now as clockNow } from "~/platform/clock.server";
import { rentalCookieHeader } from "~/services/rental/record.server";
import { resumeRental } from "~/services/rental/recovery.server";

/**
 * The abandoned-rental reminder's link (issue 40, decision 517): the rental is restored in this
 * browser (its cookie), a unit of its type held again, and the renter sent to the step they reached
 * (the page quotes today's price). When no unit of the type is free, or the link is old, the page says so.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const result = await resumeRental(context.db, params.token, clockNow());
  if (result.ok) {
    throw redirect(result.redirect, { status: 303, headers: { "Set-Cookie": await rentalCookieHeader(result.rentalId), "Cache-Control": NO_STORE } });
  }
  return data(result, { status: result.reason === "invalid" ? 404 : 200, headers: { "Cache-Control": NO_STORE } });
}

export const headers: Route.HeadersFunction = () => ({ "Cache-Control": NO_STORE });

export const meta: Route.MetaFunction = ({ matches }) => [
  ...routeMeta(matches, { title: "Finish your rental", description: "Pick up an online rental where you left off.", path: "/rent/back" }),
  { name: "robots", content: "noindex" },
];

export default function RentBack({ loaderData: d }: Route.ComponentProps) {
  const more = d.locationPath ? <Link to={d.locationPath}>See the units we have now</Link> : <Link to="/view-locations">See our locations</Link>;
  switch (d.reason) {
    case "sold_out":
      return (
        <div className="container page page--narrow">
          <h1>That unit size is sold out</h1>
          <div className="alert alert--info" role="status">
            <p>
              Sorry: every {d.unit} unit at {d.locationName} has been rented since you started. We cannot hold one for you.
            </p>
          </div>
          <p>{more}.</p>
        </div>
      );
    case "rented":
      return (
        <div className="container page page--narrow">
          <h1>This rental is complete</h1>
          <p>You have already rented this unit: there is nothing more to do. Your receipt and gate code are in your e-mail.</p>
          <p>
            <Link to="/customer-portal/login">Sign in to the customer portal</Link>
          </p>
        </div>
      );
    default:
      return (
        <div className="container page page--narrow">
          <h1>This link has expired</h1>
          <p>The link in the reminder works for two days. Your answers are no longer kept: please start again.</p>
          <p>{more}.</p>
        </div>
      );
  }
}
