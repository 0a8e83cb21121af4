/**
 * Whether a location takes cards online at all, and whether the card forms are a demonstration
 * (docs/decisions/200). Cards go through our gateway at local-adapter locations and at SiteLink
 * locations under option B; there, without a configured gateway (`paymentGatewayFor` answers null),
 * the rental and the portal's pay, prepay and autopay pages ask the visitor to call the office instead
 * of showing a card form. With the built-in test gateway every card form says that it is a
 * demonstration and that no real card is charged.
 */
import { paymentGatewayFor } from "~/platform/payment-gateway.server";
import type { StorageSoftware } from "~/storage-software/port";

export interface CardPayments {
  /** False: this location's cards need our gateway and none is configured (offer "call the office"). */
  online: boolean;
  /** True: the built-in test gateway takes the cards; the card forms say that no real card is charged. */
  demonstration: boolean;
}

/** What the card forms at this location may offer. */
export async function cardPaymentsAt(storage: Pick<StorageSoftware, "cardsChargedBy">, location: { id: number }): Promise<CardPayments> {
  if ((await storage.cardsChargedBy()) === "software") return { online: true, demonstration: false };
  const gateway = paymentGatewayFor(location);
  return gateway ? { online: true, demonstration: gateway.demonstration } : { online: false, demonstration: false };
}
