import type { Database } from "~/db/client.server";
import type { Rentals } from "../port";
import type { LocationRef } from "../index.server";
import { NotSupportedError } from "../errors";

// Issue 4 builds this.
export function localRentals(_db: Database, _location: LocationRef): Rentals {
  const todo = async (): Promise<never> => {
    throw new NotSupportedError("Rentals are not built yet");
  };
  return { holdUnit: todo, releaseHold: todo };
}
