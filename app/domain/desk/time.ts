/**
 * Times on the back office's pages, in the record's location's time zone (issue 23): "Nov 22, 2026,
 * 10:04 AM EST". Pure.
 */
export function formatDeskTime(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  }).format(at);
}
