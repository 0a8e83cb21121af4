/**
 * Housekeeping of the content's history (issue 24, decision 361): prunes the snapshots of old
 * published versions and deletes uploaded images nothing can show again, by the rule in
 * app/domain/content-retention.ts. Each account is done in one transaction under the publish lock,
 * so a publish or restore never sees half of it; several processes running it at once do no harm.
 */
import { and, eq, gte, inArray, isNotNull, lt, notInArray, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { accounts, auditEvents, changesetChanges, changesets, mediaFiles } from "~/db/schema";
import { CONTENT_RETENTION, mediaReferences, retentionCutoff, versionsToPrune, type RetentionRule } from "~/domain/content/retention";
import { PUBLISH_LOCK, readSnapshot } from "./publish.server";

interface RetentionOutcome {
  snapshotsPruned: number;
  mediaDeleted: number;
}

/** Prunes every account's history (see the module comment). */
export async function pruneContentHistory(db: Database, now: Date, rule: RetentionRule = CONTENT_RETENTION): Promise<RetentionOutcome> {
  const total: RetentionOutcome = { snapshotsPruned: 0, mediaDeleted: 0 };
  for (const { id } of await db.select({ id: accounts.id }).from(accounts)) {
    const r = await db.transaction((tx) => pruneAccount(tx, id, now, rule));
    total.snapshotsPruned += r.snapshotsPruned;
    total.mediaDeleted += r.mediaDeleted;
  }
  return total;
}

async function pruneAccount(tx: Transaction, accountId: number, now: Date, rule: RetentionRule): Promise<RetentionOutcome> {
  await tx.execute(sql`select pg_advisory_xact_lock(${PUBLISH_LOCK}, ${accountId})`);
  const published = and(eq(changesets.accountId, accountId), eq(changesets.status, "published"), isNotNull(changesets.version));
  const versions = await tx.select({ version: changesets.version, publishedAt: changesets.publishedAt }).from(changesets).where(published);
  const prune = versionsToPrune(
    versions.map((v) => ({ version: v.version!, publishedAt: v.publishedAt })),
    now,
    rule,
  );
  const pruned = prune.length
    ? await tx
        .update(changesets)
        .set({ snapshot: null })
        .where(and(published, inArray(changesets.version, prune), isNotNull(changesets.snapshot)))
        .returning({ id: changesets.id })
    : [];

  const cutoff = retentionCutoff(now, rule);
  const candidates = await tx
    .select({ id: mediaFiles.id, sha256: mediaFiles.sha256 })
    .from(mediaFiles)
    .where(and(eq(mediaFiles.accountId, accountId), lt(mediaFiles.createdAt, cutoff)));
  if (candidates.length === 0) return { snapshotsPruned: pruned.length, mediaDeleted: 0 };

  // What may still be shown: the live content, kept snapshots, changesets that are not history
  // (draft, scheduled, failed) or whose version is kept, and recent audit entries (revert this field).
  const texts: string[] = [JSON.stringify(await readSnapshot(tx, accountId))];
  const kept = await tx.select({ snapshot: sql<string>`${changesets.snapshot}::text` }).from(changesets).where(and(published, isNotNull(changesets.snapshot)));
  texts.push(...kept.map((k) => k.snapshot));
  const changes = await tx
    .select({ values: sql<string>`${changesetChanges.values}::text`, base: sql<string>`${changesetChanges.base}::text` })
    .from(changesetChanges)
    .innerJoin(changesets, eq(changesets.id, changesetChanges.changesetId))
    .where(and(eq(changesets.accountId, accountId), notInArray(changesets.status, ["discarded"]), sql`not (${changesets.status} = 'published' and ${changesets.snapshot} is null)`));
  texts.push(...changes.flatMap((c) => [c.values, c.base]));
  const audits = await tx
    .select({ changes: sql<string>`${auditEvents.changes}::text` })
    .from(auditEvents)
    .where(and(eq(auditEvents.accountId, accountId), gte(auditEvents.at, cutoff), sql`${auditEvents.changes}::text like '%/media/%'`));
  texts.push(...audits.map((a) => a.changes));

  const named = new Set<string>();
  for (const t of texts) for (const sha of mediaReferences(t)) named.add(sha);
  const unused = candidates.filter((m) => !named.has(m.sha256)).map((m) => m.id);
  const deleted = unused.length ? await tx.delete(mediaFiles).where(inArray(mediaFiles.id, unused)).returning({ id: mediaFiles.id }) : [];
  return { snapshotsPruned: pruned.length, mediaDeleted: deleted.length };
}
