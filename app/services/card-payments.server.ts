/**
 * Whether a location takes cards online at all, and whether the card forms are a demonstration
 * (docs/decisions/200): `cardPaymentsAt` lives with the storage-software port (the unit listings
 * read it too); services and routes take it from here.
 */
export { cardPaymentsAt, type CardPayments } from "~/storage-software/index.server";
