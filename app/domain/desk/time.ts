/**
 * The one way the console shows time (issue 39, decision 644): in the record's location's time zone,
 * with the zone named, "Sat 28 Nov 2026, 9:25 AM EST"; a calendar date alone, where only a date is
 * meant, "Sat 28 Nov 2026". Every console screen formats through these two (a guard test keeps
 * `toISOString`, `toUTCString`, `toLocale…String` and `Intl.DateTimeFormat` off the console's routes).
 * Pure: the caller passes the instant and the zone.
 */

const partsCache = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string, withTime: boolean): Intl.DateTimeFormat {
  const key = `${timeZone}|${withTime}`;
  let f = partsCache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      weekday: "short",
      day: "numeric",
      month: "short",
      year: "numeric",
      ...(withTime ? { hour: "numeric", minute: "2-digit", timeZoneName: "short" } : {}),
    });
    partsCache.set(key, f);
  }
  return f;
}

function pieces(at: Date, timeZone: string, withTime: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of formatterFor(timeZone, withTime).formatToParts(at)) out[p.type] = p.value;
  return out;
}

/** "Sat 28 Nov 2026, 9:25 AM EST": an instant in the location's time zone, the zone named. */
export function formatDeskTime(at: Date, timeZone: string): string {
  const p = pieces(at, timeZone, true);
  return `${p.weekday} ${p.day} ${p.month} ${p.year}, ${p.hour}:${p.minute} ${p.dayPeriod} ${p.timeZoneName}`;
}

/** "Sat 28 Nov 2026": a calendar date (YYYY-MM-DD, already the location's), no time and no zone. */
export function formatDeskDate(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!m) return iso;
  // Noon UTC of that date, read in UTC: the same calendar day whatever the server's zone.
  const p = pieces(new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 12)), "UTC", false);
  return `${p.weekday} ${p.day} ${p.month} ${p.year}`;
}
