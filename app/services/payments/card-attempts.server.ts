/**
 * Card-testing protection (issue 8, docs/decisions/065-card-attempt-limits.md). Every card attempt
 * at the rental pay step, the portal's pay and prepay forms and autopay enrolment is counted BEFORE
 * the gateway is called (one atomic upsert per key in the shared rate_limit_hits table, so parallel
 * requests cannot slip past), against three keys:
 *
 *  - the rental (a rental id, or the portal tenant): 3 declined cards, then it is locked
 *    for a day and the visitor is told to call the office;
 *  - the e-mail address (the renter's or the tenant's): 5 declined cards an hour;
 *  - the client IP: 10 declined cards an hour.
 *
 * An approved card gives its hits back, so the limits count declines only and a tenant who pays every
 * month never meets them. The visitor is only told that the card was declined; the gateway's reason
 * goes to the server log with the card brand and last four digits at most.
 */
import crypto from "node:crypto";
import type { Database } from "~/db/client.server";
import { formatPhone } from "~/domain/shared/phone";
import { addressKey, clearRateLimit, hitRateLimit, peekRateLimit, refundRateLimit } from "../web/rate-limit.server";

const CARD_DECLINES_PER_RENTAL = 3;
export const CARD_DECLINES_PER_EMAIL = 5;
export const CARD_DECLINES_PER_IP = 10;
const RENTAL_LOCK_MS = 24 * 60 * 60 * 1000;
const CARD_WINDOW_MS = 60 * 60 * 1000;

/** The only thing a visitor is told about a declined card. */
export const CARD_DECLINED_MESSAGE = "Your card was declined. Nothing was charged. Please check the card details or use another card.";

export const cardLockedMessage = (phone: string) =>
  `For your security, card payments here are paused after several declined cards. Nothing was charged. Please call the office at ${formatPhone(phone)} to finish.`;

type CardScope = { kind: "rental"; rentalId: string } | { kind: "portal"; tenantId: string };

interface CardAttemptInput {
  scope: CardScope;
  email: string;
  ip: string;
  now: Date;
}

const rentalKey = (scope: CardScope) => (scope.kind === "rental" ? `card:checkout:${scope.rentalId}` : `card:tenant:${scope.tenantId}`);
const emailKey = (email: string) => `card:email:${email.trim().toLowerCase()}`;
const ipKey = (ip: string) => addressKey("card", ip);

type CardAttempt = { allowed: true; ticket: CardAttemptTicket } | { allowed: false };

export interface CardAttemptTicket {
  keys: string[];
  rentalKey: string;
  /** This attempt was the last one the rental may make: a decline locks it. */
  lastForRental: boolean;
}

/** True when the rental (or portal tenant) has used up its declined cards. */
export async function isCardLocked(db: Database, scope: CardScope, now: Date): Promise<boolean> {
  const count = await peekRateLimit(db, rentalKey(scope), now);
  return count >= CARD_DECLINES_PER_RENTAL;
}

/**
 * Counts one card attempt against the rental, the e-mail and the IP. Refused (nothing to charge)
 * when any of them is already at its limit; the refused attempt's hits stay counted.
 */
export async function beginCardAttempt(db: Database, input: CardAttemptInput): Promise<CardAttempt> {
  const ck = rentalKey(input.scope);
  if ((await peekRateLimit(db, ck, input.now)) >= CARD_DECLINES_PER_RENTAL) return { allowed: false };
  const perRental = await hitRateLimit(db, { key: ck, limit: CARD_DECLINES_PER_RENTAL, windowMs: RENTAL_LOCK_MS, now: input.now });
  const perEmail = await hitRateLimit(db, { key: emailKey(input.email), limit: CARD_DECLINES_PER_EMAIL, windowMs: CARD_WINDOW_MS, now: input.now });
  const perIp = await hitRateLimit(db, { key: ipKey(input.ip), limit: CARD_DECLINES_PER_IP, windowMs: CARD_WINDOW_MS, now: input.now });
  if (!perRental.allowed || !perEmail.allowed || !perIp.allowed) {
    // Over the e-mail or IP limit: this rental is locked too (a script moving between rentals).
    if (perRental.count < CARD_DECLINES_PER_RENTAL) {
      for (let i = perRental.count; i < CARD_DECLINES_PER_RENTAL; i++) {
        await hitRateLimit(db, { key: ck, limit: CARD_DECLINES_PER_RENTAL, windowMs: RENTAL_LOCK_MS, now: input.now });
      }
    }
    return { allowed: false };
  }
  return {
    allowed: true,
    ticket: { keys: [emailKey(input.email), ipKey(input.ip)], rentalKey: ck, lastForRental: perRental.count >= CARD_DECLINES_PER_RENTAL },
  };
}

/** The card was approved: its hits are given back (the limits count declines). */
export async function cardApproved(db: Database, ticket: CardAttemptTicket): Promise<void> {
  for (const key of ticket.keys) await refundRateLimit(db, key);
  await clearRateLimit(db, ticket.rentalKey);
}

/**
 * The card was declined: the gateway's reason goes to the server log (no card number, no CVV; last
 * four at most), the visitor gets only CARD_DECLINED_MESSAGE, or the locked message when this was
 * the rental's last attempt.
 */
export function cardDeclined(
  ticket: CardAttemptTicket,
  input: { where: string; reason: string; last4?: string | null; phone: string; log?: (line: string) => void },
): { message: string; locked: boolean } {
  const last4 = input.last4 && /^\d{4}$/.test(input.last4) ? input.last4 : "none";
  // The rental's id is the cookie's value: only a short hash of it goes to the log.
  const ref = crypto.createHash("sha256").update(ticket.rentalKey).digest("hex").slice(0, 12);
  (input.log ?? console.warn)(`[card] declined at ${input.where} (rental ref ${ref}, card ending ${last4}): ${input.reason.replace(/\d{5,}/g, "[digits]")}`);
  return ticket.lastForRental ? { message: cardLockedMessage(input.phone), locked: true } : { message: CARD_DECLINED_MESSAGE, locked: false };
}

/** Nothing reached the gateway (the charges changed, the unit was taken…): the hits are given back. */
export async function cardNotTried(db: Database, ticket: CardAttemptTicket): Promise<void> {
  for (const key of [...ticket.keys, ticket.rentalKey]) await refundRateLimit(db, key);
}
