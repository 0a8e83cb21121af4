import { Link } from "react-router";
import type { Route } from "./+types/units";
import { requireSite } from "~/services/site-context.server";
import { listLocations } from "~/db/queries/locations.server";
import { routeMeta } from "~/components/route-meta";
import { LocationCard } from "~/components/location-card";

/** The default target of a Rent button: rentable unit types across live locations (issue 3 fills in the units). */
export async function loader({ context }: Route.LoaderArgs) {
  const { account } = await requireSite(context);
  const locations = await listLocations(context.db, account.id);
  return { locations: locations.filter((l) => l.status === "Live") };
}

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, {
    title: "Storage Units for Rent",
    description: "Storage units for rent at every open location: compare sizes and prices and rent online.",
    path: "/units",
  });

export default function Units({ loaderData }: Route.ComponentProps) {
  return (
    <div className="container page">
      <h1>Storage units for rent</h1>
      <p className="lead">
        Choose a location to see its units. Not sure what size you need? Read our <Link to="/size-guide">size guide</Link>.
      </p>
      <ul className="card-grid">
        {loaderData.locations.map((l) => (
          <li key={l.id}>
            <LocationCard location={l} />
          </li>
        ))}
      </ul>
    </div>
  );
}
