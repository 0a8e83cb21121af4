import { describe, expect, it } from "vitest";
import { discountPlanOf, discountPlansOf } from "./discount-plans";
import type { Row } from "./dataset";

/** A ConcessionPlans row as SiteLink sends it (strings), one month of a percentage from the month moved in. */
const row = (over: Row = {}): Row => ({
  ConcessionID: "41",
  sPlanName: "1st Month Free",
  iAmtType: "1",
  dcPCDiscount: "100.0000",
  dcFixedDiscount: "0.0000",
  dcMaxAmountOff: "0.0000",
  iInMonth: "1",
  iExpirMonths: "1",
  bNeverExpires: "false",
  bPrepay: "false",
  iPrePaidMonths: "0",
  bRound: "false",
  dcRoundTo: "0.0000",
  ...over,
});
const TODAY = "2026-11-22";

describe("what a SiteLink discount plan gives (decision 672)", () => {
  it.each<[string, Row, unknown]>([
    ["a free first month", {}, { kind: "percent", percent: 100, months: 1, fromMonth: 1 }],
    ["50% off two months from the second", { dcPCDiscount: "50.0000", iInMonth: "2", iExpirMonths: "2" }, { kind: "percent", percent: 50, months: 2, fromMonth: 2 }],
    ["a percentage with a cap", { dcPCDiscount: "50.0000", dcMaxAmountOff: "75.0000" }, { kind: "percent", percent: 50, months: 1, fromMonth: 1, maxAmount: 7500 }],
    ["an amount off three months", { iAmtType: "0", dcPCDiscount: "0.0000", dcFixedDiscount: "20.0000", iExpirMonths: "3" }, { kind: "amount", amount: 2000, months: 3, fromMonth: 1 }],
    ["an amount, its type left out", { iAmtType: undefined, dcPCDiscount: "0", dcFixedDiscount: "12.5" }, { kind: "amount", amount: 1250, months: 1, fromMonth: 1 }],
    ["its own dates around today", { dPlanStrt: "2026-11-01T00:00:00", dPlanEnd: "2026-11-30T00:00:00-05:00" }, { kind: "percent", percent: 100, months: 1, fromMonth: 1 }],
  ])("%s", (_name, over, terms) => {
    expect(discountPlanOf(row(over), TODAY)).toEqual({ id: 41, name: "1st Month Free", terms, notOffered: null });
  });

  // Not offered: what it gives depends on a reading the sources disagree on, or is not an amount or a
  // percentage off, or SiteLink no longer offers it today.
  it.each<[string, Row, string]>([
    ["both a percentage and an amount (LK: the percentage wins; ST, MC: iAmtType)", { dcFixedDiscount: "10.0000" }, "both a percentage and an amount"],
    ["its type says amount, it gives a percentage", { iAmtType: "0" }, "its kind and its amounts disagree"],
    ["a fixed rent (iAmtType 2)", { iAmtType: "2", dcChgAmt: "1.0000" }, "fixed rent"],
    ["never expires (LK's two readings)", { bNeverExpires: "true" }, "never expiring"],
    ["from month 0 (MC's two readings)", { iInMonth: "0" }, "month 0"],
    ["no month given", { iInMonth: undefined }, "from which month"],
    ["no duration", { iExpirMonths: "0" }, "how many months"],
    ["a prepay plan", { bPrepay: "true", iPrePaidMonths: "3" }, "3 months paid in advance"],
    ["rounded (MC only)", { bRound: "true", dcRoundTo: "5.0000" }, "rounds its discount"],
    ["disabled", { dDisabled: "2026-11-01T10:00:00" }, "disabled in SiteLink"],
    ["ended", { dPlanEnd: "2026-11-21T00:00:00" }, "ended on 2026-11-21"],
    ["not started", { dPlanStrt: "2026-12-01T00:00:00" }, "from 2026-12-01"],
    ["nothing", { dcPCDiscount: "0" }, "no amount or percentage"],
  ])("%s", (_name, over, why) => {
    const plan = discountPlanOf(row(over), TODAY)!;
    expect(plan.terms).toBeNull();
    expect(plan.notOffered).toContain(why);
  });

  it("names a plan without a name by its number, skips rows that are no plan, sorts by ConcessionID", () => {
    expect(discountPlansOf([row({ ConcessionID: "7", sPlanName: " " }), row({ ConcessionID: "x" }), row({ ConcessionID: "3" })], TODAY).map((p) => [p.id, p.name])).toEqual([
      [3, "1st Month Free"],
      [7, "Plan 7"],
    ]);
  });
});
