/**
 * Errors the storage software can raise, whatever the adapter. Routes turn each into a clear message
 * (see `storageErrorMessage`); anything else is a bug and becomes the friendly 500 page.
 */
export class StorageSoftwareError extends Error {
  override name = "StorageSoftwareError";
}

/** The unit (or every unit of the type) was rented, reserved or held by someone else. */
export class UnitUnavailableError extends StorageSoftwareError {
  override name = "UnitUnavailableError";
  /**
   * @param replacementUnitName when the held unit was taken at the last moment and another unit of the
   * same type is now held for the same rental, its name (the visitor is offered it; nothing was charged).
   */
  constructor(
    message?: string,
    public readonly replacementUnitName: string | null = null,
  ) {
    super(message);
  }
}

/** The card was declined; nothing was charged. */
export class PaymentDeclinedError extends StorageSoftwareError {
  override name = "PaymentDeclinedError";
  constructor(
    public readonly reason: string,
    /**
     * Not declined yet: the processor holds the payment (or the card's set-up) for the cardholder's
     * authentication (3-D Secure). `inPage`: the page that sent the card can complete it with the
     * processor's script and the client secret (decision 405); else only the e-mailed link can.
     */
    public readonly authentication: { intentId: string; clientSecret: string | null; inPage: boolean } | null = null,
  ) {
    super(reason);
    // The client secret is for the page only: never in a log line that serialises the error's fields.
    Object.defineProperty(this, "authentication", { enumerable: false });
  }
}

/** The facility's software could not be reached or answered with an error. */
export class SoftwareUnreachableError extends StorageSoftwareError {
  override name = "SoftwareUnreachableError";
}

/**
 * True when `error`, or an error in its `cause` chain, says the facility's software cannot be reached
 * (network, timeout, HTTP 5xx, garbage, refused credentials). Like a database outage, never the
 * visitor's fault and never a bug: pages answer 503 with Retry-After, forms keep what was typed.
 * An unknown outcome of a write (OutcomeUnknownError) is not this: it is reconciled, never retried.
 */
export function isSoftwareUnreachable(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; e && depth < 6; depth++) {
    if (e instanceof SoftwareUnreachableError) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** The software refused the input; `fieldErrors` names the fields where it can. */
export class StorageValidationError extends StorageSoftwareError {
  override name = "StorageValidationError";
  constructor(
    message: string,
    public readonly fieldErrors: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

/**
 * The software did not answer a move-in (or a payment) in time, or answered in a way that does not
 * say whether it went through. Nothing may be sent again blindly: the adapter reads the software back
 * (reconciliation) and the visitor sees "we are confirming your rental", never "declined".
 */
export class OutcomeUnknownError extends StorageSoftwareError {
  override name = "OutcomeUnknownError";
}

/** The charges the software asks for differ from the ones the visitor signed for (e.g. the office changed a rate). */
export class ChargesChangedError extends StorageValidationError {
  override name = "ChargesChangedError";
  constructor(message = "Your charges changed since you signed. Please review them and sign the lease again. Nothing was charged.") {
    super(message);
  }
}

/**
 * The software would not take the card online although the unit is still free (SiteLink's `-2` at a
 * move-in when a re-read shows the unit free: the site reads our pay-method id differently, decision
 * 180). Nothing was charged and nothing rented; the renter is asked to call the office.
 */
export class CardNotTakenOnlineError extends StorageSoftwareError {
  override name = "CardNotTakenOnlineError";
}

/**
 * A contact change SiteLink was not sent (issue 37, decision 472): the tenant record's read lacked a
 * column the update would send back, so sending it would blank that column. The write journal asks the
 * office to make the change; ours is saved and the tenant is told the office will make it.
 */
export class ContactLeftForOfficeError extends StorageSoftwareError {
  override name = "ContactLeftForOfficeError";
}

/** The location's software does not offer this (e.g. a coming-soon site on no_api). */
class NotSupportedError extends StorageSoftwareError {
  override name = "NotSupportedError";
}

/** A sentence for people, for any error of the port. */
export function storageErrorMessage(error: unknown, phone?: string): string {
  const call = phone ? ` Please call the office at ${phone}.` : " Please call the office.";
  if (error instanceof UnitUnavailableError) return "Sorry, that unit has just been taken. Please choose another unit." ;
  if (error instanceof CardNotTakenOnlineError) return `We could not take your card online for this unit. Nothing was charged and the unit is still free.${phone ? ` Please call the office at ${phone} to finish your rental.` : " Please call the office to finish your rental."}`;
  if (error instanceof PaymentDeclinedError) return `${error.reason} Nothing was charged. Please check the card details or use another card.`;
  if (error instanceof OutcomeUnknownError) return "We are confirming your rental with the facility's system. Please do not pay again; this page will update in a moment.";
  if (error instanceof SoftwareUnreachableError) return `We could not reach the facility's system just now. Please try again in a few minutes.${call}`;
  if (error instanceof StorageValidationError) return error.message;
  if (error instanceof NotSupportedError) return `This is not available online at this location.${call}`;
  return `Something went wrong.${call}`;
}

/** The message of a StorageValidationError on `email` when an account already uses that address. */
export const EMAIL_TAKEN_MESSAGE = "An account with this email address already exists. Please sign in to rent with it, or use another email address.";
