import type { Database } from "~/db/client.server";
import type { Tenants } from "../port";
import type { LocationRef } from "../index.server";

// Issue 5 builds this.
export function localTenants(_db: Database, _location: LocationRef): Tenants {
  return {};
}
