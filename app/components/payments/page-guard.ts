import { PAYMENT_PAGE_ATTRIBUTE } from "~/domain/payments/pages";

/**
 * Whether the document this browser tab loaded was served as a payment page, noted once when the
 * client bundle starts (root.tsx imports this module). The server marks such a document on `<html>`
 * because the route that rendered it is a payment route (decision 190), whatever the path's spelling:
 * it was served without operator code or analytics and with the strict Content-Security-Policy; any
 * other document may have run them.
 */
const documentIsPaymentPage: boolean | null = typeof document === "undefined" ? null : document.documentElement.hasAttribute(PAYMENT_PAGE_ATTRIBUTE);

/**
 * The `clientLoader` of the payment routes (docs/decisions/075). React Router moves between pages
 * without loading a new document, so a visitor coming from a page that ran the operator's JS or the
 * analytics tag would keep those scripts, and that page's CSP, on the card form. When the current
 * document is not a payment page's, this loads the payment page as a new document instead.
 */
export async function paymentPageClientLoader<T>({ request, serverLoader }: { request: Request; serverLoader: () => Promise<T> }): Promise<T> {
  if (documentIsPaymentPage === false) {
    window.location.assign(request.url);
    // The browser is leaving this document; never resolve.
    return new Promise<T>(() => {});
  }
  return serverLoader();
}
