import { sql } from "drizzle-orm";
import type { Database } from "../client.server";

/**
 * When availability next changes without any write: the earliest unit hold or active reservation
 * still to run out (epoch ms), or null. A stored page showing availability must end by then.
 */
export async function nextAvailabilityChange(db: Database): Promise<number | null> {
  const result = await db.execute(sql`
    select least(
      (select min(held_until) from units where held_until > now()),
      (select min(expires_at) from reservations where status = 'active' and expires_at > now())
    ) as at`);
  const at = (result as unknown as { rows: Array<{ at: string | Date | null }> }).rows[0]?.at;
  return at ? new Date(at).getTime() : null;
}

/**
 * Each location's earliest expiry of an active reservation (epoch ms), for the locations that have
 * one. A location absent from the map has no active reservation; one whose expiry is still ahead has
 * nothing for the sweep of expired reservations to do (issue 22: the rental context skips it then).
 */
export async function earliestReservationExpiries(db: Database): Promise<Map<number, number>> {
  const result = await db.execute(sql`select location_id, min(expires_at) as at from reservations where status = 'active' group by location_id`);
  const rows = (result as unknown as { rows: Array<{ location_id: number | string; at: string | Date }> }).rows;
  return new Map(rows.map((r) => [Number(r.location_id), new Date(r.at).getTime()]));
}
