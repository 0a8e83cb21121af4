import { Link } from "~/components/ui/link";
import type { LocationSummary } from "~/db/queries/locations.server";
import { locationStatusLabel } from "~/domain/site/location-page";
import { phoneHref } from "~/domain/shared/phone";
import { RENTALS_DISABLED_MESSAGE } from "~/domain/shared/account-settings";

/** The location's status ("Renting now" / "Coming soon"); open or closed now comes from the hours. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={status === "Live" ? "badge badge--live" : "badge badge--soon"}>{locationStatusLabel(status)}</span>;
}

/** `rentsOnline` false at a live location: its rentals are switched off (decision 201), the card says so. */
export function LocationCard({ location }: { location: Omit<LocationSummary, "globalSettings"> & { rentsOnline?: boolean } }) {
  const a = location.address;
  return (
    <article className="card location-card">
      <h3 className="card__title">
        <Link to={`/locations/${location.urlSlug}`}>
          {location.name}
          {a ? `, ${a.stateProvince}` : ""}
        </Link>
      </h3>
      <StatusBadge status={location.status} />
      {a ? (
        <address className="location-card__address">
          {a.street1}
          {a.street2 ? <>, {a.street2}</> : null}
          <br />
          {a.city}, {a.stateProvince} {a.postal}
        </address>
      ) : null}
      {location.status === "Live" && location.rentsOnline === false ? (
        <p className="location-card__maintenance" data-testid="rentals-off">
          {RENTALS_DISABLED_MESSAGE}
        </p>
      ) : null}
      <p>
        <a href={phoneHref(location.phoneNumber)}>{location.phoneNumber}</a>
      </p>
      <p className="card__actions">
        {/* The place name is in the link text (hidden visually), so the link makes sense out of context. */}
        <Link to={`/locations/${location.urlSlug}`} className="button button--primary">
          {location.status === "Live" ? "View units" : "Learn more"}
          <span className="visually-hidden"> {location.status === "Live" ? "at" : "about"} {location.name}</span>
        </Link>
      </p>
    </article>
  );
}
