/** Every operation the simulator answers, by name (the adapter's working set, study §6.3). */
import type { OpHandler } from "../simulator";
import { inventoryOperations } from "./inventory";

export const operations: Record<string, OpHandler> = {
  ...inventoryOperations,
};
