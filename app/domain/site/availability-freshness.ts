/**
 * How fresh the unit counts on a page are (issue 11 §3, docs/decisions/111): a location served by
 * SiteLink shows counts from the last inventory sync, so the page says when that was, in the
 * location's time zone. Live counts (our own database) say nothing.
 */

function parts(date: Date, timeZone: string) {
  const f = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" });
  const p = Object.fromEntries(f.formatToParts(date).map((x) => [x.type, x.value]));
  return { day: `${p.month} ${p.day}, ${p.year}`, monthDay: `${p.month} ${p.day}`, time: `${p.hour}:${p.minute} ${p.dayPeriod}` };
}

/**
 * "Availability as of 2:41 PM." when the sync was today (location time), otherwise
 * "Availability as of Nov 23, 2:41 PM."; with a location name: "Availability at Lumberton as of …".
 */
export function availabilityAsOfText(asOf: Date, timeZone: string, now: Date, locationName?: string): string {
  const then = parts(asOf, timeZone);
  const today = parts(now, timeZone);
  const when = then.day === today.day ? then.time : `${then.monthDay}, ${then.time}`;
  return `Availability${locationName ? ` at ${locationName}` : ""} as of ${when}.`;
}
