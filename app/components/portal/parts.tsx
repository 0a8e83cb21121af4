import { getInputProps, type FieldMetadata } from "@conform-to/react";
import { Form, useMatches } from "react-router";
import { Link } from "~/components/ui/link";
import { CardFields, HostedCardFields, type CardFieldsMeta } from "../payments/card-fields";
import { CONFIRM_IN_PAGE_MESSAGE, type InPageAuthentication } from "~/domain/payments/card-authentication";
import { CsrfInput, FieldErrors } from "../ui/form";
import { phoneHref } from "~/domain/shared/phone";
import { CARD_BRAND_LABELS, type CardBrand } from "~/domain/payments/cards";
import type { YearMonth } from "~/domain/payments/card-schema";

/**
 * What a portal page tells the portal's layouts (decision 225) through its `handle`: which link of the
 * navigation is the current page, and whether the page is wide (the dashboard's table of units).
 */
export interface PortalPageHandle {
  portalNav?: "dashboard" | "profile";
  portalWide?: boolean;
}

/** The current portal page's wishes: its match's `handle` (the deepest match that says anything). */
export function usePortalPage(): { current: "dashboard" | "profile" | "other"; wide: boolean } {
  const handles = useMatches().map((m) => (m.handle ?? {}) as PortalPageHandle);
  return { current: handles.findLast((h) => h.portalNav)?.portalNav ?? "other", wide: handles.some((h) => h.portalWide) };
}

/** The signed-in portal's navigation, with sign-out (a POST form, so it works without JavaScript). */
export function PortalNav({ name, csrfToken, current }: { name: string; csrfToken: string; current: "dashboard" | "profile" | "other" }) {
  return (
    <nav className="portal-nav" aria-label="Customer portal">
      <p className="portal-nav__hello">
        Signed in as <strong>{name}</strong>
      </p>
      <ul className="portal-nav__links">
        <li>
          <Link to="/customer-portal" aria-current={current === "dashboard" ? "page" : undefined}>
            My units
          </Link>
        </li>
        <li>
          <Link to="/customer-portal/profile" aria-current={current === "profile" ? "page" : undefined}>
            Profile and password
          </Link>
        </li>
        <li>
          <Form method="post" action="/customer-portal/logout" reloadDocument>
            <CsrfInput token={csrfToken} />
            <button type="submit" className="button button--secondary portal-nav__signout">
              Sign out
            </button>
          </Form>
        </li>
      </ul>
    </nav>
  );
}

/** Where a switched-off feature would be: say so, with the office's number. */
export function CallOffice({ phone, children }: { phone: string; children: string }) {
  const please = children.trim().endsWith(",") ? "please" : "Please";
  return (
    <div className="alert alert--info portal-call-office">
      <p>
        {children} {please} call the office at <a href={phoneHref(phone)}>{phone}</a>.
      </p>
    </div>
  );
}

/**
 * In place of a portal card form when this location takes no card payments here: its tenants pay on
 * its external payment site (decision 090/136), or it has no payment types (decision 091).
 */
export function PayElsewhere({ payment, phone, locationName }: { payment: { kind: "external"; href: string } | { kind: "no_cards" }; phone: string; locationName: string }) {
  if (payment.kind === "no_cards") {
    return <CallOffice phone={phone}>{`${locationName} does not take card payments online. To pay,`}</CallOffice>;
  }
  return (
    <div className="alert alert--info portal-pay-elsewhere" data-testid="pay-elsewhere">
      <p>
        Card payments for units at {locationName} are made on its own payment site, not here. Your balance, autopay and payments
        ahead are handled there.
      </p>
      <p>
        <a className="button" href={payment.href} rel="noopener noreferrer">
          Pay my bill on the {locationName} payment site
        </a>
      </p>
      <p>
        Questions? Call the office at <a href={phoneHref(phone)}>{phone}</a>.
      </p>
    </div>
  );
}

interface SavedCardView {
  id: string;
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number;
}

type F = FieldMetadata<string | undefined>;

/** The button of a card form that, without JavaScript, sends a new card on to Stripe Checkout (decision 400). */
const SECURE_PAGE_BUTTON = "Continue to secure payment";

/**
 * A card form's submit button words: where Stripe takes the cards and there is no saved card to
 * choose, the button goes on to Stripe's secure page and says so (`label` comes back when Stripe's
 * fields are on the page: `jsLabel`, set by the card script). With saved cards it keeps `label` (the
 * note beside the new card says where a new card is entered).
 */
export function payButton(payment: { kind: string; hosted?: boolean }, savedCards: number, label: string, checkoutLabel = SECURE_PAGE_BUTTON): { children: string; jsLabel?: string } {
  return payment.kind === "cards" && payment.hosted && savedCards === 0 ? { children: checkoutLabel, jsLabel: label } : { children: label };
}

/** The in-page authentication of a card form's answer (decision 405), when the answer carries one. */
export function authenticationOf(actionData: unknown): InPageAuthentication | null {
  if (!actionData || typeof actionData !== "object" || !("authenticate" in actionData)) return null;
  return (actionData as { authenticate?: InPageAuthentication | null }).authenticate ?? null;
}

/**
 * How to pay: one of the saved cards or a new card (with "save this card"). Without JavaScript both
 * parts show; the radio decides which is used.
 */
export function PaymentMethodFields({
  fields,
  savedCards,
  today,
  allowSave = true,
  newCardLegend = "Pay with a new card",
  accepted,
  demonstration = false,
  hosted = false,
  authenticate = null,
}: {
  fields: CardFieldsMeta & { payment_method: F; save_card: F };
  savedCards: SavedCardView[];
  today: YearMonth;
  allowSave?: boolean;
  newCardLegend?: string;
  /** The location's card brands (payment_types); a card of another brand is refused beside the number. */
  accepted?: readonly CardBrand[];
  /** The built-in test gateway takes the card: the form says it is a demonstration (decision 200). */
  demonstration?: boolean;
  /** The processor's hosted fields take a new card (decision 383): no card inputs of ours. */
  hosted?: boolean;
  /** The server's answer: the bank wants the tenant to confirm this payment on the page (decision 405). */
  authenticate?: InPageAuthentication | null;
}) {
  const chosen = typeof fields.payment_method.initialValue === "string" ? fields.payment_method.initialValue : savedCards.length ? `saved:${savedCards[0]!.id}` : "new";
  return (
    <>
      {savedCards.length ? (
        <fieldset className="portal-methods" aria-describedby={fields.payment_method.errorId}>
          <legend>Card</legend>
          {savedCards.map((c) => (
            <div className="checkbox-field" key={c.id}>
              <input type="radio" id={`method-${c.id}`} name={fields.payment_method.name} value={`saved:${c.id}`} defaultChecked={chosen === `saved:${c.id}`} />
              <label htmlFor={`method-${c.id}`}>
                Saved card: {CARD_BRAND_LABELS[c.brand]} ending {c.last4} (expires {String(c.expMonth).padStart(2, "0")}/{c.expYear})
              </label>
            </div>
          ))}
          <div className="checkbox-field">
            <input type="radio" id="method-new" name={fields.payment_method.name} value="new" defaultChecked={chosen === "new"} />
            <label htmlFor="method-new">A new card (enter it below)</label>
          </div>
          <FieldErrors id={fields.payment_method.errorId} errors={fields.payment_method.errors} />
        </fieldset>
      ) : (
        <input type="hidden" name={fields.payment_method.name} value="new" />
      )}
      {hosted ? (
        <HostedCardFields
          legend={savedCards.length ? "New card" : newCardLegend}
          note={
            savedCards.length
              ? "With a new card, you go on to our payment processor’s secure page (Stripe) to enter it. We never see or keep your card number."
              : "You go on to our payment processor’s secure page (Stripe) to enter your card. We never see or keep your card number."
          }
          error={authenticate ? CONFIRM_IN_PAGE_MESSAGE : null}
          authenticate={authenticate}
        />
      ) : (
        <CardFields fields={fields} today={today} legend={savedCards.length ? "New card" : newCardLegend} accepted={accepted} demonstration={demonstration} />
      )}
      {allowSave ? (
        <div className="checkbox-field">
          <input {...getInputProps(fields.save_card, { type: "checkbox" })} id="save_card" />
          <label htmlFor="save_card">Save this card for next time (we keep only its brand and last four digits)</label>
        </div>
      ) : null}
    </>
  );
}
