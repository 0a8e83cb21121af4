/**
 * Which storage software each of some locations runs (issue 39, decision 514): what the console's
 * home needs to ask each location's adapter for its units (occupancy), within the account.
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations } from "~/db/schema";

export async function locationsWithSoftware(db: Database, accountId: number, ids: readonly number[]) {
  if (!ids.length) return [];
  return db
    .select({ id: locations.id, name: locations.name, software: locations.software, status: locations.status })
    .from(locations)
    .where(and(eq(locations.accountId, accountId), inArray(locations.id, [...ids])))
    .orderBy(asc(locations.id));
}
