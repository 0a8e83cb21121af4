/**
 * Tenants, ledgers, payments, autopay and the test controls over real HTTP: office tenants proven by
 * TenantLogin / TenantSearchDetailed / TenantInfoByTenantID, billing run, prepayment, faults, call log.
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

async function rentedLedger() {
  const unitId = sim.control.createUnitType("L001", { typeName: "Drive-Up", width: 10, length: 12, stdRate: 5000, statuses: ["available"] }).units[0]!.UnitID;
  const t = await soapCall(sim.url, "TenantNewDetailed_v3", { sFName: "Rita", sLName: "Renter", sEmail: "rita@example.com", dDOB: "1980-01-01T00:00:00" });
  const tenantId = Number(t.rt!.TenantID);
  const moveIn = await soapCall(sim.url, "MoveInWithDiscount_v7", {
    TenantID: tenantId,
    sAccessCode: String(t.rt!.AccessCode),
    UnitID: unitId,
    dStartDate: "2026-03-10T00:00:00",
    dEndDate: "2026-04-09T00:00:00",
    dcPaymentAmount: "57.47",
    iPayMethod: 2,
    InsuranceCoverageID: -999,
    ConcessionPlanID: -999,
    iSource: 5,
    iBillingFrequency: 3,
    ChannelType: 0,
  });
  expect(moveIn.rt!.Ret_Code).toBeGreaterThan(0);
  return { tenantId, unitId, ledgerId: moveIn.rt!.Ret_Code };
}

const card = (extra: Record<string, string | number | boolean> = {}) => ({
  iCreditCardType: 6,
  sCreditCardNumber: "4242424242424242",
  sCreditCardCVV: "123",
  dExpirationDate: "2030-12-31T23:59:59",
  sBillingName: "Rita Renter",
  sBillingAddress: "1 Main St",
  sBillingZipCode: "28358",
  bTestMode: false,
  iSource: 5,
  ...extra,
});

describe("office tenants", () => {
  it("proves an office-created tenant: TenantLogin, TenantSearchDetailed across the corp, TenantInfoByTenantID", async () => {
    const login = await soapCall(sim.url, "TenantLogin", { sTenantLogin: "Pat.Office@example.com", sTenantPassword: "gate1234" });
    const tenantId = login.rt!.Ret_Code;
    expect(tenantId).toBeGreaterThan(0);
    // One RT row per tenant record with this login (MS), no Table.
    expect(login.tables.RT).toEqual([{ Ret_Code: String(tenantId), Ret_Msg: "Success", bHasActiveLedger: "true", sWebPassword: "gate1234" }]);
    expect(login.tables.Table).toBeUndefined();
    expect((await soapCall(sim.url, "TenantLogin", { sTenantLogin: "pat.office@example.com", sTenantPassword: "nope" })).rt).toMatchObject({ Ret_Code: -1 });
    // Per site: Pat is a Lumberton tenant.
    expect((await soapCall(sim.url, "TenantLogin", { sTenantLogin: "pat.office@example.com", sTenantPassword: "gate1234" }, { location: "L002" })).rt?.Ret_Code).toBe(-1);

    const search = await soapCall(sim.url, "TenantSearchDetailed", { sEmailAddress: "jordan.office@example.com" }, { location: "" });
    expect(search.tables.Table!.map((r) => [r.sLocationCode, r.sEmail])).toEqual([["L002", "jordan.office@example.com"]]);
    // Fuzzy ("contains") and capped at 50 rows.
    const broad = await soapCall(sim.url, "TenantSearchDetailed", { sEmailAddress: "EXAMPLE.COM" }, { location: "" });
    expect(broad.tables.Table).toHaveLength(50);
    const info = await soapCall(sim.url, "TenantInfoByTenantID", { iTenantID: tenantId });
    expect(info.tables.Table![0]).toMatchObject({ sFName: "Pat", sLName: "Office", sWebPassword: "gate1234" });
    expect(info.tables.Table![0]!.sAccessCode).toMatch(/^\d{6}$/);
  });

  it("adds an office tenant renting a unit; the office's move-out ends the ledger and frees the unit", async () => {
    const unitId = sim.control.createUnitType("L001", { typeName: "Indoor", width: 5, length: 5, stdRate: 3000, statuses: ["available"] }).units[0]!.UnitID;
    const office = sim.control.addOfficeTenant("L001", { firstName: "Olive", lastName: "Office", email: "olive@example.com", webPassword: "olive123", unitId });
    expect((await soapCall(sim.url, "TenantLogin", { sTenantLogin: "olive@example.com", sTenantPassword: "olive123" })).rt?.Ret_Code).toBe(office.TenantID);
    const ledgers = await soapCall(sim.url, "LedgersByTenantID_v3", { sTenantID: String(office.TenantID) });
    expect(ledgers.tables.Ledgers!.map((l) => [l.LedgerID, l.UnitID, l.sAccessCode])).toEqual([[String(office.LedgerID), String(unitId), office.accessCode]]);
    sim.control.moveOut("L001", office.LedgerID!);
    expect((await soapCall(sim.url, "LedgersByTenantID_v3", { sTenantID: String(office.TenantID) })).tables.Ledgers).toBeUndefined();
    expect((await soapCall(sim.url, "UnitsInformationByUnitID", { UnitID: unitId })).tables.Table![0]!.bRented).toBe("false");
  });

  it("TenantUpdate_v3 overwrites every field: a field left out is blanked", async () => {
    const { tenantId } = await rentedLedger();
    const r = await soapCall(sim.url, "TenantUpdate_v3", { iTenantID: tenantId, sFName: "Rita", sLName: "Renter", sMobile: "9105550199" });
    expect(r.rt!.Ret_Code).toBe(tenantId);
    const info = (await soapCall(sim.url, "TenantInfoByTenantID", { iTenantID: tenantId })).tables.Table![0]!;
    expect(info.sMobile).toBe("9105550199");
    expect(info.sEmail).toBeUndefined(); // was rita@example.com: not sent, so blanked
    expect(info.sAccessCode).toBeUndefined(); // the gate code too
  });

  it("keeps web passwords to 4-10 characters", async () => {
    const { tenantId } = await rentedLedger();
    const long = await soapCall(sim.url, "TenantLoginAndSecurityUpdate", { TenantID: tenantId, sEmail: "rita@example.com", sWebPassword: "elevenchars" });
    expect(long.rt?.Ret_Code).toBe(-2);
    const ok = await soapCall(sim.url, "TenantLoginAndSecurityUpdate", { TenantID: tenantId, sEmail: "rita@example.com", sWebPassword: "abcd1234" });
    expect(ok.rt?.Ret_Code).toBe(tenantId);
    expect((await soapCall(sim.url, "TenantLogin", { sTenantLogin: "rita@example.com", sTenantPassword: "abcd1234" })).rt?.Ret_Code).toBe(tenantId);
  });
});

describe("ledgers and payments", () => {
  it("bills the next month, takes a card payment, and advances the paid-through date", async () => {
    const { tenantId, unitId, ledgerId } = await rentedLedger();
    sim.control.runBilling({ date: "2026-04-10" });
    const ledger = (await soapCall(sim.url, "LedgersByTenantID_v3", { sTenantID: String(tenantId) })).tables.Ledgers![0]!;
    expect(ledger).toMatchObject({ dcTotalDue: "50.0000", dPaidThru: "2026-04-09T00:00:00-04:00" });
    const charges = await soapCall(sim.url, "ChargesAllByLedgerID", { ledgerId: String(ledgerId) });
    expect(charges.tables.Table!.map((c) => [c.sChgDesc, c.dcAmt, c.dChgStrt?.slice(0, 10), c.dcPmtAmt])).toEqual([
      ["Rent", "50.0000", "2026-03-10", "50.0000"],
      ["Lock fee", "7.0000", "2026-03-10", "7.4700"],
      ["Rent", "50.0000", "2026-04-10", "0.0000"],
    ]);
    const pay = await soapCall(sim.url, "PaymentSimpleWithSource", { iTenantID: tenantId, iUnitID: unitId, dcPaymentAmount: "50.00", ...card() });
    expect(pay.rt!.Ret_Code).toBeGreaterThan(0);
    const paid = await soapCall(sim.url, "PaidThroughDateByLedgerID", { iLedgerID: ledgerId });
    expect(paid.tables.Table![0]!.dPaidThru).toBe("2026-05-09T00:00:00-04:00");
    const declined = await soapCall(sim.url, "PaymentSimpleWithSource", { iTenantID: tenantId, iUnitID: unitId, dcPaymentAmount: "5.00", ...card({ sCreditCardNumber: "4000000000000002" }) });
    expect(declined.rt?.Ret_Code).toBe(-100);
    // No idempotency key in SiteLink: the same payment sent twice is posted twice.
    const same = { iTenantID: tenantId, iUnitID: unitId, dcPaymentAmount: "1.00", ...card() };
    const a = await soapCall(sim.url, "PaymentSimpleWithSource", same);
    const b = await soapCall(sim.url, "PaymentSimpleWithSource", same);
    expect(b.rt!.Ret_Code).toBe(a.rt!.Ret_Code + 1);
    const history = (await soapCall(sim.url, "PaymentsByLedgerID", { sLedgerID: String(ledgerId) })).tables.PmtHistory!;
    expect(history.filter((p) => p.Payment === "1.0000")).toHaveLength(2);
  });

  it("quotes a prepayment and, paid, advances dPaidThru by those whole months", async () => {
    const { tenantId, unitId, ledgerId } = await rentedLedger();
    const q = await soapCall(sim.url, "CustomerAccountsBalanceDetailsWithPrepayment", { iTenantID: tenantId, iNumberOfMonthsPrepay: 3 });
    const rows = q.tables.Table1!.filter((r) => r.LedgerID === String(ledgerId));
    expect(rows.map((r) => [r.sItem, r.dcBalance])).toEqual([["Rent", "150.0000"]]);
    await soapCall(sim.url, "PaymentSimpleWithSource", { iTenantID: tenantId, iUnitID: unitId, dcPaymentAmount: "150.00", ...card() });
    const paid = await soapCall(sim.url, "PaidThroughDateByLedgerID", { iLedgerID: ledgerId });
    expect(paid.tables.Table![0]!.dPaidThru?.slice(0, 10)).toBe("2026-07-09");
  });

  it("stores the autopay card unmasked without authorising it; the billing run charges it or records the decline", async () => {
    const { tenantId, ledgerId } = await rentedLedger();
    const save = await soapCall(sim.url, "TenantBillingInfoUpdate_v2", {
      iLedgerID: ledgerId,
      iCreditCardTypeID: 6,
      sCreditCardNum: "4000000000000341",
      dCredtiCardExpir: "2030-12-31T23:59:59",
      sCreditCardHolderName: "Rita Renter",
      sCreditCardStreet: "1 Main St",
      sCreditCardZip: "28358",
      iAutoBillType: 1,
      iDaysAfterDue: 0,
    });
    expect(save.rt!.Ret_Code).toBe(ledgerId);
    const info = await soapCall(sim.url, "TenantBillingInfoByTenantID_v3", { iTenantID: tenantId });
    expect(info.tables.Table![0]).toMatchObject({ iAutoBillType: "1", sCreditCardNum: "4000000000000341" });
    // (the demo's office ledgers are billed too; only this ledger has an autopay card)
    expect(sim.control.runBilling({ date: "2026-04-10" })).toMatchObject({ autopayments: 0, declines: 1 });
    expect(sim.control.ledger("L001", ledgerId)!.lastAutopayDecline).not.toBeNull();
    await soapCall(sim.url, "TenantBillingInfoUpdate_v2", { iLedgerID: ledgerId, iCreditCardTypeID: 6, sCreditCardNum: "4242424242424242", iAutoBillType: 1 });
    expect(sim.control.runBilling({ date: "2026-04-10" })).toEqual({ posted: 0, autopayments: 1, declines: 0 });
    expect((await soapCall(sim.url, "LedgersByTenantID_v3", { sTenantID: String(tenantId) })).tables.Ledgers![0]!.dcTotalDue).toBe("0.0000");
    expect(sim.control.inspect().sites[0]!.ledgers.find((l) => l.LedgerID === ledgerId)!.autobill!.sCreditCardNum).toBe("************4242");
  });

  it("schedules a move-out without moving the tenant out", async () => {
    const { tenantId, ledgerId } = await rentedLedger();
    expect((await soapCall(sim.url, "ScheduleMoveOut", { iLedgerID: ledgerId, dScheduledOut: "2026-03-31T00:00:00" })).rt?.Ret_Code).toBe(ledgerId);
    const ledger = (await soapCall(sim.url, "LedgersByTenantID_v3", { sTenantID: String(tenantId) })).tables.Ledgers![0]!;
    expect(ledger.dSchedOut?.slice(0, 10)).toBe("2026-03-31");
    expect((await soapCall(sim.url, "ScheduleMoveOut", { iLedgerID: ledgerId, dScheduledOut: "2026-03-01T00:00:00" })).rt?.Ret_Code).toBe(-2);
  });
});

describe("faults and the call log", () => {
  it("commit_then_hang: the client times out but the move-in is committed (once)", async () => {
    const unitId = sim.control.createUnitType("L001", { typeName: "Drive-Up", width: 10, length: 12, stdRate: 5000, statuses: ["available"] }).units[0]!.UnitID;
    const t = await soapCall(sim.url, "TenantNewDetailed_v3", { sFName: "Hank", sLName: "Hang", sEmail: "hank@example.com" });
    sim.control.addFault({ operation: "MoveInWithDiscount_v7", kind: "commit_then_hang", nth: 1 });
    const body = {
      TenantID: Number(t.rt!.TenantID),
      UnitID: unitId,
      dStartDate: "2026-03-10T00:00:00",
      dEndDate: "2026-04-09T00:00:00",
      dcPaymentAmount: "57.47",
      InsuranceCoverageID: -999,
      ConcessionPlanID: -999,
      iPayMethod: 1,
      iBillingFrequency: 3,
      ChannelType: 0,
      ...card(),
    };
    const { buildEnvelope } = await import("./test-client");
    await expect(
      fetch(sim.url, {
        method: "POST",
        headers: { "content-type": "text/xml; charset=utf-8", soapaction: "http://tempuri.org/CallCenterWs/CallCenterWs/MoveInWithDiscount_v7" },
        body: buildEnvelope("MoveInWithDiscount_v7", body),
        signal: AbortSignal.timeout(400),
      }),
    ).rejects.toThrow();
    const ledgers = await soapCall(sim.url, "LedgersByTenantID_v3", { sTenantID: String(t.rt!.TenantID) });
    expect(ledgers.tables.Ledgers).toHaveLength(1);
    const calls = sim.control.calls({ operation: "MoveInWithDiscount_v7" });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ processed: true, fault: "commit_then_hang", httpStatus: null });
    expect(calls[0]!.params.sCreditCardNumber).toBe("[redacted …4242]");
    expect(calls[0]!.params.sCreditCardCVV).toBe("[redacted]");
    // The retry is refused by SiteLink's own guard: the unit is rented.
    expect((await soapCall(sim.url, "MoveInWithDiscount_v7", body)).rt?.Ret_Code).toBe(-2);
  });

  it("commit_then_reset commits; drop_before does not", async () => {
    sim.control.addFault({ operation: "TenantNewDetailed_v3", kind: "commit_then_reset", nth: 1 });
    await expect(soapCall(sim.url, "TenantNewDetailed_v3", { sFName: "Reset", sLName: "One", sEmail: "reset1@example.com" })).rejects.toThrow();
    sim.control.addFault({ operation: "TenantNewDetailed_v3", kind: "drop_before", nth: 1 }); // counted from when the rule is added
    await expect(soapCall(sim.url, "TenantNewDetailed_v3", { sFName: "Drop", sLName: "Two", sEmail: "drop2@example.com" })).rejects.toThrow();
    const emails = sim.control.inspectSite("L001").tenants.map((t) => t.fields.sEmail);
    expect(emails).toContain("reset1@example.com");
    expect(emails).not.toContain("drop2@example.com");
  });

  it("injects IIS 500 HTML, 503, malformed XML, SOAP Faults and forced RT codes on the Nth call only, without processing", async () => {
    const op = "SiteInformation";
    sim.control.addFault({ operation: op, kind: "http_500_html", nth: 1 });
    sim.control.addFault({ operation: op, kind: "http_503", nth: 2 });
    sim.control.addFault({ operation: op, kind: "malformed_xml", nth: 3 });
    sim.control.addFault({ operation: op, kind: "soap_fault", nth: 4 });
    sim.control.addFault({ operation: op, kind: "rt_error", nth: 5, retCode: -1, retMsg: "General failure" });
    const raw = async () => {
      const res = await fetch(sim.url, {
        method: "POST",
        headers: { "content-type": "text/xml; charset=utf-8", soapaction: `http://tempuri.org/CallCenterWs/CallCenterWs/${op}` },
        body: (await import("./test-client")).buildEnvelope(op, {}),
      });
      return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
    };
    const r1 = await raw();
    expect(r1.status).toBe(500);
    expect(r1.text).toContain("<title>500 - Internal server error.</title>");
    expect((await raw()).status).toBe(503);
    const r3 = await raw();
    expect(r3.status).toBe(200);
    expect(r3.text).not.toContain("</soap:Envelope>");
    const r4 = await raw();
    expect(r4.status).toBe(500);
    expect(r4.text).toContain("<faultcode>soap:Server</faultcode>");
    expect((await soapCall(sim.url, op)).rt).toMatchObject({ Ret_Code: -1 });
    const r6 = await soapCall(sim.url, op);
    expect(r6.tables.Table?.[0]?.sLocationCode).toBe("L001");
    expect(sim.control.calls({ operation: op }).map((c) => c.processed)).toEqual([false, false, false, false, false, true]);
  });

  it("adds latency to a call and still answers it", async () => {
    sim.control.addFault({ operation: "SiteInformation", kind: "slow", ms: 300 });
    const t0 = Date.now();
    const r = await soapCall(sim.url, "SiteInformation");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(r.status).toBe(200);
  });
});

const JSON_BODY = { "content-type": "application/json" };

describe("control API over HTTP", () => {
  it("sets a unit's status, reads the call log and faults, resets", async () => {
    const unitId = sim.control.createUnitType("L002", { typeName: "Indoor", width: 5, length: 5, stdRate: 3000, statuses: ["available"] }).units[0]!.UnitID;
    const set = await fetch(`${sim.origin}/__sim/sites/L002/units/${unitId}/status`, { method: "POST", headers: JSON_BODY, body: JSON.stringify({ status: "unavailable" }) });
    expect(set.status).toBe(200);
    const row = (await soapCall(sim.url, "UnitsInformationByUnitID", { UnitID: unitId }, { location: "L002" })).tables.Table![0]!;
    expect(row.bRentable).toBe("false");
    const fault = await fetch(`${sim.origin}/__sim/faults`, { method: "POST", headers: JSON_BODY, body: JSON.stringify({ operation: "SiteInformation", kind: "http_503", nth: 1 }) });
    expect(fault.status).toBe(201);
    expect((await soapCall(sim.url, "SiteInformation")).status).toBe(503);
    const calls = (await (await fetch(`${sim.origin}/__sim/calls?operation=UnitsInformationByUnitID`)).json()) as Array<{ locationCode: string }>;
    expect(calls.map((c) => c.locationCode)).toEqual(["L002"]);
    const clock = (await (await fetch(`${sim.origin}/__sim/clock`, { method: "POST", headers: JSON_BODY, body: JSON.stringify({ advanceDays: 2 }) })).json()) as { now: string };
    expect(clock.now).toBe("2026-03-12T15:00:00.000Z");
    expect((await fetch(`${sim.origin}/__sim/reset`, { method: "POST" })).status).toBe(200);
    expect(sim.control.calls()).toEqual([]);
    expect((await fetch(`${sim.origin}/__sim/nope`)).status).toBe(404);
  });
});
