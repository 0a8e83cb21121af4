import { expect, it } from "vitest";
import { formatDeskTime } from "./time";

it("shows a time in the location's time zone", () => {
  const at = new Date("2026-11-22T15:04:00Z");
  expect(formatDeskTime(at, "America/New_York")).toBe("Nov 22, 2026, 10:04 AM EST");
  expect(formatDeskTime(at, "America/Chicago")).toBe("Nov 22, 2026, 9:04 AM CST");
});
