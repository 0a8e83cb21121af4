import { describe, expect, it } from "vitest";
import {
  formatClock,
  groupHours,
  localDayAndMinutes,
  openStatus,
  parseClock,
  parseDayCodes,
  type HoursItemInput,
} from "./hours";

const NY = "America/New_York";
const item = (days: string, open: string | null, close: string | null, extra: Partial<HoursItemInput> = {}): HoursItemInput => ({
  days,
  open,
  close,
  isOpen24Hours: false,
  isClosed: false,
  ...extra,
});

// The seeded hours (spec §9).
const lumbertonGate = [item("Mo,Tu,We,Th,Fr,Sa", "08:00", "22:00")];
const lumbertonOffice = [
  item("Mo,Tu,We,Th,Fr", "09:00", "18:00"),
  item("Sa", "09:00", "14:00"),
  item("Su", null, null, { isClosed: true }),
];
const open24Every = [item("Mo,Tu,We,Th,Fr,Sa,Su", null, null, { isOpen24Hours: true })];
const standardOffice = [item("Mo,Tu,We,Th,Fr", "08:00", "17:00"), item("Sa,Su", null, null, { isClosed: true })];

describe("parseClock", () => {
  it.each([
    ["08:00", 480],
    ["8:05", 485],
    [" 22:00 ", 1320],
    ["00:00", 0],
    ["24:00", 1440],
    ["24:01", null],
    ["25:00", null],
    ["12:60", null],
    ["noon", null],
    ["", null],
    [null, null],
  ])("%s → %s", (input, expected) => {
    expect(parseClock(input)).toBe(expected);
  });
});

describe("parseDayCodes", () => {
  it.each([
    ["Mo,Tu,We", ["Mo", "Tu", "We"]],
    ["su, mo", ["Mo", "Su"]],
    ["Sa,Xx,,Su", ["Sa", "Su"]],
    ["", []],
  ])("%j → %j", (input, expected) => {
    expect(parseDayCodes(input)).toEqual(expected);
  });
});

describe("formatClock", () => {
  it.each([
    [0, "12:00 AM"],
    [540, "9:00 AM"],
    [720, "12:00 PM"],
    [1080, "6:00 PM"],
    [1320, "10:00 PM"],
    [1439, "11:59 PM"],
    [1440, "12:00 AM"],
  ])("%i → %s", (minutes, expected) => {
    expect(formatClock(minutes)).toBe(expected);
  });
});

describe("groupHours", () => {
  it.each([
    [
      "Lumberton office",
      lumbertonOffice,
      [
        { label: "Mon – Fri", text: "9:00 AM – 6:00 PM", schemaOrg: "Mo-Fr 09:00-18:00" },
        { label: "Sat", text: "9:00 AM – 2:00 PM", schemaOrg: "Sa 09:00-14:00" },
        { label: "Sun", text: "Closed", schemaOrg: undefined },
      ],
    ],
    [
      "Lumberton gate (Sunday not listed, so closed)",
      lumbertonGate,
      [
        { label: "Mon – Sat", text: "8:00 AM – 10:00 PM", schemaOrg: "Mo-Sa 08:00-22:00" },
        { label: "Sun", text: "Closed", schemaOrg: undefined },
      ],
    ],
    ["24 hours every day", open24Every, [{ label: "Every day", text: "Open 24 hours", schemaOrg: "Mo-Su 00:00-23:59" }]],
    [
      "standard office hours",
      standardOffice,
      [
        { label: "Mon – Fri", text: "8:00 AM – 5:00 PM", schemaOrg: "Mo-Fr 08:00-17:00" },
        { label: "Sat – Sun", text: "Closed", schemaOrg: undefined },
      ],
    ],
    [
      "same hours on days that are not next to each other stay apart",
      [item("Mo,We", "09:00", "17:00"), item("Tu", "10:00", "16:00")],
      [
        { label: "Mon", text: "9:00 AM – 5:00 PM", schemaOrg: "Mo 09:00-17:00" },
        { label: "Tue", text: "10:00 AM – 4:00 PM", schemaOrg: "Tu 10:00-16:00" },
        { label: "Wed", text: "9:00 AM – 5:00 PM", schemaOrg: "We 09:00-17:00" },
        { label: "Thu – Sun", text: "Closed", schemaOrg: undefined },
      ],
    ],
    [
      "custom 24-hour and closed texts",
      [
        item("Mo,Tu,We,Th,Fr", null, null, { isOpen24Hours: true, open24HoursText: "24/7 keypad access" }),
        item("Sa,Su", null, null, { isClosed: true, closedText: "By appointment" }),
      ],
      [
        { label: "Mon – Fri", text: "24/7 keypad access", schemaOrg: "Mo-Fr 00:00-23:59" },
        { label: "Sat – Sun", text: "By appointment", schemaOrg: undefined },
      ],
    ],
    ["no items at all: closed every day", [], [{ label: "Every day", text: "Closed", schemaOrg: undefined }]],
    [
      "malformed times are ignored",
      [item("Mo,Tu,We,Th,Fr,Sa,Su", "nine", "17:00")],
      [{ label: "Every day", text: "Closed", schemaOrg: undefined }],
    ],
  ])("%s", (_name, items, expected) => {
    expect(groupHours(items).map(({ label, text, schemaOrg }) => ({ label, text, schemaOrg }))).toEqual(expected);
  });
});

describe("localDayAndMinutes", () => {
  it.each([
    // Winter: UTC-5.
    ["2026-01-12T14:30:00Z", "Mo", 9 * 60 + 30],
    // Late on Sunday evening in New York is already Monday in UTC.
    ["2026-01-12T03:30:00Z", "Su", 22 * 60 + 30],
    // Summer: UTC-4.
    ["2026-07-06T12:00:00Z", "Mo", 8 * 60],
    // DST starts 2026-03-08 at 02:00 EST: 06:59Z is 01:59 EST, 07:00Z is 03:00 EDT.
    ["2026-03-08T06:59:00Z", "Su", 1 * 60 + 59],
    ["2026-03-08T07:00:00Z", "Su", 3 * 60],
    // DST ends 2026-11-01 at 02:00 EDT: 05:30Z is 01:30 EDT, 06:30Z is 01:30 EST again.
    ["2026-11-01T05:30:00Z", "Su", 90],
    ["2026-11-01T06:30:00Z", "Su", 90],
  ])("%s is %s at minute %i in New York", (iso, day, minutes) => {
    expect(localDayAndMinutes(new Date(iso), NY)).toMatchObject({ day, minutes });
  });
});

describe("openStatus", () => {
  it.each([
    // Lumberton office, winter (UTC-5).
    ["before opening on a weekday", lumbertonOffice, "2026-01-12T13:30:00Z", false, "Closed now · opens today at 9:00 AM", "Mo"],
    ["at opening time", lumbertonOffice, "2026-01-12T14:00:00Z", true, "Open now · closes at 6:00 PM", "Mo"],
    ["one minute before closing", lumbertonOffice, "2026-01-12T22:59:00Z", true, "Open now · closes at 6:00 PM", "Mo"],
    ["at closing time", lumbertonOffice, "2026-01-12T23:00:00Z", false, "Closed now · opens tomorrow at 9:00 AM", "Mo"],
    ["Saturday afternoon after 2 PM", lumbertonOffice, "2026-01-17T19:30:00Z", false, "Closed now · opens Monday at 9:00 AM", "Sa"],
    ["Sunday (closed all day)", lumbertonOffice, "2026-01-18T17:00:00Z", false, "Closed now · opens tomorrow at 9:00 AM", "Su"],
    // Friday evening: Saturday opens next.
    ["Friday evening", lumbertonOffice, "2026-01-16T23:30:00Z", false, "Closed now · opens tomorrow at 9:00 AM", "Fr"],
    // 24-hour gate, any time.
    ["24-hour gate at 3 AM", open24Every, "2026-01-14T08:00:00Z", true, "Open 24 hours", "We"],
    ["24-hour gate on a DST change night", open24Every, "2026-03-08T07:30:00Z", true, "Open 24 hours", "Su"],
    // DST starts: Monday 2026-03-09 08:30 EDT is 12:30Z. Using the winter offset it would be 07:30, closed.
    ["the Monday after DST starts, 8:30 AM EDT", lumbertonGate, "2026-03-09T12:30:00Z", true, "Open now · closes at 10:00 PM", "Mo"],
    ["the Monday after DST starts, 7:30 AM EDT", lumbertonGate, "2026-03-09T11:30:00Z", false, "Closed now · opens today at 8:00 AM", "Mo"],
    // DST ends on Sunday 2026-11-01: Saturday night 21:59 EDT is open, 22:00 EDT closed until Monday.
    ["the Saturday night before DST ends, 9:59 PM", lumbertonGate, "2026-11-01T01:59:00Z", true, "Open now · closes at 10:00 PM", "Sa"],
    ["the Saturday night before DST ends, 10 PM", lumbertonGate, "2026-11-01T02:00:00Z", false, "Closed now · opens Monday at 8:00 AM", "Sa"],
    ["the Monday after DST ends, 8:00 AM EST", lumbertonGate, "2026-11-02T13:00:00Z", true, "Open now · closes at 10:00 PM", "Mo"],
    // A 24-hour block after closed days.
    [
      "closed weekdays, 24 hours on Sunday",
      [item("Su", null, null, { isOpen24Hours: true })],
      "2026-01-16T15:00:00Z",
      false,
      "Closed now · opens Sunday at 12:00 AM",
      "Fr",
    ],
    // Hours past midnight: Friday 20:00–02:00 is still open at 01:00 on Saturday.
    [
      "past midnight from the day before",
      [item("Fr", "20:00", "02:00")],
      "2026-01-17T06:00:00Z",
      true,
      "Open now · closes at 2:00 AM",
      "Sa",
    ],
    ["late on the evening itself", [item("Fr", "20:00", "02:00")], "2026-01-17T04:00:00Z", true, "Open now · closes at 2:00 AM", "Fr"],
    ["never open", [item("Mo,Tu,We,Th,Fr,Sa,Su", null, null, { isClosed: true })], "2026-01-12T15:00:00Z", false, "Closed", "Mo"],
  ])("%s", (_name, items, iso, isOpen, text, today) => {
    expect(openStatus(items, new Date(iso), NY)).toEqual({ isOpen, text, today });
  });

  it("uses the location's time zone, not the server's", () => {
    const now = new Date("2026-01-12T16:30:00Z"); // 11:30 in New York, 08:30 in Los Angeles
    expect(openStatus(lumbertonOffice, now, NY).isOpen).toBe(true);
    expect(openStatus(lumbertonOffice, now, "America/Los_Angeles").text).toBe("Closed now · opens today at 9:00 AM");
  });
});
