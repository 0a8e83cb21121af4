import { data } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/units";
import unitsCss from "~/styles/units.css?url";
import { requireSite } from "~/services/site/context.server";
import { getAllUnitsListing } from "~/db/queries/units.server";
import { routeMeta } from "~/components/ui/route-meta";
import { UnitListing } from "~/components/site/unit-listing";
import { UNIT_AVAILABILITY_CACHE } from "~/domain/site/units";
import { CONTENT_CACHE, NO_STORE } from "~/domain/web/cache";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: unitsCss }];

/** The default target of a Rent button: rentable unit types across every live location, with filters. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const { account } = await requireSite(context);
  const { listing, locations } = await getAllUnitsListing(context, account, new URL(request.url).searchParams);
  return data(
    {
      listing,
      locations: locations.map((l) => ({ urlSlug: l.urlSlug, name: l.name })),
      phoneNumber: locations[0]?.phoneNumber ?? "",
    },
    { headers: { "Cache-Control": listing.notices.length ? NO_STORE : UNIT_AVAILABILITY_CACHE } },
  );
}

export const headers: Route.HeadersFunction = ({ loaderHeaders }) => ({
  "Cache-Control": loaderHeaders.get("Cache-Control") ?? CONTENT_CACHE,
});

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, {
    title: "Storage Units for Rent",
    description: "Storage units for rent at every open location: compare sizes, types and prices and rent online.",
    path: "/units",
  });

export default function Units({ loaderData }: Route.ComponentProps) {
  return (
    <div className="container page">
      <h1>Storage units for rent</h1>
      <p className="lead">
        Every unit you can rent online today, at all our open locations. Not sure what size you need? Read our{" "}
        <Link to="/size-guide">size guide</Link>.
      </p>
      <section aria-labelledby="all-units-heading">
        <h2 id="all-units-heading" className="visually-hidden">
          Available unit types
        </h2>
        <UnitListing
          listing={loaderData.listing}
          action="/units"
          clearHref="/units"
          phoneNumber={loaderData.phoneNumber}
          locations={loaderData.locations}
          idPrefix="all-units"
        />
      </section>
    </div>
  );
}
