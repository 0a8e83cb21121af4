/**
 * TenantUpdate_v3 as the portal's contact push uses it (decision 168), over real HTTP: the tenant
 * record reads back every field the update takes (so a read-modify-write can keep them), a
 * misspelled or missing required parameter is SiteLink's silent RT -1 with nothing changed, and
 * every field sent back as read keeps the record as it was.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSiteLinkSimulator, type RunningSimulator } from "./server";
import { soapCall } from "./test-client";

const NOW = new Date("2026-03-10T15:00:00Z");
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSiteLinkSimulator({ port: 0, clock: () => NOW });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => sim.control.reset());

const OFFICE = { sMrMrs: "Ms", sFName: "Rita", sLName: "Renter", sEmail: "rita@example.com", sAddr1: "1 Main St", sCity: "Lumberton", sRegion: "NC", sPostalCode: "28358", sMobile: "9105550100", sCompanyBus: "Rita's Bakery", sPhoneBus: "9105550111", sLicense: "NC-123", sLicRegion: "NC", sAddr1Alt: "5 Side St" };

describe("TenantUpdate_v3 and the tenant record", () => {
  it("reads back every field the update takes, and a record sent back as read is unchanged", async () => {
    const t = await soapCall(sim.url, "TenantNewDetailed_v3", { ...OFFICE, sWebPassword: "abcd1234", dDOB: "1980-01-01T00:00:00" });
    const id = Number(t.rt!.TenantID);
    const info = (await soapCall(sim.url, "TenantInfoByTenantID", { iTenantID: id })).tables.Table![0]!;
    expect(info).toMatchObject({ ...OFFICE, sWebPassword: "abcd1234", sAccessCode: String(t.rt!.AccessCode) });
    const { TenantID: _t, SiteID: _s, sLocationCode: _l, sAccessCode, dCreated: _c, dUpdated: _u, bMilitary: _m, bDisabledWebAccess: _d, dDOB, ...rest } = info;
    const same = await soapCall(sim.url, "TenantUpdate_v3", { ...rest, iTenantID: id, sGateCode: sAccessCode!, dDOB: `${dDOB!.slice(0, 10)}T00:00:00` });
    expect(same.rt!.Ret_Code).toBe(id);
    const again = (await soapCall(sim.url, "TenantInfoByTenantID", { iTenantID: id })).tables.Table![0]!;
    const { dUpdated: _u1, ...before } = info;
    const { dUpdated: _u2, ...after } = again;
    expect(after).toEqual(before);
  });

  it("a misspelled required parameter is HTTP 200 with RT -1, and nothing changes", async () => {
    const t = await soapCall(sim.url, "TenantNewDetailed_v3", { ...OFFICE, dDOB: "1980-01-01T00:00:00" });
    const id = Number(t.rt!.TenantID);
    // "sFname" instead of "sFName": ASMX ignores the unknown element and binds sFName as null.
    const r = await soapCall(sim.url, "TenantUpdate_v3", { iTenantID: id, sFname: "Rina", sLName: "Renter" }, { fill: false });
    expect(r.status).toBe(200);
    expect(r.rt!.Ret_Code).toBe(-1);
    expect((await soapCall(sim.url, "TenantInfoByTenantID", { iTenantID: id })).tables.Table![0]).toMatchObject({ sFName: "Rita", sEmail: "rita@example.com", sCompanyBus: "Rita's Bakery" });
  });
});
