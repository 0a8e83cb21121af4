import { describe, expect, it } from "vitest";
import { formatDeskDate, formatDeskTime } from "./time";

describe("formatDeskTime (decision 644)", () => {
  it.each([
    ["2026-11-28T14:25:00Z", "America/New_York", "Sat 28 Nov 2026, 9:25 AM EST"],
    ["2026-11-22T15:04:00Z", "America/Chicago", "Sun 22 Nov 2026, 9:04 AM CST"],
    ["2026-07-04T16:00:00Z", "America/New_York", "Sat 4 Jul 2026, 12:00 PM EDT"],
    // Just after midnight UTC is still the evening before in New York.
    ["2026-12-01T03:30:00Z", "America/New_York", "Mon 30 Nov 2026, 10:30 PM EST"],
  ])("%s in %s is %s", (iso, zone, shown) => {
    expect(formatDeskTime(new Date(iso), zone)).toBe(shown);
  });
});

describe("formatDeskDate", () => {
  it.each([
    ["2026-11-28", "Sat 28 Nov 2026"],
    ["2027-01-01", "Fri 1 Jan 2027"],
    ["not a date", "not a date"],
  ])("%s is %s", (iso, shown) => {
    expect(formatDeskDate(iso)).toBe(shown);
  });
});
