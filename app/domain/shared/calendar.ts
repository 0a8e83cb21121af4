import { TZDate } from "@date-fns/tz";
/**
 * Calendar dates: "YYYY-MM-DD" strings, free of the process's time zone. The one module for them
 * (billing periods, the move-in quote, reservations, the portal). Pure: the caller passes `now`
 * and the location's time zone.
 */
import { addDays, addMonths, differenceInCalendarMonths, format, parseISO } from "date-fns";

export type IsoDate = string;

const ISO = /^\d{4}-\d{2}-\d{2}$/;

export function isIsoDate(value: string): boolean {
  if (!ISO.test(value)) return false;
  const d = parseISO(value);
  return !Number.isNaN(d.getTime()) && format(d, "yyyy-MM-dd") === value;
}

function toDate(iso: IsoDate): Date {
  if (!ISO.test(iso)) throw new Error(`Not a date: ${iso}`);
  return parseISO(iso);
}
function toIso(d: Date): IsoDate {
  return format(d, "yyyy-MM-dd");
}

/** One formatter per time zone: making an Intl.DateTimeFormat costs far more than using one (issue 22). */
const dayFormats = new Map<string, Intl.DateTimeFormat>();
function dayFormat(timeZone: string): Intl.DateTimeFormat {
  let f = dayFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
    if (dayFormats.size < 1_000) dayFormats.set(timeZone, f);
  }
  return f;
}

/** The calendar date of `now` in `timeZone`, e.g. "2026-11-22". */
export function localDate(now: Date, timeZone: string): IsoDate {
  const parts = dayFormat(timeZone).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")}`;
}

export function addDaysIso(date: IsoDate, days: number): IsoDate {
  return toIso(addDays(toDate(date), days));
}

/** Adds months, clamped to the month's end: 2026-01-31 + 1 = 2026-02-28. */
export function addMonthsIso(date: IsoDate, months: number): IsoDate {
  return toIso(addMonths(toDate(date), months));
}

/** "Nov 22, 2026" */
export function formatDate(iso: IsoDate): string {
  return format(toDate(iso), "MMM d, yyyy");
}

/** Whole calendar months from `from` to `to` (day of month ignored): 2026-11-30 → 2026-12-01 is 1. */
export function calendarMonthsBetween(from: IsoDate, to: IsoDate): number {
  return differenceInCalendarMonths(toDate(to), toDate(from));
}

/** The instant a local calendar date begins in `timeZone` (midnight there; DST-aware). */
export function startOfLocalDay(date: IsoDate, timeZone: string): Date {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(new TZDate(y, m - 1, d, 0, 0, 0, timeZone).getTime());
}
