import { describe, expect, it } from "vitest";
import { dueReportTime, hourLabel, isoWeekday, lastReportTime, reportPeriods, reportPreferenceSchema } from "./reports";

const NY = "America/New_York";

describe("report times", () => {
  it.each([
    // [now (UTC), frequency, hour, weekday, due at (UTC), sent on]
    ["2026-11-23T12:03:00Z", "daily", 7, 1, "2026-11-23T12:00:00.000Z", "2026-11-23"],
    ["2026-11-23T11:59:00Z", "daily", 7, 1, "2026-11-22T12:00:00.000Z", "2026-11-22"],
    // The day after the clocks went back (Nov 1, 2026): 7 am is 12:00 UTC; the day before it, 11:00 UTC.
    ["2026-10-31T11:30:00Z", "daily", 7, 1, "2026-10-31T11:00:00.000Z", "2026-10-31"],
    // Weekly on Monday (Nov 23, 2026 is a Monday): on Wednesday, the last one was Monday's.
    ["2026-11-25T15:00:00Z", "weekly", 7, 1, "2026-11-23T12:00:00.000Z", "2026-11-23"],
    // Monday before 7 am: the Monday before.
    ["2026-11-23T11:00:00Z", "weekly", 7, 1, "2026-11-16T12:00:00.000Z", "2026-11-16"],
  ] as const)("at %s a %s report at %i (weekday %i) was last due at %s", (now, frequency, hour, weekday, at, day) => {
    const last = lastReportTime({ frequency, hour, weekday }, new Date(now), NY);
    expect(last.at.toISOString()).toBe(at);
    expect(last.day).toBe(day);
  });

  it("is due only within six hours of its time, and not for a time before it was chosen", () => {
    const s = { frequency: "daily" as const, hour: 7, weekday: 1 };
    const chosen = new Date("2026-11-20T00:00:00Z");
    expect(dueReportTime(s, new Date("2026-11-23T12:03:00Z"), NY, chosen)?.day).toBe("2026-11-23");
    expect(dueReportTime(s, new Date("2026-11-23T18:00:00Z"), NY, chosen)).toBeNull();
    expect(dueReportTime(s, new Date("2026-11-23T12:03:00Z"), NY, new Date("2026-11-23T12:01:00Z"))).toBeNull();
  });

  it("covers the day before (or seven days) beside the week before", () => {
    expect(reportPeriods("daily", "2026-11-23")).toEqual({ current: { from: "2026-11-22", to: "2026-11-22" }, weekBefore: { from: "2026-11-15", to: "2026-11-15" } });
    expect(reportPeriods("weekly", "2026-11-23")).toEqual({ current: { from: "2026-11-16", to: "2026-11-22" }, weekBefore: { from: "2026-11-09", to: "2026-11-15" } });
  });

  it("names weekdays and hours", () => {
    expect(isoWeekday("2026-11-23")).toBe(1);
    expect(isoWeekday("2026-11-29")).toBe(7);
    expect([0, 7, 12, 23].map(hourLabel)).toEqual(["12 am", "7 am", "12 pm", "11 pm"]);
  });

  it("reads the preference form", () => {
    expect(reportPreferenceSchema.safeParse({ frequency: "weekly", hour: "7", weekday: "3" }).data).toEqual({ frequency: "weekly", hour: 7, weekday: 3 });
    expect(reportPreferenceSchema.safeParse({ frequency: "monthly", hour: "7" }).success).toBe(false);
    expect(reportPreferenceSchema.safeParse({ frequency: "daily", hour: "24" }).success).toBe(false);
  });
});
