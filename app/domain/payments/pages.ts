/**
 * The payment pages (PCI DSS v4 6.4.3 / 11.6.1, docs/decisions/075-payment-pages-without-third-party-code.md
 * and 190-payment-pages-by-route.md): every page that shows card fields, and the whole of the route it
 * belongs to. They load no operator code (custom JS, header and body code, custom CSS) and no
 * analytics tag, and their Content-Security-Policy allows only our own scripts ('self' and the
 * request's nonce).
 *
 * A page is a payment page because the route that renders it says so (`handle.paymentPage`), never
 * because of how its path is spelled: React Router matches `/RENT/12/` to the rental route as well as
 * `/rent/12`, so a check on the spelling can be walked around. The routes with the flag:
 *
 * - `routes/rent.tsx` (`/rent/{unitTypeId}`): every step of the rental, because the steps are
 *   one route and the browser moves between them without loading a new document (the pay step would
 *   inherit whatever the details step loaded). The confirmation and lease pages are separate routes
 *   with no card fields.
 * - `routes/customer-portal.pay.tsx`, `.prepay.tsx`, `.autopay.tsx`: the portal's card forms.
 * - `routes/pay.tsx` (`/pay/{token}`): the card form of a pay link (decision 240).
 * - `routes/pay.authenticate.tsx` (`/pay/authenticate/{token}`): a payment the bank wants confirmed,
 *   completed on the page with Stripe.js when JavaScript is on (decisions 395, 405).
 *
 * The inventory of the scripts these pages load is docs/payment-page-scripts.md.
 */
export interface PaymentPageHandle {
  /** This route shows card fields: no operator code, no analytics, the strict CSP. */
  paymentPage?: boolean;
  /**
   * This route takes a password or carries a token (issue 36, decision 464): the portal's sign-in,
   * create-sign-in, forgot and reset password and profile pages. Like a payment page, no operator code,
   * no analytics and a CSP without third parties (not even the card processor's hosts).
   */
  passwordPage?: boolean;
}

/** Whether any of the matched routes' handles marks a password page (decision 464). */
export function isPasswordRoute(handles: readonly unknown[]): boolean {
  return handles.some((handle) => (handle as PaymentPageHandle | undefined)?.passwordPage === true);
}

/** Whether any of the matched routes' handles marks a payment page. */
export function isPaymentRoute(handles: readonly unknown[]): boolean {
  return handles.some((handle) => (handle as PaymentPageHandle | undefined)?.paymentPage === true);
}

/** The attribute on `<html>` of a document served as a payment page (read by the client guard). */
export const PAYMENT_PAGE_ATTRIBUTE = "data-payment-page";
