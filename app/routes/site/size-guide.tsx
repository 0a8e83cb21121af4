import { data } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/size-guide";
import unitsCss from "~/styles/units.css?url";
import { requireSite } from "~/services/site/context.server";
import { getAllUnitsListing } from "~/db/queries/units.server";
import { routeMeta } from "~/components/ui/route-meta";
import { COMMON_SIZES, area, sizeLabel } from "~/domain/site/unit-sizes";
import { sizeGroup, sizeKey, SIZE_GROUP_LABELS, UNIT_AVAILABILITY_CACHE } from "~/domain/site/units";
import { CONTENT_CACHE, NO_STORE } from "~/domain/web/cache";

const listFormat = new Intl.ListFormat("en-US", { style: "long", type: "conjunction" });

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: unitsCss }];

/** Each common size with its area, what fits, and a link to the available units of that size. */
export async function loader({ context }: Route.LoaderArgs) {
  const { account } = await requireSite(context);
  const { listing } = await getAllUnitsListing(context, account, new URLSearchParams());
  const cards = listing.sections.flatMap((s) => s.cards).filter((c) => c.category !== "parking");
  return data(
    {
      sizes: COMMON_SIZES.map((s) => {
        const key = sizeKey(s);
        const available = cards.filter((c) => c.sizeKey === key);
        return {
          ...s,
          area: area(s),
          name: sizeLabel(s),
          key,
          group: SIZE_GROUP_LABELS[sizeGroup({ ...s, category: "drive_up" })],
          availableTypes: available.length,
          locations: [...new Set(available.map((c) => c.locationName))],
        };
      }),
    },
    { headers: { "Cache-Control": listing.notices.length ? NO_STORE : UNIT_AVAILABILITY_CACHE } },
  );
}

export const headers: Route.HeadersFunction = ({ loaderHeaders }) => ({
  "Cache-Control": loaderHeaders.get("Cache-Control") ?? CONTENT_CACHE,
});

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, {
    title: "Storage Unit Size Guide",
    description: "What fits in a 5x5, 5x10, 10x10, 10x15, 10x20 and 10x30 storage unit. Find the right size and see what is available.",
    path: "/size-guide",
  });

export default function SizeGuide({ loaderData }: Route.ComponentProps) {
  return (
    <div className="container page">
      <h1>Storage unit size guide</h1>
      <p className="lead">Not sure what size you need? Here is what typically fits in each of our common unit sizes.</p>
      <ul className="size-guide">
        {loaderData.sizes.map((s) => (
          <li key={s.name} className="card size-card" id={`size-${s.key}`}>
            <h2 className="card__title">{s.name}</h2>
            <p className="size-card__meta">
              <span>{s.area} sq ft</span> · <span>{s.group}</span>
            </p>
            <p>{s.comparable}.</p>
            <h3>What fits</h3>
            <ul>
              {s.fits.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
            <p className="card__actions size-card__link">
              {s.availableTypes > 0 ? (
                <>
                  <Link to={`/units?size=${s.key}`} className="button button--secondary">
                    See available {s.name} units
                  </Link>
                  <span className="size-card__availability"> Available at {listFormat.format(s.locations)}.</span>
                </>
              ) : (
                <>
                  <span className="size-card__availability">No {s.name} units are free to rent online right now. </span>
                  <Link to="/units">See every available unit</Link>
                </>
              )}
            </p>
          </li>
        ))}
      </ul>
    </div>
  );
}
