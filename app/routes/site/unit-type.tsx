import { data } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/unit-type";
import unitsCss from "~/styles/units.css?url";
import { requireSite } from "~/services/site/context.server";
import { accountUnitSettings, cardPaymentsOnline, getUnitAvailabilityOrNotice, getUnitsLocation } from "~/db/queries/units.server";
import { routeMeta } from "~/components/ui/route-meta";
import { UnitActionsView, UnitPrice } from "~/components/site/unit-card";
import { UnitPromotion } from "~/components/site/unit-promotion";
import { ResponsiveImage } from "~/components/ui/responsive-image";
import { locationUnitListing } from "~/domain/site/units-listing";
import { feet, NO_FILTERS, UNIT_AVAILABILITY_CACHE } from "~/domain/site/units";
import { oneLineAddress, unitPageTexts } from "~/domain/site/units-template";
import { COMMON_SIZES } from "~/domain/site/unit-sizes";
import { CONTENT_CACHE, NO_STORE } from "~/domain/web/cache";
import { redirectToLowercasePath } from "~/services/site/redirects.server";
import { notFound } from "~/services/web/responses.server";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: unitsCss }];

/** One unit type at one location: /locations/{url_slug}/units/{unitTypeSlug}. */
export async function loader({ params, request, context }: Route.LoaderArgs) {
  redirectToLowercasePath(request);
  const { website, account } = await requireSite(context);
  const location = await getUnitsLocation(context.db, account.id, params.slug);
  if (!location || location.status !== "Live") throw notFound();
  const { types, notice, freshness } = await getUnitAvailabilityOrNotice(context, location);
  if (notice) throw data({ message: notice }, { status: 503, headers: { "Cache-Control": NO_STORE } });
  const listing = locationUnitListing(types, location, accountUnitSettings(account, location.globalSettings, await cardPaymentsOnline(context, location)), NO_FILTERS);
  const cards = listing.sections.flatMap((s) => s.cards);
  const card = cards.find((c) => c.slug === params.unitTypeSlug.toLowerCase());
  if (!card) throw notFound();
  const type = types.find((t) => t.id === card.id)!;
  const texts = unitPageTexts(
    { title: website.unitPageTitle, meta: website.unitPageMeta },
    {
      width: type.width,
      length: type.length,
      unitType: type.name,
      locationName: location.name,
      locationAddress: oneLineAddress(location.address),
    },
  );
  const common = COMMON_SIZES.find((s) => s.width === type.width && s.length === type.length) ?? null;
  return data(
    {
      texts,
      card,
      freshness,
      height: type.height,
      images: type.images.filter((i) => i.src.trim() !== ""),
      location: { name: location.name, urlSlug: location.urlSlug, address: oneLineAddress(location.address) },
      fits: common ? { comparable: common.comparable, fits: common.fits } : null,
      others: cards
        .filter((c) => c.id !== card.id && !c.actions.soldOut)
        .map((c) => ({ id: c.id, href: c.href, label: `${c.sizeText} ${c.name}` })),
    },
    { headers: { "Cache-Control": UNIT_AVAILABILITY_CACHE } },
  );
}

export const headers: Route.HeadersFunction = ({ loaderHeaders, errorHeaders }) => ({
  "Cache-Control": errorHeaders?.get("Cache-Control") ?? loaderHeaders.get("Cache-Control") ?? CONTENT_CACHE,
});

export const meta: Route.MetaFunction = ({ data, matches, params }) => {
  if (!data) return routeMeta(matches, { title: "Unit not found", path: `/locations/${params.slug}`, noindex: true });
  return routeMeta(matches, {
    title: data.texts.title,
    fullTitle: true,
    description: data.texts.description,
    path: data.card.href,
  });
};

export default function UnitTypePage({ loaderData }: Route.ComponentProps) {
  const { card, location, fits, others, height, freshness, images } = loaderData;
  return (
    <div className="container page unit-page">
      <nav aria-label="Breadcrumb">
        <ol className="inline-list breadcrumbs">
          <li>
            <Link to="/view-locations">Locations</Link> ›
          </li>
          <li>
            <Link to={`/locations/${location.urlSlug}`}>{location.name}</Link> ›
          </li>
          <li aria-current="page">
            {card.sizeText} {card.name}
          </li>
        </ol>
      </nav>
      <h1>
        {card.sizeText} {card.name} storage unit in {location.name}
      </h1>
      <p className="lead">{location.address}</p>
      <div className="unit-page__layout">
        <div>
          {card.description ? <p>{card.description}</p> : null}
          {images.length ? (
            <ul className="unit-page__photos" aria-label={`Photos of the ${card.sizeText} ${card.name} unit`}>
              {images.map((img, i) => (
                <li key={`${img.src}-${i}`}>
                  <ResponsiveImage image={img} eager={i === 0} sizes="(max-width: 600px) 100vw, 33vw" />
                </li>
              ))}
            </ul>
          ) : null}
          <dl className="unit-page__facts">
            <dt>Size</dt>
            <dd>
              {card.sizeText} ({card.area} sq ft, {card.sizeGroupLabel.toLowerCase()})
            </dd>
            {height ? (
              <>
                <dt>Ceiling height</dt>
                <dd>{feet(height)}'</dd>
              </>
            ) : null}
            <dt>Type</dt>
            <dd>{card.categoryLabel}</dd>
            <dt>Floor</dt>
            <dd>{card.floor === 1 ? "Ground floor" : `Floor ${card.floor}`}</dd>
            {card.features.length ? (
              <>
                <dt>Features</dt>
                <dd>{card.features.join(", ")}</dd>
              </>
            ) : null}
          </dl>
          {fits ? (
            <section aria-labelledby="fits-heading">
              <h2 id="fits-heading">What fits</h2>
              <p>{fits.comparable}.</p>
              <ul>
                {fits.fits.map((f) => (
                  <li key={f}>{f}</li>
                ))}
              </ul>
              <p>
                <Link to="/size-guide">Compare every size in our size guide</Link>
              </p>
            </section>
          ) : null}
        </div>
        <aside className="card unit-page__buy" aria-labelledby="price-heading">
          <h2 id="price-heading">Price and availability</h2>
          <UnitPromotion text={card.promotion} />
          <UnitPrice card={card} />
          <p className={`unit-card__availability unit-card__availability--${card.availability.state}`}>{card.availability.text}</p>
          {freshness ? <p className="unit-page__as-of">{freshness}</p> : null}
          <UnitActionsView card={{ ...card, locationName: "" }} />
        </aside>
      </div>
      {others.length ? (
        <section aria-labelledby="others-heading" className="section">
          <h2 id="others-heading">Other units at {location.name}</h2>
          <ul className="inline-list">
            {others.map((o) => (
              <li key={o.id}>
                <Link to={o.href}>{o.label}</Link>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
