/**
 * Stripe's documented test cards and test PaymentMethods (https://docs.stripe.com/testing), the ones
 * Gatehouse uses. Any other Luhn-valid number behaves as a good card of its brand.
 */
import type { Decline } from "./errors";

type Brand = "visa" | "mastercard" | "amex" | "discover" | "unknown";

/**
 * - `charge`: what a charge does (on session or off);
 * - `attach`: whether attaching to a Customer (or a SetupIntent) declines first;
 * - `auth`: "always" — 3DS on every payment and setup (4000002760003184); "setup" — 3DS on setup and
 *   every on-session payment, none off-session once set up (4000002500003155: "on-session payments
 *   with this card always require authentication").
 */
interface CardBehaviour {
  charge?: Decline;
  attachDeclines?: boolean;
  auth?: "always" | "setup";
}

const GENERIC_DECLINE: Decline = { code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." };
const INSUFFICIENT_FUNDS: Decline = { code: "card_declined", decline_code: "insufficient_funds", message: "Your card has insufficient funds." };
export const AUTHENTICATION_REQUIRED: Decline = {
  code: "authentication_required",
  decline_code: "authentication_required",
  message: "Your card was declined. This transaction requires authentication.",
};
export const AUTHENTICATION_FAILED: Decline = {
  code: "payment_intent_authentication_failure",
  message: "The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.",
};
export const SETUP_AUTHENTICATION_FAILED: Decline = {
  code: "setup_intent_authentication_failure",
  message: "The latest attempt to set up the payment method has failed because authentication failed.",
};

const TEST_CARDS: Record<string, CardBehaviour> = {
  "4242424242424242": {},
  "4000056655665556": {},
  "5555555555554444": {},
  "2223003122003222": {},
  "378282246310005": {},
  "6011111111111117": {},
  "4000000000000002": { charge: GENERIC_DECLINE, attachDeclines: true },
  "4000000000009995": { charge: INSUFFICIENT_FUNDS, attachDeclines: true },
  "4000000000009987": { charge: { code: "card_declined", decline_code: "lost_card", message: "Your card was declined." }, attachDeclines: true },
  "4000000000000069": { charge: { code: "expired_card", message: "Your card has expired." }, attachDeclines: true },
  "4000000000000127": { charge: { code: "incorrect_cvc", message: "Your card's security code is incorrect." }, attachDeclines: true },
  "4000000000000119": { charge: { code: "processing_error", message: "An error occurred while processing your card. Try again in a little bit." }, attachDeclines: true },
  "4000000000000341": { charge: GENERIC_DECLINE },
  "4000002500003155": { auth: "setup" },
  "4000002760003184": { auth: "always" },
  "4000000000003220": { auth: "always" },
};

/** The test PaymentMethods (`payment_method: "pm_card_visa"`): each use makes a new PaymentMethod of that card. */
export const TEST_PAYMENT_METHODS: Record<string, { number: string; brand: Brand }> = {
  pm_card_visa: { number: "4242424242424242", brand: "visa" },
  pm_card_visa_debit: { number: "4000056655665556", brand: "visa" },
  pm_card_mastercard: { number: "5555555555554444", brand: "mastercard" },
  pm_card_amex: { number: "378282246310005", brand: "amex" },
  pm_card_discover: { number: "6011111111111117", brand: "discover" },
  pm_card_chargeDeclined: { number: "4000000000000002", brand: "visa" },
  pm_card_chargeDeclinedInsufficientFunds: { number: "4000000000009995", brand: "visa" },
  pm_card_chargeDeclinedLostCard: { number: "4000000000009987", brand: "visa" },
  pm_card_chargeDeclinedExpiredCard: { number: "4000000000000069", brand: "visa" },
  pm_card_chargeDeclinedIncorrectCvc: { number: "4000000000000127", brand: "visa" },
  pm_card_chargeDeclinedProcessingError: { number: "4000000000000119", brand: "visa" },
  pm_card_chargeCustomerFail: { number: "4000000000000341", brand: "visa" },
  pm_card_authenticationRequired: { number: "4000002760003184", brand: "visa" },
  pm_card_authenticationRequiredOnSetup: { number: "4000002500003155", brand: "visa" },
  pm_card_threeDSecure2Required: { number: "4000000000003220", brand: "visa" },
};

export function behaviourOf(number: string): CardBehaviour {
  return TEST_CARDS[number] ?? {};
}

export function brandOf(number: string): Brand {
  if (/^4/.test(number)) return "visa";
  if (/^(5[1-5]|2[2-7])/.test(number)) return "mastercard";
  if (/^3[47]/.test(number)) return "amex";
  if (/^6(011|5)/.test(number)) return "discover";
  return "unknown";
}

export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
