/**
 * The queue of shared-cache purges (issue 41, decision 570): filled by the `gatehouse_changed`
 * triggers in the writing transaction (drizzle/0020_cache_purges.sql), emptied by whichever server
 * process claims the rows first (SKIP LOCKED: two processes never claim the same row).
 */
import { inArray } from "drizzle-orm";
import type { Database } from "./client.server";
import { cachePurges } from "./schema";

/** Claims (deletes) up to `limit` queued tags and returns them without repeats. */
export async function claimQueuedPurges(db: Database, limit = 5_000): Promise<string[]> {
  const ids = db.select({ id: cachePurges.id }).from(cachePurges).orderBy(cachePurges.id).limit(limit).for("update", { skipLocked: true });
  const rows = await db.delete(cachePurges).where(inArray(cachePurges.id, ids)).returning({ tag: cachePurges.tag });
  return [...new Set(rows.map((r) => r.tag))];
}

/** Puts tags back after a purge that failed (tried again later). */
export async function requeuePurges(db: Database, tags: readonly string[]): Promise<void> {
  if (tags.length) await db.insert(cachePurges).values(tags.map((tag) => ({ tag })));
}
