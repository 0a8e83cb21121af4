/**
 * Inventory part of the SiteLink adapter (issue 11 §3, study §3.2).
 *
 * - Unit types and counts: our catalogue mirror (./sync.ts), one grouped query like the local
 *   adapter's, limited to the types SiteLink gave us (external_id set). A location never synced is
 *   synced in full first. Counts can be as old as the last sync: `availabilityAsOf()` says when, and
 *   holdUnit re-reads the unit in SiteLink (./holds.ts), so renting never relies on a stale count.
 * - Site information: SiteInformation (it also proves the settings work); the name and IANA time
 *   zone are ours (SiteLink has no time zone column).
 * - Insurance: InsuranceCoverageRetrieve_V2 (V3 answers no rows, LK-R §2.3). Id = InsurCoverageID.
 * - Extra charges: the location's `charges_to_show_at_checkout`, each matched with a SiteLink charge
 *   description (ChargeDescriptionsRetrieve: by ChargeDescID, or by name) for its price and taxes.
 */
import { eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations } from "~/db/schema";
import { parseExtraCharges } from "~/domain/site/location-settings";
import { dollarsToCents } from "~/domain/shared/money";
import type { AvailabilityOptions, ExtraChargeOption, InsurancePlanOption, Inventory } from "../port";
import type { LocationRef } from "../port";
import { catalogueUnitTypes } from "../catalogue";
import { StorageSoftwareError, SoftwareUnreachableError } from "../errors";
import type { SiteLinkCall, SiteLinkLog } from "./client";
import { rowsOf } from "./dataset";
import { okRead } from "./errors";
import { decimalToNumber, intOrNull, isTrue, optionalCents } from "./money";
import { availabilityAsOf, readSyncState, syncInventory } from "./sync";
import { readDiscountPlans } from "./discount-plans";
import { localDate } from "~/domain/shared/calendar";

/** How long after a failed first sync pages answer "unreachable" without asking SiteLink again. */
const RETRY_FIRST_SYNC_MS = 30_000;
/** First syncs in flight in this process, per database and location. */
const firstSyncsByDb = new WeakMap<Database, Map<number, Promise<void>>>();

interface SiteLinkInventoryDeps {
  db: Database;
  location: LocationRef;
  call: SiteLinkCall;
  now: () => Date;
  log: SiteLinkLog;
}

/** The extra the SiteLink adapter offers pages: when its availability was read from SiteLink. */
interface AvailabilityFreshness {
  availabilityAsOf(): Promise<Date | null>;
}

export function siteLinkInventory(deps: SiteLinkInventoryDeps): Inventory & AvailabilityFreshness {
  const { db, location, call, now, log } = deps;

  /**
   * A location never synced gets a full sync before its first read: one at a time per location in
   * this process, and not again within RETRY_FIRST_SYNC_MS of a failed attempt (pages answer at once
   * with "could not reach the facility's system" instead of each waiting for SiteLink's timeout).
   */
  async function ensureSynced(): Promise<void> {
    const state = await readSyncState(db, location.id);
    if (state?.lastSyncedAt) return;
    const lastTry = state?.lastAttemptAt?.getTime() ?? 0;
    if (state?.lastError && now().getTime() - lastTry < RETRY_FIRST_SYNC_MS && now().getTime() >= lastTry) {
      throw new SoftwareUnreachableError(`SiteLink inventory of location ${location.id} is not synced yet: ${state.lastError}`);
    }
    let firstSyncs = firstSyncsByDb.get(db);
    if (!firstSyncs) firstSyncsByDb.set(db, (firstSyncs = new Map()));
    let running = firstSyncs.get(location.id);
    if (!running) {
      const inFlight = firstSyncs;
      running = syncInventory({ db, locationId: location.id, call, now }, { full: true }).then(() => undefined);
      inFlight.set(location.id, running);
      void running.catch(() => undefined).finally(() => inFlight.delete(location.id));
    }
    await running;
  }

  const at = (options?: AvailabilityOptions) => options?.now ?? now();

  async function locationRow() {
    const [row] = await db
      .select({ id: locations.id, name: locations.name, timeZone: locations.timeZone, charges: locations.chargesToShowAtCheckout })
      .from(locations)
      .where(eq(locations.id, location.id));
    if (!row) throw new StorageSoftwareError(`Location ${location.id} does not exist`);
    return row;
  }

  return {
    async getSiteInformation() {
      const row = await locationRow();
      const answer = okRead(await call("SiteInformation", {}), "SiteInformation");
      if (!rowsOf(answer, "Table").length) throw new SoftwareUnreachableError(`SiteLink SiteInformation answered no site for location ${location.id}`);
      return { locationId: row.id, name: row.name, timeZone: row.timeZone.timeZoneId };
    },

    async listUnitTypes(options) {
      await ensureSynced();
      return catalogueUnitTypes(db, location.id, { at: at(options), syncedOnly: true });
    },

    async getUnitType(unitTypeId, options) {
      if (!/^\d{1,9}$/.test(unitTypeId)) return null;
      await ensureSynced();
      const [row] = await catalogueUnitTypes(db, location.id, { at: at(options), unitTypeId: Number(unitTypeId), syncedOnly: true });
      return row ?? null;
    },

    // The site's discount plans (ConcessionPlans, evidence §3: LK's "empty" read the wrong table), each
    // with what it gives or why it is not offered (./discount-plans.ts, decision 672); kept in the
    // mirror the website words published promotions from (decision 673).
    async listDiscountPlans() {
      const row = await locationRow();
      return readDiscountPlans({ db, locationId: location.id, call, now: now() }, localDate(now(), row.timeZone.timeZoneId));
    },

    async listInsurancePlans(): Promise<InsurancePlanOption[]> {
      const answer = okRead(await call("InsuranceCoverageRetrieve_V2", {}), "InsuranceCoverageRetrieve_V2");
      return rowsOf(answer, "Table")
        .filter((r) => intOrNull(r.InsurCoverageID) !== null)
        .map((r) => ({
          id: String(intOrNull(r.InsurCoverageID)),
          coverage: optionalCents(r.dcCoverage),
          premium: optionalCents(r.dcPremium),
          percentOfTheftCoverage: (r.dcPCTheft ?? "").trim(),
          description: (r.sCoverageDesc ?? "").trim(),
          provider: (r.sProvidor ?? r.sProvider ?? "").trim(),
        }))
        .sort((a, b) => a.coverage - b.coverage || Number(a.id) - Number(b.id));
    },

    async listExtraCharges(): Promise<ExtraChargeOption[]> {
      const row = await locationRow();
      const parsed = parseExtraCharges(row.charges);
      if (!parsed.ok) throw new StorageSoftwareError(`Location ${location.id} has invalid extra charges: ${parsed.error}`);
      if (!parsed.charges.length) return [];
      const answer = okRead(await call("ChargeDescriptionsRetrieve", {}), "ChargeDescriptionsRetrieve");
      const descriptions = rowsOf(answer, "Table").filter((d) => !d.dDisabled);
      const out: ExtraChargeOption[] = [];
      for (const c of parsed.charges) {
        const wanted = c.sitelink_id === null ? null : String(c.sitelink_id).trim();
        const match =
          (wanted !== null && /^\d+$/.test(wanted) ? descriptions.find((d) => intOrNull(d.ChargeDescID) === Number(wanted)) : undefined) ??
          descriptions.find((d) => {
            const desc = (d.sChgDesc ?? "").trim().toLowerCase();
            return desc === c.name.trim().toLowerCase() || (wanted !== null && desc === wanted.toLowerCase());
          });
        if (!match) {
          log.warn({ location: location.id, charge: c.name }, "[sitelink] extra charge has no SiteLink charge description; it is not offered");
          continue;
        }
        out.push({
          id: String(intOrNull(match.ChargeDescID)),
          name: c.name,
          amount: match.dcPrice !== undefined && match.dcPrice.trim() !== "" ? optionalCents(match.dcPrice) : dollarsToCents(c.amount),
          tax1Rate: decimalToNumber(match.dcTax1Rate, c.tax_1_rate),
          tax2Rate: decimalToNumber(match.dcTax2Rate, c.tax_2_rate),
          isRecurring: c.is_recurring || isTrue(match.bRecurring),
        });
      }
      return out;
    },

    availabilityAsOf: () => availabilityAsOf(db, location.id),
  };
}
