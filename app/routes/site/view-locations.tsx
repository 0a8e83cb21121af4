import type { Route } from "./+types/view-locations";
import { requireSite } from "~/services/site/context.server";
import { readLocations } from "~/db/queries/cached-reads.server";
import { routeMeta } from "~/components/ui/route-meta";
import { LocationCard } from "~/components/site/location-card";
import { withRentsOnline } from "~/domain/shared/account-settings";

export async function loader({ context }: Route.LoaderArgs) {
  const { account } = await requireSite(context);
  return { locations: withRentsOnline(account.globalSettings, await readLocations(context, account.id)), accountName: account.name };
}

export const meta: Route.MetaFunction = ({ data, matches }) =>
  routeMeta(matches, {
    title: "Self Storage Locations",
    description: data
      ? `${data.locations.length} ${data.accountName} locations: ${data.locations.map((l) => l.name).join(", ")}. Find the one nearest you.`
      : undefined,
    path: "/view-locations",
  });

export default function ViewLocations({ loaderData }: Route.ComponentProps) {
  const live = loaderData.locations.filter((l) => l.status === "Live");
  const comingSoon = loaderData.locations.filter((l) => l.status !== "Live");
  return (
    <div className="container page">
      <h1>Our locations</h1>
      <p className="lead">Choose a location to see its units, prices and hours.</p>
      {live.length ? (
        <section className="section" aria-labelledby="live-heading">
          {/* "rent online" only while every open location rents online (decision 201). */}
          <h2 id="live-heading">{live.every((l) => l.rentsOnline) ? "Open now: rent online" : "Open now"}</h2>
          <ul className="card-grid">
            {live.map((l) => (
              <li key={l.id}>
                <LocationCard location={l} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {comingSoon.length ? (
        <section className="section" aria-labelledby="coming-soon-heading">
          <h2 id="coming-soon-heading">Coming soon</h2>
          <ul className="card-grid">
            {comingSoon.map((l) => (
              <li key={l.id}>
                <LocationCard location={l} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
