import { describe, expect, it } from "vitest";
import { openStatus, specialHoursLine, upcomingSpecialHours, type HoursItemInput, type SpecialHoursInput } from "./hours";
import { hoursView, selfStorageJsonLd, specialOpeningHoursJsonLd } from "./location-page";

const NY = "America/New_York";
const LA = "America/Los_Angeles";
const item = (days: string, open: string | null, close: string | null, extra: Partial<HoursItemInput> = {}): HoursItemInput => ({
  days,
  open,
  close,
  isOpen24Hours: false,
  isClosed: false,
  ...extra,
});
const closed = (date: string, label = ""): SpecialHoursInput => ({ date, label, isClosed: true, open: null, close: null });
const special = (date: string, open: string, close: string, label = ""): SpecialHoursInput => ({ date, label, isClosed: false, open, close });

// Lumberton's office (seed): weekdays 9–6, Saturday 9–2, Sunday closed.
const office = [item("Mo,Tu,We,Th,Fr", "09:00", "18:00"), item("Sa", "09:00", "14:00"), item("Su", null, null, { isClosed: true })];
const gate = [item("Mo,Tu,We,Th,Fr,Sa", "08:00", "22:00")];

describe("openStatus with special hours (decision 325)", () => {
  it.each([
    // Thanksgiving 2026 is Thursday, Nov 26 (EST, UTC-5).
    ["closed on its date, at a time the week says open", [closed("2026-11-26", "Thanksgiving")], "2026-11-26T16:00:00Z", false, "Closed now · opens tomorrow at 9:00 AM", "Th"],
    ["the day before is unchanged", [closed("2026-11-26", "Thanksgiving")], "2026-11-25T16:00:00Z", true, "Open now · closes at 6:00 PM", "We"],
    ["the next opening skips the closed date", [closed("2026-11-26")], "2026-11-25T23:30:00Z", false, "Closed now · opens Friday at 9:00 AM", "We"],
    ["short hours: open inside them", [special("2026-11-27", "10:00", "14:00", "Black Friday")], "2026-11-27T16:00:00Z", true, "Open now · closes at 2:00 PM", "Fr"],
    ["short hours: closed after them though the week says open", [special("2026-11-27", "10:00", "14:00")], "2026-11-27T20:00:00Z", false, "Closed now · opens tomorrow at 9:00 AM", "Fr"],
    ["short hours: before opening", [special("2026-11-27", "10:00", "14:00")], "2026-11-27T14:30:00Z", false, "Closed now · opens today at 10:00 AM", "Fr"],
    ["open on a Sunday the week closes", [special("2026-11-29", "12:00", "16:00")], "2026-11-29T18:00:00Z", true, "Open now · closes at 4:00 PM", "Su"],
    ["the next opening is a special Sunday", [special("2026-11-29", "12:00", "16:00")], "2026-11-28T20:00:00Z", false, "Closed now · opens tomorrow at 12:00 PM", "Sa"],
    // Midnight in New York: 04:59Z on Nov 26 is 23:59 on the 25th; 05:00Z is 00:00 on the 26th.
    ["one minute before midnight: the day before's hours", [special("2026-11-26", "00:00", "23:59")], "2026-11-26T04:59:00Z", false, "Closed now · opens tomorrow at 12:00 AM", "We"],
    ["at midnight: the special date starts", [special("2026-11-26", "00:00", "23:59")], "2026-11-26T05:00:00Z", true, "Open now · closes at 11:59 PM", "Th"],
    // Special hours that run past midnight carry into the next morning; a closed special date ends them.
    ["past midnight from a special evening", [special("2026-12-31", "20:00", "02:00", "New Year's Eve")], "2027-01-01T06:30:00Z", true, "Open now · closes at 2:00 AM", "Fr"],
    ["a week's late evening does not carry into a closed special date", [closed("2026-11-28")], "2026-11-28T05:30:00Z", false, "Closed now · opens Monday at 9:00 AM", "Sa"],
    // DST ends Sunday 2026-11-01 (01:00–02:00 happens twice); a special Sunday is judged on local time.
    ["DST end: a special Sunday at 10:00 EST", [special("2026-11-01", "09:00", "12:00")], "2026-11-01T15:00:00Z", true, "Open now · closes at 12:00 PM", "Su"],
    ["DST end: 12:00 EST is closing time", [special("2026-11-01", "09:00", "12:00")], "2026-11-01T17:00:00Z", false, "Closed now · opens tomorrow at 9:00 AM", "Su"],
    // DST starts Sunday 2026-03-08: 09:00 EDT is 13:00Z (with the winter offset it would be 08:00, closed).
    ["DST start: a special Sunday at 9:00 EDT", [special("2026-03-08", "09:00", "12:00")], "2026-03-08T13:00:00Z", true, "Open now · closes at 12:00 PM", "Su"],
    // A record that is open with no valid times is ignored: the week applies.
    ["an unusable record is ignored", [{ date: "2026-11-26", label: "", isClosed: false, open: null, close: "14:00" }], "2026-11-26T16:00:00Z", true, "Open now · closes at 6:00 PM", "Th"],
  ])("%s", (_name, specials, iso, isOpen, text, today) => {
    expect(openStatus(office, new Date(iso), NY, specials)).toEqual({ isOpen, text, today });
  });

  it("the date is the location's: the same moment is another date in Los Angeles", () => {
    const specials = [closed("2026-11-26")];
    // 2026-11-27T04:00Z is 23:00 on Nov 26 in New York, 20:00 on Nov 26 in Los Angeles: both on the closed date.
    expect(openStatus(office, new Date("2026-11-27T04:00:00Z"), NY, specials).today).toBe("Th");
    // 2026-11-26T06:00Z is 01:00 on the 26th in New York (closed date), 22:00 on the 25th in Los Angeles.
    expect(openStatus(office, new Date("2026-11-26T06:00:00Z"), NY, specials).text).toBe("Closed now · opens tomorrow at 9:00 AM");
    expect(openStatus(office, new Date("2026-11-26T06:00:00Z"), LA, specials).text).toBe("Closed now · opens Friday at 9:00 AM");
  });

  it("says the date when the next opening is a week or more away", () => {
    const everyDayClosed = Array.from({ length: 8 }, (_, i) => closed(`2026-11-${String(20 + i).padStart(2, "0")}`));
    expect(openStatus(office, new Date("2026-11-20T15:00:00Z"), NY, everyDayClosed).text).toBe("Closed now · opens Sat, Nov 28 at 9:00 AM");
  });
});

describe("upcomingSpecialHours", () => {
  const specials = [
    closed("2026-11-26", "Thanksgiving"),
    special("2026-11-27", "10:00", "14:00", "Black Friday"),
    closed("2026-11-20", "Past"),
    closed("2027-02-10", "Too far"),
    closed("2026-12-25", " Christmas Day "),
    { date: "26-12-31", label: "Bad date", isClosed: true, open: null, close: null },
  ];

  it("lists today and the next 60 days, by date, past and far dates left out", () => {
    const list = upcomingSpecialHours(specials, new Date("2026-11-26T15:00:00Z"), NY);
    expect(list.map(specialHoursLine)).toEqual([
      "Thu, Nov 26 — Thanksgiving: Closed",
      "Fri, Nov 27 — Black Friday: 10:00 AM – 2:00 PM",
      "Fri, Dec 25 — Christmas Day: Closed",
    ]);
    expect(list.map((s) => s.isToday)).toEqual([true, false, false]);
  });

  it("turns at the location's midnight, not the server's", () => {
    // 04:59Z on Nov 27 is 23:59 on Nov 26 in New York: Thanksgiving is still today.
    expect(upcomingSpecialHours(specials, new Date("2026-11-27T04:59:00Z"), NY)[0]!.date).toBe("2026-11-26");
    expect(upcomingSpecialHours(specials, new Date("2026-11-27T05:00:00Z"), NY)[0]!.date).toBe("2026-11-27");
  });

  it("says the date without an occasion", () => {
    expect(specialHoursLine(upcomingSpecialHours([closed("2026-11-26")], new Date("2026-11-26T15:00:00Z"), NY)[0]!)).toBe("Thu, Nov 26: Closed");
  });
});

describe("special hours on the location page", () => {
  const blocks = [
    { type: "gate" as const, isAvailable: true, displayText: "", items: gate },
    { type: "office" as const, isAvailable: true, displayText: "", items: office },
  ];
  const thanksgivingNoon = new Date("2026-11-26T17:00:00Z");

  it("change the office's status; the gate keeps its week", () => {
    const view = hoursView(blocks, thanksgivingNoon, NY, [closed("2026-11-26")]);
    expect(view.map((h) => [h.type, h.status.isOpen])).toEqual([
      ["office", false],
      ["gate", true],
    ]);
  });

  it("change the gate's status when the location shows no office hours", () => {
    const view = hoursView([blocks[0]!, { ...blocks[1]!, isAvailable: false }], thanksgivingNoon, NY, [closed("2026-11-26")]);
    expect(view.map((h) => [h.type, h.status.isOpen])).toEqual([["gate", false]]);
  });

  it("are in the JSON-LD as specialOpeningHoursSpecification", () => {
    const upcoming = upcomingSpecialHours([closed("2026-11-26"), special("2026-11-27", "10:00", "14:00"), special("2026-12-31", "20:00", "24:00")], thanksgivingNoon, NY);
    const jsonLd = selfStorageJsonLd({ name: "X", phone: "1", address: null, officeHours: [], sameAs: [], specialHours: specialOpeningHoursJsonLd(upcoming) });
    expect(jsonLd.specialOpeningHoursSpecification).toEqual([
      { "@type": "OpeningHoursSpecification", validFrom: "2026-11-26", validThrough: "2026-11-26", opens: "00:00", closes: "00:00" },
      { "@type": "OpeningHoursSpecification", validFrom: "2026-11-27", validThrough: "2026-11-27", opens: "10:00", closes: "14:00" },
      { "@type": "OpeningHoursSpecification", validFrom: "2026-12-31", validThrough: "2026-12-31", opens: "20:00", closes: "00:00" },
    ]);
    expect(selfStorageJsonLd({ name: "X", phone: "1", address: null, officeHours: [], sameAs: [] })).not.toHaveProperty("specialOpeningHoursSpecification");
  });
});
