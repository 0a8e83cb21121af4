/**
 * The StorageSoftware contract: behaviour every adapter must show, whatever software is behind it.
 * Run it for an adapter by calling `storageSoftwareContract(name, makeHarness)` from a *.test.ts file
 * (storage-software-local.test.ts does so for the built-in adapter). A SiteLink adapter runs the same
 * suite with a harness that sets units up in a SiteLink sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StorageSoftware } from "~/storage-software/port";
import type { UnitStatus } from "~/db/schema/unit";

export interface ContractHarness {
  /** The adapter of a live location that has at least one unit type, insurance plans and the lock-fee charge. */
  storage: StorageSoftware;
  /** The adapter of another location, to check that ids do not leak across sites. */
  otherStorage: StorageSoftware;
  /** Creates a unit type at the live location with one unit per status given; returns the ids. */
  createUnitType(input: { statuses: UnitStatus[]; width?: number; length?: number }): Promise<{ unitTypeId: string; unitIds: string[] }>;
  setUnitStatus(unitId: string, status: UnitStatus): Promise<void>;
  /** Holds a unit for a checkout until `until` (as the rentals part would). */
  holdUnit(unitId: string, until: Date): Promise<void>;
  close(): Promise<void>;
}

export function storageSoftwareContract(adapterName: string, makeHarness: () => Promise<ContractHarness>) {
  describe(`StorageSoftware contract: inventory (${adapterName})`, () => {
    let h: ContractHarness;
    const now = new Date("2026-06-15T14:00:00Z");
    beforeAll(async () => {
      h = await makeHarness();
    });
    afterAll(() => h?.close());

    it("describes the site", async () => {
      const site = await h.storage.getSiteInformation();
      expect(site.name).not.toBe("");
      expect(() => new Intl.DateTimeFormat("en-US", { timeZone: site.timeZone })).not.toThrow();
    });

    it("lists unit types smallest first, with whole-cent rates and consistent counts", async () => {
      const list = await h.storage.listUnitTypes({ now });
      expect(list.length).toBeGreaterThan(0);
      for (const t of list) {
        expect(typeof t.id).toBe("string");
        expect(t.width).toBeGreaterThan(0);
        expect(t.length).toBeGreaterThan(0);
        expect(Number.isInteger(t.standardRate) && t.standardRate > 0).toBe(true);
        expect(Number.isInteger(t.webRate) && t.webRate > 0).toBe(true);
        expect(t.availableCount).toBeGreaterThanOrEqual(0);
        expect(t.availableCount).toBeLessThanOrEqual(t.totalCount);
        expect(Array.isArray(t.features)).toBe(true);
      }
      const areas = list.map((t) => t.width * t.length);
      expect(areas).toEqual([...areas].sort((a, b) => a - b));
    });

    it("answers one unit type as the list does, and null for an unknown or foreign id", async () => {
      const list = await h.storage.listUnitTypes({ now });
      const first = list[0]!;
      expect(await h.storage.getUnitType(first.id, { now })).toEqual(first);
      expect(await h.storage.getUnitType("999999999", { now })).toBeNull();
      expect(await h.storage.getUnitType("not-an-id", { now })).toBeNull();
      expect(await h.storage.getUnitType("", { now })).toBeNull();
      const foreign = (await h.otherStorage.listUnitTypes({ now }))[0];
      if (foreign) expect(await h.storage.getUnitType(foreign.id, { now })).toBeNull();
    });

    it("counts only units that are available and not held", async () => {
      const { unitTypeId } = await h.createUnitType({
        statuses: ["available", "available", "available", "rented", "reserved", "unavailable"],
      });
      const t = await h.storage.getUnitType(unitTypeId, { now });
      expect(t).toMatchObject({ availableCount: 3, totalCount: 6 });
      expect((await h.storage.listUnitTypes({ now })).find((x) => x.id === unitTypeId)).toMatchObject({ availableCount: 3, totalCount: 6 });
    });

    it("follows status changes: rented, reserved and unavailable units leave the count, freed ones return", async () => {
      const { unitTypeId, unitIds } = await h.createUnitType({ statuses: ["available", "available", "available"] });
      const count = async () => (await h.storage.getUnitType(unitTypeId, { now }))!.availableCount;
      expect(await count()).toBe(3);
      await h.setUnitStatus(unitIds[0]!, "rented");
      expect(await count()).toBe(2);
      await h.setUnitStatus(unitIds[1]!, "reserved");
      expect(await count()).toBe(1);
      await h.setUnitStatus(unitIds[2]!, "unavailable");
      expect(await count()).toBe(0);
      await h.setUnitStatus(unitIds[0]!, "available");
      expect(await count()).toBe(1);
    });

    it("does not count a held unit until its hold ends", async () => {
      const { unitTypeId, unitIds } = await h.createUnitType({ statuses: ["available", "available"] });
      await h.holdUnit(unitIds[0]!, new Date(now.getTime() + 15 * 60_000));
      expect((await h.storage.getUnitType(unitTypeId, { now }))!.availableCount).toBe(1);
      const later = new Date(now.getTime() + 15 * 60_000);
      expect((await h.storage.getUnitType(unitTypeId, { now: later }))!.availableCount).toBe(2);
    });

    it("shows a sold-out type with a zero count rather than hiding it", async () => {
      const { unitTypeId } = await h.createUnitType({ statuses: ["rented", "rented"] });
      expect(await h.storage.getUnitType(unitTypeId, { now })).toMatchObject({ availableCount: 0, totalCount: 2 });
    });

    it("lists insurance plans lowest coverage first, in cents", async () => {
      const plans = await h.storage.listInsurancePlans();
      expect(plans.length).toBeGreaterThan(0);
      for (const p of plans) {
        expect(Number.isInteger(p.coverage) && Number.isInteger(p.premium)).toBe(true);
        expect(typeof p.id).toBe("string");
      }
      const coverages = plans.map((p) => p.coverage);
      expect(coverages).toEqual([...coverages].sort((a, b) => a - b));
    });

    it("lists checkout charges in cents with their tax rates", async () => {
      const charges = await h.storage.listCheckoutCharges();
      expect(charges.length).toBeGreaterThan(0);
      for (const c of charges) {
        expect(Number.isInteger(c.amount)).toBe(true);
        expect(c.tax1Rate).toBeGreaterThanOrEqual(0);
        expect(typeof c.isRecurring).toBe("boolean");
      }
    });
  });
}
