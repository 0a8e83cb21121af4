/**
 * The payment gateway's contract (decision 546): what a payment flow passes in and gets back, and
 * the interface every gateway implements. Types only, so that each gateway (the test gateway and the
 * configured choice in ./gateway.server.ts, Stripe in ./stripe.server.ts) imports it and none imports
 * another.
 */
import type { CardBrand } from "~/domain/payments/cards";
import type { CardDetails, PaymentMethodInput } from "~/domain/payments/method";

/**
 * What a payment flow passes on (docs/decisions/079-payment-method-input.md): `CardDetails` (our own
 * card fields; the card exists only in memory for the length of the call) inside a
 * `PaymentMethodInput`, or a processor's token. Defined in app/domain/payments/method.ts so that the
 * storage-software port can take them without importing a service.
 */
export type { CardDetails, PaymentMethodInput };

export type ChargeResult =
  | {
      status: "approved";
      authReference: string;
      brand: CardBrand;
      last4: string;
      cardToken: string;
      /** The card's expiry when the gateway knows it (needed to save a card paid with a token). */
      expMonth?: number;
      expYear?: number;
    }
  | {
      status: "declined";
      reason: string;
      brand: CardBrand | null;
      last4: string;
      /** The processor holds the payment for the cardholder's authentication (3-D Secure): the intent to complete. */
      authentication?: AuthenticationNeeded;
    };

export type TokenizeResult =
  | { status: "ok"; brand: CardBrand; last4: string; cardToken: string; expMonth?: number; expYear?: number }
  | { status: "declined"; reason: string; authentication?: AuthenticationNeeded };

/** A payment gateway. Services use only this interface; the card number goes no further. */
export interface PaymentGateway {
  /**
   * What the payment form shows: `"own-inputs"` (our CardFields, the test gateway) or `"hosted"` (a
   * processor's fields in its own iframe, which post back a token in `payment_token`).
   */
  readonly fields: "own-inputs" | "hosted";
  /** Charges a card, a payment method, or a saved card by its token. A repeated `idempotencyKey` returns the first result. */
  charge(
    input:
      | { amount: number; idempotencyKey: string; card: CardDetails }
      | {
          amount: number;
          idempotencyKey: string;
          method: PaymentMethodInput;
          /** The card will be saved from this charge (its `cardToken` must then charge again, off-session). */
          saveCard?: boolean;
        }
      | { amount: number; idempotencyKey: string; cardToken: string },
  ): Promise<ChargeResult>;
  /**
   * Checks a card (typed, or a processor's one-time token) and returns a token to charge it later
   * (autopay, saved cards) without charging now. `owner` (e.g. `autopay:tenant:12`) binds what the
   * processor sets up to whom it is for: a set-up completed in the browser (a SetupIntent after 3-D
   * Secure, decision 405) is taken back only with the same owner.
   */
  tokenize(input: CardDetails | PaymentMethodInput, options?: { owner?: string }): Promise<TokenizeResult>;
  /**
   * The result of an earlier charge with this key, or null when none was made: how an approved
   * charge that was never recorded (the database went away between charge and record) is found
   * again without charging (issue 14).
   */
  lookup(idempotencyKey: string): Promise<ChargeResult | null>;
  /**
   * Voids (refunds in full) the approved charge made with this key; a second call does nothing.
   * With `part` (decision 509): refunds `part.amount` cents of it, once per `part.key` (the same key
   * again answers refunded without refunding again); refused (refunded: false) when more than what
   * is left of the charge.
   */
  refund(idempotencyKey: string, part?: { amount: number; key: string }): Promise<{ refunded: boolean }>;
  /**
   * Hosted gateways: the processor's own payment page (Stripe Checkout), for a card form with
   * JavaScript off. The visitor returns to `returnUrl` with `{SESSION}` replaced by the session's id.
   */
  startHostedPayment?(input: HostedPaymentInput): Promise<{ url: string; sessionId?: string }>;
  /**
   * The token to charge (`pi_…`) of a hosted payment page that was paid for this key, or null (not
   * paid, another key's, unknown). Nothing is rented on the return until this and `charge` agree.
   */
  hostedPaymentToken?(sessionId: string, idempotencyKey: string): Promise<string | null>;
  /**
   * Hosted gateways: the processor's own page to save a card without a payment (Stripe Checkout in
   * setup mode, decision 400), on the customer of `customer` (a saved card's `cus_…:pm_…`, or a new one).
   */
  startHostedSetup?(input: HostedSetupInput): Promise<{ url: string; sessionId?: string }>;
  /**
   * Expires a hosted page that is still open (the tenant cancelled it, decision 442): nothing can be
   * paid on it afterwards. `expired: false` when it was no longer open (paid or expired a moment ago).
   */
  expireHostedSession?(sessionId: string): Promise<{ expired: boolean }>;
  /**
   * A hosted page's session as the processor has it now (read server-side, never from the browser's
   * word), or null for an id it does not know. Reading a paid session remembers its payment under
   * its key, so `lookup` and `refund` find it at once.
   */
  hostedSession?(sessionId: string): Promise<HostedSession | null>;
  /**
   * A payment held for the cardholder's authentication (3-D Secure), taken up again on the page the
   * tenant was e-mailed (decision 395): confirmed again with `returnUrl` so the processor's
   * authentication page can be reached without JavaScript. Answers where to send the browser, or how
   * the payment stands when there is nothing left to authenticate.
   */
  continueAuthentication?(intentId: string, returnUrl: string): Promise<AuthenticationStep>;
  /** How a payment held for authentication stands now (after the processor's page sent the tenant back). */
  authenticationOutcome?(intentId: string): Promise<AuthenticationStep>;
  /**
   * What a page with the processor's script needs to complete a held payment in place (decision 405):
   * the intent's client secret, and the card to confirm it with again when it was held off session.
   * Null when there is nothing to complete in the page. Reads only; changes nothing.
   */
  inPageAuthentication?(intentId: string): Promise<InPageAuthentication | null>;
  /**
   * Cancels the payment made with this key while it still awaits the cardholder (3-D Secure), so it
   * can no longer be completed: a rental given up, or paid again with another card (decision 405).
   * `canceled: false` when there was nothing to cancel, or it was completed a moment ago (look it up).
   */
  cancelPending?(idempotencyKey: string): Promise<{ canceled: boolean }>;
  /**
   * The processor's own list of what it charged and refunded in `[from, to)` (reconciliation, issue 35,
   * decision 440): every successful charge made in the range, whoever made it (our site, the
   * processor's dashboard, anything else on the account), and every refund made in the range. Read
   * from the processor, never from our records.
   */
  listActivity?(range: { from: Date; to: Date }): Promise<ProcessorActivity>;
}

/** A successful charge as the processor lists it. */
export interface ProcessorCharge {
  /** The processor's payment id: what our payments keep as `authReference` (Stripe: the PaymentIntent `pi_…`, else the charge `ch_…`). */
  id: string;
  /** Our idempotency key when the charge carries one (`gatehouse_key`), else null (made elsewhere). */
  key: string | null;
  /** Cents taken. */
  amount: number;
  /** Cents refunded on it so far (at any time). */
  refunded: number;
  created: Date;
  /** What the processor shows for it (card brand and last four), for the operator. */
  card: string;
}

/** A refund as the processor lists it. */
export interface ProcessorRefund {
  id: string;
  /** The charge it gives money back on (`ProcessorCharge.id`). */
  chargeId: string;
  amount: number;
  created: Date;
}

export interface ProcessorActivity {
  charges: ProcessorCharge[];
  refunds: ProcessorRefund[];
}

export interface InPageAuthentication {
  /** The intent's client secret: given to the page only, never logged. */
  clientSecret: string;
  /** The card to confirm the intent with again (it was held off session), or null when it awaits only the authentication. */
  paymentMethod: string | null;
}

export type AuthenticationStep =
  | { kind: "redirect"; url: string }
  | { kind: "succeeded"; intentId: string; amount: number; key: string | null }
  | { kind: "pending" }
  | { kind: "failed"; reason: string };

export interface HostedPaymentInput {
  amount: number;
  idempotencyKey: string;
  description: string;
  email?: string;
  saveCard: boolean;
  returnUrl: string;
  cancelUrl: string;
  /** More tags for the session and its payment (what the return and the webhook need to record it); `gatehouse_key` is always the key. */
  metadata?: Record<string, string>;
}

export interface HostedSetupInput {
  idempotencyKey: string;
  /**
   * Whom the card is set up for (`autopay:tenant:{id}`), written on the SetupIntent as its key: the
   * enrolment takes a `seti_…` only with the same owner (decision 407).
   */
  owner?: string;
  /** The tenant's processor customer, as a saved card's token (`cus_…:pm_…`) or `cus_…`; without one a customer is made. */
  customer?: string;
  email?: string;
  returnUrl: string;
  cancelUrl: string;
  metadata?: Record<string, string>;
}

/** A hosted page's session (Stripe Checkout), as read from the processor. */
export interface HostedSession {
  id: string;
  mode: "payment" | "setup";
  /** `open` (not finished), `complete` or `expired`. */
  status: "open" | "complete" | "expired";
  /** Payment mode: paid; setup mode: the card was saved (the session is complete). */
  done: boolean;
  /** Payment mode: the amount (cents). */
  amount: number | null;
  /** The session's tags (`gatehouse_key` and the others given when it was made). */
  metadata: Record<string, string>;
  /** Payment mode: the PaymentIntent (`pi_…`); setup mode: the SetupIntent (`seti_…`). */
  intentId: string | null;
}


/** What to do with a payment Stripe holds for the cardholder's authentication (3-D Secure). */
export interface AuthenticationNeeded {
  /** The PaymentIntent (`pi_…`) or SetupIntent (`seti_…`) that awaits it. */
  intentId: string;
  clientSecret: string | null;
  /**
   * The intent waits for Stripe.js (`requires_action`, confirmed on session): the page that sent the
   * card can complete it in place with `stripe.handleNextAction({ clientSecret })` (decision 405).
   * False for a charge held off session (a saved card), which only the e-mailed link completes.
   */
  inPage: boolean;
}
