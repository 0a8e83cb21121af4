import { describe, expect, it } from "vitest";
import { groupHours, openStatus } from "./hours";
import { googleOpeningHours, hoursView } from "./location-page";

const item = (days: string, open: string | null, close: string | null, extra: Record<string, unknown> = {}) => ({
  days,
  open,
  close,
  isOpen24Hours: false,
  isClosed: false,
  ...extra,
});

describe("hours items' display_text (is_display_text)", () => {
  it("replaces the times on the page; schema.org and open-now still follow the times", () => {
    const items = [
      item("Mo,Tu,We,Th,Fr", "09:00", "18:00"),
      item("Sa", "09:00", "14:00", { isDisplayText: true, displayText: "By appointment" }),
      item("Su", null, null, { isClosed: true, isDisplayText: true, displayText: "Closed for church" }),
    ];
    expect(groupHours(items).map((r) => [r.label, r.text, r.schemaOrg])).toEqual([
      ["Mon – Fri", "9:00 AM – 6:00 PM", "Mo-Fr 09:00-18:00"],
      ["Sat", "By appointment", "Sa 09:00-14:00"],
      ["Sun", "Closed for church", undefined],
    ]);
    // Saturday 10:00 in Lumberton: open.
    expect(openStatus(items, new Date("2026-11-28T15:00:00Z"), "America/New_York").isOpen).toBe(true);
  });

  it("is ignored when is_display_text is off or the text is blank", () => {
    const items = [item("Mo,Tu,We,Th,Fr,Sa,Su", "08:00", "17:00", { isDisplayText: false, displayText: "Ignored" }), item("Sa", "08:00", "12:00", { isDisplayText: true, displayText: "  " })];
    expect(groupHours(items).map((r) => r.text)).toEqual(["8:00 AM – 5:00 PM", "8:00 AM – 12:00 PM", "8:00 AM – 5:00 PM"]);
  });
});

describe("JSON-LD openingHours from the block with show_on_google_my_business", () => {
  const gate = { type: "gate" as const, isAvailable: true, displayText: "", items: [item("Mo,Tu,We,Th,Fr,Sa,Su", null, null, { isOpen24Hours: true })] };
  const office = { type: "office" as const, isAvailable: true, displayText: "", items: [item("Mo,Tu,We,Th,Fr", "08:00", "17:00")] };
  const now = new Date("2026-11-24T15:00:00Z");
  const ld = (g: boolean, o: boolean) =>
    googleOpeningHours(hoursView([{ ...gate, showOnGoogleMyBusiness: g }, { ...office, showOnGoogleMyBusiness: o }], now, "America/New_York"));

  it.each([
    [true, true, ["Mo-Fr 08:00-17:00"]],
    [false, true, ["Mo-Fr 08:00-17:00"]],
    [true, false, ["Mo-Su 00:00-23:59"]],
    [false, false, []],
  ])("gate %s, office %s → %j", (g, o, expected) => {
    expect(ld(g, o)).toEqual(expected);
  });
});
