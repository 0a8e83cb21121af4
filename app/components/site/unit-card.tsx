import type { UnitCardView } from "~/domain/site/units-listing";
import { formatCents } from "~/domain/shared/money";
import { phoneHref } from "~/domain/shared/phone";
import { RENTALS_DISABLED_MESSAGE } from "~/domain/shared/account-settings";
import { rentalBlockMessage } from "~/domain/rental/rules";
import { ResponsiveImage } from "../ui/responsive-image";
import { UnitPromotion } from "./unit-promotion";


/**
 * Price per month: the charged rate, with the standard rate struck through beside it when a web rate
 * saves money (labelled for screen readers, which do not announce strike-through), and the value
 * pricing line when it is on (decision 092).
 */
export function UnitPrice({ card }: { card: Pick<UnitCardView, "rate"> & Partial<Pick<UnitCardView, "value">> }) {
  const { rate, value } = card;
  return (
    <>
      <p className="unit-price">
        {rate.wasRate !== null ? <span className="visually-hidden">Web rate </span> : null}
        <strong className="unit-price__rate">{formatCents(rate.rate)}</strong>
        <span className="unit-price__period">/month</span>
        {rate.wasRate !== null ? (
          <>
            {" "}
            <span className="visually-hidden">, standard rate </span>
            <s className="unit-price__was" data-testid="standard-rate">
              {formatCents(rate.wasRate)}
            </s>
            <span className="unit-price__saving">Save {formatCents(rate.saving)} a month online</span>
          </>
        ) : null}
      </p>
      {value ? (
        <p className="unit-price__value" data-testid="value-pricing">
          {value.text}
          {value.bestValue ? <strong className="unit-badge unit-badge--value"> Best value</strong> : null}
        </p>
      ) : null}
    </>
  );
}

/** Rent / Reserve buttons, the maintenance message when rentals are off, "call to rent" without a payment gateway, or the sold-out note. */
export function UnitActionsView({ card }: { card: UnitCardView }) {
  const { actions } = card;
  const what = `${card.sizeText} ${card.name}${card.locationName ? ` at ${card.locationName}` : ""}`;
  const phone = (
    <a href={phoneHref(card.phoneNumber)} className="unit-card__phone">
      {card.phoneNumber}
    </a>
  );
  if (actions.soldOut) {
    return (
      <p className="unit-card__sold-out">
        This size is sold out. Call us at {phone} and we will tell you when one opens up or help you choose another size.
      </p>
    );
  }
  return (
    <div className="unit-card__actions">
      {actions.rentHref ? (
        <a href={actions.rentHref} className="button button--primary">
          Rent<span className="visually-hidden"> {what}</span>
        </a>
      ) : null}
      {actions.reserveHref ? (
        <a href={actions.reserveHref} className="button button--secondary">
          Reserve<span className="visually-hidden"> {what}</span>
        </a>
      ) : null}
      {actions.callToRent ? (
        <p className="unit-card__maintenance" data-testid="call-to-rent">
          {rentalBlockMessage("no_card_payment", card.phoneNumber)}
        </p>
      ) : null}
      {actions.rentalsDisabled ? (
        <p className="unit-card__maintenance">
          {RENTALS_DISABLED_MESSAGE} {phone}
        </p>
      ) : null}
    </div>
  );
}

/** One unit type as a card. Rendered hidden when it does not match the filters (the script re-shows it). */
export function UnitCard({ card, headingLevel = 3 }: { card: UnitCardView; headingLevel?: 3 | 4 }) {
  const Heading = `h${headingLevel}` as "h3" | "h4";
  const titleId = `unit-${card.locationSlug}-${card.id}`;
  return (
    <li
      className={`unit-card unit-card--${card.availability.state}`}
      data-unit-card=""
      data-size-group={card.sizeGroup}
      data-size={card.sizeKey}
      data-category={card.category}
      data-location={card.locationSlug}
      hidden={!card.matches}
      aria-labelledby={titleId}
    >
      {card.image ? <ResponsiveImage image={card.image} alt="" className="unit-card__image" sizes="(max-width: 600px) 100vw, 16rem" /> : null}
      <Heading className="unit-card__title" id={titleId}>
        <a href={card.href}>
          {card.sizeText} <span className="unit-card__type">{card.name}</span>
        </a>
      </Heading>
      <p className="unit-card__meta">
        {card.area} sq ft · {card.sizeGroupLabel} · {card.categoryLabel}
      </p>
      <UnitPromotion text={card.promotion} />
      {card.description ? <p className="unit-card__description">{card.description}</p> : null}
      {card.features.length ? (
        <ul className="unit-card__features" aria-label="Features">
          {card.features.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      ) : null}
      <UnitPrice card={card} />
      <p className={`unit-card__availability unit-card__availability--${card.availability.state}`}>{card.availability.text}</p>
      <UnitActionsView card={card} />
    </li>
  );
}
