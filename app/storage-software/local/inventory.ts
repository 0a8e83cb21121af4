import type { Database } from "~/db/client.server";
import type { Inventory } from "../port";
import type { LocationRef } from "../index.server";
import { NotSupportedError } from "../errors";

// Issue 3 builds this.
export function localInventory(_db: Database, _location: LocationRef): Inventory {
  const todo = async (): Promise<never> => {
    throw new NotSupportedError("Inventory is not built yet");
  };
  return {
    getSiteInformation: todo,
    listUnitTypes: todo,
    getUnitType: todo,
    listInsurancePlans: todo,
    listCheckoutCharges: todo,
  };
}
