/**
 * Rate limits of the anonymous forms (issue 8 item 2, docs/decisions/066-anonymous-form-limits.md),
 * counted in the shared rate_limit_hits table. A limited form answers 429 with the typed values kept
 * and says when to try again.
 */
import type { Database } from "~/db/client.server";
import { hitRateLimit, hitRateLimits, refundRateLimit } from "./rate-limit.server";

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

export const tryAgainMessage = (minutes: number) =>
  `Too many tries from your connection. What you typed is kept: please try again in ${minutes} minute${minutes === 1 ? "" : "s"}, or call us.`;

export const holdsLimitedMessage = (minutes: number, phone: string) =>
  `You are already holding ${HOLDS_PER_IP} units. Please finish or cancel one of those rentals, try again in ${minutes} minute${minutes === 1 ? "" : "s"}, or call ${phone}.`;

/** The rate-limit keys of an anonymous form's submissions and of the unit holds from one address. */
const formKey = (form: AnonymousForm, ip: string) => `form:${form}:ip:${ip || "unknown"}`;
const holdsKey = (ip: string) => `holds:ip:${ip || "unknown"}`;

/** Counts one submission of an anonymous form from `ip`; the message to show when over the limit, else null. */
export async function limitAnonymousForm(db: Database, form: AnonymousForm, ip: string, now: Date): Promise<string | null> {
  const { limit, windowMs } = ANONYMOUS_LIMITS[form];
  const r = await hitRateLimit(db, { key: formKey(form, ip), limit, windowMs, now });
  return r.allowed ? null : tryAgainMessage(r.retryAfterMinutes);
}

/**
 * Counts a new unit hold (a new checkout) for `ip`. A checkout that renews its own hold does not
 * count again, and a cancelled checkout gives its count back (`releaseHoldCount`).
 */
export async function countNewHold(db: Database, ip: string, now: Date, phone: string): Promise<string | null> {
  const r = await hitRateLimit(db, { key: holdsKey(ip), limit: HOLDS_PER_IP, windowMs: HOLD_WINDOW_MS, now });
  if (r.allowed) return null;
  await refundRateLimit(db, holdsKey(ip));
  return holdsLimitedMessage(r.retryAfterMinutes, phone);
}

/**
 * The limits of one rental details submission, counted in one statement (issue 22): the form's own
 * limit ("rental-details") and, for a new checkout, the new unit hold (HOLDS_PER_IP). The message to
 * show when over either, else null. As with limitAnonymousForm then countNewHold: a refused submission
 * holds no unit, so its hold is given back (a submission over the form's limit never counted one).
 */
export async function limitDetailsSubmission(db: Database, input: { ip: string; now: Date; phone: string; newHold: boolean }): Promise<string | null> {
  const { limit, windowMs } = ANONYMOUS_LIMITS["rental-details"];
  const [form, holds] = await hitRateLimits(
    db,
    [{ key: formKey("rental-details", input.ip), limit, windowMs }, ...(input.newHold ? [{ key: holdsKey(input.ip), limit: HOLDS_PER_IP, windowMs: HOLD_WINDOW_MS }] : [])],
    input.now,
  );
  if (form!.allowed && (!holds || holds.allowed)) return null;
  if (holds) await refundRateLimit(db, holdsKey(input.ip));
  return form!.allowed ? holdsLimitedMessage(holds!.retryAfterMinutes, input.phone) : tryAgainMessage(form!.retryAfterMinutes);
}

export async function releaseHoldCount(db: Database, ip: string): Promise<void> {
  await refundRateLimit(db, holdsKey(ip));
}
