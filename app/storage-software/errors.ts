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
}

/** The card was declined; nothing was charged. */
export class PaymentDeclinedError extends StorageSoftwareError {
  override name = "PaymentDeclinedError";
  constructor(public readonly reason: string) {
    super(reason);
  }
}

/** The facility's software could not be reached or answered with an error. */
export class SoftwareUnreachableError extends StorageSoftwareError {
  override name = "SoftwareUnreachableError";
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

/** The location's software does not offer this (e.g. a coming-soon site on no_api). */
export class NotSupportedError extends StorageSoftwareError {
  override name = "NotSupportedError";
}

/** A sentence for people, for any error of the port. */
export function storageErrorMessage(error: unknown, phone?: string): string {
  const call = phone ? ` Please call the office at ${phone}.` : " Please call the office.";
  if (error instanceof UnitUnavailableError) return "Sorry, that unit has just been taken. Please choose another unit." ;
  if (error instanceof PaymentDeclinedError) return `${error.reason} Nothing was charged. Please check the card details or use another card.`;
  if (error instanceof SoftwareUnreachableError) return `We could not reach the facility's system just now. Please try again in a few minutes.${call}`;
  if (error instanceof StorageValidationError) return error.message;
  if (error instanceof NotSupportedError) return `This is not available online at this location.${call}`;
  return `Something went wrong.${call}`;
}

/** The message of a StorageValidationError on `email` when an account already uses that address. */
export const EMAIL_TAKEN_MESSAGE = "An account with this email address already exists. Please sign in to rent with it, or use another email address.";
