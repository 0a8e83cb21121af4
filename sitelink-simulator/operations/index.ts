/** Every operation the simulator answers, by name (the adapter's working set, study §6.3). */
import type { OpHandler } from "../simulator";
import { accountOperations } from "./accounts";
import { inventoryOperations } from "./inventory";
import { moveInOperations } from "./move-in";
import { reservationOperations } from "./reservations";
import { tenantOperations } from "./tenants";

export const operations: Record<string, OpHandler> = {
  ...inventoryOperations,
  ...tenantOperations,
  ...moveInOperations,
  ...reservationOperations,
  ...accountOperations,
};
