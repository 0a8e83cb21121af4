/**
 * The simulator's SiteLink behaviour over real HTTP: cost quotes, strict move-in, card and processor
 * codes, both payment modes, reservations still listed as available, lngLastTimePolled.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSiteLinkSimulator, type RunningSimulator } from "./server";
import { soapCall } from "./test-client";

const NOW = new Date("2026-03-10T15:00:00Z"); // 11:00 in Lumberton and Jacksonville
let now = NOW;
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSiteLinkSimulator({ port: 0, clock: () => now });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  now = NOW;
  sim.control.reset();
});

const VISA_L001 = 6; // Lumberton's PmtTypeID for Visa (Jacksonville's is 5: per-site ids)

async function newTenant(location = "L001", email = "renter@example.com") {
  const r = await soapCall(sim.url, "TenantNewDetailed_v3", { sFName: "Rita", sLName: "Renter", sEmail: email, sMobile: "9105550111", dDOB: "1980-01-01T00:00:00" }, { location });
  expect(r.rt!.Ret_Code).toBe(1); // LSETUP: success is 1, the id is in RT.TenantID
  return { tenantId: Number(r.rt!.TenantID), accessCode: String(r.rt!.AccessCode) };
}

function addUnit(location: string, stdRate: number, opts: { webRate?: number; status?: "available" | "rented" } = {}) {
  const created = sim.control.createUnitType(location, { typeName: "Drive-Up", width: 10, length: 12, stdRate, webRate: opts.webRate, statuses: [opts.status ?? "available"] });
  return created.units[0]!.UnitID;
}

async function quote(location: string, unitId: number, params: Record<string, string | number> = {}) {
  const r = await soapCall(
    sim.url,
    "MoveInCostRetrieveWithDiscount_v4",
    { iUnitID: unitId, dMoveInDate: "2026-03-10T00:00:00", InsuranceCoverageID: -999, ConcessionPlanID: -999, ChannelType: 0, ...params },
    { location },
  );
  const rows = r.tables.Table ?? [];
  const total = rows.filter((x) => x.bMoveInRequired === "true").reduce((s, x) => s + Math.round(Number(x.dcTotal) * 100), 0);
  return { r, rows, total };
}

function moveInParams(tenant: { tenantId: number; accessCode: string }, unitId: number, amountCents: number, extra: Record<string, string | number | boolean> = {}) {
  return {
    TenantID: tenant.tenantId,
    sAccessCode: tenant.accessCode,
    UnitID: unitId,
    dStartDate: "2026-03-10T00:00:00",
    dEndDate: "2026-04-09T00:00:00",
    dcPaymentAmount: (amountCents / 100).toFixed(2),
    iCreditCardType: VISA_L001,
    sCreditCardNumber: "4242424242424242",
    sCreditCardCVV: "123",
    dExpirationDate: "2030-12-31T23:59:59",
    sBillingName: "Rita Renter",
    sBillingAddress: "1 Main St",
    sBillingZipCode: "28358",
    InsuranceCoverageID: -999,
    ConcessionPlanID: -999,
    iSource: 5,
    sSource: "Gatehouse website",
    iPayMethod: 1, // card under the default (LSETUP) reading
    iBillingFrequency: 3,
    WaitingID: -999,
    ChannelType: 0,
    bTestMode: false,
    ...extra,
  };
}

describe("MoveInCostRetrieveWithDiscount_v4", () => {
  it("quotes an anniversary site: a whole month of rent, the lock fee with 6.75 % tax, the protection plan", async () => {
    const unit = addUnit("L001", 5000);
    const { rows, total } = await quote("L001", unit, { InsuranceCoverageID: 101 });
    expect(rows.map((x) => [x.ChargeDescription, x.ChargeAmount, x.TaxAmount, x.dcTotal])).toEqual([
      ["Rent", "50.0000", "0.0000", "50.0000"],
      ["Lock fee", "7.0000", "0.4700", "7.4700"],
      ["Insurance", "8.9500", "0.0000", "8.9500"],
    ]);
    expect(rows[0]!.StartDate).toBe("2026-03-10T00:00:00-04:00");
    expect(rows[0]!.EndDate).toBe("2026-04-09T00:00:00-04:00");
    expect(total).toBe(6642); // decision 040's example: 50.00 + 8.95 + 7.00 + 0.47
  });

  it("prorates a first-of-month site to the month's end, and adds the next month from iDayStrtProratePlusNext", async () => {
    const unit = addUnit("L002", 6200);
    const tenth = await quote("L002", unit);
    // 22 of 31 days of 62.00 = 44.00
    expect(tenth.rows.map((x) => [x.ChargeDescription, x.dcTotal, x.EndDate?.slice(0, 10)])).toEqual([
      ["Rent", "44.0000", "2026-03-31"],
      ["Lock fee", "7.4700", "2026-03-10"],
    ]);
    const late = await quote("L002", unit, { dMoveInDate: "2026-03-20T00:00:00" });
    // 12 of 31 days = 24.00, plus April in full
    expect(late.rows.filter((x) => x.sChgCategory === "Rent").map((x) => [x.dcTotal, x.StartDate?.slice(0, 10), x.EndDate?.slice(0, 10)])).toEqual([
      ["24.0000", "2026-03-20", "2026-03-31"],
      ["62.0000", "2026-04-01", "2026-04-30"],
    ]);
  });

  it("rounds rent tax and fee tax half up (LSETUP, evidence §4.4); adds the admin fee and the deposit", async () => {
    sim.control.configureSite("L001", { rentTax1Rate: 6.75, adminFee: 2500, adminFeeTax1Rate: 6.75 });
    const unit = sim.control.createUnitType("L001", { typeName: "Indoor", width: 5, length: 5, stdRate: 5700, secDep: 2000, statuses: ["available"] }).units[0]!.UnitID;
    const { rows, total } = await quote("L001", unit);
    const by = Object.fromEntries(rows.map((x) => [x.ChargeDescription, x]));
    expect(by.Rent!.TaxAmount).toBe("3.8500"); // 57.00 x 6.75 % = 3.8475, half up (truncation would give 3.84)
    expect(by["Administrative Fee"]!.TaxAmount).toBe("1.6900"); // 25.00 x 6.75 % = 1.6875, half up
    expect(by["Security Deposit"]!.dcTotal).toBe("20.0000");
    expect(total).toBe(5700 + 385 + 2500 + 169 + 2000 + 747);
  });

  it("uses the web rate for ChannelType 1 and refuses an unknown channel, plan or unit", async () => {
    const unit = addUnit("L001", 5000, { webRate: 4500 });
    expect((await quote("L001", unit, { ChannelType: 1 })).rows[0]!.ChargeAmount).toBe("45.0000");
    expect((await quote("L001", unit, { ChannelType: 7 })).r.rt).toMatchObject({ Ret_Code: -29 });
    expect((await quote("L001", unit, { InsuranceCoverageID: 555 })).r.rt).toMatchObject({ Ret_Code: -3 });
    expect((await quote("L001", 999999)).r.rt).toMatchObject({ Ret_Code: -25 });
  });
});

describe("MoveInWithDiscount_v7", () => {
  it("refuses an amount a cent off with -11 and the required amount, writing nothing", async () => {
    const unit = addUnit("L001", 5000);
    const tenant = await newTenant();
    const { total } = await quote("L001", unit);
    const r = await soapCall(sim.url, "MoveInWithDiscount_v7", moveInParams(tenant, unit, total - 1));
    expect(r.rt).toMatchObject({ Ret_Code: -11, Ret_Msg: "Payment amount does not match the required payment of $57.47" });
    const site = sim.control.inspectSite("L001");
    expect(site.ledgers.some((l) => l.TenantID === tenant.tenantId)).toBe(false);
    expect(site.units.find((u) => u.UnitID === unit)!.rented).toBe(false);
  });

  it("moves in at the exact amount: ledger, payment, unit rented, the tenant's gate code; a second move-in gets -2", async () => {
    const unit = addUnit("L001", 5000);
    const tenant = await newTenant();
    const { total } = await quote("L001", unit, { InsuranceCoverageID: 102 });
    const r = await soapCall(sim.url, "MoveInWithDiscount_v7", moveInParams(tenant, unit, total, { InsuranceCoverageID: 102 }));
    const ledgerId = r.rt!.Ret_Code;
    expect(ledgerId).toBeGreaterThan(0);
    expect(r.rt!.iLeaseNum).toBe("1");
    const ledgers = await soapCall(sim.url, "LedgersByTenantID_v3", { sTenantID: String(tenant.tenantId) });
    expect(ledgers.tables.Ledgers).toHaveLength(1);
    expect(ledgers.tables.Ledgers![0]).toMatchObject({
      LedgerID: String(ledgerId),
      UnitID: String(unit),
      sAccessCode: tenant.accessCode,
      dPaidThru: "2026-04-09T00:00:00-04:00",
      dcRent: "50.0000",
      dcInsurPremium: "11.9500",
      dcTotalDue: "0.0000",
    });
    const pays = await soapCall(sim.url, "PaymentsByLedgerID", { sLedgerID: String(ledgerId) });
    expect(pays.tables.PmtHistory).toHaveLength(1);
    expect(pays.tables.PmtHistory![0]).toMatchObject({ Payment: (total / 100).toFixed(2) + "00", Description: "Move-in payment: Visa ending 4242" });
    const again = await soapCall(sim.url, "MoveInWithDiscount_v7", moveInParams(tenant, unit, total, { InsuranceCoverageID: 102 }));
    expect(again.rt).toMatchObject({ Ret_Code: -2, Ret_Msg: "Unit ID is not available" });
    expect(sim.control.inspectSite("L001").payments.filter((p) => p.TenantID === tenant.tenantId)).toHaveLength(1);
  });

  it("answers -100 for a declined card, -14 for a bad number or a number of another brand, -4 for an unknown card type, -95 / -25 for unknown ids", async () => {
    const unit = addUnit("L001", 5000);
    const tenant = await newTenant();
    const { total } = await quote("L001", unit);
    const call = (extra: Record<string, string | number | boolean>) => soapCall(sim.url, "MoveInWithDiscount_v7", moveInParams(tenant, unit, total, extra));
    expect((await call({ sCreditCardNumber: "4000000000000002" })).rt).toMatchObject({ Ret_Code: -100, Ret_Msg: "Credit Card not being authorized: Your card was declined." });
    expect((await call({ sCreditCardNumber: "4000000000009995" })).rt?.Ret_Code).toBe(-100);
    expect((await call({ sCreditCardNumber: "4242424242424241" })).rt).toMatchObject({ Ret_Code: -14, Ret_Msg: "Credit Card number is invalid" });
    expect((await call({ iCreditCardType: 5 })).rt?.Ret_Code).toBe(-14); // 5 is Master Card at Lumberton
    expect((await call({ iCreditCardType: 7 })).rt).toMatchObject({ Ret_Code: -4, Ret_Msg: "Error getting Credit Card Type ID" });
    expect((await call({ TenantID: 123456 })).rt?.Ret_Code).toBe(-95);
    expect((await call({ UnitID: 123456 })).rt?.Ret_Code).toBe(-25);
    expect((await call({ iBillingFrequency: 0 })).rt?.Ret_Code).toBe(-28);
    expect((await call({ dStartDate: "2026-01-09T00:00:00" })).rt?.Ret_Code).toBe(-83);
    expect((await call({ iPayMethod: 9 })).rt?.Ret_Code).toBe(-5);
    expect(sim.control.inspectSite("L001").ledgers.some((l) => l.TenantID === tenant.tenantId)).toBe(false);
  });

  it("refuses a card move-in where the site has no processor (-20) or no card configuration (-21); cash works", async () => {
    const unit = addUnit("L002", 6200);
    const tenant = await newTenant("L002");
    const { total } = await quote("L002", unit);
    const card = await soapCall(sim.url, "MoveInWithDiscount_v7", moveInParams(tenant, unit, total, { iCreditCardType: 5 }), { location: "L002" });
    expect(card.rt).toMatchObject({ Ret_Code: -20, Ret_Msg: "Site not setup to use Authorize.Net or PPI PayMover" });
    const cash = await soapCall(
      sim.url,
      "MoveInWithDiscount_v7",
      moveInParams(tenant, unit, total, { iPayMethod: 2, iCreditCardType: 0, sCreditCardNumber: "", sCreditCardCVV: "", dExpirationDate: "1900-01-01T00:00:00" }),
      { location: "L002" },
    );
    expect(cash.rt!.Ret_Code).toBeGreaterThan(0);
    sim.control.configureSite("L001", { cardConfig: false });
    const unit1 = addUnit("L001", 5000);
    const t1 = await newTenant();
    const q1 = await quote("L001", unit1);
    expect((await soapCall(sim.url, "MoveInWithDiscount_v7", moveInParams(t1, unit1, q1.total))).rt?.Ret_Code).toBe(-21);
  });

  it("records the gateway's charge as a check payment with its reference (option B)", async () => {
    const unit = addUnit("L002", 6200);
    const tenant = await newTenant("L002");
    const { total } = await quote("L002", unit);
    const moveIn = await soapCall(sim.url, "MoveInWithDiscount_v7", moveInParams(tenant, unit, total, { iPayMethod: 2 }), { location: "L002" });
    expect(moveIn.rt!.Ret_Code).toBeGreaterThan(0);
    sim.control.runBilling({ date: "2026-04-01", location: "L002" });
    const ledger = (await soapCall(sim.url, "LedgersByTenantID_v3", { sTenantID: String(tenant.tenantId) }, { location: "L002" })).tables.Ledgers![0]!;
    expect(ledger.dcTotalDue).toBe("62.0000");
    const pay = await soapCall(sim.url, "PaymentSimpleCheckWithSource", { iTenantID: tenant.tenantId, iUnitID: unit, dcPaymentAmount: "62.00", sCheckNumber: "pi_3Abc", iSource: 5 }, { location: "L002" });
    expect(pay.rt!.Ret_Code).toBeGreaterThan(0);
    const pays = await soapCall(sim.url, "PaymentsByLedgerID", { sLedgerID: ledger.LedgerID! }, { location: "L002" });
    expect(pays.tables.PmtHistory!.map((p) => p.Description)).toEqual(["Move-in payment: Cash", "Payment: Check #pi_3Abc"]);
    const card = await soapCall(
      sim.url,
      "PaymentSimpleWithSource",
      { iTenantID: tenant.tenantId, iUnitID: unit, dcPaymentAmount: "10.00", iCreditCardType: 5, sCreditCardNumber: "4242424242424242", sCreditCardCVV: "123", dExpirationDate: "2030-12-31T23:59:59", bTestMode: false, iSource: 5 },
      { location: "L002" },
    );
    expect(card.rt?.Ret_Code).toBe(-20);
  });
});

describe("reservations and availability", () => {
  it("still lists a reserved unit as available (flagged), counts it reserved, and frees it on cancel (iStatus 2)", async () => {
    const unit = addUnit("L001", 5000);
    const tenant = await newTenant();
    const before = await soapCall(sim.url, "UnitTypePriceList_v2");
    const row = () => (before.tables.Table ?? []).find((t) => t.dcWidth === "10" && t.dcLength === "12")!;
    expect(row().iTotalVacant).toBe("1");
    const res = await soapCall(sim.url, "ReservationNewWithSource_v5", {
      sTenantID: String(tenant.tenantId),
      sUnitID: String(unit),
      dNeeded: "2026-03-12T00:00:00",
      sComment: "",
      iSource: 5,
      sSource: "Gatehouse website",
      QTRentalTypeID: 2,
      iInquiryType: 2,
      dcQuotedRate: "50.00",
      dExpires: "2026-03-12T00:00:00",
      dFollowUp: "2026-03-11T00:00:00",
      sTrackingCode: "R-123",
      sCallerID: "",
      ConcessionID: -999,
    });
    const waitingId = res.rt!.Ret_Code;
    expect(waitingId).toBeGreaterThan(0);
    expect(Number(res.rt!.Ret_Msg)).toBeGreaterThan(0); // iGlobalWaitingNum
    const avail = await soapCall(sim.url, "UnitsInformationAvailableUnitsOnly_v2", { lngLastTimePolled: "0" });
    expect(avail.tables.Table!.find((u) => u.UnitID === String(unit))).toMatchObject({ bWaitingListReserved: "true", bRented: "false" });
    const price = (await soapCall(sim.url, "UnitTypePriceList_v2")).tables.Table!.find((t) => t.dcWidth === "10" && t.dcLength === "12")!;
    expect(price).toMatchObject({ iTotalVacant: "1", iTotalReserved: "1" });
    const list = await soapCall(sim.url, "ReservationList_v3", { iGlobalWaitingNum: 0, WaitingID: waitingId });
    const r = list.tables.Table![0]!;
    expect(r).toMatchObject({ iWaitingStatus: "0", sTrackingCode: "R-123", dcRate_Quoted: "50.0000" });
    const cancel = await soapCall(sim.url, "ReservationUpdate_v4", {
      WaitingID: waitingId,
      sTenantID: r.TenantID!,
      sUnitID: r.UnitID!,
      dNeeded: r.dNeeded!,
      sComment: "",
      iStatus: 2,
      bFollowup: false,
      dFollowup: "2026-03-11T00:00:00",
      dFollowupLast: "2026-03-11T00:00:00",
      iInquiryType: 2,
      dcQuotedRate: "50.00",
      dExpires: r.dExpires!,
      QTRentalTypeID: 2,
      QTCancellationTypeID: 0,
      sCancellationReason: "Cancelled online",
      ConcessionID: -999,
    });
    expect(cancel.rt!.Ret_Code).toBe(0); // LSETUP: ReservationUpdate_v4 answers 0 on success
    const unitRow = (await soapCall(sim.url, "UnitsInformationByUnitID", { UnitID: unit })).tables.Table![0]!;
    expect(unitRow.bWaitingListReserved).toBe("false");
  });

  it("a lapsed dExpires no longer reserves the unit", async () => {
    const unit = addUnit("L001", 5000);
    sim.control.setUnitStatus("L001", unit, "reserved"); // expires in 30 days
    now = new Date(NOW.getTime() + 31 * 86_400_000);
    const row = (await soapCall(sim.url, "UnitsInformationByUnitID", { UnitID: unit })).tables.Table![0]!;
    expect(row.bWaitingListReserved).toBe("false");
  });

  it("answers lngLastTimePolled incrementally: everything, then only what changed since the returned ticks", async () => {
    const all = await soapCall(sim.url, "UnitsInformation_v3", { lngLastTimePolled: "0", bReturnExcludedFromWebsiteUnits: false });
    const total = all.tables.Table!.length;
    expect(total).toBeGreaterThan(50);
    const ticks = all.tables.Table1![0]!.lngLastTimePolled!;
    expect(BigInt(ticks)).toBeGreaterThan(621355968000000000n);
    const none = await soapCall(sim.url, "UnitsInformation_v3", { lngLastTimePolled: ticks, bReturnExcludedFromWebsiteUnits: false });
    expect(none.tables.Table).toBeUndefined();
    expect(none.rt).toMatchObject({ Ret_Code: 0, Ret_Msg: "No unit data found" });
    const ticks2 = none.tables.Table1![0]!.lngLastTimePolled!;
    expect(BigInt(ticks2)).toBeGreaterThan(BigInt(ticks));
    const changed = all.tables.Table!.find((u) => u.bRented === "false" && u.bRentable === "true" && u.bWaitingListReserved === "false")!;
    sim.control.setUnitStatus("L001", Number(changed.UnitID), "rented");
    const delta = await soapCall(sim.url, "UnitsInformation_v3", { lngLastTimePolled: ticks2, bReturnExcludedFromWebsiteUnits: false });
    expect(delta.tables.Table!.map((u) => [u.UnitID, u.bRented])).toEqual([[changed.UnitID, "true"]]);
  });
});
