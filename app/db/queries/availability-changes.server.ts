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
