/**
 * The move-in date of an online rental (spec §9 rental_days_in_advance, "Rentals on Sunday allowed").
 * Dates are calendar days in the location's time zone ("YYYY-MM-DD"); the caller passes today. Pure.
 * docs/decisions/094.
 */
import { addDaysIso } from "../shared/calendar";

/** Sunday? (calendar arithmetic at noon UTC, free of the process's time zone) */
export function isSunday(day: string): boolean {
  return new Date(`${day}T12:00:00Z`).getUTCDay() === 0;
}

/**
 * The move-in dates a visitor may pick: today to today + daysInAdvance, without Sundays when rentals
 * on Sunday are not allowed. With 0 days in advance: today only (or none on a Sunday).
 */
export function moveInDates(today: string, daysInAdvance: number, sundayAllowed: boolean): string[] {
  const n = Math.max(0, Math.floor(daysInAdvance));
  const days = Array.from({ length: n + 1 }, (_, i) => addDaysIso(today, i));
  return sundayAllowed ? days : days.filter((d) => !isSunday(d));
}

/** The date to use: the one chosen when it is still allowed, else the first allowed one (null: none). */
export function effectiveMoveInDate(chosen: string | null | undefined, allowed: readonly string[]): string | null {
  if (chosen && allowed.includes(chosen)) return chosen;
  return allowed[0] ?? null;
}
