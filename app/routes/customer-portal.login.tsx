import type { Route } from "./+types/customer-portal.login";
import { requireSite } from "~/services/site-context.server";
import { listLocations } from "~/db/queries/locations.server";
import { routeMeta } from "~/components/route-meta";
import { phoneHref } from "~/domain/phone";
import { NO_STORE } from "~/domain/cache";

// Sign-in arrives with the customer portal (issue 5). Until then the page tells tenants how to pay.
export async function loader({ context }: Route.LoaderArgs) {
  const { account } = await requireSite(context);
  const locations = await listLocations(context.db, account.id);
  return { phone: locations[0]?.phoneNumber ?? "" };
}

export const headers: Route.HeadersFunction = () => ({ "Cache-Control": NO_STORE });

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, {
    title: "Pay Online | Customer Portal Sign In",
    description: "Sign in to the customer portal to pay your storage bill, set up autopay and manage your unit.",
    path: "/customer-portal/login",
  });

export default function PortalLogin({ loaderData }: Route.ComponentProps) {
  return (
    <div className="container page page--narrow">
      <h1>Pay your bill</h1>
      <p className="lead">Online bill pay and the customer portal are being set up.</p>
      <p>
        To make a payment today, call the office at{" "}
        <a href={phoneHref(loaderData.phone)}>{loaderData.phone}</a> or visit us during office hours.
      </p>
    </div>
  );
}
