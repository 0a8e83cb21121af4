/**
 * The SiteLink adapter's inventory beyond the contract suite (issue 11 §3): which adapter serves a
 * location, the sync (full, incremental with SiteLink's own poll marker, rates, deletions), holds
 * re-checked fresh in SiteLink, how fresh pages say availability is, bad credentials and an
 * unreachable SiteLink (a clear message, never a 500, secrets never logged), and `sitelink:status`.
 * The simulator speaks the real wire format on an ephemeral port.
 */
import { and, eq, isNotNull, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { accounts, locations, sitelinkSites, sitelinkSyncState, sitelinkWrites, unitTypes, units } from "~/db/schema";
import { getLocationUnitListing, getUnitsLocation } from "~/db/queries/units.server";
import { SoftwareUnreachableError, UnitUnavailableError } from "~/storage-software/errors";
import {
  collectSiteLinkStatus,
  forgetStorageChoices,
  formatSiteLinkStatus,
  runSiteLinkSync,
  saveSiteLinkSettings,
  storageFor,
} from "~/storage-software/index.server";
import { siteLinkLocations } from "~/storage-software/sitelink/scheduler";
import { DEMO_CORP } from "../../../sitelink-simulator/index";
import { PASSWORD_ENV, startSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";
import { loadContext } from "../support/route-helpers";

const NOW = new Date("2026-11-24T19:41:00Z");

/** Every line the app logs during a test (the test logger writes through console.*; console.error stays the setup's). */
let spies: { mockRestore(): void }[] = [];
function captureLogs() {
  const lines: string[] = [];
  const record = (...args: unknown[]) => void lines.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "));
  for (const method of ["log", "info", "warn", "debug"] as const) spies.push(vi.spyOn(console, method).mockImplementation(record));
  return lines;
}
afterEach(() => {
  for (const s of spies) s.mockRestore();
  spies = [];
});

const SECRETS = [DEMO_CORP.password, DEMO_CORP.apiKey];
const expectNoSecrets = (text: string) => {
  for (const s of SECRETS) expect(text).not.toContain(s);
};

async function accountOf(bed: SiteLinkTestbed) {
  const [row] = await bed.handle.db
    .select({ account: accounts })
    .from(locations)
    .innerJoin(accounts, eq(accounts.id, locations.accountId))
    .where(eq(locations.id, bed.lumberton.id));
  return row!.account;
}

async function mirroredUnit(bed: SiteLinkTestbed, externalId: number) {
  const [row] = await bed.handle.db.select().from(units).where(and(eq(units.locationId, bed.lumberton.id), eq(units.externalId, String(externalId))));
  return row!;
}

describe("SiteLink inventory: sync, choice of adapter and freshness", () => {
  let bed: SiteLinkTestbed;
  beforeAll(async () => {
    bed = await startSiteLinkTestbed();
  });
  afterAll(() => bed?.close());

  it("a full sync mirrors every SiteLink unit into the catalogue, grouped by type and size, with SiteLink's rates", async () => {
    const [result] = (await runSiteLinkSync(bed.handle.db, { full: true })).filter((r) => r.locationId === bed.lumberton.id);
    expect(result).toMatchObject({ ok: true, report: { full: true } });
    const site = bed.sim.control.inspectSite("L001");
    const live = site.units.filter((u) => !u.deleted);
    const mirrored = await bed.handle.db.select().from(units).where(and(eq(units.locationId, bed.lumberton.id), isNotNull(units.externalId)));
    expect(new Set(mirrored.map((u) => u.externalId))).toEqual(new Set(live.map((u) => String(u.UnitID))));
    const list = await storageFor(bed.handle.db, bed.lumberton).listUnitTypes({ now: NOW });
    // Every unit type's counts are SiteLink's: total units of the group, available = not rented, rentable, not reserved.
    for (const t of list) {
      const [type] = await bed.handle.db.select().from(unitTypes).where(eq(unitTypes.id, Number(t.id)));
      const [typeId, size] = type!.externalId!.split(":");
      const group = live.filter((u) => String(u.UnitTypeID) === typeId && `${u.width}x${u.length}` === size && u.floor === t.floor);
      expect(t.totalCount, type!.externalId!).toBe(group.length);
      expect(t.availableCount, type!.externalId!).toBe(group.filter((u) => !u.rented && u.rentable && !u.waitingListReserved && !u.excludeFromWebsite).length);
      expect(t.standardRate).toBe(group[0]!.stdRate);
    }
    expect(list.reduce((n, t) => n + t.totalCount, 0)).toBe(live.length);
  });

  it("an incremental sync sends SiteLink's own poll marker back and reads only the units changed since", async () => {
    const site = bed.sim.control.inspectSite("L001");
    const unit = site.units.find((u) => !u.rented && u.rentable && !u.waitingListReserved && !u.deleted)!;
    const [state] = await bed.handle.db.select().from(sitelinkSyncState).where(eq(sitelinkSyncState.locationId, bed.lumberton.id));
    bed.sim.control.clearCalls();
    bed.sim.control.setUnitStatus("L001", unit.UnitID, "rented");
    const [result] = (await runSiteLinkSync(bed.handle.db)).filter((r) => r.locationId === bed.lumberton.id);
    expect(result!.report).toMatchObject({ full: false, unitsSeen: 1, unitsUpdated: 1 });
    const polls = bed.sim.control.calls({ operation: "UnitsInformation_v3", location: "L001" });
    expect(polls.map((c) => c.params.lngLastTimePolled)).toEqual([state!.lastTimePolled]);
    expect((await mirroredUnit(bed, unit.UnitID)).status).toBe("rented");
    const [after] = await bed.handle.db.select().from(sitelinkSyncState).where(eq(sitelinkSyncState.locationId, bed.lumberton.id));
    expect(BigInt(after!.lastTimePolled!)).toBeGreaterThan(BigInt(state!.lastTimePolled!));
    expect(after!.lastSyncedAt!.getTime()).toBeGreaterThanOrEqual(state!.lastSyncedAt!.getTime());
  });

  it("an office rate change reaches the catalogue with the rates sync; a unit deleted in SiteLink becomes unavailable at the full sync", async () => {
    const site = bed.sim.control.inspectSite("L001");
    const unit = site.units.find((u) => !u.rented && u.rentable && !u.waitingListReserved && !u.deleted && !u.excludeFromWebsite)!;
    const group = site.units.filter((u) => u.UnitTypeID === unit.UnitTypeID && u.width === unit.width && u.length === unit.length && u.floor === unit.floor);
    bed.sim.control.setUnitRates("L001", group.map((u) => u.UnitID), { stdRate: 12345, webRate: 11111 });
    bed.sim.control.setUnitStatus("L001", unit.UnitID, "deleted");
    await runSiteLinkSync(bed.handle.db, { full: true });
    const mirrored = await mirroredUnit(bed, unit.UnitID);
    expect(mirrored.status).toBe("unavailable");
    const [type] = await bed.handle.db.select().from(unitTypes).where(eq(unitTypes.id, mirrored.unitTypeId));
    expect(type).toMatchObject({ standardRate: 12345, webRate: 11111 });
  });

  it.each([
    ["the deleted unit's row first", false],
    ["the new unit's row first", true],
  ])("a unit deleted at the office and its name given to a new unit (%s): both mirrored, the sync does not jam", async (_order, newFirst) => {
    const created = bed.sim.control.createUnitType("L001", { typeName: `Rename Test ${newFirst}`, width: 4, length: 6, stdRate: 3000, statuses: ["available", "available"] });
    await runSiteLinkSync(bed.handle.db);
    const [oldUnit, newUnit] = created.units;
    bed.sim.control.setUnitStatus("L001", oldUnit!.UnitID, "deleted");
    const site = bed.sim.sim.site("L001")!;
    const live = site.units.find((u) => u.UnitID === newUnit!.UnitID)!;
    live.sUnitName = oldUnit!.sUnitName;
    bed.sim.sim.touch(site, live);
    if (newFirst) {
      site.units.splice(site.units.indexOf(live), 1);
      site.units.unshift(live);
    }
    const [result] = (await runSiteLinkSync(bed.handle.db)).filter((r) => r.locationId === bed.lumberton.id);
    expect(result).toMatchObject({ ok: true });
    expect(await mirroredUnit(bed, newUnit!.UnitID)).toMatchObject({ name: oldUnit!.sUnitName, status: "available" });
    expect(await mirroredUnit(bed, oldUnit!.UnitID)).toMatchObject({ name: `${oldUnit!.sUnitName} (#${oldUnit!.UnitID})`, status: "unavailable" });
  });

  it("the job's cadence: incremental each round, rates every 15 minutes, a full sync at night when the last is over 20 hours old", async () => {
    await runSiteLinkSync(bed.handle.db, { full: true });
    const t0 = Date.now();
    const round = async (at: Date) => {
      bed.sim.control.clearCalls();
      const [r] = (await runSiteLinkSync(bed.handle.db, { now: at })).filter((x) => x.locationId === bed.lumberton.id);
      return { full: r!.report!.full, priceList: bed.sim.control.calls({ operation: "UnitTypePriceList_v2", location: "L001" }).length };
    };
    expect(await round(new Date(t0 + 60_000))).toEqual({ full: false, priceList: 0 });
    expect(await round(new Date(t0 + 16 * 60_000))).toEqual({ full: false, priceList: 1 });
    expect(await round(new Date(t0 + 17 * 60_000))).toEqual({ full: false, priceList: 0 });
    // The day after tomorrow at 03:00 in Lumberton (New York time): the nightly full sync.
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York" }).format(new Date(t0));
    const night = new Date(new Date(`${today}T03:00:00-05:00`).getTime() + 2 * 86_400_000);
    expect(await round(night)).toEqual({ full: true, priceList: 1 });
  });

  it("pages say how fresh SiteLink availability is, in the location's time zone", async () => {
    const account = await accountOf(bed);
    const location = (await getUnitsLocation(bed.handle.db, account.id, "lumberton-nc-28358"))!;
    const listing = await getLocationUnitListing(loadContext(bed.handle.db), location, account, new URLSearchParams());
    expect(listing.notices).toEqual([]);
    expect(listing.totalCount).toBeGreaterThan(0);
    const [state] = await bed.handle.db.select().from(sitelinkSyncState).where(eq(sitelinkSyncState.locationId, bed.lumberton.id));
    const time = new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", hour: "numeric", minute: "2-digit" }).format(state!.lastSyncedAt!);
    expect(listing.freshness).toHaveLength(1);
    expect(listing.freshness[0]).toMatch(/^Availability as of /);
    expect(listing.freshness[0]!.replace(/\u202f/g, " ")).toContain(time.replace(/\u202f/g, " "));
    expect(await storageFor(bed.handle.db, bed.lumberton).availabilityAsOf()).toEqual(state!.lastSyncedAt);
  });

  it("use_demo_units on serves the demo inventory (local, live counts) even with SiteLink settings; no settings also means local", async () => {
    const account = await accountOf(bed);
    await bed.handle.db.update(accounts).set({ useDemoUnits: true }).where(eq(accounts.id, account.id));
    forgetStorageChoices(bed.handle.db);
    try {
      bed.sim.control.clearCalls();
      const local = storageFor(bed.handle.db, bed.lumberton);
      expect(await local.availabilityAsOf()).toBeNull();
      const demo = await local.listUnitTypes({ now: NOW });
      expect(demo.length).toBeGreaterThan(0);
      // The demo seed's own types (no SiteLink id) are served, and SiteLink is not asked anything.
      const demoIds = await bed.handle.db.select({ id: unitTypes.id }).from(unitTypes).where(and(eq(unitTypes.locationId, bed.lumberton.id), sql`${unitTypes.externalId} is null`));
      expect(demoIds.length).toBeGreaterThan(0);
      for (const t of demoIds) expect(demo.map((d) => Number(d.id))).toContain(t.id);
      expect(bed.sim.control.calls()).toEqual([]);
      // The scheduler reads the same rule (adapterChoiceFor): it syncs nothing for Lumberton meanwhile.
      expect((await siteLinkLocations(bed.handle.db)).map((l) => l.id)).not.toContain(bed.lumberton.id);
    } finally {
      await bed.handle.db.update(accounts).set({ useDemoUnits: false }).where(eq(accounts.id, account.id));
      forgetStorageChoices(bed.handle.db);
    }
    const [saved] = await bed.handle.db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, bed.jacksonville.id));
    await bed.handle.db.delete(sitelinkSites).where(eq(sitelinkSites.locationId, bed.jacksonville.id));
    forgetStorageChoices(bed.handle.db);
    try {
      expect(await storageFor(bed.handle.db, bed.jacksonville).availabilityAsOf()).toBeNull();
    } finally {
      await bed.handle.db.insert(sitelinkSites).values(saved!);
      forgetStorageChoices(bed.handle.db);
    }
    expect(await storageFor(bed.handle.db, bed.jacksonville).availabilityAsOf()).not.toBeNull();
  });
});

describe("SiteLink holds: the unit is re-checked in SiteLink, not trusted from the last sync", () => {
  let bed: SiteLinkTestbed;
  beforeAll(async () => {
    bed = await startSiteLinkTestbed();
    await runSiteLinkSync(bed.handle.db, { full: true });
  });
  afterAll(() => bed?.close());

  it("skips a unit the office rented since the last sync, holds another, and refuses when none is left", async () => {
    const created = bed.sim.control.createUnitType("L001", { typeName: "Hold Test", width: 6, length: 7, stdRate: 6000, statuses: ["available", "available"] });
    await runSiteLinkSync(bed.handle.db);
    const first = await mirroredUnit(bed, created.units[0]!.UnitID);
    const storage = storageFor(bed.handle.db, bed.lumberton);
    const typeId = String(first.unitTypeId);
    expect((await storage.getUnitType(typeId, { now: NOW }))!.availableCount).toBe(2);

    // The office rents the first unit; no sync runs.
    bed.sim.control.setUnitStatus("L001", created.units[0]!.UnitID, "rented");
    bed.sim.control.clearCalls();
    const until = new Date(NOW.getTime() + 15 * 60_000);
    const hold = await storage.holdUnit({ unitTypeId: typeId, holdToken: "rental-a", until, now: NOW });
    expect(hold.unitName).toBe(created.units[1]!.sUnitName);
    expect(bed.sim.control.calls({ operation: "UnitsInformationByUnitID" }).map((c) => c.params.UnitID)).toEqual(
      created.units.map((u) => String(u.UnitID)),
    );
    expect((await mirroredUnit(bed, created.units[0]!.UnitID)).status).toBe("rented");

    // The office rents the held unit too: renewing the hold re-checks and finds nothing free.
    bed.sim.control.setUnitStatus("L001", created.units[1]!.UnitID, "rented");
    await expect(storage.holdUnit({ unitTypeId: typeId, holdToken: "rental-a", until, now: NOW })).rejects.toBeInstanceOf(UnitUnavailableError);
    expect((await mirroredUnit(bed, created.units[1]!.UnitID)).status).toBe("rented");
    expect((await storage.getUnitType(typeId, { now: NOW }))!.availableCount).toBe(0);
  });

  it("a hold cannot be taken when SiteLink cannot confirm the unit (unreachable): SoftwareUnreachableError, nothing held", async () => {
    const created = bed.sim.control.createUnitType("L001", { typeName: "Hold Outage", width: 6, length: 8, stdRate: 6000, statuses: ["available"] });
    await runSiteLinkSync(bed.handle.db);
    const unit = await mirroredUnit(bed, created.units[0]!.UnitID);
    bed.sim.control.addFault({ operation: "UnitsInformationByUnitID", kind: "http_503", times: 5 });
    try {
      const error = await storageFor(bed.handle.db, bed.lumberton)
        .holdUnit({ unitTypeId: String(unit.unitTypeId), holdToken: "rental-b", until: new Date(NOW.getTime() + 900_000), now: NOW })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SoftwareUnreachableError);
      expect((await mirroredUnit(bed, created.units[0]!.UnitID)).holdToken).toBeNull();
    } finally {
      bed.sim.control.clearFaults();
    }
  });
});

describe("SiteLink credentials and outages: a clear message, never a 500, secrets never logged", () => {
  let bed: SiteLinkTestbed;
  beforeAll(async () => {
    bed = await startSiteLinkTestbed();
    await runSiteLinkSync(bed.handle.db, { full: true });
  });
  afterAll(() => bed?.close());

  it("stores a password given in clear only encrypted", async () => {
    const [row] = await bed.handle.db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, bed.jacksonville.id));
    expect(row!.passwordEncrypted).toMatch(/^v2\./);
    expect(JSON.stringify(row)).not.toContain(DEMO_CORP.password);
    expect(JSON.stringify(row)).not.toContain(DEMO_CORP.apiKey);
  });

  for (const authFailure of ["rt", "fault"] as const) {
    it(`wrong credentials (SiteLink answers ${authFailure === "rt" ? "RT -1" : "a SOAP Fault"}): SoftwareUnreachableError naming the settings; the page shows a notice, not a 500; no secret in any log line`, async () => {
      const lines = captureLogs();
      bed.sim.sim.options.authFailure = authFailure;
      const wrong = `${DEMO_CORP.password}-wrong`;
      process.env[PASSWORD_ENV] = wrong;
      forgetStorageChoices(bed.handle.db);
      try {
        const storage = storageFor(bed.handle.db, bed.lumberton);
        const error = (await storage.listInsurancePlans().catch((e: unknown) => e)) as Error;
        expect(error).toBeInstanceOf(SoftwareUnreachableError);
        if (authFailure === "rt") expect(error.message).toMatch(/check the location's SiteLink settings/);
        expect(error.message).not.toContain(wrong);

        const results = await runSiteLinkSync(bed.handle.db);
        expect(results.find((r) => r.locationId === bed.lumberton.id)).toMatchObject({ ok: false });
        const [state] = await bed.handle.db.select().from(sitelinkSyncState).where(eq(sitelinkSyncState.locationId, bed.lumberton.id));
        expect(state!.consecutiveFailures).toBeGreaterThan(0);
        expect(state!.lastError).not.toContain(wrong);

        // The unit pages keep the last catalogue (with its age); the rental's reads fail clearly.
        const account = await accountOf(bed);
        const location = (await getUnitsLocation(bed.handle.db, account.id, "lumberton-nc-28358"))!;
        const listing = await getLocationUnitListing(loadContext(bed.handle.db), location, account, new URLSearchParams());
        expect(listing.totalCount).toBeGreaterThan(0);
        expect(listing.freshness[0]).toMatch(/^Availability as of/);

        const all = lines.join("\n");
        expect(all).toMatch(/sitelink/i);
        expect(all).not.toContain(wrong);
        expectNoSecrets(all);
      } finally {
        process.env[PASSWORD_ENV] = DEMO_CORP.password;
        bed.sim.sim.options.authFailure = "rt";
        forgetStorageChoices(bed.handle.db);
      }
    });
  }

  it("a password variable that is not set: SoftwareUnreachableError naming the variable (never a value), and status says so", async () => {
    delete process.env[PASSWORD_ENV];
    forgetStorageChoices(bed.handle.db);
    try {
      const error = (await storageFor(bed.handle.db, bed.lumberton).listInsurancePlans().catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(SoftwareUnreachableError);
      expect(error.message).toContain(`${PASSWORD_ENV}, which is not set`);
      const status = await collectSiteLinkStatus(bed.handle.db, new Date());
      expect(status.locations.find((l) => l.locationId === bed.lumberton.id)!.settings!.secrets).toContain(PASSWORD_ENV);
      expect(status.needsAttention).toBe(true);
    } finally {
      process.env[PASSWORD_ENV] = DEMO_CORP.password;
      forgetStorageChoices(bed.handle.db);
    }
  });

  it("a location never synced whose SiteLink is unreachable: the page shows the 'could not be loaded' notice (not a 500), and the next pages do not wait on SiteLink again at once", async () => {
    const lines = captureLogs();
    await bed.handle.db.delete(sitelinkSyncState).where(eq(sitelinkSyncState.locationId, bed.jacksonville.id));
    forgetStorageChoices(bed.handle.db);
    bed.sim.control.addFault({ operation: "UnitTypePriceList_v2", kind: "http_503", times: 100 });
    bed.sim.control.clearCalls();
    try {
      const account = await accountOf(bed);
      const location = (await getUnitsLocation(bed.handle.db, account.id, "jacksonville-nc-28546"))!;
      const page = () => getLocationUnitListing(loadContext(bed.handle.db), location, account, new URLSearchParams());
      const first = await page();
      expect(first.notices).toHaveLength(1);
      expect(first.notices[0]).toMatch(/could not be loaded.*We could not reach the facility's system just now/);
      // One read, retried once after the 503.
      expect(bed.sim.control.calls({ operation: "UnitTypePriceList_v2" })).toHaveLength(2);
      const second = await page();
      expect(second.notices).toEqual(first.notices);
      expect(bed.sim.control.calls({ operation: "UnitTypePriceList_v2" })).toHaveLength(2);
      expectNoSecrets(lines.join("\n"));
    } finally {
      bed.sim.control.clearFaults();
    }
  });

  it("a location whose SiteLink endpoint does not answer at all: a notice, never a 500", async () => {
    captureLogs();
    await bed.handle.db.delete(sitelinkSyncState).where(eq(sitelinkSyncState.locationId, bed.jacksonville.id));
    // Re-saved as sitelink:configure does: the stored password is bound to its endpoint (decision 186).
    const [jax] = await bed.handle.db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, bed.jacksonville.id));
    await saveSiteLinkSettings(bed.handle.db, {
      locationId: bed.jacksonville.id,
      endpoint: "http://127.0.0.1:1/CCWs_3.5/CallCenterWs.asmx",
      corpCode: jax!.corpCode,
      locationCode: jax!.locationCode,
      corpUser: jax!.corpUser,
      password: DEMO_CORP.password,
      apiKey: DEMO_CORP.apiKey,
      cardChargedBy: jax!.cardChargedBy,
      testMode: jax!.testMode,
      cardTypeIds: jax!.cardTypeIds ?? {},
    });
    forgetStorageChoices(bed.handle.db);
    const account = await accountOf(bed);
    const location = (await getUnitsLocation(bed.handle.db, account.id, "jacksonville-nc-28546"))!;
    const listing = await getLocationUnitListing(loadContext(bed.handle.db), location, account, new URLSearchParams());
    expect(listing.notices[0]).toMatch(/could not be loaded/);
  });

  it("sitelink:status shows each location's sync, its errors and the journal rows that need attention, without secrets", async () => {
    await bed.handle.db.insert(sitelinkWrites).values([
      { idempotencyKey: "movein:chk-1:k1", locationId: bed.lumberton.id, operation: "MoveInWithDiscount_v7", state: "unknown", lastError: "no answer within 45000 ms", externalIds: { TenantID: "77" } },
      { idempotencyKey: "tenant:chk-2", locationId: bed.lumberton.id, operation: "TenantNewDetailed_v3", state: "done", externalIds: { TenantID: "78" } },
    ]);
    const status = await collectSiteLinkStatus(bed.handle.db, new Date());
    const lumberton = status.locations.find((l) => l.locationId === bed.lumberton.id)!;
    expect(lumberton.adapter).toBe("sitelink");
    expect(lumberton.settings).toMatchObject({ locationCode: "L001", passwordFrom: `environment variable ${PASSWORD_ENV}`, secrets: "ok" });
    expect(lumberton.sync!.lastSyncedAt).not.toBeNull();
    expect(lumberton.attention.map((a) => a.idempotencyKey)).toEqual(["movein:chk-1:k1"]);
    const jacksonville = status.locations.find((l) => l.locationId === bed.jacksonville.id)!;
    expect(jacksonville.settings!.passwordFrom).toBe("encrypted in the database");
    expect(jacksonville.sync?.lastError ?? "").not.toBe("");
    expect(status.needsAttention).toBe(true);
    const text = formatSiteLinkStatus(status, new Date());
    expect(text).toContain("MoveInWithDiscount_v7 movein:chk-1:k1");
    expect(text).toContain("Lumberton");
    expectNoSecrets(text);
    expectNoSecrets(JSON.stringify(status));
  });
});
