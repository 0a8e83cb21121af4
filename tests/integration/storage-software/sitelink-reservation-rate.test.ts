/**
 * The rate a SiteLink reservation is quoted at (dcQuotedRate) is the one the reserve page shows: the
 * web rate only when the location's web rates are on (app/domain/site/rates.ts, decision 215). It used to
 * take the web rate whenever the type had one, whatever the flag said.
 */
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { locations, reservations, units } from "~/db/schema";
import { runSiteLinkSync, storageFor } from "~/storage-software/index.server";
import { startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

const NOW = new Date("2026-06-15T15:00:00Z");

describe("SiteLink reservation: the quoted rate follows the web-rates flag", () => {
  let bed: SiteLinkTestbed;
  let serial = 0;
  beforeAll(async () => {
    bed = await startSyncedSiteLinkTestbed(NOW);
  });
  afterAll(() => bed?.close());

  /** A new type at Lumberton (standard 50.00, web 45.00) with one free unit, synced; its id here. */
  async function webRatedType(): Promise<string> {
    const created = bed.sim.control.createUnitType("L001", { typeName: `Rate Test ${++serial}`, width: 6, length: 8, stdRate: 5000, webRate: 4500, statuses: ["available"] });
    const results = await runSiteLinkSync(bed.handle.db, { full: true, now: NOW });
    expect(results.every((r) => r.ok)).toBe(true);
    const [row] = await bed.handle.db
      .select({ unitTypeId: units.unitTypeId })
      .from(units)
      .where(and(eq(units.locationId, bed.lumberton.id), inArray(units.externalId, created.units.map((u) => String(u.UnitID)))));
    return String(row!.unitTypeId);
  }

  async function setWebRates(on: boolean): Promise<void> {
    await bed.handle.db.update(locations).set({ globalSettings: { is_web_rates_enabled: on } }).where(eq(locations.id, bed.lumberton.id));
  }

  /** Reserves the type and returns the rate SiteLink recorded for the reservation, in cents. */
  async function quotedRate(unitTypeId: string): Promise<number> {
    const r = await storageFor(bed.handle.db, bed.lumberton).reserveUnit({
      unitTypeId,
      firstName: "Rita",
      lastName: "Rate",
      email: `rate-${serial}-${Date.now()}@example.com`,
      phone: "9105550188",
      desiredMoveInDate: "2026-06-20",
      expiresAt: new Date(NOW.getTime() + 7 * 86_400_000),
      cancelTokenHash: "b".repeat(64),
      confirmationCode: `RATE${serial}${Date.now().toString(36).toUpperCase()}`,
      idempotencyKey: `rate-reserve-${serial}-${Date.now()}`,
      now: NOW,
    });
    const [row] = await bed.handle.db.select({ externalId: reservations.externalId }).from(reservations).where(eq(reservations.id, Number(r.id)));
    const recorded = bed.sim.control.inspectSite("L001").reservations.find((x) => x.WaitingID === Number(row!.externalId));
    expect(recorded).toBeDefined();
    return recorded!.quotedRate;
  }

  it("web rates off: the standard rate, though the type has a web rate", async () => {
    await setWebRates(false);
    expect(await quotedRate(await webRatedType())).toBe(5000);
  });

  it("web rates on: the web rate", async () => {
    await setWebRates(true);
    expect(await quotedRate(await webRatedType())).toBe(4500);
  });
});
