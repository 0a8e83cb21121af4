/**
 * DEMO inventory for the seed (decision 034): each LIVE location of the account that has no unit types
 * yet is stocked with the demo inventory (app/storage-software/local/demo-units.ts), only when the
 * account's use_demo_units is on. Idempotent: a location that already has unit types is left alone.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Transaction } from "~/db/client.server";
import { accounts, locations, unitTypes } from "~/db/schema";
import { stockDemoUnits } from "~/storage-software/index.server";

export { demoInventory } from "~/storage-software/index.server";

/**
 * Creates the demo inventory of every live location of the account that has no unit types yet,
 * when the account's use_demo_units is on. Returns what it created, for the seed report.
 */
export async function seedDemoUnits(tx: Transaction, accountId: number): Promise<string[]> {
  const account = await tx.query.accounts.findFirst({ where: eq(accounts.id, accountId) });
  if (!account?.useDemoUnits) return [];
  const live = await tx
    .select({ id: locations.id, slug: locations.urlSlug })
    .from(locations)
    .where(and(eq(locations.accountId, accountId), eq(locations.status, "Live")))
    .orderBy(locations.id);
  if (live.length === 0) return [];
  const stocked = new Set(
    (
      await tx
        .selectDistinct({ locationId: unitTypes.locationId })
        .from(unitTypes)
        .where(inArray(unitTypes.locationId, live.map((l) => l.id)))
    ).map((r) => r.locationId),
  );
  const created: string[] = [];
  for (const location of live) {
    if (stocked.has(location.id)) continue;
    const made = await stockDemoUnits(tx, location);
    created.push(`demo units ${location.slug} (${made.unitTypes} unit types, ${made.units} units)`);
  }
  return created;
}
