import { describe, expect, it } from "vitest";
import {
  chargeKey,
  chargePostingKey,
  balanceOf,
  chargesForPeriod,
  lastPostedPeriod,
  nextDueAfter,
  paidThrough,
  paidThroughAfter,
  periodEnd,
  periodIndexOf,
  periodStart,
  periodsToPost,
  prepayQuote,
  withRunningBalance,
  type LeaseTerms,
  type LedgerLine,
} from "./billing";
import { isIsoDate, localDate } from "../shared/calendar";

const terms: LeaseTerms = { moveInDate: "2026-11-22", monthlyRate: 5000, insurancePremium: 895, recurringCharges: [] };

describe("periods", () => {
  it.each([
    ["2026-11-22", 0, "2026-11-22", "2026-12-21"],
    ["2026-11-22", 1, "2026-12-22", "2027-01-21"],
    ["2026-01-31", 1, "2026-02-28", "2026-03-30"],
    ["2026-01-31", 2, "2026-03-31", "2026-04-29"],
    ["2027-12-31", 2, "2028-02-29", "2028-03-30"],
  ])("move-in %s period %i is %s – %s", (moveIn, k, start, end) => {
    expect(periodStart(moveIn, k)).toBe(start);
    expect(periodEnd(moveIn, k)).toBe(end);
    expect(periodIndexOf(moveIn, start)).toBe(k);
    expect(periodIndexOf(moveIn, end)).toBe(k);
  });

  it("knows dates before the move-in", () => {
    expect(periodIndexOf("2026-11-22", "2026-11-21")).toBe(-1);
  });

  it("takes the local date in the location's time zone", () => {
    // 02:30 UTC on Nov 23 is still Nov 22 in New York.
    expect(localDate(new Date("2026-11-23T02:30:00Z"), "America/New_York")).toBe("2026-11-22");
    expect(localDate(new Date("2026-11-23T05:30:00Z"), "America/New_York")).toBe("2026-11-23");
  });

  it("validates ISO dates", () => {
    expect(isIsoDate("2026-02-28")).toBe(true);
    expect(isIsoDate("2026-02-30")).toBe(false);
    expect(isIsoDate("22/11/2026")).toBe(false);
  });
});

describe("charges of a period", () => {
  it("posts rent and the premium with idempotent keys and no tax", () => {
    const lines = chargesForPeriod(terms, 1);
    expect(lines.map((l) => [l.postingKey, l.amount, l.tax])).toEqual([
      ["rent:2026-12-22", 5000, 0],
      ["insurance:2026-12-22", 895, 0],
    ]);
    expect(lines[0]!.description).toBe("Rent Dec 22, 2026 – Jan 21, 2027");
  });

  it("adds recurring charges with their taxes rounded half up per line", () => {
    const lines = chargesForPeriod({ ...terms, insurancePremium: 0, recurringCharges: [{ key: "lock-fee", name: "Lock Fee", amount: 700, tax1Rate: 6.75, tax2Rate: 0 }] }, 2);
    expect(lines.map((l) => [l.postingKey, l.amount, l.tax])).toEqual([
      ["rent:2027-01-22", 5000, 0],
      ["charge:lock-fee:2027-01-22", 700, 47],
    ]);
  });

  it("refuses period 0 (charged at move-in)", () => {
    expect(() => chargesForPeriod(terms, 0)).toThrow();
  });
});

describe("periods to post", () => {
  it("posts nothing before the due date and the due period on it", () => {
    expect(periodsToPost(terms, { lastPostedPeriod: 0, runDate: "2026-12-21" })).toEqual([]);
    expect(periodsToPost(terms, { lastPostedPeriod: 0, runDate: "2026-12-22" })).toEqual([1]);
  });
  it("catches up missed days and never re-posts", () => {
    expect(periodsToPost(terms, { lastPostedPeriod: 0, runDate: "2027-02-23" })).toEqual([1, 2, 3]);
    expect(periodsToPost(terms, { lastPostedPeriod: 3, runDate: "2027-02-23" })).toEqual([]);
  });
  it("stops after the move-out date", () => {
    expect(periodsToPost(terms, { lastPostedPeriod: 0, runDate: "2027-02-23", moveOutDate: "2027-01-10" })).toEqual([1]);
  });
});

const moveInLedger: LedgerLine[] = [
  { id: 1, kind: "charge", amount: 5000, tax: 0, entryDate: "2026-11-22", periodStart: "2026-11-22" },
  { id: 2, kind: "charge", amount: 895, tax: 0, entryDate: "2026-11-22", periodStart: "2026-11-22" },
  { id: 3, kind: "charge", amount: 700, tax: 47, entryDate: "2026-11-22", periodStart: null },
  { id: 4, kind: "payment", amount: 6642, tax: 0, entryDate: "2026-11-22", periodStart: null },
];

describe("balance and paid-through", () => {
  it("a paid move-in is paid through the day before the first anniversary", () => {
    expect(balanceOf(moveInLedger)).toBe(0);
    expect(paidThrough("2026-11-22", moveInLedger)).toEqual({ paidThroughDate: "2026-12-21", nextDueDate: "2026-12-22" });
    expect(lastPostedPeriod("2026-11-22", moveInLedger)).toBe(0);
  });

  it("a posted, unpaid month leaves the paid-through date; paying it advances one month", () => {
    const posted: LedgerLine[] = [
      ...moveInLedger,
      { id: 5, kind: "charge", amount: 5000, tax: 0, entryDate: "2026-12-22", periodStart: "2026-12-22" },
      { id: 6, kind: "charge", amount: 895, tax: 0, entryDate: "2026-12-22", periodStart: "2026-12-22" },
    ];
    expect(balanceOf(posted)).toBe(5895);
    expect(paidThrough("2026-11-22", posted).paidThroughDate).toBe("2026-12-21");
    const partly = [...posted, { id: 7, kind: "payment" as const, amount: 5000, tax: 0, entryDate: "2026-12-23", periodStart: null }];
    expect(paidThrough("2026-11-22", partly).paidThroughDate).toBe("2026-12-21");
    const paid = [...partly, { id: 8, kind: "payment" as const, amount: 895, tax: 0, entryDate: "2026-12-23", periodStart: null }];
    expect(paidThrough("2026-11-22", paid)).toEqual({ paidThroughDate: "2027-01-21", nextDueDate: "2027-01-22" });
    expect(withRunningBalance(paid).map((l) => l.runningBalance)).toEqual([5000, 5895, 6642, 0, 5000, 5895, 895, 0]);
  });
});

describe("prepay", () => {
  it.each([
    [1, 5895, "2027-01-21"],
    [2, 11790, "2027-02-21"],
    [3, 17685, "2027-03-21"],
  ])("%i month(s) ahead costs %i cents and pays through %s", (months, total, through) => {
    const q = prepayQuote(terms, { lastPostedPeriod: 0, balance: 0, months });
    expect(q.total).toBe(total);
    expect(q.newPaidThroughDate).toBe(through);
    expect(q.lines).toHaveLength(months * 2);
  });

  it("includes the balance due and starts after the last posted period", () => {
    const q = prepayQuote(terms, { lastPostedPeriod: 1, balance: 5895, months: 1 });
    expect(q.lines[0]!.postingKey).toBe("rent:2027-01-22");
    expect(q.total).toBe(5895 * 2);
    expect(q.newPaidThroughDate).toBe("2027-02-21");
  });

  it("includes recurring charges with tax", () => {
    const q = prepayQuote({ ...terms, recurringCharges: [{ key: "9", name: "Admin", amount: 1000, tax1Rate: 7, tax2Rate: 0.5 }] }, { lastPostedPeriod: 0, balance: 0, months: 1 });
    expect(q.total).toBe(5000 + 895 + 1000 + 70 + 5);
  });
});

describe("chargeKey: one posting key for the rental and the billing run", () => {
  it.each([
    [{ sitelinkId: "lock", name: "Lock fee" }, "lock"],
    [{ sitelinkId: 42, name: "Lock fee" }, "42"],
    [{ sitelinkId: null, name: "Admin Fee" }, "admin-fee"],
    [{ sitelinkId: "", name: "Admin Fee" }, "admin-fee"],
  ] as const)("%j → %s", (charge, key) => {
    expect(chargeKey(charge)).toBe(key);
    expect(chargePostingKey(key, "2026-12-22")).toBe(`charge:${key}:2026-12-22`);
  });
});

describe("paid-through arithmetic (decision 215)", () => {
  it("the next due date is the day after the paid-through date", () => {
    expect(nextDueAfter("2026-02-28")).toBe("2026-03-01");
    expect(nextDueAfter("2026-12-31")).toBe("2027-01-01");
  });
  it("paying more whole months moves the paid-through date by billing periods from the next due date", () => {
    expect(paidThroughAfter("2026-01-30", 0)).toBe("2026-01-30");
    expect(paidThroughAfter("2026-01-30", 1)).toBe("2026-02-27");
    expect(paidThroughAfter("2026-01-30", 3)).toBe("2026-04-29");
    expect(paidThroughAfter("2026-02-14", 2)).toBe("2026-04-14");
  });
});
