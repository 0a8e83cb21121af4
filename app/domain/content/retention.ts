/**
 * What housekeeping keeps of the content's history (issue 24, decision 361). Pure: the caller passes
 * the versions, the texts to search and `now`.
 *
 * - A published version's snapshot (what "Restore this version" brings back) is kept while it is one
 *   of the account's last `keepVersions` versions, or was published within `keepDays`; older ones are
 *   pruned (the version stays listed, no longer restorable).
 * - An uploaded image is kept while the live content, a kept snapshot, an open, scheduled or failed
 *   changeset, or an audit entry of the last `keepDays` names it, and for `keepDays` after its upload
 *   (a file sent back with a missing description is in no draft yet).
 */
export interface RetentionRule {
  keepVersions: number;
  keepDays: number;
}

export const CONTENT_RETENTION: RetentionRule = { keepVersions: 20, keepDays: 90 };

const DAY_MS = 24 * 60 * 60 * 1000;

/** The instant before which history may be pruned. */
export function retentionCutoff(now: Date, rule: RetentionRule): Date {
  return new Date(now.getTime() - rule.keepDays * DAY_MS);
}

/** The versions (of one account) whose snapshots may be pruned under the rule. */
export function versionsToPrune(versions: ReadonlyArray<{ version: number; publishedAt: Date | null }>, now: Date, rule: RetentionRule): number[] {
  if (versions.length === 0) return [];
  const newest = Math.max(...versions.map((v) => v.version));
  const cutoff = retentionCutoff(now, rule).getTime();
  return versions
    .filter((v) => v.version <= newest - rule.keepVersions && (v.publishedAt === null || v.publishedAt.getTime() < cutoff))
    .map((v) => v.version)
    .sort((a, b) => a - b);
}

const MEDIA_REF = /\/media\/([0-9a-f]{64})-/g;

/** The SHA-256 of every uploaded image a text (JSON of content) names by its /media/ address. */
export function mediaReferences(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(MEDIA_REF)) out.add(m[1]!);
  return out;
}
