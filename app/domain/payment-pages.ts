/**
 * The payment pages (PCI DSS v4 6.4.3 / 11.6.1, docs/decisions/075-payment-pages-without-third-party-code.md):
 * every page that shows card fields, and the whole of the route it belongs to. They load no operator
 * code (custom JS, header and body code, custom CSS) and no analytics tag, and their
 * Content-Security-Policy allows only our own scripts ('self' and the request's nonce).
 *
 * - `/rent/{unitTypeId}`: every step of the rental checkout, because the steps are one route and the
 *   browser moves between them without loading a new document (the pay step would inherit whatever
 *   the details step loaded). The confirmation and lease pages are separate documents with no card fields.
 * - `/customer-portal/units/{leaseId}/pay`, `/prepay`, `/autopay`: the portal's card forms.
 *
 * The inventory of the scripts these pages load is docs/payment-page-scripts.md.
 */
const PAYMENT_PAGES = [/^\/rent\/\d+\/?$/, /^\/customer-portal\/units\/\d+\/(?:pay|prepay|autopay)\/?$/];

export function isPaymentPage(pathname: string): boolean {
  return PAYMENT_PAGES.some((re) => re.test(pathname));
}
