/**
 * Rate limits of the anonymous forms (issue 8 item 2, docs/decisions/066-anonymous-form-limits.md),
 * counted in the shared rate_limit_hits table. A limited form answers 429 with the typed values kept
 * and says when to try again.
 */
import type { Database } from "~/db/client.server";
import { HOLD_MS } from "~/domain/rental/hold";
import { addressKey, hitRateLimit, hitRateLimits, refundRateLimit } from "./rate-limit.server";

const MINUTE = 60_000;

export const ANONYMOUS_LIMITS = {
  /** Each save costs a bcrypt hash and may hold a unit. */
  "rental-details": { limit: 10, windowMs: 15 * MINUTE },
  /** A reservation keeps a unit for days. */
  reservation: { limit: 3, windowMs: 24 * 60 * MINUTE },
  contact: { limit: 5, windowMs: 60 * MINUTE },
  notify: { limit: 5, windowMs: 60 * MINUTE },
} as const;

type AnonymousForm = keyof typeof ANONYMOUS_LIMITS;

/** New units held by one IP within one hold length (HOLD_MS, 15 minutes): about the units it holds at once. */
export const HOLDS_PER_IP = 3;
const HOLD_WINDOW_MS = HOLD_MS;
/**
 * New holds of one unit type from one address (an IPv6 /64) in an hour (decision 197): with each hold
 * capped at MAX_HOLD_MINUTES, one address can keep a given unit type out of reach for at most
 * 2 × 20 of every 60 minutes, while a customer renting two units of one size still can.
 */
export const HOLDS_PER_TYPE_PER_IP = 2;
const HOLD_TYPE_WINDOW_MS = 60 * MINUTE;

const tryAgainMessage = (minutes: number) =>
  `Too many tries from your connection. What you typed is kept: please try again in ${minutes} minute${minutes === 1 ? "" : "s"}, or call us.`;

const typeHoldsLimitedMessage = (minutes: number, phone: string) =>
  `Units of this size were already held for your connection a short while ago. What you typed is kept: please try again in ${minutes} minute${minutes === 1 ? "" : "s"}, or call ${phone} and we will help you rent it.`;

const holdsLimitedMessage = (minutes: number, phone: string) =>
  `You are already holding ${HOLDS_PER_IP} units. Please finish or cancel one of those rentals, try again in ${minutes} minute${minutes === 1 ? "" : "s"}, or call ${phone}.`;

/** The rate-limit keys of an anonymous form's submissions and of the unit holds from one address. */
const formKey = (form: AnonymousForm, ip: string) => addressKey(`form:${form}`, ip);
const holdsKey = (ip: string) => addressKey("holds", ip);
const typeHoldsKey = (unitTypeId: string, ip: string) => addressKey(`holds:type:${unitTypeId}`, ip);

/** Counts one submission of an anonymous form from `ip`; the message to show when over the limit, else null. */
export async function limitAnonymousForm(db: Database, form: AnonymousForm, ip: string, now: Date): Promise<string | null> {
  const { limit, windowMs } = ANONYMOUS_LIMITS[form];
  const r = await hitRateLimit(db, { key: formKey(form, ip), limit, windowMs, now });
  return r.allowed ? null : tryAgainMessage(r.retryAfterMinutes);
}

/**
 * The limits of one rental details submission, counted in one statement (issue 22): the form's own
 * limit ("rental-details") and, for a new rental, the new unit hold (HOLDS_PER_IP) and the new hold
 * of this unit type (HOLDS_PER_TYPE_PER_IP, decision 197). The message to show when over any, else
 * null. A refused submission holds no unit, so the hold counts it took are given back.
 */
export async function limitDetailsSubmission(
  db: Database,
  input: { ip: string; now: Date; phone: string; newHold: boolean; unitTypeId: string },
): Promise<string | null> {
  const { limit, windowMs } = ANONYMOUS_LIMITS["rental-details"];
  const holdKeys = input.newHold ? [holdsKey(input.ip), typeHoldsKey(input.unitTypeId, input.ip)] : [];
  const [form, holds, perType] = await hitRateLimits(
    db,
    [
      { key: formKey("rental-details", input.ip), limit, windowMs },
      ...(input.newHold
        ? [
            { key: holdKeys[0]!, limit: HOLDS_PER_IP, windowMs: HOLD_WINDOW_MS },
            { key: holdKeys[1]!, limit: HOLDS_PER_TYPE_PER_IP, windowMs: HOLD_TYPE_WINDOW_MS },
          ]
        : []),
    ],
    input.now,
  );
  if (form!.allowed && (!holds || holds.allowed) && (!perType || perType.allowed)) return null;
  for (const key of holdKeys) await refundRateLimit(db, key);
  if (!form!.allowed) return tryAgainMessage(form!.retryAfterMinutes);
  if (perType && !perType.allowed) return typeHoldsLimitedMessage(perType.retryAfterMinutes, input.phone);
  return holdsLimitedMessage(holds!.retryAfterMinutes, input.phone);
}

export async function releaseHoldCount(db: Database, ip: string): Promise<void> {
  await refundRateLimit(db, holdsKey(ip));
}
