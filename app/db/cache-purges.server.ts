/**
 * The queue of shared-cache purges (issue 41, decision 570): filled by the `gatehouse_changed`
 * triggers in the writing transaction (drizzle/0020_cache_purges.sql), emptied by whichever server
 * process claims the rows first: one claimer at a time, under a transaction-scoped advisory lock (safe
 * through a pooler in transaction mode).
 */
import { inArray, sql } from "drizzle-orm";
import type { Database } from "./client.server";
import { cachePurges } from "./schema";

/** The purge queue's advisory lock (one key of its own). */
const PURGE_QUEUE_LOCK = 24_570;

/**
 * Claims (deletes) up to `limit` queued tags and returns them without repeats; [] while another process
 * is claiming (it will purge them; a change committed meanwhile notifies it too, and it claims again).
 * One claimer at a time: one change queues a tag per changed row, so two processes claiming side by
 * side could each take rows naming the same page, and both would purge it.
 */
export async function claimQueuedPurges(db: Database, limit = 5_000): Promise<string[]> {
  return db.transaction(async (tx) => {
    const lock = (await tx.execute(sql`select pg_try_advisory_xact_lock(${PURGE_QUEUE_LOCK}) as claimed`)) as unknown as { rows: Array<{ claimed: boolean }> };
    if (!lock.rows[0]?.claimed) return [];
    const ids = tx.select({ id: cachePurges.id }).from(cachePurges).orderBy(cachePurges.id).limit(limit).for("update", { skipLocked: true });
    const rows = await tx.delete(cachePurges).where(inArray(cachePurges.id, ids)).returning({ tag: cachePurges.tag });
    return [...new Set(rows.map((r) => r.tag))];
  });
}

/** Puts tags back after a purge that failed (tried again later). */
export async function requeuePurges(db: Database, tags: readonly string[]): Promise<void> {
  if (tags.length) await db.insert(cachePurges).values(tags.map((tag) => ({ tag })));
}
