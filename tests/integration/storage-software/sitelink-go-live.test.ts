/**
 * Issue 37 (decision 470): a SiteLink location goes live only through a passed check. Through the BUILT
 * server over HTTP, with Lumberton connected to the SiteLink simulator: before `sitelink:verify` has
 * passed (and after a run that names the pay method: the manual's reading with the default ids), the
 * unit cards and the rental page show the spec's "rentals disabled" message with the office's phone;
 * after verify passes with the site's ids they offer the rental; a change of the card types switches the
 * location off again until the next pass.
 */
import "../support/built-server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PAY_METHOD_IDS, sitelinkGoLiveChecks, sitelinkSites } from "~/db/schema";
import { RENTALS_DISABLED_MESSAGE } from "~/domain/shared/account-settings";
import { collectSiteLinkStatus, formatSiteLinkStatus, goLiveState, verifySiteLinkLocation } from "~/storage-software/index.server";
import { startBuiltServer, type BuiltServer } from "../support/built-server";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, useReadings, type SiteLinkTestbed } from "../support/sitelink-testbed";

const NOW = new Date("2026-11-23T15:00:00Z");
const LUMBERTON = "lumberton-nc-28358";
let bed: SiteLinkTestbed;
let server: BuiltServer;
let unitTypeId: string;
let leaseHolder: string;
let n = 0;

beforeAll(async () => {
  bed = await startSyncedSiteLinkTestbed(NOW);
  unitTypeId = (await roomiestSyncedUnitType(bed, bed.lumberton)).id;
  const free = bed.sim.control.inspectSite("L001").units.find((u) => !u.rented)!;
  leaseHolder = String(bed.sim.control.addOfficeTenant("L001", { firstName: "Lease", lastName: "Holder", email: "lease.holder.golive@example.com", unitId: free.UnitID }).TenantID);
  // The manual's reading at the site, test mode keeping nothing, the location on the default ids.
  await useReadings(bed, { payMethod: "manual", successCode: "id", testMode: "nothing" }, DEFAULT_PAY_METHOD_IDS);
  // No check yet: as a location just configured with sitelink:configure.
  await bed.handle.db.delete(sitelinkGoLiveChecks).where(eq(sitelinkGoLiveChecks.locationId, bed.lumberton.id));
  server = await startBuiltServer(bed.handle);
});
afterAll(async () => {
  await server?.close();
  await bed?.close();
});

/**
 * The location page (a fresh query string each time: the page cache keeps a page until the next
 * minute) and the rental page (with a cookie: the copy kept for cookieless visitors lives 5 s).
 */
async function pages() {
  const location = await (await fetch(`${server.origin}/locations/${LUMBERTON}?golive=${++n}`)).text();
  const rent = await fetch(`${server.origin}/rent/${unitTypeId}`, { headers: { Cookie: `golive=${n}` } });
  return { location, rentStatus: rent.status, rent: await rent.text() };
}

const verify = () => verifySiteLinkLocation(bed.handle.db, LUMBERTON, { now: NOW, testModeMoveIn: true, tenantId: leaseHolder });

describe("a SiteLink location goes live only through a passed sitelink:verify", () => {
  it("off before any check and after a failed one (the manual's reading, default ids); on after a pass; off again when the card types change", async () => {
    let p = await pages();
    expect(p.location).toContain(RENTALS_DISABLED_MESSAGE);
    expect(p.location).not.toContain(`href="/rent/${unitTypeId}"`);
    expect(p.rent).toContain(RENTALS_DISABLED_MESSAGE);
    expect(p.rent).toContain("(910)");
    expect(p.rent).not.toMatch(/name="first_name"/);

    const failed = await verify();
    expect(failed.ok).toBe(false);
    expect(failed.differs).toEqual(["pay method (MoveInWithDiscount_v7)"]);
    expect((await goLiveState(bed.handle.db, bed.lumberton.id)).live).toBe(false);
    p = await pages();
    expect(p.location).toContain(RENTALS_DISABLED_MESSAGE);
    expect(p.rent).toContain(RENTALS_DISABLED_MESSAGE);
    const status = formatSiteLinkStatus(await collectSiteLinkStatus(bed.handle.db, NOW), NOW);
    expect(status).toMatch(/go-live {9}OFF: online rentals and payments off .* the latest check \(sitelink:verify, .*\) did not pass/);
    expect(status).toContain("differs: pay method (MoveInWithDiscount_v7)");

    // The site's own ids (the manual's reading): verify passes, the location is live.
    await bed.handle.db.update(sitelinkSites).set({ payMethodIds: { card: 0, cash: 2, check: 1 } }).where(eq(sitelinkSites.locationId, bed.lumberton.id));
    const passed = await verify();
    expect(passed.ok).toBe(true);
    p = await pages();
    expect(p.location).toContain(`href="/rent/${unitTypeId}"`);
    expect(p.rent).not.toContain(RENTALS_DISABLED_MESSAGE);
    expect(formatSiteLinkStatus(await collectSiteLinkStatus(bed.handle.db, NOW), NOW)).toMatch(/go-live {9}LIVE: online rentals and payments on — passed sitelink:verify/);

    // Another card type: the pass no longer holds for the settings.
    await bed.handle.db.update(sitelinkSites).set({ cardTypeIds: { mastercard: 5, visa: 6, discover: 8, amex: 7 } }).where(eq(sitelinkSites.locationId, bed.lumberton.id));
    p = await pages();
    expect(p.location).toContain(RENTALS_DISABLED_MESSAGE);
    expect(p.rent).toContain(RENTALS_DISABLED_MESSAGE);
    expect((await goLiveState(bed.handle.db, bed.lumberton.id)).reason).toMatch(/the settings changed after the check that passed/);
  });
});
