import { data } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/location";
import { requireSite } from "~/services/site/context.server";
import { readLocationPage } from "~/db/queries/cached-reads.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { handleContactForm } from "~/services/site/contact-form.server";
import { routeMeta, siteFromMatches } from "~/components/ui/route-meta";
import { absoluteUrl } from "~/components/ui/page-meta";
import { ContactForm } from "~/components/site/contact-form";
import { StatusBadge } from "~/components/site/location-card";
import { ResponsiveImage } from "~/components/ui/responsive-image";
import type { Image } from "~/db/schema/shared";
import { directionsUrl, presentLinks, googleOpeningHours, hoursView, selfStorageJsonLd, specialOpeningHoursJsonLd } from "~/domain/site/location-page";
import { specialHoursLine, upcomingSpecialHours } from "~/domain/site/hours";
import { settingsForLocation } from "~/domain/shared/account-settings";
import { formatCents, formatWholeDollars } from "~/domain/shared/money";
import { phoneHref } from "~/domain/shared/phone";
import { acceptedCardBrands } from "~/domain/payments/accepted-cards";
import { CardBrandBadges } from "~/components/payments/card-brands";
import { externalPaymentLink, payBillHref } from "~/domain/payments/pay-bill-link";
import { CONTENT_CACHE, NO_STORE } from "~/domain/web/cache";
import { now } from "~/platform/clock.server";
import unitsCss from "~/styles/units.css?url";
import { getLocationUnitListing } from "~/db/queries/units.server";
import { UNIT_AVAILABILITY_CACHE } from "~/domain/site/units";
import { UnitListing } from "~/components/site/unit-listing";
import { redirectToLowercasePath } from "~/services/site/redirects.server";
import { notFound } from "~/services/web/responses.server";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: unitsCss }];

export async function loader({ params, request, context }: Route.LoaderArgs) {
  redirectToLowercasePath(request);
  const { account } = await requireSite(context);
  const location = await readLocationPage(context, account.id, params.slug);
  if (!location || location.accountId !== account.id) {
    throw notFound();
  }
  const isComingSoon = location.status === "Coming Soon";
  // The account's global_settings with the location's own on top (decision 201).
  const settings = settingsForLocation(account.globalSettings, location.globalSettings);
  const csrf = isComingSoon ? await getCsrfToken(request) : null;
  const url = new URL(request.url);
  const units = isComingSoon ? null : await getLocationUnitListing(context, location, account, url.searchParams);
  // "Now" and "today" are the request's (the page cache keeps a page to the next whole minute, decision 081).
  const at = now();
  const hours = hoursView(location.hoursBlocks, at, location.timeZone.timeZoneId, location.specialHours);
  const specialHours = hours.length ? upcomingSpecialHours(location.specialHours, at, location.timeZone.timeZoneId) : [];
  const social = presentLinks([
      ["Facebook", location.facebook],
      ["Google", location.google],
      ["Yelp", location.yelp],
      ["X (Twitter)", location.twitter],
      ["Instagram", location.instagram],
      ["LinkedIn", location.linkedin],
      ["SpareFoot", location.sparefoot],
  ]);
  const reviewLinks = presentLinks([
      ["Google", location.googleReviewLink],
      ["Yelp", location.yelpReviewLink],
      ["Facebook", location.facebookReviewLink],
  ]);
  return data(
    {
      location: {
        name: location.name,
        urlSlug: location.urlSlug,
        status: location.status,
        phoneNumber: location.phoneNumber,
        sms: location.sms,
        email: location.email,
        metaTitle: location.metaTitle,
        metaTagline: location.metaTagline,
        metaDescription: location.metaDescription,
        mainImage: location.mainImage,
        mainLogo: location.mainLogo,
        // The location's photos (spec §3 media), in the operator's order; the header's main image is not repeated.
        media: location.media.filter((m) => m.src !== location.mainImage?.src).map(
          (m): Image => ({
            width: m.width, height: m.height, type: m.type, alt: m.alt, src: m.src, src_webp: m.srcWebp, title: m.title, file_name: m.fileName,
            file_name_full: m.fileNameFull, file_name_original: m.fileNameOriginal, file_name_webp: m.fileNameWebp,
            file_name_original_unmodified: m.fileNameOriginalUnmodified, file_type: m.fileType, file_base_url: m.fileBaseUrl,
          }),
        ),
        address: location.address,
        amenities: location.amenities.map((a) => ({ id: a.id, label: a.label, description: a.description, image: a.image })),
        // is_insurance_shown governs the plan list here as well as at the rental.
        insurancePlans: (settings.is_insurance_shown ? location.insurancePlans : []).map((p) => ({
          id: p.id,
          coverage: p.coverage,
          premium: p.premium,
          description: p.description,
          provider: p.provider,
        })),
        acceptedCards: acceptedCardBrands(location.paymentTypes),
        reviewSettings: location.reviewSettings,
      },
      timeZone: location.timeZone.timeZoneId,
      hours,
      specialHours,
      social,
      reviewLinks,
      isComingSoon,
      payBill: isComingSoon ? null : { href: payBillHref(location), external: externalPaymentLink(location.externalPaymentLink) !== null },
      isInsuranceRequired: settings.is_insurance_required,
      csrfToken: csrf?.token ?? null,
      notified: url.searchParams.get("notified") === "1",
      units,
    },
    {
      headers: {
        // Hours status changes through the day: keep CDN copies short. Pages with a form are private.
        "Cache-Control": isComingSoon || units?.notices.length ? NO_STORE : UNIT_AVAILABILITY_CACHE,
        ...(csrf?.setCookie ? { "Set-Cookie": csrf.setCookie } : {}),
      },
    },
  );
}

export const action = keepFormThroughOutage(notifyAction, (form) => ({ result: outageResult(form) }));

async function notifyAction({ request, context, params }: Route.ActionArgs) {
  const { account } = await requireSite(context);
  const location = await readLocationPage(context, account.id, params.slug);
  if (!location || location.accountId !== account.id || location.status !== "Coming Soon") {
    throw data(null, { status: 405 });
  }
  return handleContactForm(request, context, {
    kind: "notify",
    successUrl: `/locations/${location.urlSlug}?notified=1#notify`,
  });
}

export const headers: Route.HeadersFunction = ({ loaderHeaders }) => {
  const h = new Headers({ "Cache-Control": loaderHeaders.get("Cache-Control") ?? CONTENT_CACHE });
  const cookie = loaderHeaders.get("Set-Cookie");
  if (cookie) h.set("Set-Cookie", cookie);
  return h;
};

export const meta: Route.MetaFunction = ({ data, matches }) => {
  if (!data) return routeMeta(matches, { title: "Location not found", path: "/view-locations", noindex: true });
  const l = data.location;
  const site = siteFromMatches(matches);
  const path = `/locations/${l.urlSlug}`;
  return routeMeta(matches, {
    title: l.metaTitle || `Self Storage in ${l.name}`,
    description: l.metaDescription,
    path,
    image: l.mainImage?.src,
    type: "business.business",
    jsonLd: selfStorageJsonLd({
      name: `${site?.websiteName ?? ""} ${l.name}`.trim(),
      url: absoluteUrl(site?.origin, path),
      phone: l.phoneNumber,
      email: l.email,
      image: l.mainImage ? absoluteUrl(site?.origin, l.mainImage.src) : undefined,
      address: l.address ? { ...l.address, lat: l.address.lat, lon: l.address.lon } : null,
      officeHours: googleOpeningHours(data.hours),
      specialHours: specialOpeningHoursJsonLd(data.specialHours),
      rating: { value: l.reviewSettings.rating, count: l.reviewSettings.total_reviews },
      sameAs: data.social.map(([, href]) => href),
    }),
  });
};

/** The logo is 4rem high (app.css): its slot's width follows from its shape (for the srcset's choice). */
function logoSizes(image: Image): string | undefined {
  return image.width && image.height ? `${Math.ceil((64 * image.width) / image.height)}px` : undefined;
}

export default function LocationRoute({ loaderData, actionData }: Route.ComponentProps) {
  const { location: l, hours, specialHours, social, reviewLinks, isComingSoon } = loaderData;
  const a = l.address;
  return (
    <div className="container page location-page">
      <header className="location-header">
        <div>
          {l.mainLogo ? <ResponsiveImage image={l.mainLogo} alt={l.mainLogo.alt || `${l.name} logo`} eager className="location-header__logo" sizes={logoSizes(l.mainLogo)} /> : null}
          <p className="eyebrow">{l.metaTagline}</p>
          <h1>
            {l.name}
            {a ? `, ${a.stateProvince}` : ""}
          </h1>
          <StatusBadge status={l.status} />
        </div>
        {l.mainImage ? <ResponsiveImage image={l.mainImage} eager className="location-header__image" sizes="(min-width: 60rem) 28rem, 100vw" /> : null}
      </header>

      {isComingSoon ? (
        <section className="alert alert--info coming-soon" aria-labelledby="coming-soon-heading">
          <h2 id="coming-soon-heading">Coming soon</h2>
          <p>
            This location is not open yet, so units cannot be rented online. Leave your details below and we will let you
            know as soon as units are ready, or call us at <a href={phoneHref(l.phoneNumber)}>{l.phoneNumber}</a>.
          </p>
        </section>
      ) : null}

      <div className="location-layout">
        <div className="location-main">
          {!isComingSoon && loaderData.units ? (
            <section id="units" aria-labelledby="units-heading" className="section units-section">
              <h2 id="units-heading">Storage units</h2>
              <p>
                Today's prices per month. Not sure what size you need? See our <Link to="/size-guide">size guide</Link>.
              </p>
              <UnitListing
                listing={loaderData.units}
                action={`/locations/${l.urlSlug}#units`}
                clearHref={`/locations/${l.urlSlug}#units`}
                phoneNumber={l.phoneNumber}
                idPrefix="units"
              />
            </section>
          ) : null}

          {l.amenities.length ? (
            <section aria-labelledby="amenities-heading" className="section">
              <h2 id="amenities-heading">Amenities</h2>
              <ul className="amenity-list">
                {l.amenities.map((am) => (
                  <li key={am.id}>
                    {am.image ? <ResponsiveImage image={am.image} className="amenity-list__image" /> : null}
                    {am.label}
                    {am.description ? <span className="amenity-list__description"> {am.description}</span> : null}
                  </li>
                ))}
              </ul>
            </section>
          ) : null}

          {l.media.length ? (
            <section aria-labelledby="photos-heading" className="section">
              <h2 id="photos-heading">Photos</h2>
              <ul className="location-gallery">
                {l.media.map((img, i) => (
                  <li key={`${img.src}-${i}`}>
                    <figure>
                      <ResponsiveImage image={img} sizes="(max-width: 600px) 100vw, 33vw" />
                      {img.title ? <figcaption>{img.title}</figcaption> : null}
                    </figure>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}

          {!isComingSoon && l.insurancePlans.length ? (
            <section aria-labelledby="protection-heading" className="section">
              <h2 id="protection-heading">Protection plans</h2>
              <p>
                {loaderData.isInsuranceRequired
                  ? "A protection plan is required with every rental."
                  : "Protect your belongings while they are in storage. A plan is optional."}
              </p>
              <table className="data-table">
                <caption className="visually-hidden">Protection plan options</caption>
                <thead>
                  <tr>
                    <th scope="col">Coverage</th>
                    <th scope="col">Theft coverage</th>
                    <th scope="col">Per month</th>
                  </tr>
                </thead>
                <tbody>
                  {l.insurancePlans.map((p) => (
                    <tr key={p.id}>
                      <th scope="row">{formatWholeDollars(p.coverage)}</th>
                      <td>{p.description}</td>
                      <td>{formatCents(p.premium)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          ) : null}

          {isComingSoon && loaderData.csrfToken ? (
            <section id="notify" aria-labelledby="notify-heading" className="section">
              <h2 id="notify-heading">Get notified when we open</h2>
              {loaderData.notified ? (
                <div className="alert alert--success" role="status">
                  <p>Thank you! We will let you know as soon as units at {l.name} are ready to rent.</p>
                </div>
              ) : (
                <ContactForm
                  kind="notify"
                  csrfToken={loaderData.csrfToken}
                  fixedLocation={l.urlSlug}
                  lastResult={actionData?.result}
                />
              )}
            </section>
          ) : null}
        </div>

        <aside className="location-aside" aria-label={`${l.name} details`}>
          <section className="card" aria-labelledby="visit-heading">
            <h2 id="visit-heading">Visit and contact</h2>
            {a ? (
              <>
                <address>
                  {a.street1}
                  {a.street2 ? <>, {a.street2}</> : null}
                  <br />
                  {a.city}, {a.stateProvince} {a.postal}
                </address>
                <p>
                  <a href={directionsUrl(a)} target="_blank" rel="noopener noreferrer">
                    Get directions<span className="visually-hidden"> to {l.name} (opens in a new tab)</span>
                  </a>
                </p>
              </>
            ) : null}
            <ul className="contact-list">
              <li>
                Call: <a href={phoneHref(l.phoneNumber)}>{l.phoneNumber}</a>
              </li>
              {l.sms ? (
                <li>
                  Text: <a href={phoneHref(l.sms, "sms")}>{l.sms}</a>
                </li>
              ) : null}
              {l.email ? (
                <li>
                  Email: <a href={`mailto:${l.email}`}>{l.email}</a>
                </li>
              ) : null}
            </ul>
            {loaderData.payBill ? (
              <p>
                Already renting here?{" "}
                <a href={loaderData.payBill.href} data-testid="pay-bill">
                  Pay your bill
                  {loaderData.payBill.external ? <span className="visually-hidden"> on our payment site</span> : null}
                </a>
              </p>
            ) : null}
          </section>

          {hours.map((h, i) => (
            <section key={h.type} className="card hours" aria-labelledby={`hours-${h.type}`}>
              <h2 id={`hours-${h.type}`}>{h.heading}</h2>
              <p className={h.status.isOpen ? "hours__status hours__status--open" : "hours__status hours__status--closed"}>
                {h.status.text}
              </p>
              <table className="hours__table">
                <caption className="visually-hidden">{h.heading}</caption>
                <tbody>
                  {h.ranges.map((r) => (
                    <tr key={r.label} className={r.days.includes(h.status.today) ? "is-today" : undefined}>
                      <th scope="row">
                        {r.label}
                        {r.days.includes(h.status.today) ? <span className="visually-hidden"> (today)</span> : null}
                      </th>
                      <td>{r.text}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {i === 0 && specialHours.length ? (
                <div className="hours__special" data-testid="special-hours">
                  <h3 id="special-hours-heading">Special hours</h3>
                  <ul aria-labelledby="special-hours-heading">
                    {specialHours.map((s) => (
                      <li key={s.date} className={s.isToday ? "is-today" : undefined}>
                        {specialHoursLine(s)}
                        {s.isToday ? <span className="visually-hidden"> (today)</span> : null}
                      </li>
                    ))}
                  </ul>
                </div>
              ) : null}
            </section>
          ))}

          {!isComingSoon ? (
            <section className="card" aria-labelledby="cards-heading">
              <h2 id="cards-heading">Cards we accept</h2>
              {l.acceptedCards.length ? (
                <CardBrandBadges brands={l.acceptedCards} label={`Cards accepted at ${l.name}`} />
              ) : (
                <p data-testid="no-card-payment">
                  We do not take card payments online at this location. Please call the office at{" "}
                  <a href={phoneHref(l.phoneNumber)}>{l.phoneNumber}</a> to rent or pay.
                </p>
              )}
            </section>
          ) : null}

          <section className="card" aria-labelledby="reviews-heading">
            <h2 id="reviews-heading">Reviews</h2>
            {l.reviewSettings.total_reviews > 0 ? (
              <p>
                Rated {l.reviewSettings.rating.toFixed(1)} out of 5 from {l.reviewSettings.total_reviews} reviews.
              </p>
            ) : (
              <p>No reviews yet.</p>
            )}
            {reviewLinks.length ? (
              <ul className="link-list">
                {reviewLinks.map(([label, href]) => (
                  <li key={label}>
                    <a href={href} target="_blank" rel="noopener noreferrer">
                      Review us on {label}
                      <span className="visually-hidden"> (opens in a new tab)</span>
                    </a>
                  </li>
                ))}
              </ul>
            ) : null}
          </section>

          {social.length ? (
            <section className="card" aria-labelledby="social-heading">
              <h2 id="social-heading">Follow us</h2>
              <ul className="inline-list">
                {social.map(([label, href]) => (
                  <li key={label}>
                    <a href={href} target="_blank" rel="noopener noreferrer">
                      {label}
                      <span className="visually-hidden"> (opens in a new tab)</span>
                    </a>
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
        </aside>
      </div>
    </div>
  );
}
