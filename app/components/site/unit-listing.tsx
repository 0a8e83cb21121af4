import filtersScript from "./unit-filters-enhance.js?raw";
import type { UnitListingView } from "~/domain/site/units-listing";
import { listingSummary } from "~/domain/site/units-listing";
import { hasAnyFilter } from "~/domain/site/units";
import { phoneHref } from "~/domain/shared/phone";
import { useNonce } from "../ui/nonce";
import { UnitCard } from "./unit-card";

interface Props {
  listing: UnitListingView;
  /** Where the filter form submits (GET), e.g. "/locations/lumberton-nc-28358#units". */
  action: string;
  /** Plain URL without filters, for "Show all units". */
  clearHref: string;
  phoneNumber: string;
  /** /units: the locations to filter by. */
  locations?: { urlSlug: string; name: string }[];
  idPrefix: string;
}

/**
 * Filters and unit cards. Works without JavaScript: the filters are a GET form and the server marks
 * non-matching cards hidden. With JavaScript, a small inline script (./unit-filters-enhance.js, no
 * framework, ~1 KB gzipped; docs/decisions/032) applies the same filters instantly as the selects
 * change and keeps the URL in step. The page stays unhydrated: no React Router client bundle.
 */
export function UnitListing({ listing, action, clearHref, phoneNumber, locations, idPrefix }: Props) {
  const nonce = useNonce();
  const f = listing.filters;
  const listId = `${idPrefix}-list`;
  const statusId = `${idPrefix}-status`;
  const phone = <a href={phoneHref(phoneNumber)}>{phoneNumber}</a>;
  const notices = listing.notices.length ? (
    <div className="alert alert--error" role="alert">
      {listing.notices.map((n) => (
        <p key={n}>{n}</p>
      ))}
    </div>
  ) : null;
  if (listing.totalCount === 0) {
    return (
      notices ?? (
        <p className="unit-listing__none">
          No units can be rented online here right now. Call us at {phone} and we will help you find space.
        </p>
      )
    );
  }
  const split = listing.sections.length > 1 || listing.sections.some((s) => s.heading);
  return (
    <div className="unit-listing">
      {notices}
      <form method="get" action={action} className="unit-filters" data-unit-filters={listId} data-status={statusId} aria-label="Filter units">
        <div className="unit-filters__field">
          <label htmlFor={`${idPrefix}-size`}>Size</label>
          <select id={`${idPrefix}-size`} name="size" defaultValue={f.size ?? f.group ?? ""}>
            <option value="">Any size</option>
            {listing.options.groups.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
            {f.size ? <option value={f.size}>{f.size.replace("x", "' x ")}'</option> : null}
          </select>
        </div>
        <div className="unit-filters__field">
          <label htmlFor={`${idPrefix}-type`}>Type</label>
          <select id={`${idPrefix}-type`} name="type" defaultValue={f.category ?? ""}>
            <option value="">Any type</option>
            {listing.options.categories.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
        {locations ? (
          <div className="unit-filters__field">
            <label htmlFor={`${idPrefix}-location`}>Location</label>
            <select id={`${idPrefix}-location`} name="location" defaultValue={f.location ?? ""}>
              <option value="">Any location</option>
              {locations.map((l) => (
                <option key={l.urlSlug} value={l.urlSlug}>
                  {l.name}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        <div className="unit-filters__buttons">
          <button type="submit" className="button button--secondary">
            Show units
          </button>
          <a href={clearHref} className="unit-filters__clear" data-unit-filters-clear="" hidden={!hasAnyFilter(f)}>
            Clear filters
          </a>
        </div>
      </form>
      <p id={statusId} className="unit-listing__summary" role="status">
        {listingSummary(listing.matchingCount, listing.totalCount)}
      </p>
      {listing.freshness.length ? (
        <p className="unit-listing__as-of">
          {listing.freshness.join(" ")} Your unit is confirmed with the facility when you rent or reserve it.
        </p>
      ) : null}
      <div id={listId} className="unit-listing__results">
        {listing.sections.map((s) => (
          <section
            key={s.key}
            className="unit-section"
            data-unit-section=""
            hidden={!s.cards.some((c) => c.matches)}
            aria-labelledby={s.heading ? `${idPrefix}-${s.key}` : undefined}
            aria-label={s.heading ? undefined : "Unit types"}
          >
            {s.heading ? (
              <h3 className="unit-section__heading" id={`${idPrefix}-${s.key}`}>
                {s.headingHref ? <a href={s.headingHref}>{s.heading}</a> : s.heading}
              </h3>
            ) : null}
            <ul className="unit-grid">
              {s.cards.map((c) => (
                <UnitCard key={`${c.locationSlug}-${c.id}`} card={c} headingLevel={split ? 4 : 3} />
              ))}
            </ul>
          </section>
        ))}
        <p className="unit-listing__empty" data-unit-empty="" hidden={listing.matchingCount > 0}>
          No units match these filters. <a href={clearHref}>Show all units</a> or call us at {phone}.
        </p>
      </div>
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: filtersScript }} />
    </div>
  );
}
