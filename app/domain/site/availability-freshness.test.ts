import { describe, expect, it } from "vitest";
import { availabilityAsOfText } from "./availability-freshness";

const NY = "America/New_York";

describe("availabilityAsOfText", () => {
  it.each([
    ["same day, afternoon", "2026-11-24T19:41:00Z", "2026-11-24T19:42:30Z", undefined, "Availability as of 2:41 PM."],
    ["same day, morning", "2026-11-24T14:05:00Z", "2026-11-24T14:06:00Z", undefined, "Availability as of 9:05 AM."],
    ["yesterday in the location's zone (same UTC day)", "2026-11-24T04:30:00Z", "2026-11-24T06:00:00Z", undefined, "Availability as of Nov 23, 11:30 PM."],
    ["with the location name", "2026-11-24T19:41:00Z", "2026-11-24T19:50:00Z", "Lumberton", "Availability at Lumberton as of 2:41 PM."],
  ])("%s", (_what, asOf, now, name, text) => {
    expect(availabilityAsOfText(new Date(asOf), NY, new Date(now), name)).toBe(text);
  });
});
