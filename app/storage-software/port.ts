/**
 * The storage-management software port (DEVELOPERS.md, conventions.md): everything the site asks of
 * a facility's software. One adapter per `software` value; routes and the domain never import an
 * adapter, they ask `storageFor(db, location)` (./index.server.ts).
 *
 * The port is split by part, one file each: inventory (units and prices, issue 3), rentals
 * (move-ins and reservations, issue 4) and tenants (portal, ledgers, payments, autopay, move-out,
 * issue 5). The local adapter has the same split under ./local/.
 *
 * Money is in integer cents, sizes in feet, dates as "YYYY-MM-DD" in the location's time zone.
 * Ids are strings so that SiteLink's ids fit as well as ours.
 */
import type { Inventory } from "./port-inventory";
import type { Rentals } from "./port-rentals";
import type { Tenants } from "./port-tenants";

export type * from "./port-inventory";
export type * from "./port-rentals";
export type * from "./port-tenants";

/** The whole port. Adapters implement every part; a part they cannot serve throws NotSupportedError. */
export interface StorageSoftware extends Inventory, Rentals, Tenants {
  readonly kind: "local" | "sitelink";
}
