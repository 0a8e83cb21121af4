/**
 * The simulator's per-site readings of what the sources leave open (issue 20, decision 180), over
 * real HTTP: iPayMethod as LSETUP reads it (default) or as the manual does, the success code of the
 * writes no source shows (positive id, default, or 0), and the answers the evidence fixes whatever
 * the reading (TenantNewDetailed_v3 1 + RT.TenantID, ReservationUpdate_v4 0, TenantLogin RT rows).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSiteLinkSimulator, type RunningSimulator } from "./server";
import { soapCall } from "./test-client";
import { DEFAULT_READINGS, type ConcessionPlan, type SiteReadings } from "./state";

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
    expect(((await res.json()) as { readings: unknown }).readings).toEqual({ ...DEFAULT_READINGS, payMethod: "manual" });
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
    expect(sim.control.inspectSite("L001").readings).toEqual(DEFAULT_READINGS);
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

/**
 * The site's discount plans (issue 40, decision 672) under each reading the sources leave open, over
 * SOAP: DiscountPlansRetrieve's columns, the move-in cost's rent lines, and the months the billing run
 * charges after a move-in.
 */
describe("discount plans and their readings", () => {
  const FREE: ConcessionPlan = { ConcessionID: 41, sPlanName: "1st Month Free", pcDiscount: 100 };
  const HALF_TWO: ConcessionPlan = { ConcessionID: 43, sPlanName: "Half off two months", pcDiscount: 50, expirMonths: 2 };
  const SECOND_FREE: ConcessionPlan = { ConcessionID: 44, sPlanName: "Second month free", pcDiscount: 100, inMonth: 2 };
  const BOTH: ConcessionPlan = { ConcessionID: 45, sPlanName: "Ten or ten percent", pcDiscount: 10, fixedDiscount: 1000, amtType: 0 };
  const FOREVER: ConcessionPlan = { ConcessionID: 46, sPlanName: "Ten percent for good", pcDiscount: 10, expirMonths: 2, neverExpires: true };
  const ZERO: ConcessionPlan = { ConcessionID: 47, sPlanName: "Month zero", pcDiscount: 10, inMonth: 0, expirMonths: 1 };
  const GONE: ConcessionPlan = { ConcessionID: 48, sPlanName: "Gone", pcDiscount: 100, disabled: true };
  const ALL = [FREE, HALF_TWO, SECOND_FREE, BOTH, FOREVER, ZERO, GONE];

  function setup(code: "L001" | "L002", readings: Partial<SiteReadings> = {}) {
    sim.control.configureSite(code, { concessions: ALL, readings });
    return sim.control.createUnitType(code, { typeName: "Drive-Up", width: 10, length: 12, stdRate: 6000, statuses: ["available"] }).units[0]!.UnitID;
  }

  async function cost(code: string, unitId: number, plan: number, date = "2026-03-10") {
    const out = await soapCall(sim.url, "MoveInCostRetrieveWithDiscount_v4", { iUnitID: unitId, dMoveInDate: `${date}T00:00:00`, InsuranceCoverageID: -999, ConcessionPlanID: plan, ChannelType: 0 }, { location: code });
    return out;
  }
  const rentDiscounts = (out: { tables: Record<string, Array<Record<string, string>>> }) =>
    (out.tables.Table ?? []).filter((r) => r.sChgCategory === "Rent").map((r) => Math.round(Number(r.dcDiscount) * 100));

  /** Moves a new tenant into `unitId` with the plan, then bills up to `months` months; the rent charges' discounts, month by month. */
  async function billedDiscounts(code: string, unitId: number, plan: number, months: number) {
    const quote = await cost(code, unitId, plan);
    const total = (quote.tables.Table ?? []).reduce((s, r) => s + Math.round(Number(r.dcTotal) * 100), 0);
    const t = await soapCall(sim.url, "TenantNewDetailed_v3", { sFName: "Pia", sLName: "Plan", sEmail: "pia@example.com", dDOB: "1980-01-01T00:00:00" }, { location: code });
    const moved = await soapCall(
      sim.url,
      "MoveInWithDiscount_v7",
      {
        TenantID: Number(t.rt!.TenantID),
        sAccessCode: String(t.rt!.AccessCode),
        UnitID: unitId,
        dStartDate: "2026-03-10T00:00:00",
        dEndDate: "2026-04-09T00:00:00",
        dcPaymentAmount: (total / 100).toFixed(2),
        iPayMethod: 2,
        InsuranceCoverageID: -999,
        ConcessionPlanID: plan,
        iSource: 5,
        iBillingFrequency: 3,
        WaitingID: -999,
        ChannelType: 0,
      },
      { location: code },
    );
    const ledgerId = moved.rt!.Ret_Code;
    expect(ledgerId).toBeGreaterThan(0);
    sim.control.runBilling({ location: code, date: `2026-${String(3 + months - 1).padStart(2, "0")}-10` });
    return sim.control
      .inspectSite(code)
      .charges.filter((c) => c.LedgerID === ledgerId && c.sChgCategory === "Rent")
      .sort((a, b) => a.start.localeCompare(b.start))
      .map((c) => c.discount ?? 0);
  }

  it("DiscountPlansRetrieve lists what each plan gives in the sources' columns; a disabled plan is not listed, and refused", async () => {
    const unitId = setup("L001");
    const rows = (await soapCall(sim.url, "DiscountPlansRetrieve", {})).tables.ConcessionPlans!;
    expect(rows.map((r) => r.ConcessionID)).toEqual(["41", "43", "44", "45", "46", "47"]);
    expect(rows[1]).toMatchObject({ sPlanName: "Half off two months", iAmtType: "1", dcPCDiscount: "50.0000", iInMonth: "1", iExpirMonths: "2", bNeverExpires: "false", bPrepay: "false" });
    expect(rows[3]).toMatchObject({ iAmtType: "0", dcPCDiscount: "10.0000", dcFixedDiscount: "10.0000" });
    expect((await cost("L001", unitId, 48)).rt).toMatchObject({ Ret_Code: -2 });
  });

  it.each(["first", "each"] as const)("planMonths %s: which rent lines of a late first-of-month move-in a two-month plan discounts", async (planMonths) => {
    const unitId = setup("L002", { planMonths });
    // 20 March at Jacksonville (first-of-month, next month charged from the 17th): two rent lines.
    const lines = rentDiscounts(await cost("L002", unitId, 43, "2026-03-20"));
    expect(lines).toEqual(planMonths === "each" ? [1162, 3000] : [1162, 0]); // 60.00 × 12/31 = 23.23, half 11.615 → 11.62
  });

  it("the billing run discounts the later months a plan covers, from its month, for its months", async () => {
    expect(await billedDiscounts("L001", setup("L001"), 43, 4)).toEqual([3000, 3000, 0, 0]);
    expect(await billedDiscounts("L001", setup("L001"), 44, 3)).toEqual([0, 6000, 0]);
  });

  it.each([
    ["amtType", 1000],
    ["percentFirst", 600],
  ] as const)("planType %s: a plan with both a percentage and an amount", async (planType, off) => {
    expect(rentDiscounts(await cost("L001", setup("L001", { planType }), 45))).toEqual([off]);
  });

  it.each([
    ["recurring", [600, 600, 600, 600]],
    ["offer", [600, 600, 0, 0]],
  ] as const)("neverExpires %s: bNeverExpires with two months", async (neverExpires, discounts) => {
    expect(await billedDiscounts("L001", setup("L001", { neverExpires }), 46, 4)).toEqual(discounts);
  });

  it.each([
    ["every", [600, 600, 600]],
    ["first", [600, 0, 0]],
  ] as const)("inMonthZero %s: iInMonth 0", async (inMonthZero, discounts) => {
    expect(await billedDiscounts("L001", setup("L001", { inMonthZero }), 47, 3)).toEqual(discounts);
  });

  it("refuses an unknown plan reading over the control API", async () => {
    const res = await fetch(`${new URL(sim.url).origin}/__sim/sites/L001`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ readings: { planMonths: "some" } }) });
    expect(res.status).toBe(400);
  });

});
