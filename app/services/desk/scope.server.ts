import { and, asc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations } from "~/db/schema";
import { parseDeskFilter, type DeskFilter } from "~/domain/desk/filters";
import { localDate } from "~/domain/shared/calendar";
import type { LocationScope } from "~/domain/staff/roles";

/**
 * What every desk list shares (issue 23): the locations a member may see, and the filter read from
 * the query string with its location checked against them. A location outside the member's scope is
 * refused beside the field (as if it did not exist), never queried.
 */
export interface DeskViewer {
  accountId: number;
  scope: LocationScope;
}

export interface DeskLocation {
  id: number;
  name: string;
  /** IANA time zone of the location (dates on the desk are the location's calendar dates). */
  timeZone: string;
}

const LOCATION_NOT_YOURS = "Choose one of your locations from the list.";

/** The locations of the member's account within their scope, by name. */
export async function deskLocations(db: Database, viewer: DeskViewer): Promise<DeskLocation[]> {
  const where = viewer.scope.all
    ? eq(locations.accountId, viewer.accountId)
    : viewer.scope.locationIds.length
      ? and(eq(locations.accountId, viewer.accountId), inArray(locations.id, [...viewer.scope.locationIds]))
      : sql`false`;
  const rows = await db.select({ id: locations.id, name: locations.name, timeZone: locations.timeZone }).from(locations).where(where).orderBy(asc(locations.name), asc(locations.id));
  return rows.map((r) => ({ id: r.id, name: r.name, timeZone: r.timeZone.timeZoneId }));
}

export interface DeskQuery {
  filter: DeskFilter;
  errors: Partial<Record<keyof DeskFilter, string>>;
  /** The locations offered in the filter (the member's). */
  locations: DeskLocation[];
  /** The location ids to query: the one chosen, else all of the member's. Never empty of meaning: [] means none. */
  locationIds: number[];
}

/** Reads a list's filter from the URL and checks its location against the member's scope. */
export async function readDeskQuery(db: Database, viewer: DeskViewer, url: URL, statuses?: readonly string[], options: { kinds?: readonly string[]; due?: boolean } = {}): Promise<DeskQuery> {
  const parsed = parseDeskFilter(url.searchParams, statuses, options);
  const filter = { ...parsed.filter };
  const errors = parsed.ok ? {} : { ...parsed.errors };
  const mine = await deskLocations(db, viewer);
  if (filter.location !== undefined && !mine.some((l) => l.id === filter.location)) {
    errors.location = LOCATION_NOT_YOURS;
    delete filter.location;
  }
  const locationIds = filter.location !== undefined ? [filter.location] : mine.map((l) => l.id);
  return { filter, errors, locations: mine, locationIds };
}

/** `column in (ids)`, false for none (so an empty scope shows nothing). */
export function inLocations(column: SQL | Parameters<typeof inArray>[0], ids: readonly number[]): SQL {
  return ids.length ? inArray(column as Parameters<typeof inArray>[0], [...ids]) : sql`false`;
}

/** A timestamp's calendar date in the location's time zone (`timeZoneColumn` is locations.time_zone), as text. */
export function localDay(timestamp: SQL | Parameters<typeof inArray>[0], timeZoneColumn: SQL | Parameters<typeof inArray>[0] = locations.timeZone): SQL<string> {
  return sql<string>`(timezone(${timeZoneColumn}->>'timeZoneId', ${timestamp}))::date::text`;
}

/**
 * A rental's public reference: the first 20 hex digits of the SHA-256 of its id (the id itself is
 * the renter's cookie and never leaves the rental's own pages).
 */
export function rentalReference(idColumn: SQL | Parameters<typeof inArray>[0]): SQL<string> {
  return sql<string>`left(encode(sha256(convert_to(${idColumn}, 'UTF8')), 'hex'), 20)`;
}

/** The date-range condition on a day expression (YYYY-MM-DD text compares as dates). */
export function dayBetween(day: SQL<string>, filter: Pick<DeskFilter, "from" | "to">): SQL | undefined {
  const parts: SQL[] = [];
  if (filter.from) parts.push(sql`${day} >= ${filter.from}`);
  if (filter.to) parts.push(sql`${day} <= ${filter.to}`);
  return parts.length ? and(...parts) : undefined;
}

/** Whether `text` contains the search (case-insensitive), over several fields. */
export function matchesSearch(q: string | undefined, ...fields: Array<string | null | undefined>): boolean {
  if (!q) return true;
  const needle = q.toLowerCase();
  const digits = q.replace(/\D/g, "");
  return fields.some((f) => {
    if (!f) return false;
    if (f.toLowerCase().includes(needle)) return true;
    return digits.length >= 3 && f.replace(/\D/g, "").includes(digits);
  });
}

/** Today's date for a CSV file name (the first location's calendar, else UTC). */
export function deskToday(now: Date, locs: readonly DeskLocation[]): string {
  return localDate(now, locs[0]?.timeZone ?? "UTC");
}
