import type { CardBrand } from "~/domain/payments/cards";
import { useId } from "react";
import { useRouteLoaderData } from "react-router";
import { getInputProps, getSelectProps, type FieldMetadata } from "@conform-to/react";
import { acceptedCardsText } from "~/domain/payments/accepted-cards";
import { ALL_CARD_BRANDS, expiryYears, type YearMonth } from "~/domain/payments/card-schema";
import type { InPageAuthentication } from "~/domain/payments/card-authentication";
import { CardBrandBadges } from "./card-brands";
import { Field } from "../ui/form";
import { useNonce } from "../ui/nonce";
import stripeCardFieldsScript from "./stripe-card-fields.js?raw";

type F = FieldMetadata<string | undefined>;

export interface CardFieldsMeta {
  card_number: F;
  exp_month: F;
  exp_year: F;
  cvv: F;
  name_on_card: F;
  billing_postal_code: F;
}

const MONTHS = ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12"];

/**
 * The card fields of a payment form (use with `cardShape` from ~/domain/card-schema). Plain inputs
 * with the browser's card autocomplete tokens; nothing here keeps the number: a form re-rendered
 * after an error shows the card fields empty except the name and ZIP.
 */
export function CardFields({
  fields,
  today,
  legend = "Card details",
  accepted = ALL_CARD_BRANDS,
  demonstration = false,
}: {
  fields: CardFieldsMeta;
  today: YearMonth;
  legend?: string;
  /** The location's payment_types; a card of another brand is refused beside the card number. */
  accepted?: readonly CardBrand[];
  /** The built-in test gateway takes this card: say so above the fields (decision 200). */
  demonstration?: boolean;
}) {
  const years = expiryYears(today);
  return (
    <fieldset className="card-fields">
      <legend>{legend}</legend>
      {demonstration ? <DemonstrationNotice /> : null}
      <CardBrandBadges brands={accepted} />
      <Field label="Card number" meta={fields.card_number} hint={acceptedCardsText(accepted)}>
        {(p) => (
          <input
            {...getInputProps(fields.card_number, { type: "text" })}
            {...p}
            defaultValue={undefined}
            inputMode="numeric"
            autoComplete="cc-number"
            spellCheck={false}
          />
        )}
      </Field>
      <div className="card-fields__row">
        <Field label="Expiry month" meta={fields.exp_month}>
          {(p) => (
            <select {...getSelectProps(fields.exp_month)} {...p} autoComplete="cc-exp-month">
              <option value="">Month</option>
              {MONTHS.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Expiry year" meta={fields.exp_year}>
          {(p) => (
            <select {...getSelectProps(fields.exp_year)} {...p} autoComplete="cc-exp-year">
              <option value="">Year</option>
              {years.map((y) => (
                <option key={y} value={String(y)}>
                  {y}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Security code (CVV)" meta={fields.cvv} hint="3 or 4 digits, on the back of most cards.">
          {(p) => (
            <input
              {...getInputProps(fields.cvv, { type: "text" })}
              {...p}
              defaultValue={undefined}
              inputMode="numeric"
              autoComplete="cc-csc"
              className="input--short"
            />
          )}
        </Field>
      </div>
      <Field label="Name on card" meta={fields.name_on_card}>
        {(p) => <input {...getInputProps(fields.name_on_card, { type: "text" })} {...p} autoComplete="cc-name" />}
      </Field>
      <Field label="Billing ZIP code" meta={fields.billing_postal_code}>
        {(p) => (
          <input
            {...getInputProps(fields.billing_postal_code, { type: "text" })}
            {...p}
            inputMode="numeric"
            autoComplete="billing postal-code"
            className="input--short"
          />
        )}
      </Field>
    </fieldset>
  );
}

/** Decision 200: said in every card form while the built-in test gateway takes the cards. */
const DEMONSTRATION_NOTICE =
  "This is a demonstration: no real card is charged and no money is taken. Use a test card number such as 4242 4242 4242 4242.";

function DemonstrationNotice() {
  return (
    <div className="alert alert--info" role="note" data-testid="payment-demonstration">
      <p>{DEMONSTRATION_NOTICE}</p>
    </div>
  );
}

/**
 * The card fields of a location whose processor hosts them (Stripe, decision 383). Without
 * JavaScript the form's button goes to the processor's own payment page and comes back; the card
 * number never reaches our server either way. With it (decision 390), Stripe.js (its address and the
 * publishable key from the root loader, payment pages only) and our small script mount Stripe's card
 * Element in the labelled group and put the PaymentMethod id in `payment_token` before the form is
 * sent. Stripe's messages, and `error` (the server's answer, e.g. a decline), are announced beside it.
 */
export function HostedCardFields({
  legend = "Card details",
  note = "You will enter your card on our payment processor\u2019s secure page (Stripe). We never see or keep your card number.",
  error,
  authenticate,
}: {
  legend?: string;
  note?: string;
  error?: string | null;
  /**
   * The server's answer: the bank wants the cardholder to confirm this payment (3-D Secure, decision
   * 405). The script runs the bank's check on the page with the client secret and sends the form again
   * with the completed intent (and the form's idempotency key, when given).
   */
  authenticate?: InPageAuthentication | null;
}) {
  const config = useRouteLoaderData<{ hostedFields?: { publishableKey: string; jsUrl: string } | null }>("root")?.hostedFields ?? null;
  const nonce = useNonce();
  const id = useId().replace(/[^\w-]/g, "");
  return (
    <fieldset className="card-fields card-fields--hosted">
      <legend>{legend}</legend>
      <p className="card-fields__hosted-note" data-js-note={JS_NOTE}>
        {note}
      </p>
      <div className="field" data-hosted-fields="" hidden>
        <span id={`card-${id}-label`} className="field__label">
          Card number, expiry date and security code
        </span>
        <div
          id={`card-${id}`}
          className="card-fields__element"
          role="group"
          aria-labelledby={`card-${id}-label`}
          aria-describedby={`card-${id}-error`}
          data-payment-element=""
          data-error-id={`card-${id}-error`}
          {...(config ? { "data-stripe-key": config.publishableKey } : {})}
          {...(config && authenticate ? { "data-client-secret": authenticate.clientSecret } : {})}
          {...(config && authenticate?.idempotencyKey ? { "data-idempotency-key": authenticate.idempotencyKey } : {})}
        />
      </div>
      <p id={`card-${id}-error`} className="field__errors card-fields__error" role="alert">
        {error ?? ""}
      </p>
      <input type="hidden" name="payment_token" defaultValue="" />
      <input type="hidden" name="hosted_fields" value="1" />
      {config ? (
        <>
          <script src={config.jsUrl} nonce={nonce} />
          <script nonce={nonce} dangerouslySetInnerHTML={{ __html: stripeCardFieldsScript }} />
        </>
      ) : null}
    </fieldset>
  );
}

/** The note once Stripe's fields are on the page (the script swaps it in). */
const JS_NOTE = "Enter your card in our payment processor\u2019s secure form (Stripe) below. We never see or keep your card number.";
