/**
 * The storage-management software port (DEVELOPERS.md, conventions.md): everything the site asks of
 * a facility's software. One adapter per `software` value; routes and the domain never import an
 * adapter, they ask `storageFor(db, location)` (./index.server.ts).
 *
 * The port is split by part, one file each: inventory (units and prices, issue 3), rentals
 * (quotes, move-ins and reservations, issue 4), tenants (portal, ledgers, payments, autopay,
 * move-out, issue 5) and billing (the daily run, issue 5). The local adapter has the same split
 * under ./local/. Card input is the payment gateway's `PaymentMethodInput`
 * (app/domain/payments/method.ts, decision 079): our own card fields or a processor's token.
 *
 * Nothing outside app/storage-software/ imports an adapter (eslint-plugin-boundaries); every type a
 * caller needs is exported from here. The contract suite (tests/integration/storage-software/contract.ts)
 * covers every method and runs against each adapter.
 *
 * Money is in integer cents, sizes in feet, dates as "YYYY-MM-DD" in the location's time zone.
 * Ids are strings so that SiteLink's ids fit as well as ours.
 */
import type { Software } from "~/db/schema/location";
import type { Billing } from "./port-billing";
import type { Inventory } from "./port-inventory";
import type { Rentals } from "./port-rentals";
import type { Tenants } from "./port-tenants";

export type * from "./port-billing";
export type * from "./port-inventory";
export type * from "./port-rentals";
export type * from "./port-tenants";
export type { CardDetails, PaymentMethodInput } from "~/domain/payments/method";

/** The location an adapter serves: what `storageFor` needs to pick and build one. */
export interface LocationRef {
  id: number;
  name: string;
  software: Software;
  status: "Live" | "Coming Soon";
}

/** The whole port. Adapters implement every part; a part they cannot serve throws NotSupportedError. */
export interface StorageSoftware extends Inventory, Rentals, Tenants, Billing {
  readonly kind: "local" | "sitelink";
}
