import { describe, expect, it } from "vitest";
import { goLiveItems, goLiveSuggestions } from "./go-live-words";
import type { GoLiveReport, OperationCheck } from "./verify-report";

/** A report as a run against a site with two card types and the LSETUP reading would give. */
function report(overrides: Partial<GoLiveReport> = {}): GoLiveReport {
  return {
    generatedAt: "2026-11-28T15:00:00.000Z",
    location: { id: 9, name: "Loris", slug: "loris-sc-29569" },
    endpoint: "https://api.example.invalid/CCWs_3.5/CallCenterWs.asmx",
    corpCode: "C1",
    locationCode: "L077",
    cardChargedBy: "sitelink",
    settings: { status: "ok", notes: [] },
    operations: [
      { operation: "UnitTypePriceList_v2", kind: "read", status: "ok", notes: [] },
      { operation: "ChargesAllByLedgerID", kind: "read", status: "not checked", notes: ["tenant 5001 has no ledger"] },
      { operation: "UnitsInformation_v3", kind: "read", status: "differs", notes: ["Table lacks dcStdRate"] },
      { operation: "InsuranceCoverageRetrieve_V2", kind: "read", status: "differs", notes: ['answered Ret_Code -1 "no access"'] },
      { operation: "ScheduleMoveOut", kind: "write", status: "not sent", notes: ["a write: sitelink:verify never sends it"] },
      { operation: "PaymentSimpleWithSource", kind: "write", status: "not sent", notes: [] },
    ] satisfies OperationCheck[],
    cardTypes: {
      status: "differs",
      site: [
        { id: "1", description: "Cash", category: "Cash" },
        { id: "6", description: "Visa", category: "Credit Card" },
        { id: "5", description: "MasterCard", category: "Credit Card" },
        { id: "8", description: "Discover", category: "Credit Card" },
        { id: "9", description: "Discover (old terminal)", category: "Credit Card" },
      ],
      configured: {},
      notes: ["no card type configured"],
    },
    billingFrequency: { configured: 3, status: "ok", note: "accepted by the test-mode move-in" },
    payMethod: { status: "differs", configured: { card: 1, cash: 2, check: 3 }, works: 0, reading: "manual", notes: ["iPayMethod 0 was taken"] },
    successCodes: {},
    testMoveIn: { unitId: "7001", ledgerId: "88", notes: ["SiteLink recorded ledger 88 … The office must move the test tenant out and void the test payment"] },
    ok: false,
    differs: ["UnitsInformation_v3"],
    notChecked: [],
    testTenantId: "5001",
    unreachable: null,
    ...overrides,
  };
}

const byLabel = (r: GoLiveReport) => Object.fromEntries(goLiveItems(r).map((i) => [i.label, i]));

describe("the go-live check in the operator's words", () => {
  it("names each item in words, keeps SiteLink's own words as details, and says what to do with each that did not pass", () => {
    const items = byLabel(report());
    expect(items["Unit types and their prices"]).toEqual({ label: "Unit types and their prices", result: "passed", details: ["SiteLink UnitTypePriceList_v2: answered as the website reads it"], fix: null });
    expect(items["A rental's charges"]).toMatchObject({ result: "not checked", fix: expect.stringContaining("“A tenant to read”") });
    expect(items["The list of units"]).toMatchObject({ result: "failed", details: ["SiteLink UnitsInformation_v3: Table lacks dcStdRate"], fix: expect.stringContaining("SiteLink's support") });
    expect(items["Protection plans"]!.fix).toContain("make sure the SiteLink user may read protection plans at this site");
    // The writes it never sends are one line, not one failure each.
    expect(items["Changes the check never makes"]).toMatchObject({ result: "not sent", fix: null });
    expect(items["Changes the check never makes"]!.details[0]).toMatch(/^a move-out notice, a card payment: /);
    expect(items["The check's test move-in"]!.fix).toContain("finish the test tenant's move-out and void its test payment");
  });

  it("proposes the card types SiteLink lists (one row per brand only) and the pay-method ids of the reading the site follows", () => {
    expect(goLiveSuggestions(report())).toEqual({ cardTypeIds: { visa: 6, mastercard: 5 }, payMethodIds: { card: 0, cash: 2, check: 1 } });
    expect(byLabel(report())["Card types"]!.fix).toBe("Use the card types SiteLink lists (Visa = 6, Master Card = 5) with the button below, then run the check again.");
    // Nothing to propose where the location's already match.
    const matching = report({ cardTypes: { ...report().cardTypes, status: "ok", configured: { visa: 6 } }, payMethod: { ...report().payMethod, status: "ok", configured: { card: 0, cash: 2, check: 1 } } });
    expect(goLiveSuggestions(matching)).toEqual({});
    // A card id that is neither reading's: the location's own ids with the card the site took.
    const neither = report({ payMethod: { status: "differs", configured: { card: 1, cash: 2, check: 3 }, works: 7, reading: null, notes: [] } });
    expect(goLiveSuggestions(neither).payMethodIds).toEqual({ card: 7, cash: 2, check: 3 });
  });

  it("a check that could not reach SiteLink is one failed item that says nothing else was checked", () => {
    const items = goLiveItems(report({ unreachable: "https://api.example.invalid/… did not answer as SiteLink (network): connect ECONNREFUSED" }));
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ label: "Reaching SiteLink at https://api.example.invalid/CCWs_3.5/CallCenterWs.asmx", result: "failed" });
    expect(items[0]!.fix).toContain("Nothing else was checked");
  });

  it("settings the server refuses are the first item, and nothing about the site is claimed", () => {
    const items = goLiveItems(report({ settings: { status: "differs", notes: ["SITELINK_LORIS_PASSWORD is not set"] }, operations: [] }));
    expect(items.map((i) => [i.label, i.result])).toEqual([["The SiteLink settings saved for this location", "failed"]]);
  });
});
