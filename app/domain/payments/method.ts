/**
 * How a payer's card reaches the payment gateway (docs/decisions/079-payment-method-input.md).
 * Types only: the card exists in memory for the length of one request and is never stored or logged.
 * The gateway (app/platform/payments/gateway.server.ts) and the storage-software port both use these.
 */

/** Our own card fields, as typed (only with the built-in test gateway, which has no hosted fields). */
export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvv: string;
  nameOnCard: string;
  postalCode: string;
}

/**
 * A payment method as a flow receives it: our own card fields, or a token a processor's hosted fields
 * / tokenisation made in the browser (the card number never reaches us). Flows pass it, unread, through
 * the service and the storage port to the gateway.
 */
export type PaymentMethodInput = { kind: "card"; card: CardDetails } | { kind: "token"; token: string };

/** The last four digits of a typed card, or "" for a token (the gateway tells them after the charge). */
export function methodLast4(method: PaymentMethodInput): string {
  return method.kind === "card" ? method.card.number.replace(/\D/g, "").slice(-4) : "";
}
