import type { Database } from "~/db/client.server";
import type { StorageSoftware } from "../port";
import type { LocationRef } from "../port";
import { localBilling } from "./billing";
import { localInventory } from "./inventory";
import { localRentals } from "./rentals";
import { localTenants } from "./tenants";

/** The built-in adapter: units, tenants, ledgers and payments in our own database. */
export function createLocalAdapter(db: Database, location: LocationRef): StorageSoftware {
  return {
    kind: "local",
    ...localInventory(db, location),
    ...localRentals(db, location),
    ...localTenants(db, location),
    ...localBilling(db, location),
  };
}
