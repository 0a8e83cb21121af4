import { describe, expect, it } from "vitest";
import {
  ABANDONED_AFTER_MS,
  CHARGING_ATTENTION_MS,
  CONFIRMING_ATTENTION_MS,
  dayTotals,
  deskRentalStatus,
  deskReservationStatus,
  isAbandonedRental,
  pageOf,
  stepReached,
} from "./lists";

const now = new Date("2026-11-22T15:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
const base = { journalAttention: false, pendingMoveIn: false };

describe("deskRentalStatus", () => {
  it("a completed rental is confirmed; still pending in SiteLink, being confirmed; a journal mark, needs attention", () => {
    expect(deskRentalStatus({ ...base, status: "completed", updatedAt: ago(0) }, now)).toBe("confirmed");
    expect(deskRentalStatus({ ...base, status: "completed", updatedAt: ago(0), pendingMoveIn: true }, now)).toBe("being_confirmed");
    expect(deskRentalStatus({ ...base, status: "completed", updatedAt: ago(0), journalAttention: true }, now)).toBe("needs_attention");
  });
  it("charging and confirming are being confirmed until their time runs out, then need attention", () => {
    expect(deskRentalStatus({ ...base, status: "charging", updatedAt: ago(CHARGING_ATTENTION_MS) }, now)).toBe("being_confirmed");
    expect(deskRentalStatus({ ...base, status: "charging", updatedAt: ago(CHARGING_ATTENTION_MS + 1) }, now)).toBe("needs_attention");
    expect(deskRentalStatus({ ...base, status: "confirming", updatedAt: ago(CONFIRMING_ATTENTION_MS) }, now)).toBe("being_confirmed");
    expect(deskRentalStatus({ ...base, status: "confirming", updatedAt: ago(CONFIRMING_ATTENTION_MS + 1) }, now)).toBe("needs_attention");
    expect(deskRentalStatus({ ...base, status: "confirming", updatedAt: ago(0), journalAttention: true }, now)).toBe("needs_attention");
  });
  it("open and abandoned rentals are not what the desk lists as online rentals", () => {
    expect(deskRentalStatus({ ...base, status: "open", updatedAt: ago(0) }, now)).toBeNull();
    expect(deskRentalStatus({ ...base, status: "abandoned", updatedAt: ago(0) }, now)).toBeNull();
  });
});

describe("deskReservationStatus", () => {
  it("an active reservation past its time is expired before the sweep marks it", () => {
    expect(deskReservationStatus({ status: "active", expiresAt: ago(-1000) }, now)).toBe("active");
    expect(deskReservationStatus({ status: "active", expiresAt: ago(0) }, now)).toBe("expired");
    expect(deskReservationStatus({ status: "cancelled", expiresAt: ago(-1000) }, now)).toBe("cancelled");
  });
});

describe("isAbandonedRental", () => {
  it("details given and not paid within 60 minutes", () => {
    expect(isAbandonedRental({ status: "open", hasDetails: true, createdAt: ago(ABANDONED_AFTER_MS - 1) }, now)).toBe(false);
    expect(isAbandonedRental({ status: "open", hasDetails: true, createdAt: ago(ABANDONED_AFTER_MS) }, now)).toBe(true);
    expect(isAbandonedRental({ status: "abandoned", hasDetails: true, createdAt: ago(ABANDONED_AFTER_MS * 5) }, now)).toBe(true);
    expect(isAbandonedRental({ status: "open", hasDetails: false, createdAt: ago(ABANDONED_AFTER_MS * 5) }, now)).toBe(false);
    for (const status of ["charging", "confirming", "completed"] as const) expect(isAbandonedRental({ status, hasDetails: true, createdAt: ago(ABANDONED_AFTER_MS * 5) }, now)).toBe(false);
  });
  it("names the last step finished", () => {
    expect(stepReached({ hasDetails: true, hasProtection: false, hasSigned: false })).toBe("Gave details");
    expect(stepReached({ hasDetails: true, hasProtection: true, hasSigned: false })).toBe("Chose protection");
    expect(stepReached({ hasDetails: true, hasProtection: true, hasSigned: true })).toMatch(/Signed/);
  });
});

describe("dayTotals", () => {
  it("sums each location's day by status, newest day first", () => {
    const t = dayTotals([
      { locationId: 1, day: "2026-11-21", status: "approved", amount: 1000 },
      { locationId: 1, day: "2026-11-22", status: "approved", amount: 2500 },
      { locationId: 1, day: "2026-11-22", status: "approved", amount: 500 },
      { locationId: 1, day: "2026-11-22", status: "declined", amount: 700 },
      { locationId: 2, day: "2026-11-22", status: "refunded", amount: 300 },
    ]);
    expect(t.map((x) => `${x.day}/${x.locationId}`)).toEqual(["2026-11-22/1", "2026-11-22/2", "2026-11-21/1"]);
    expect(t[0]).toMatchObject({ approved: 3000, approvedCount: 2, declined: 700, declinedCount: 1, refunded: 0 });
    // Taken and given back the same day: in both columns, so Approved − Refunded = Net (decision 502).
    expect(t[1]).toMatchObject({ approved: 300, approvedCount: 1, refunded: 300, refundedCount: 1, net: 0 });
    expect(t[0]!.net).toBe(3000);
  });
  it("counts a refund on its own day: taken on one day, given back on another (decision 280)", () => {
    const rows = [
      { locationId: 1, day: "2026-11-20", status: "approved" as const, amount: 1000 },
      { locationId: 1, day: "2026-11-20", refundDay: "2026-11-22", status: "refunded" as const, amount: 4000 },
      { locationId: 1, day: "2026-11-22", status: "approved" as const, amount: 500 },
    ];
    const t = dayTotals(rows);
    expect(t.map((x) => [x.day, x.approved, x.refunded, x.net])).toEqual([
      ["2026-11-22", 500, 4000, -3500],
      ["2026-11-20", 5000, 0, 5000],
    ]);
    for (const x of t) expect(x.approved - x.refunded).toBe(x.net);
    expect(dayTotals(rows, { from: "2026-11-21" }).map((x) => x.day)).toEqual(["2026-11-22"]);
  });
  it("pages in memory", () => {
    expect(pageOf([1, 2, 3, 4, 5], 2, 2)).toEqual([3, 4]);
    expect(pageOf([1, 2, 3], 3, 2)).toEqual([]);
  });
});
