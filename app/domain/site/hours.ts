import { TZDate } from "@date-fns/tz";

const DAY_CODES = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"] as const;
type DayCode = (typeof DAY_CODES)[number];

const DAY_NAMES: Record<DayCode, { short: string; long: string }> = {
  Mo: { short: "Mon", long: "Monday" },
  Tu: { short: "Tue", long: "Tuesday" },
  We: { short: "Wed", long: "Wednesday" },
  Th: { short: "Thu", long: "Thursday" },
  Fr: { short: "Fri", long: "Friday" },
  Sa: { short: "Sat", long: "Saturday" },
  Su: { short: "Sun", long: "Sunday" },
};

/** One hours item as stored (spec §3 "Item"). */
export interface HoursItemInput {
  days: string;
  open: string | null;
  close: string | null;
  isOpen24Hours: boolean;
  open24HoursText?: string;
  isClosed: boolean;
  closedText?: string;
  isDisplayText?: boolean;
  displayText?: string;
}

/** What one day looks like. */
type DaySchedule = (
  | { kind: "open24"; text: string }
  | { kind: "closed"; text: string }
  | { kind: "hours"; open: number; close: number }
) & {
  /** The item's display_text, shown instead of the times when its is_display_text is on. */
  display?: string;
};

interface DayRange {
  /** e.g. "Mon – Fri", "Sat", "Every day" */
  label: string;
  /** e.g. "9:00 AM – 6:00 PM", "Closed", "Open 24 hours" */
  text: string;
  days: DayCode[];
  /** schema.org openingHours fragment, e.g. "Mo-Fr 09:00-18:00" (absent when closed) */
  schemaOrg?: string;
}

/** Parses "HH:MM" (24-hour) into minutes after midnight; null if malformed. */
export function parseClock(value: string | null | undefined): number | null {
  if (!value) return null;
  const m = /^(\d{1,2}):(\d{2})$/.exec(value.trim());
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (h > 24 || min > 59 || (h === 24 && min > 0)) return null;
  return h * 60 + min;
}

/** Splits a comma-separated list of two-letter day codes, ignoring case, spaces and unknown codes. */
export function parseDayCodes(days: string): DayCode[] {
  const wanted = new Set(
    days
      .split(",")
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean),
  );
  return DAY_CODES.filter((code) => wanted.has(code.toLowerCase()));
}

/** The schedule of each of the seven days. Days no item names are closed. */
function weekSchedule(items: HoursItemInput[]): Record<DayCode, DaySchedule> {
  const week = Object.fromEntries(
    DAY_CODES.map((d) => [d, { kind: "closed", text: "Closed" } as DaySchedule]),
  ) as Record<DayCode, DaySchedule>;
  for (const item of items) {
    let schedule: DaySchedule | null = null;
    if (item.isOpen24Hours) schedule = { kind: "open24", text: item.open24HoursText || "Open 24 hours" };
    else if (item.isClosed) schedule = { kind: "closed", text: item.closedText || "Closed" };
    else {
      const open = parseClock(item.open);
      const close = parseClock(item.close);
      if (open !== null && close !== null) schedule = { kind: "hours", open, close };
    }
    if (!schedule) continue;
    // is_display_text: the operator's words ("By appointment", "Holiday hours vary") replace the
    // times on the page; open-now and schema.org still follow the times.
    const display = item.isDisplayText ? item.displayText?.trim() : "";
    if (display) schedule = { ...schedule, display };
    for (const day of parseDayCodes(item.days)) week[day] = schedule;
  }
  return week;
}

export function formatClock(minutes: number): string {
  const m = ((minutes % 1440) + 1440) % 1440;
  const h24 = Math.floor(m / 60);
  const mm = String(m % 60).padStart(2, "0");
  const suffix = h24 < 12 ? "AM" : "PM";
  const h12 = h24 % 12 === 0 ? 12 : h24 % 12;
  if (minutes === 1440) return "12:00 AM";
  return `${h12}:${mm} ${suffix}`;
}

function clock24(minutes: number): string {
  const h = Math.floor(minutes / 60);
  return `${String(h).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

function scheduleText(s: DaySchedule): string {
  if (s.display) return s.display;
  if (s.kind === "hours") return `${formatClock(s.open)} – ${formatClock(s.close)}`;
  return s.text;
}

function sameSchedule(a: DaySchedule, b: DaySchedule): boolean {
  return scheduleText(a) === scheduleText(b) && a.kind === b.kind;
}

/** Groups consecutive days with the same hours: "Mon – Fri 9:00 AM – 6:00 PM", "Sat …", "Sun Closed". */
export function groupHours(items: HoursItemInput[]): DayRange[] {
  const week = weekSchedule(items);
  const ranges: DayRange[] = [];
  for (const day of DAY_CODES) {
    const last = ranges.at(-1);
    const s = week[day];
    if (last && sameSchedule(week[last.days.at(-1)!], s)) last.days.push(day);
    else ranges.push({ label: "", text: scheduleText(s), days: [day] });
  }
  for (const r of ranges) {
    const first = r.days[0]!;
    const end = r.days.at(-1)!;
    r.label =
      r.days.length === 7
        ? "Every day"
        : r.days.length === 1
          ? DAY_NAMES[first].short
          : `${DAY_NAMES[first].short} – ${DAY_NAMES[end].short}`;
    const s = week[first];
    const span = r.days.length === 1 ? first : `${first}-${end}`;
    if (s.kind === "open24") r.schemaOrg = `${span} 00:00-23:59`;
    else if (s.kind === "hours") r.schemaOrg = `${span} ${clock24(s.open)}-${clock24(s.close)}`;
  }
  return ranges;
}

interface OpenStatus {
  isOpen: boolean;
  /** e.g. "Open now · closes at 10:00 PM", "Closed now · opens Monday at 9:00 AM", "Open 24 hours" */
  text: string;
  /** The day code of "today" in the location's time zone. */
  today: DayCode;
}

/**
 * One date's special hours as stored (issue 24, table special_hours): "YYYY-MM-DD" in the location's
 * time zone, closed all day or open from `open` to `close` ("HH:MM"; a close at or before the open
 * runs past midnight, as in the weekly hours).
 */
export interface SpecialHoursInput {
  date: string;
  label: string;
  isClosed: boolean;
  open: string | null;
  close: string | null;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The schedule special hours give their date; null when the record is unusable (open with no valid times). */
function specialSchedule(s: SpecialHoursInput): DaySchedule | null {
  if (s.isClosed) return { kind: "closed", text: "Closed" };
  const open = parseClock(s.open);
  const close = parseClock(s.close);
  return open !== null && close !== null ? { kind: "hours", open, close } : null;
}

/** The valid special hours by date (a malformed date or an open day without times is ignored). */
function specialsByDate(special: readonly SpecialHoursInput[]): Map<string, { input: SpecialHoursInput; schedule: DaySchedule }> {
  const byDate = new Map<string, { input: SpecialHoursInput; schedule: DaySchedule }>();
  for (const s of special) {
    const schedule = ISO_DATE.test(s.date) ? specialSchedule(s) : null;
    if (schedule) byDate.set(s.date, { input: s, schedule });
  }
  return byDate;
}

/** A calendar date `days` after `date` ("YYYY-MM-DD"), free of any time zone. */
function shiftDate(date: string, days: number): string {
  const [, y, m, d] = ISO_DATE.exec(date)!;
  return new Date(Date.UTC(Number(y), Number(m) - 1, Number(d) + days)).toISOString().slice(0, 10);
}

/** The day code of a calendar date. */
function dayCodeOf(date: string): DayCode {
  const [, y, m, d] = ISO_DATE.exec(date)!;
  return DAY_CODES[(new Date(Date.UTC(Number(y), Number(m) - 1, Number(d))).getUTCDay() + 6) % 7]!;
}

/** "Thu, Nov 26" for "2026-11-26". */
function shortDateLabel(date: string): string {
  const [, y, m, d] = ISO_DATE.exec(date)!;
  return new Date(Date.UTC(Number(y), Number(m) - 1, Number(d), 12)).toLocaleDateString("en-US", {
    timeZone: "UTC",
    weekday: "short",
    month: "short",
    day: "numeric",
  });
}

/** Day code, calendar date and minutes after midnight of `now` in the given IANA time zone. */
export function localDayAndMinutes(now: Date, timeZone: string): { day: DayCode; date: string; minutes: number } {
  const local = new TZDate(now.getTime(), timeZone);
  const dow = local.getDay(); // 0 = Sunday
  const day = DAY_CODES[(dow + 6) % 7]!;
  const date = `${local.getFullYear()}-${String(local.getMonth() + 1).padStart(2, "0")}-${String(local.getDate()).padStart(2, "0")}`;
  return { day, date, minutes: local.getHours() * 60 + local.getMinutes() };
}

function isOpenAt(s: DaySchedule, minutes: number): boolean {
  if (s.kind === "open24") return true;
  if (s.kind === "closed") return false;
  if (s.close > s.open) return minutes >= s.open && minutes < s.close;
  return minutes >= s.open; // closes after midnight: the early hours belong to the next day's check
}

/** How far ahead "Closed now · opens …" looks for the next opening. */
const NEXT_OPENING_DAYS = 14;

/**
 * Whether the hours say open at `now`, in the location's time zone, with a sentence for people.
 * Special hours (decision 325) replace the week's schedule on their date, including hours of the day
 * before that run past midnight and the search for the next opening.
 */
export function openStatus(items: HoursItemInput[], now: Date, timeZone: string, special: readonly SpecialHoursInput[] = []): OpenStatus {
  const week = weekSchedule(items);
  const specials = specialsByDate(special);
  const on = (date: string): DaySchedule => specials.get(date)?.schedule ?? week[dayCodeOf(date)];
  const { day, date, minutes } = localDayAndMinutes(now, timeZone);
  const today = on(date);
  const yesterday = on(shiftDate(date, -1));

  if (today.kind === "open24") return { isOpen: true, text: today.text, today: day };
  // Hours that ran past midnight from yesterday.
  if (yesterday.kind === "hours" && yesterday.close <= yesterday.open && minutes < yesterday.close) {
    return { isOpen: true, text: `Open now · closes at ${formatClock(yesterday.close)}`, today: day };
  }
  if (isOpenAt(today, minutes) && today.kind === "hours") {
    return { isOpen: true, text: `Open now · closes at ${formatClock(today.close)}`, today: day };
  }
  // Closed: find the next opening.
  if (today.kind === "hours" && minutes < today.open) {
    return { isOpen: false, text: `Closed now · opens today at ${formatClock(today.open)}`, today: day };
  }
  for (let i = 1; i <= NEXT_OPENING_DAYS; i++) {
    const next = shiftDate(date, i);
    const s = on(next);
    if (s.kind === "closed") continue;
    const when = i === 1 ? "tomorrow" : i < 7 ? DAY_NAMES[dayCodeOf(next)].long : shortDateLabel(next);
    const at = s.kind === "open24" ? "12:00 AM" : formatClock(s.open);
    return { isOpen: false, text: `Closed now · opens ${when} at ${at}`, today: day };
  }
  return { isOpen: false, text: "Closed", today: day };
}

/** One upcoming special-hours date as shown: "Thu, Nov 26 — Thanksgiving: Closed". */
export interface SpecialHoursView {
  date: string;
  /** "Thu, Nov 26" */
  dateLabel: string;
  label: string;
  /** "Closed" or "10:00 AM – 2:00 PM" */
  text: string;
  isToday: boolean;
  /** schema.org OpeningHoursSpecification times: "00:00"–"00:00" when closed all day (Google's convention). */
  opens: string;
  closes: string;
}

/** How many days ahead the location page lists special hours (today included). */
const SPECIAL_HOURS_DAYS_AHEAD = 60;

/**
 * The special hours from today (in the location's time zone) to `daysAhead` days later, by date.
 * Past dates are not shown; malformed records are left out.
 */
export function upcomingSpecialHours(
  special: readonly SpecialHoursInput[],
  now: Date,
  timeZone: string,
  daysAhead = SPECIAL_HOURS_DAYS_AHEAD,
): SpecialHoursView[] {
  const { date: today } = localDayAndMinutes(now, timeZone);
  const last = shiftDate(today, daysAhead);
  return [...specialsByDate(special).values()]
    .filter(({ input }) => input.date >= today && input.date <= last)
    .sort((a, b) => a.input.date.localeCompare(b.input.date))
    .map(({ input, schedule }) => ({
      date: input.date,
      dateLabel: shortDateLabel(input.date),
      label: input.label.trim(),
      text: scheduleText(schedule),
      isToday: input.date === today,
      opens: schedule.kind === "hours" ? clock24(schedule.open) : "00:00",
      closes: schedule.kind === "hours" ? clock24(schedule.close % 1440) : "00:00",
    }));
}

/** "Thu, Nov 26 — Thanksgiving: Closed"; without an occasion "Thu, Nov 26: Closed". */
export function specialHoursLine(s: Pick<SpecialHoursView, "dateLabel" | "label" | "text">): string {
  return `${s.dateLabel}${s.label ? ` — ${s.label}` : ""}: ${s.text}`;
}
