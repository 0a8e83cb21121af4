/**
 * "Rented at the office? Create your sign-in" (issue 11, decision 141). The tenant proves who they
 * are with the email and web password of their office record; each location's software is asked in
 * turn. Attempts count per IP and per email once, before anything is checked (the sign-in limits); an
 * attempt is given back only when no location answered it (decision 195), and a success gives the IP
 * its hit back and clears the email's count.
 */
import type { Database } from "~/db/client.server";
import { storageFor } from "~/storage-software/index.server";
import type { LocationRef, OfficeClaimResult } from "~/storage-software/port";
import { isSoftwareUnreachable } from "~/storage-software/errors";
import { SIGNIN_LIMIT_PER_ACCOUNT, SIGNIN_LIMIT_PER_IP, SIGNIN_WINDOW_MS } from "./sign-in-limits.server";
import { hashPassword } from "~/platform/password.server";
import { addressKey, clearRateLimit, hitRateLimit, refundRateLimit } from "../web/rate-limit.server";

export const OFFICE_NO_MATCH_MESSAGE =
  "We could not find an office rental with that email address and password. Check them against what the office gave you, or call us.";
export const OFFICE_HAS_ACCOUNT_MESSAGE = "You already have a sign-in with this email address. Please sign in, or reset your password.";
const officeLimitedMessage = (minutes: number) =>
  `Too many attempts. For your security, please wait ${minutes} minute${minutes === 1 ? "" : "s"} and try again, or call us.`;

type OfficeSignInResult = { ok: true; tenantId: string } | { ok: false; limited: boolean; field: "office_password" | "email" | null; message: string };

export async function createOfficeSignIn(
  db: Database,
  locations: LocationRef[],
  input: { accountId: number; email: string; officePassword: string; password: string; ip: string; now: Date },
): Promise<OfficeSignInResult> {
  const email = input.email.trim().toLowerCase();
  const emailKey = `office-signin:email:${input.accountId}:${email}`;
  const ipKey = addressKey("office-signin", input.ip);
  const limits = [
    await hitRateLimit(db, { key: emailKey, limit: SIGNIN_LIMIT_PER_ACCOUNT, windowMs: SIGNIN_WINDOW_MS, now: input.now }),
    await hitRateLimit(db, { key: ipKey, limit: SIGNIN_LIMIT_PER_IP, windowMs: SIGNIN_WINDOW_MS, now: input.now }),
  ];
  const blocked = limits.filter((r) => !r.allowed);
  if (blocked.length) return { ok: false, limited: true, field: null, message: officeLimitedMessage(Math.max(...blocked.map((b) => b.retryAfterMinutes))) };
  // Every SiteLink location is asked in turn until one claims the record or proves it already has a
  // sign-in. A location that cannot be asked (unreachable, slow, erroring, a secret that does not
  // decrypt) does not stop the others, and it never gives the attempt back once any location has
  // answered: the guess was checked there (decision 195). Only when no location answered at all,
  // so nothing was checked, is the attempt refunded before the outage is reported.
  let answer: OfficeClaimResult = { kind: "no_match" };
  let answered = 0;
  let outage: unknown = null;
  const passwordHash = await hashPassword(input.password);
  for (const location of locations.filter((l) => l.software === "sitelink")) {
    try {
      answer = await storageFor(db, location).claimOfficeTenant({ email, webPassword: input.officePassword, passwordHash, now: input.now });
    } catch (error) {
      if (!isSoftwareUnreachable(error)) throw error;
      outage ??= error;
      continue;
    }
    answered++;
    if (answer.kind === "claimed" || answer.kind === "has_account") break;
  }
  if (outage && answer.kind !== "claimed" && answer.kind !== "has_account") {
    if (answered === 0) {
      await refundRateLimit(db, emailKey);
      await refundRateLimit(db, ipKey);
    }
    // The record may be at the location that could not be asked: the form says to try again in a
    // moment (decision 166) rather than "no match", and the attempt stays counted.
    throw outage;
  }
  if (answer.kind === "claimed") {
    await clearRateLimit(db, emailKey);
    await refundRateLimit(db, ipKey);
    return { ok: true, tenantId: answer.tenantId };
  }
  // Only someone who proved the office record learns that a sign-in exists for it.
  if (answer.kind === "has_account") return { ok: false, limited: false, field: "email", message: OFFICE_HAS_ACCOUNT_MESSAGE };
  return { ok: false, limited: false, field: "office_password", message: OFFICE_NO_MATCH_MESSAGE };
}
