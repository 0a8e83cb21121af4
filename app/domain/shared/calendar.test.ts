import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { addDaysIso, addMonthsIso, calendarMonthsBetween, formatDate, isIsoDate, localDate } from "./calendar";

describe("calendar: one module for calendar dates", () => {
  it.each([
    ["2026-01-31", 1, "2026-02-28"],
    ["2028-01-31", 1, "2028-02-29"],
    ["2026-11-22", 1, "2026-12-22"],
    ["2026-12-31", 2, "2027-02-28"],
  ])("addMonthsIso(%s, %i) = %s", (d, n, expected) => {
    expect(addMonthsIso(d, n)).toBe(expected);
  });

  it("adds days, formats, validates, and counts months", () => {
    expect(addDaysIso("2026-03-08", 1)).toBe("2026-03-09"); // across the DST change in New York
    expect(addDaysIso("2026-12-31", 1)).toBe("2027-01-01");
    expect(formatDate("2026-11-22")).toBe("Nov 22, 2026");
    expect(isIsoDate("2026-02-29")).toBe(false);
    expect(isIsoDate("2028-02-29")).toBe(true);
    expect(calendarMonthsBetween("2026-11-30", "2026-12-01")).toBe(1);
  });

  it("today is the location's calendar date", () => {
    expect(localDate(new Date("2026-11-23T02:30:00Z"), "America/New_York")).toBe("2026-11-22");
    expect(localDate(new Date("2026-11-23T05:30:00Z"), "America/New_York")).toBe("2026-11-23");
  });

  it("no other module does date arithmetic with date-fns", () => {
    const dir = import.meta.dirname;
    const offenders = readdirSync(dir)
      .filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".test.ts") && f !== "calendar.ts")
      .filter((f) => /from "date-fns"/.test(readFileSync(path.join(dir, f), "utf8")));
    expect(offenders).toEqual([]);
  });
});
