import { TZDate } from "@date-fns/tz";
import { z } from "zod";
import { addDaysIso, localDate, type IsoDate } from "../shared/calendar";

/**
 * Reports by e-mail (issue 40, decision 610). Pure: when a member's daily or weekly report is due in a
 * time zone, and which days it covers and compares with. The caller passes `now` and the zone.
 */
/** The report frequencies a member may choose; no preference row: no report. */
export const REPORT_FREQUENCIES = ["daily", "weekly"] as const;
export type ReportFrequency = (typeof REPORT_FREQUENCIES)[number];

export interface ReportSchedule {
  frequency: ReportFrequency;
  /** The hour of the day it is sent, 0–23, in each location's zone. */
  hour: number;
  /** Weekly: the day it is sent, 1 = Monday … 7 = Sunday (ISO). */
  weekday: number;
}

/** A report not sent within this long after its time (the servers were down) is skipped, not sent late. */
const REPORT_SEND_WITHIN_MS = 6 * 60 * 60_000;

export const REPORT_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;

/** ISO weekday (1 = Monday … 7 = Sunday) of a calendar date. */
export function isoWeekday(day: IsoDate): number {
  const d = new Date(`${day}T00:00:00Z`).getUTCDay();
  return d === 0 ? 7 : d;
}

/** The instant `hour`:00 of a local calendar date begins in `timeZone` (DST-aware). */
function localHourInstant(day: IsoDate, hour: number, timeZone: string): Date {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  return new Date(new TZDate(y, m - 1, d, hour, 0, 0, timeZone).getTime());
}

/**
 * The latest time the report was due at or before `now` in `timeZone`: today's (or, before the hour,
 * yesterday's) hour for a daily report; the last chosen weekday's for a weekly one. `day` is the local
 * date it is sent on.
 */
export function lastReportTime(schedule: ReportSchedule, now: Date, timeZone: string): { at: Date; day: IsoDate } {
  let day = localDate(now, timeZone);
  for (let i = 0; i < 9; i++) {
    const at = localHourInstant(day, schedule.hour, timeZone);
    if (at.getTime() <= now.getTime() && (schedule.frequency === "daily" || isoWeekday(day) === schedule.weekday)) return { at, day };
    day = addDaysIso(day, -1);
  }
  /* c8 ignore next */
  throw new Error("no report time in the last nine days");
}

/**
 * The report due now in `timeZone`, or null: its time has come, it is not older than
 * REPORT_SEND_WITHIN_MS, and it is not before the member chose it (`chosenAt`).
 */
export function dueReportTime(schedule: ReportSchedule, now: Date, timeZone: string, chosenAt: Date): { at: Date; day: IsoDate } | null {
  const last = lastReportTime(schedule, now, timeZone);
  if (now.getTime() - last.at.getTime() >= REPORT_SEND_WITHIN_MS) return null;
  if (last.at.getTime() < chosenAt.getTime()) return null;
  return last;
}

export interface ReportPeriod {
  from: IsoDate;
  to: IsoDate;
}

/**
 * What a report sent on `day` covers (inclusive calendar dates) and compares with, "the week before":
 * daily, the day before `day` and the same weekday a week earlier; weekly, the seven days before `day`
 * and the seven before those.
 */
export function reportPeriods(frequency: ReportFrequency, day: IsoDate): { current: ReportPeriod; weekBefore: ReportPeriod } {
  if (frequency === "daily") {
    const d = addDaysIso(day, -1);
    const w = addDaysIso(day, -8);
    return { current: { from: d, to: d }, weekBefore: { from: w, to: w } };
  }
  return { current: { from: addDaysIso(day, -7), to: addDaysIso(day, -1) }, weekBefore: { from: addDaysIso(day, -14), to: addDaysIso(day, -8) } };
}

/** The preference form (Conform + Zod): no report, or daily/weekly at an hour (weekly: on a weekday). */
export const reportPreferenceSchema = z.object({
  frequency: z.enum(["none", "daily", "weekly"], { message: "Choose daily, weekly or no report." }),
  hour: z.coerce.number({ message: "Choose the hour it is sent." }).int("Choose the hour it is sent.").min(0, "Choose the hour it is sent.").max(23, "Choose the hour it is sent.").default(7),
  weekday: z.coerce.number({ message: "Choose the day it is sent." }).int("Choose the day it is sent.").min(1, "Choose the day it is sent.").max(7, "Choose the day it is sent.").default(1),
});

/** "7 am", "12 pm", "12 am". */
export function hourLabel(hour: number): string {
  const h = hour % 12 === 0 ? 12 : hour % 12;
  return `${h} ${hour < 12 ? "am" : "pm"}`;
}
