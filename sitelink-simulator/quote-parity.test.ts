/**
 * Lumberton bills like the app's own model (decision 040: anniversary, first month in full, the lock
 * fee's tax half up), so for every seeded storage unit type and plan the simulator's SiteLink quote
 * equals the app's domain quote to the cent. Jacksonville (first-of-month) differs on purpose.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quoteMoveIn } from "~/domain/rental/move-in-quote";
import { demoInventory } from "../seeds/demo-units";
import { insuranceTiers, lockFee } from "../seeds/operator";
import { startSiteLinkSimulator, type RunningSimulator } from "./server";
import { soapCall } from "./test-client";

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSiteLinkSimulator({ port: 0, clock: () => new Date("2026-01-31T15:00:00Z") });
});
afterAll(async () => {
  await sim.close();
});

const settings = { isWebRatesEnabled: false, fakeDiscountPercentage: 0, isShowExtraChargesAtCheckout: true, isHideExtraChargesForParkingOrOffice: true };
const charge = { id: lockFee.sitelink_id === null ? null : String(lockFee.sitelink_id), name: lockFee.name, amount: Math.round(lockFee.amount * 100), tax1Rate: lockFee.tax_1_rate, tax2Rate: lockFee.tax_2_rate, isRecurring: lockFee.is_recurring };

describe("Lumberton's SiteLink quote and the app's quote", () => {
  it("agree to the cent for every storage unit type, with and without each plan", async () => {
    const units = (await soapCall(sim.url, "UnitsInformation_v3", { lngLastTimePolled: "0", bReturnExcludedFromWebsiteUnits: false })).tables.Table!;
    const inventory = demoInventory("lumberton-nc-28358").filter((t) => t.entry.category !== "parking");
    expect(inventory.length).toBeGreaterThan(5);
    for (const type of inventory) {
      const unit = units.find((u) => Number(u.dcWidth) === type.entry.width && Number(u.dcLength) === type.entry.length && u.sTypeName === type.entry.name)!;
      for (const plan of [null, ...insuranceTiers]) {
        const app = quoteMoveIn({
          unitType: { name: type.entry.name, category: type.entry.category, standardRate: type.standardRate, webRate: type.webRate },
          settings,
          charges: [charge],
          insurancePlan: plan ? { id: plan.sitelinkId, coverage: plan.coverage, premium: plan.premium } : null,
          moveInDate: "2026-01-31",
        });
        const r = await soapCall(sim.url, "MoveInCostRetrieveWithDiscount_v4", {
          iUnitID: unit.UnitID!,
          dMoveInDate: "2026-01-31T00:00:00",
          InsuranceCoverageID: plan ? Number(plan.sitelinkId) : -999,
          ConcessionPlanID: -999,
          ChannelType: 0,
        });
        const total = r.tables.Table!.reduce((s, x) => s + Math.round(Number(x.dcTotal) * 100), 0);
        expect({ type: `${type.entry.name} ${type.entry.width}x${type.entry.length}`, plan: plan?.premium ?? null, total }).toEqual({
          type: `${type.entry.name} ${type.entry.width}x${type.entry.length}`,
          plan: plan?.premium ?? null,
          total: app.total,
        });
        expect(r.tables.Table![0]!.EndDate?.slice(0, 10)).toBe(app.paidThroughDate);
      }
    }
  });
});
