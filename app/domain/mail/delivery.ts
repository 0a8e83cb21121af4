/**
 * Rules for delivering the outbox (docs/decisions/070-outbox-delivery.md, 071-outbox-secrets.md).
 * Pure: the caller passes the times.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** First retry one minute after a failed attempt, doubling each time, never more than an hour apart. */
const RETRY_FIRST_MS = MINUTE;
const RETRY_MAX_MS = HOUR;
/** Mail not sent within two days is given up (flagged failed_at) instead of retried. */
export const GIVE_UP_AFTER_MS = 2 * DAY;
/** How long a sender holds a row it claimed (longer than an SMTP exchange can take with our timeouts). */
export const CLAIM_MS = 5 * MINUTE;
/** Sent mail (already redacted) is kept 30 days, given-up mail 90 days, then deleted. */
export const KEEP_SENT_MS = 30 * DAY;
export const KEEP_FAILED_MS = 90 * DAY;

const REDACTED = "[redacted]";

/** Delay before the next attempt, after `attempts` failed ones (1 → 1 min, 2 → 2, 3 → 4 … capped at 1 h). */
export function retryDelayMs(attempts: number, firstMs: number = RETRY_FIRST_MS): number {
  const n = Math.max(1, Math.floor(attempts));
  if (n > 20) return RETRY_MAX_MS;
  return Math.min(firstMs * 2 ** (n - 1), RETRY_MAX_MS);
}

/** True once a message created at `createdAt` is too old to keep retrying. */
export function isTooOldToRetry(createdAt: Date, now: Date): boolean {
  return now.getTime() - createdAt.getTime() >= GIVE_UP_AFTER_MS;
}

/** `text` with every occurrence of each secret replaced by "[redacted]" (longest secrets first). */
export function redactSecrets(text: string, secrets: readonly string[] | null | undefined): string {
  if (!secrets?.length) return text;
  let out = text;
  for (const secret of [...secrets].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)) {
    out = out.split(secret).join(REDACTED);
  }
  return out;
}

/**
 * Unsent mail keeps its secrets sealed (decision 198): in the stored body each secret is a
 * placeholder `[secret:<tag>:<n>]`, where `tag` is random per message (so no text typed by a visitor
 * can name a placeholder) and `n` indexes the sealed list. The list is sorted longest first, so a
 * secret that contains another (a link and its token) is replaced whole.
 */
export function secretsLongestFirst(secrets: readonly string[]): string[] {
  return [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** One pass (longest secret first at each position), so a placeholder is never scanned again. */
export function withSecretPlaceholders(text: string, sortedSecrets: readonly string[], tag: string): string {
  if (!sortedSecrets.length) return text;
  const index = new Map(sortedSecrets.map((s, i) => [s, i]));
  return text.replace(new RegExp(sortedSecrets.map(escapeRegExp).join("|"), "g"), (secret) => `[secret:${tag}:${index.get(secret)}]`);
}

export function fillSecretPlaceholders(text: string, sortedSecrets: readonly string[], tag: string): string {
  return text.replace(new RegExp(`\\[secret:${tag}:(\\d+)\\]`, "g"), (whole, n: string) => sortedSecrets[Number(n)] ?? whole);
}

/** Every secret placeholder replaced by "[redacted]" (once the mail is sent or given up). */
export function redactSecretPlaceholders(text: string): string {
  return text.replace(/\[secret:[A-Za-z0-9_-]+:\d+\]/g, REDACTED);
}
