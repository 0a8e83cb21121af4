import { Link } from "~/components/ui/link";
import type { Route } from "./+types/home";
import { requireSite } from "~/services/site/context.server";
import { readContentItems, readLocations } from "~/db/queries/cached-reads.server";
import { routeMeta } from "~/components/ui/route-meta";
import { LocationCard } from "~/components/site/location-card";
import { ResponsiveImage } from "~/components/ui/responsive-image";
import { withRentsOnline } from "~/domain/shared/account-settings";

export async function loader({ context }: Route.LoaderArgs) {
  const { website, account } = await requireSite(context);
  const [locations, faqs] = await Promise.all([
    readLocations(context, account.id).then((list) => withRentsOnline(account.globalSettings, list)),
    readContentItems(context, account.id, "FAQ"),
  ]);
  return {
    name: website.websiteName,
    tagline: account.tagline,
    mainImage: account.mainImage,
    locations,
    /** Whether any location rents online now (decision 201): the lead only promises it then. */
    rentsOnline: locations.some((l) => l.rentsOnline),
    faqs: faqs.slice(0, 3).map((f) => ({ id: f.id, title: f.title })),
  };
}

export const meta: Route.MetaFunction = ({ data, matches }) =>
  routeMeta(matches, {
    title: data ? `${data.name} | ${data.tagline}` : "Self storage",
    fullTitle: true,
    description: data
      ? `${data.tagline}. Find a location, compare unit sizes and prices${data.rentsOnline ? ", and rent online in minutes" : ""}.`
      : undefined,
    path: "/",
    image: data?.mainImage?.src,
  });

export default function Home({ loaderData }: Route.ComponentProps) {
  const { name, tagline, mainImage, locations, faqs, rentsOnline } = loaderData;
  const live = locations.filter((l) => l.status === "Live");
  return (
    <>
      <section className="hero">
        <div className="container hero__inner">
          <div className="hero__text">
            <h1>{tagline || name}</h1>
            <p className="hero__lead">
              {rentsOnline
                ? "Find a location near you, compare unit sizes and prices, and rent online in minutes. Your gate code is ready as soon as you finish."
                : "Find a location near you and compare unit sizes and prices. Call the office to rent."}
            </p>
            <div className="button-row">
              <Link to="/view-locations" className="button button--primary">
                Find a location
              </Link>
              <Link to="/size-guide" className="button button--secondary">
                Which size do I need?
              </Link>
            </div>
          </div>
          {mainImage ? (
            <ResponsiveImage image={mainImage} eager className="hero__image" sizes="(min-width: 60rem) 50vw, 100vw" />
          ) : null}
        </div>
      </section>
      <section className="container section" aria-labelledby="locations-heading">
        <h2 id="locations-heading">Our locations</h2>
        <ul className="card-grid">
          {locations.map((l) => (
            <li key={l.id}>
              <LocationCard location={l} />
            </li>
          ))}
        </ul>
      </section>
      <section className="container section features" aria-labelledby="why-heading">
        <h2 id="why-heading">Why store with us</h2>
        <ul className="feature-list">
          <li>
            <h3>Rent online in minutes</h3>
            <p>Pick a unit, sign your lease and pay online. No trip to the office needed.</p>
          </li>
          <li>
            <h3>Secure and clean</h3>
            <p>Gated keypad access, video surveillance and well-lit drive aisles.</p>
          </li>
          <li>
            <h3>Month to month</h3>
            <p>No long-term contract. Pay your bill or set up autopay in the customer portal.</p>
          </li>
        </ul>
        {live.length ? (
          <p>
            <Link to="/units" className="button button--primary">
              See available units
            </Link>
          </p>
        ) : null}
      </section>
      {faqs.length ? (
        <section className="container section" aria-labelledby="faq-heading">
          <h2 id="faq-heading">Common questions</h2>
          <ul className="link-list">
            {faqs.map((f) => (
              <li key={f.id}>
                <Link to={`/faqs#faq-${f.id}`}>{f.title}</Link>
              </li>
            ))}
          </ul>
          <p>
            <Link to="/faqs">All questions and answers</Link>
          </p>
        </section>
      ) : null}
    </>
  );
}
