/**
 * The simulator's per-site readings of what the sources leave open (issue 20, decision 180), over
 * real HTTP: iPayMethod as LSETUP reads it (default) or as the manual does, the success code of the
 * writes no source shows (positive id, default, or 0), and the answers the evidence fixes whatever
 * the reading (TenantNewDetailed_v3 1 + RT.TenantID, ReservationUpdate_v4 0, TenantLogin RT rows).
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

const VISA_L001 = 6;

async function tenantAndUnit() {
  const unitId = sim.control.createUnitType("L001", { typeName: "Drive-Up", width: 10, length: 12, stdRate: 5000, statuses: ["available"] }).units[0]!.UnitID;
  const t = await soapCall(sim.url, "TenantNewDetailed_v3", { sFName: "Rita", sLName: "Renter", sEmail: "rita@example.com", dDOB: "1980-01-01T00:00:00" });
  return { unitId, tenantId: Number(t.rt!.TenantID), accessCode: String(t.rt!.AccessCode) };
}

function moveIn(x: { unitId: number; tenantId: number; accessCode: string }, iPayMethod: number) {
  return soapCall(sim.url, "MoveInWithDiscount_v7", {
    TenantID: x.tenantId,
    sAccessCode: x.accessCode,
    UnitID: x.unitId,
    dStartDate: "2026-03-10T00:00:00",
    dEndDate: "2026-04-09T00:00:00",
    dcPaymentAmount: "57.47",
    iCreditCardType: VISA_L001,
    sCreditCardNumber: "4242424242424242",
    sCreditCardCVV: "123",
    dExpirationDate: "2030-12-31T23:59:59",
    iPayMethod,
    InsuranceCoverageID: -999,
    ConcessionPlanID: -999,
    iSource: 5,
    iBillingFrequency: 3,
    WaitingID: -999,
    ChannelType: 0,
  });
}

describe("iPayMethod readings", () => {
  it("LSETUP (default): 0 is none and answers -2 while the unit stays free; 1 is the card, 2 cash", async () => {
    const x = await tenantAndUnit();
    const paymentsBefore = sim.control.inspectSite("L001").payments.length; // the seeded office ledgers' payments
    expect((await moveIn(x, 0)).rt).toMatchObject({ Ret_Code: -2, Ret_Msg: "Payment amount must be greater than zero" });
    expect(sim.control.inspectSite("L001").units.find((u) => u.UnitID === x.unitId)!.rented).toBe(false);
    expect(sim.control.inspectSite("L001").payments).toHaveLength(paymentsBefore);
    const card = await moveIn(x, 1);
    expect(card.rt!.Ret_Code).toBeGreaterThan(0);
    expect(sim.control.inspectSite("L001").payments.at(-1)).toMatchObject({ description: "Move-in payment: Visa ending 4242", last4: "4242" });
  });

  it("manual: 0 is the card, 1 check, 2 cash (set over the control API)", async () => {
    const res = await fetch(`${new URL(sim.url).origin}/__sim/sites/L001`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ readings: { payMethod: "manual" } }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { readings: unknown }).readings).toEqual({ payMethod: "manual", successCode: "id", testMode: "records", discountPlans: "table" });
    const x = await tenantAndUnit();
    expect((await moveIn(x, 0)).rt!.Ret_Code).toBeGreaterThan(0);
    expect(sim.control.inspectSite("L001").payments.at(-1)).toMatchObject({ description: "Move-in payment: Visa ending 4242" });
    sim.control.moveOut("L001", sim.control.inspectSite("L001").ledgers.at(-1)!.LedgerID);
    expect((await moveIn(x, 1)).rt!.Ret_Code).toBeGreaterThan(0);
    expect(sim.control.inspectSite("L001").payments.at(-1)).toMatchObject({ description: "Move-in payment: Check", last4: null });
  });

  it("refuses an unknown reading over the control API", async () => {
    const res = await fetch(`${new URL(sim.url).origin}/__sim/sites/L001`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ readings: { payMethod: "guess" } }) });
    expect(res.status).toBe(400);
    expect(sim.control.inspectSite("L001").readings).toEqual({ payMethod: "lsetup", successCode: "id", testMode: "records", discountPlans: "table" });
  });
});

describe("success-code readings of ScheduleMoveOut, TenantUpdate_v3, PaymentSimpleWithSource, PaymentSimpleCheckWithSource", () => {
  for (const reading of ["id", "zero"] as const) {
    it(`"${reading}": each answers ${reading === "id" ? "its id" : "0"} and does what it was asked`, async () => {
      sim.control.configureSite("L001", { readings: { successCode: reading } });
      const x = await tenantAndUnit();
      const ledgerId = (await moveIn(x, 2)).rt!.Ret_Code;
      const expectCode = (id: number, code: number) => expect(code).toBe(reading === "id" ? id : 0);
      const out = await soapCall(sim.url, "ScheduleMoveOut", { iLedgerID: ledgerId, dScheduledOut: "2026-03-31T00:00:00" });
      expectCode(ledgerId, out.rt!.Ret_Code);
      expect(sim.control.ledger("L001", ledgerId)!.schedOut).toBe("2026-03-31");
      const upd = await soapCall(sim.url, "TenantUpdate_v3", { iTenantID: x.tenantId, sFName: "Rina", sLName: "Renter", sEmail: "rita@example.com", dDOB: "1980-01-01T00:00:00" });
      expectCode(x.tenantId, upd.rt!.Ret_Code);
      const paidBefore = sim.control.inspectSite("L001").payments.length;
      const pay = await soapCall(sim.url, "PaymentSimpleWithSource", { iTenantID: x.tenantId, iUnitID: x.unitId, dcPaymentAmount: "10.00", iCreditCardType: VISA_L001, sCreditCardNumber: "4242424242424242", sCreditCardCVV: "123", dExpirationDate: "2030-12-31T23:59:59", iSource: 5 });
      const check = await soapCall(sim.url, "PaymentSimpleCheckWithSource", { iTenantID: x.tenantId, iUnitID: x.unitId, dcPaymentAmount: "5.00", sCheckNumber: "gw_1", iSource: 5 });
      const receipts = sim.control.inspectSite("L001").payments.slice(paidBefore).map((p) => p.Receipt);
      expect(receipts).toHaveLength(2);
      expectCode(receipts[0]!, pay.rt!.Ret_Code);
      expectCode(receipts[1]!, check.rt!.Ret_Code);
    });
  }
});

describe("answers the evidence fixes", () => {
  it("TenantNewDetailed_v3: Ret_Code 1, the id in TenantID beside AccessCode; ReservationUpdate_v4: 0", async () => {
    const t = await soapCall(sim.url, "TenantNewDetailed_v3", { sFName: "Rita", sLName: "Renter", sEmail: "rita@example.com", dDOB: "1980-01-01T00:00:00" });
    expect(t.rt).toMatchObject({ Ret_Code: 1, TenantID: expect.stringMatching(/^\d+$/), AccessCode: expect.stringMatching(/^\d+$/) });
    expect(sim.control.inspectSite("L001").tenants.at(-1)!.TenantID).toBe(Number(t.rt!.TenantID));
  });

  it("TenantLogin: one RT row per record with the login, each with bHasActiveLedger and sWebPassword", async () => {
    const unitId = sim.control.createUnitType("L001", { typeName: "Indoor", width: 5, length: 5, stdRate: 3000, statuses: ["available"] }).units[0]!.UnitID;
    const old = sim.control.addOfficeTenant("L001", { firstName: "Olive", lastName: "Office", email: "olive@example.com", webPassword: "olive123" });
    const current = sim.control.addOfficeTenant("L001", { firstName: "Olive", lastName: "Office", email: "olive@example.com", webPassword: "olive123", unitId });
    const login = await soapCall(sim.url, "TenantLogin", { sTenantLogin: "olive@example.com", sTenantPassword: "olive123" });
    expect(login.tables.RT).toEqual([
      { Ret_Code: String(old.TenantID), Ret_Msg: "Success", bHasActiveLedger: "false", sWebPassword: "olive123" },
      { Ret_Code: String(current.TenantID), Ret_Msg: "Success", bHasActiveLedger: "true", sWebPassword: "olive123" },
    ]);
  });
});

describe("test-mode reading of MoveInWithDiscount_v7 (issue 37)", () => {
  it("refuses an unknown testMode over the control API", async () => {
    const res = await fetch(`${new URL(sim.url).origin}/__sim/sites/L001`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ readings: { testMode: "sometimes" } }) });
    expect(res.status).toBe(400);
  });
});
