/**
 * Finding a record whose link carries no location (a lease link, a reservation's confirmation or
 * cancel link): each location's storage software is asked in turn through the port, first answer
 * wins. An operator has a handful of locations, and an id is one location's.
 * docs/decisions/100-storage-port-only-way-in.md.
 */
import { asc } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations } from "~/db/schema";
import { storageFor } from "~/storage-software/index.server";
import type { StorageSoftware } from "~/storage-software/port";

export async function findAtAnyLocation<T>(db: Database, find: (storage: StorageSoftware) => Promise<T | null>): Promise<T | null> {
  const list = await db
    .select({ id: locations.id, name: locations.name, software: locations.software, status: locations.status })
    .from(locations)
    .orderBy(asc(locations.id));
  for (const location of list) {
    const found = await find(storageFor(db, location));
    if (found) return found;
  }
  return null;
}
