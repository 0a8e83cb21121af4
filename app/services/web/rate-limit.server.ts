import { eq, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { rateLimitHits } from "~/db/schema";
import { addressLimitKey } from "~/domain/web/client-address";

/**
 * The key of a per-address limit: `scope:ip:` and the visitor's address as limits count it (an IPv6
 * address by its /64, decision 197). Every per-address limit builds its key here, so none of them
 * treats each address of one /64 as a new visitor (a guard test checks no other module builds one).
 */
export const addressKey = (scope: string, ip: string): string => `${scope}:ip:${addressLimitKey(ip)}`;

interface RateLimitResult {
  allowed: boolean;
  /** Hits counted in the current window, this one included. */
  count: number;
  /** When the window ends. */
  resetAt: Date;
  /** Whole minutes until the window ends (at least 1). */
  retryAfterMinutes: number;
}

/**
 * Counts one hit on `key` in a fixed window shared by every server process (the rate_limit_hits
 * table): one atomic upsert, so two processes or two requests at once never both slip under the
 * limit. A window that has ended starts again at 1.
 */
export async function hitRateLimit(
  db: Database,
  input: { key: string; limit: number; windowMs: number; now: Date },
): Promise<RateLimitResult> {
  const nowIso = input.now.toISOString();
  const resetIso = new Date(input.now.getTime() + input.windowMs).toISOString();
  const [row] = await db
    .insert(rateLimitHits)
    .values({ key: input.key, count: 1, resetAt: new Date(resetIso) })
    .onConflictDoUpdate({
      target: rateLimitHits.key,
      set: {
        count: sql`case when ${rateLimitHits.resetAt} <= ${nowIso}::timestamptz then 1 else ${rateLimitHits.count} + 1 end`,
        resetAt: sql`case when ${rateLimitHits.resetAt} <= ${nowIso}::timestamptz then ${resetIso}::timestamptz else ${rateLimitHits.resetAt} end`,
      },
    })
    .returning({ count: rateLimitHits.count, resetAt: rateLimitHits.resetAt });
  const resetAt = new Date(row!.resetAt);
  return {
    allowed: row!.count <= input.limit,
    count: row!.count,
    resetAt,
    retryAfterMinutes: Math.max(1, Math.ceil((resetAt.getTime() - input.now.getTime()) / 60_000)),
  };
}

/**
 * Counts one hit on each of several keys (each with its own limit and window) in ONE statement: one
 * round trip where a request checks more than one limit (issue 22). Results in the order given.
 */
export async function hitRateLimits(
  db: Database,
  inputs: { key: string; limit: number; windowMs: number }[],
  now: Date,
): Promise<RateLimitResult[]> {
  if (!inputs.length) return [];
  const nowIso = now.toISOString();
  const rows = await db
    .insert(rateLimitHits)
    .values(inputs.map((i) => ({ key: i.key, count: 1, resetAt: new Date(now.getTime() + i.windowMs) })))
    .onConflictDoUpdate({
      target: rateLimitHits.key,
      set: {
        count: sql`case when ${rateLimitHits.resetAt} <= ${nowIso}::timestamptz then 1 else ${rateLimitHits.count} + 1 end`,
        resetAt: sql`case when ${rateLimitHits.resetAt} <= ${nowIso}::timestamptz then excluded.reset_at else ${rateLimitHits.resetAt} end`,
      },
    })
    .returning({ key: rateLimitHits.key, count: rateLimitHits.count, resetAt: rateLimitHits.resetAt });
  return inputs.map((input) => {
    const row = rows.find((r) => r.key === input.key)!;
    const resetAt = new Date(row.resetAt);
    return {
      allowed: row.count <= input.limit,
      count: row.count,
      resetAt,
      retryAfterMinutes: Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 60_000)),
    };
  });
}

/**
 * Gives one hit back (e.g. a sign-in from an IP that turned out to be right), so a limit counts only
 * failures while every attempt is still counted before it is checked (no race past the limit).
 */
export async function refundRateLimit(db: Database, key: string): Promise<void> {
  await db
    .update(rateLimitHits)
    .set({ count: sql`greatest(${rateLimitHits.count} - 1, 0)` })
    .where(eq(rateLimitHits.key, key));
}

/** Forgets a key (e.g. an account's failed sign-ins after a successful one). */
export async function clearRateLimit(db: Database, key: string): Promise<void> {
  await db.delete(rateLimitHits).where(eq(rateLimitHits.key, key));
}

/** Removes windows that ended (called by the daily job). */
export async function pruneRateLimits(db: Database, now: Date): Promise<void> {
  await db.delete(rateLimitHits).where(sql`${rateLimitHits.resetAt} < ${now.toISOString()}::timestamptz`);
}

/** Hits counted on `key` in its current window, without counting one (0 when none or ended). */
export async function peekRateLimit(db: Database, key: string, now: Date): Promise<number> {
  const row = await db.query.rateLimitHits.findFirst({ where: eq(rateLimitHits.key, key) });
  if (!row || new Date(row.resetAt).getTime() <= now.getTime()) return 0;
  return row.count;
}
