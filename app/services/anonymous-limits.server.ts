/**
 * Rate limits of the anonymous forms (issue 8 item 2, docs/decisions/066-anonymous-form-limits.md),
 * counted in the shared rate_limit_hits table. A limited form answers 429 with the typed values kept
 * and says when to try again.
 */
import type { Database } from "~/db/client.server";
import { addressKey, hitRateLimit, refundRateLimit } from "./rate-limit.server";

const MINUTE = 60_000;

export const ANONYMOUS_LIMITS = {
  /** Each save costs a bcrypt hash and may hold a unit. */
  "rental-details": { limit: 10, windowMs: 15 * MINUTE },
  /** A reservation keeps a unit for days. */
  reservation: { limit: 3, windowMs: 24 * 60 * MINUTE },
  contact: { limit: 5, windowMs: 60 * MINUTE },
  notify: { limit: 5, windowMs: 60 * MINUTE },
} as const;

export type AnonymousForm = keyof typeof ANONYMOUS_LIMITS;

/** New units held by one IP within one hold length (15 minutes): about the units it holds at once. */
export const HOLDS_PER_IP = 3;
export const HOLD_WINDOW_MS = 15 * MINUTE;
/**
 * New holds of one unit type from one address (an IPv6 /64) in an hour (decision 197): with each hold
 * capped at MAX_HOLD_MINUTES, one address can keep a given unit type out of reach for at most
 * 2 × 20 of every 60 minutes, while a customer renting two units of one size still can.
 */
export const HOLDS_PER_TYPE_PER_IP = 2;
export const HOLD_TYPE_WINDOW_MS = 60 * MINUTE;

export const tryAgainMessage = (minutes: number) =>
  `Too many tries from your connection. What you typed is kept: please try again in ${minutes} minute${minutes === 1 ? "" : "s"}, or call us.`;

export const typeHoldsLimitedMessage = (minutes: number, phone: string) =>
  `Units of this size were already held for your connection a short while ago. What you typed is kept: please try again in ${minutes} minute${minutes === 1 ? "" : "s"}, or call ${phone} and we will help you rent it.`;

export const holdsLimitedMessage = (minutes: number, phone: string) =>
  `You are already holding ${HOLDS_PER_IP} units. Please finish or cancel one of those rentals, try again in ${minutes} minute${minutes === 1 ? "" : "s"}, or call ${phone}.`;

/** Counts one submission of an anonymous form from `ip`; the message to show when over the limit, else null. */
export async function limitAnonymousForm(db: Database, form: AnonymousForm, ip: string, now: Date): Promise<string | null> {
  const { limit, windowMs } = ANONYMOUS_LIMITS[form];
  const r = await hitRateLimit(db, { key: addressKey(`form:${form}`, ip), limit, windowMs, now });
  return r.allowed ? null : tryAgainMessage(r.retryAfterMinutes);
}

/**
 * Counts a new unit hold (a new checkout) of `unitTypeId` for `ip`: per address, and per address and
 * unit type. A checkout that renews its own hold does not count again, and a cancelled checkout gives
 * the per-address count back (`releaseHoldCount`) but not the per-type one, so hold-and-cancel cannot
 * keep a small unit type held (decision 197).
 */
export async function countNewHold(db: Database, ip: string, now: Date, phone: string, unitTypeId: string): Promise<string | null> {
  const typeKey = addressKey(`holds:type:${unitTypeId}`, ip);
  const perType = await hitRateLimit(db, { key: typeKey, limit: HOLDS_PER_TYPE_PER_IP, windowMs: HOLD_TYPE_WINDOW_MS, now });
  if (!perType.allowed) {
    await refundRateLimit(db, typeKey);
    return typeHoldsLimitedMessage(perType.retryAfterMinutes, phone);
  }
  const r = await hitRateLimit(db, { key: addressKey("holds", ip), limit: HOLDS_PER_IP, windowMs: HOLD_WINDOW_MS, now });
  if (r.allowed) return null;
  await refundRateLimit(db, addressKey("holds", ip));
  await refundRateLimit(db, typeKey);
  return holdsLimitedMessage(r.retryAfterMinutes, phone);
}

export async function releaseHoldCount(db: Database, ip: string): Promise<void> {
  await refundRateLimit(db, addressKey("holds", ip));
}
