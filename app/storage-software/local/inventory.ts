import { asc, eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { insurancePlans, locations } from "~/db/schema";
import { parseExtraCharges } from "~/domain/site/location-settings";
import { dollarsToCents } from "~/domain/shared/money";
import { now as clockNow } from "~/platform/clock.server";
import type { AvailabilityOptions, ExtraChargeOption, Inventory } from "../port";
import type { LocationRef } from "../port";
import { catalogueUnitTypes } from "../catalogue";
import { StorageSoftwareError } from "../errors";

/**
 * Inventory from our own tables. Availability is counted in the database in one grouped query: a
 * unit is available when its status is `available` and it is not held by a rental (no hold, or a
 * hold that ended at or before `now`). Reserved, rented and unavailable units never count.
 */
export function localInventory(db: Database, location: LocationRef): Inventory {
  const at = (options?: AvailabilityOptions) => options?.now ?? clockNow();

  return {
    async getSiteInformation() {
      const [row] = await db
        .select({ id: locations.id, name: locations.name, timeZone: locations.timeZone })
        .from(locations)
        .where(eq(locations.id, location.id));
      if (!row) throw new StorageSoftwareError(`Location ${location.id} does not exist`);
      return { locationId: row.id, name: row.name, timeZone: row.timeZone.timeZoneId };
    },

    async listUnitTypes(options) {
      return catalogueUnitTypes(db, location.id, { at: at(options) });
    },

    async getUnitType(unitTypeId, options) {
      if (!/^\d{1,9}$/.test(unitTypeId)) return null;
      const [row] = await catalogueUnitTypes(db, location.id, { at: at(options), unitTypeId: Number(unitTypeId) });
      return row ?? null;
    },

    async listDiscountPlans() {
      return [];
    },

    async listInsurancePlans() {
      const rows = await db
        .select()
        .from(insurancePlans)
        .where(eq(insurancePlans.locationId, location.id))
        .orderBy(asc(insurancePlans.coverage), asc(insurancePlans.id));
      return rows.map((p) => ({
        id: String(p.id),
        coverage: p.coverage,
        premium: p.premium,
        percentOfTheftCoverage: p.percentOfTheftCoverage,
        description: p.description,
        provider: p.provider,
      }));
    },

    async listExtraCharges(): Promise<ExtraChargeOption[]> {
      const [row] = await db
        .select({ charges: locations.chargesToShowAtCheckout })
        .from(locations)
        .where(eq(locations.id, location.id));
      if (!row) throw new StorageSoftwareError(`Location ${location.id} does not exist`);
      const parsed = parseExtraCharges(row.charges);
      if (!parsed.ok) throw new StorageSoftwareError(`Location ${location.id} has invalid extra charges: ${parsed.error}`);
      return parsed.charges.map((c) => ({
        id: c.sitelink_id === null ? null : String(c.sitelink_id),
        name: c.name,
        amount: dollarsToCents(c.amount),
        tax1Rate: c.tax_1_rate,
        tax2Rate: c.tax_2_rate,
        isRecurring: c.is_recurring,
      }));
    },

    // Our own tables: the counts are live.
    availabilityAsOf: async () => null,
  };
}
