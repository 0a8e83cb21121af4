/**
 * Issue 37 point 7: `sitelink:verify` quotes with the ChannelType the adapter sends (the location's
 * web-rates flag, decision 115), not the settings row's `channel_type` column. Against the SiteLink
 * simulator over SOAP/HTTP: the ChannelType SiteLink received, read from the simulator's call log,
 * for verify and for the adapter's own quote, with the flag and the column set against each other.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { locations, sitelinkSites } from "~/db/schema";
import { forgetStorageChoices, verifySiteLinkLocation } from "~/storage-software/index.server";
import { ctxFor, NOW } from "../support/rental-fixtures";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

let bed: SiteLinkTestbed;
beforeAll(async () => {
  bed = await startSyncedSiteLinkTestbed(NOW);
});
afterAll(() => bed?.close());

const lastChannel = () => String(bed.sim.control.calls({ operation: "MoveInCostRetrieveWithDiscount_v4", location: "L001" }).at(-1)!.params.ChannelType);

it.each([
  { webRates: true, column: 0 as const, sent: "1" },
  { webRates: false, column: 1 as const, sent: "0" },
])("web rates $webRates, channel_type column $column: verify and the adapter both send ChannelType $sent", async ({ webRates, column, sent }) => {
  await bed.handle.db.update(locations).set({ globalSettings: { is_web_rates_enabled: webRates } }).where(eq(locations.id, bed.lumberton.id));
  await bed.handle.db.update(sitelinkSites).set({ channelType: column }).where(eq(sitelinkSites.locationId, bed.lumberton.id));
  forgetStorageChoices(bed.handle.db);

  await verifySiteLinkLocation(bed.handle.db, "lumberton-nc-28358", { now: NOW });
  expect(lastChannel()).toBe(sent);

  const type = await roomiestSyncedUnitType(bed, bed.lumberton);
  const ctx = await ctxFor(bed.handle.db, type.id);
  await ctx.storage.quoteMoveIn({ unitTypeId: type.id, insurancePlanId: null, moveInDate: "2026-11-22", now: NOW, pricing: { isWebRatesEnabled: webRates, fakeDiscountPercentage: 0 } });
  expect(lastChannel()).toBe(sent);
});
