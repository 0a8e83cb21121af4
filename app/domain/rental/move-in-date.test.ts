import { describe, expect, it } from "vitest";
import { effectiveMoveInDate, isSunday, moveInDates } from "./move-in-date";

describe("move-in dates (rental_days_in_advance, rentals on Sunday)", () => {
  // 2026-11-22 is a Sunday.
  it.each([
    ["2026-11-24", 0, true, ["2026-11-24"]],
    ["2026-11-22", 0, true, ["2026-11-22"]],
    ["2026-11-22", 0, false, []],
    ["2026-11-20", 3, true, ["2026-11-20", "2026-11-21", "2026-11-22", "2026-11-23"]],
    ["2026-11-20", 3, false, ["2026-11-20", "2026-11-21", "2026-11-23"]],
    ["2026-12-30", 3, true, ["2026-12-30", "2026-12-31", "2027-01-01", "2027-01-02"]],
  ])("today %s, %i days ahead, Sunday allowed %s → %j", (today, n, sunday, expected) => {
    expect(moveInDates(today, n, sunday)).toEqual(expected);
  });

  it("keeps a chosen date only while it is allowed", () => {
    const allowed = ["2026-11-23", "2026-11-24"];
    expect(effectiveMoveInDate("2026-11-24", allowed)).toBe("2026-11-24");
    expect(effectiveMoveInDate("2026-11-22", allowed)).toBe("2026-11-23");
    expect(effectiveMoveInDate(null, allowed)).toBe("2026-11-23");
    expect(effectiveMoveInDate(null, [])).toBeNull();
    expect(isSunday("2026-11-22")).toBe(true);
  });
});
