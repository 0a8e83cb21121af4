import { Link } from "react-router";
import type { Route } from "./+types/size-guide";
import { requireSite } from "~/services/site-context.server";
import { routeMeta } from "~/components/route-meta";
import { COMMON_SIZES, area, sizeLabel } from "~/domain/unit-sizes";

export async function loader({ context }: Route.LoaderArgs) {
  await requireSite(context);
  return {
    sizes: COMMON_SIZES.map((s) => ({ ...s, area: area(s), name: sizeLabel(s), query: `${s.width}x${s.length}` })),
  };
}

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
          <li key={s.name} className="card size-card" id={`size-${s.query}`}>
            <h2 className="card__title">{s.name}</h2>
            <p className="size-card__meta">
              <span>{s.area} sq ft</span> · <span>{s.label}</span>
            </p>
            <p>{s.comparable}.</p>
            <h3>What fits</h3>
            <ul>
              {s.fits.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
            <p className="card__actions">
              <Link to={`/units?size=${s.query}`} className="button button--secondary">
                See available {s.name} units
              </Link>
            </p>
          </li>
        ))}
      </ul>
    </div>
  );
}
