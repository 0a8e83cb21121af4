/**
 * The hold length (decision 215): how long a unit is kept for one visitor's rental. One home for
 * every user: the rental's steps, the charge of a local move-in, the SiteLink adapter's hold, the
 * demo rental and the per-address hold limit. tests/unit/one-home-per-rule.test.ts guards it.
 */

/** How long a unit is kept for one visitor between steps (and while its card is charged). */
export const HOLD_MINUTES = 15;
/** The same, in milliseconds. */
export const HOLD_MS = HOLD_MINUTES * 60_000;

/**
 * However often a rental renews its hold, it keeps its unit at most this long from its first hold
 * (decision 197). After that the unit is no longer kept for it (it can still rent it while it is
 * free), so three holds per address cannot keep a small unit type "sold out" by renewing for ever.
 */
export const MAX_HOLD_MINUTES = 20;

/** When a hold made at `now` ends: one hold length later. */
export function holdEndsAt(now: Date): Date {
  return new Date(now.getTime() + HOLD_MS);
}

/** When a hold made at `now` for a rental created at `firstHeldAt` ends; null once the cap is reached. */
export function holdUntil(firstHeldAt: Date, now: Date): Date | null {
  const until = Math.min(now.getTime() + HOLD_MS, firstHeldAt.getTime() + MAX_HOLD_MINUTES * 60_000);
  return until > now.getTime() ? new Date(until) : null;
}
