/**
 * A card payment the bank wants the cardholder to confirm (3-D Secure), completed in the card page
 * itself with JavaScript on (issue 25, docs/decisions/405-authentication-in-the-page.md): the page's
 * answer carries the processor's client secret, the page's script runs the bank's check
 * (`stripe.handleNextAction`) and sends the form again with the completed intent's id.
 */
export interface InPageAuthentication {
  /**
   * The processor's client secret of the intent that awaits the check (`pi_…_secret_…` or
   * `seti_…_secret_…`). It is put only in this answer's page (a `data-` attribute read by the script,
   * the page `no-store`); never logged, stored or put in a URL.
   */
  clientSecret: string;
  /** The form's idempotency key the payment was made with (the portal's forms): the form is sent again under it. */
  idempotencyKey?: string;
}

/** Said beside the card field while the bank's check opens on the page. */
export const CONFIRM_IN_PAGE_MESSAGE = "Your bank asks you to confirm this payment. Nothing has been charged yet.";

/** The in-page answer for a hold the page can complete (an on-session intent with its secret), else null. */
export function inPageAuthentication(
  held: { clientSecret: string | null; inPage: boolean } | null | undefined,
  idempotencyKey?: string,
): InPageAuthentication | null {
  if (!held?.inPage || !held.clientSecret) return null;
  return idempotencyKey ? { clientSecret: held.clientSecret, idempotencyKey } : { clientSecret: held.clientSecret };
}
