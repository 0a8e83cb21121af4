/**
 * Mail that could not be sent (issue 39, decision 645): outbox rows never sent that the mail server
 * refused or that were given up (`failed_at`), by the location each is about (`email_outbox.location_id`).
 * The console home counts them per location with this very function, and links to its list, so the
 * number and the list's count are the same.
 *
 * Scope: a member sees the rows of their locations; mail about no location (a staff invitation, a
 * password reset) only an owner sees, and only when no location is chosen.
 */
import { and, count, desc, eq, inArray, isNotNull, isNull, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { emailOutbox, locations } from "~/db/schema";
import { DESK_PAGE_SIZE, type DeskFilter } from "~/domain/desk/filters";
import { formatDeskTime } from "~/domain/desk/time";
import { deskLocations, type DeskViewer } from "../desk/scope.server";

interface UnsentMailRow {
  id: number;
  to: string;
  subject: string;
  location: string;
  /** When it was written, in its location's zone (the first of the member's for mail about none). */
  at: string;
  state: "failed" | "retrying";
  attempts: number;
  error: string | null;
}

type UnsentResult = { ok: true; rows: UnsentMailRow[]; total: number } | { ok: false; field: "location"; message: string };

/** Never sent, and either given up or refused at least once by the mail server. */
const couldNotBeSent: SQL = and(isNull(emailOutbox.sentAt), or(isNotNull(emailOutbox.failedAt), isNotNull(emailOutbox.error)))!;

/** The mail that could not be sent at the member's locations (or the one chosen), newest first, one page. */
export async function listUnsentMail(db: Database, viewer: DeskViewer, filter: Pick<DeskFilter, "location" | "page">): Promise<UnsentResult> {
  const mine = await deskLocations(db, viewer);
  if (filter.location !== undefined && !mine.some((l) => l.id === filter.location)) return { ok: false, field: "location", message: "Choose one of your locations from the list." };
  const ids = filter.location !== undefined ? [filter.location] : mine.map((l) => l.id);
  const where = and(
    couldNotBeSent,
    filter.location === undefined && viewer.scope.all
      ? or(ids.length ? inArray(emailOutbox.locationId, ids) : sql`false`, isNull(emailOutbox.locationId))
      : ids.length
        ? inArray(emailOutbox.locationId, ids)
        : sql`false`,
  );
  const [total] = await db.select({ n: count() }).from(emailOutbox).where(where);
  const rows = await db
    .select({
      id: emailOutbox.id,
      to: emailOutbox.to,
      subject: emailOutbox.subject,
      createdAt: emailOutbox.createdAt,
      failedAt: emailOutbox.failedAt,
      attempts: emailOutbox.attempts,
      error: emailOutbox.error,
      location: locations.name,
      zone: sql<string | null>`${locations.timeZone}->>'timeZoneId'`,
    })
    .from(emailOutbox)
    .leftJoin(locations, eq(locations.id, emailOutbox.locationId))
    .where(where)
    .orderBy(desc(emailOutbox.createdAt), desc(emailOutbox.id))
    .limit(DESK_PAGE_SIZE)
    .offset((filter.page - 1) * DESK_PAGE_SIZE);
  const fallbackZone = mine[0]?.timeZone ?? "America/New_York";
  return {
    ok: true,
    total: total?.n ?? 0,
    rows: rows.map((r) => ({
      id: r.id,
      to: r.to,
      subject: r.subject,
      location: r.location ?? "No location (staff mail)",
      at: formatDeskTime(new Date(r.createdAt), r.zone ?? fallbackZone),
      state: r.failedAt ? "failed" : "retrying",
      attempts: r.attempts,
      error: r.error,
    })),
  };
}
