/**
 * What the write journal says about a rental's move-in attempts, for those who read it after the
 * move-in (the portal's autopay pages, the rentals part): the key prefix, whether the tenant chose
 * autopay at the move-in and has not dealt with it since, and the SiteLink tenants our rentals made.
 * The attempts themselves are written by ./move-in.ts.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { rentals, sitelinkWrites } from "~/db/schema";
import { createJournal } from "./journal";

type Executor = Database | Transaction;

const TENANT_NEW = "TenantNewDetailed_v3";

/** The journal key prefix of a rental's move-in attempts; one attempt per idempotency key. */
export const moveInKeyPrefix = (rentalId: string) => `movein:${rentalId}:`;

/** The done move-in attempt behind one of our lease records (the rental that completed it), or null. */
async function moveInAttemptOfLease(db: Executor, locationId: number, leaseId: string): Promise<{ key: string; externalIds: Record<string, string> } | null> {
  if (!/^\d{1,9}$/.test(leaseId)) return null;
  const [c] = await db.select({ id: rentals.id }).from(rentals).where(and(eq(rentals.completedLeaseId, Number(leaseId)), eq(rentals.locationId, locationId)));
  if (!c) return null;
  const done = (await createJournal(db, locationId).withPrefix(moveInKeyPrefix(c.id))).filter((e) => e.state === "done");
  const last = done.at(-1);
  return last ? { key: last.key, externalIds: last.externalIds } : null;
}

/**
 * Whether the tenant chose autopay when renting online and has not dealt with it since (enrolled or
 * cancelled in the portal): with autopay off, the confirmation, the email and the portal say that it
 * is not on yet and link to set it up (issue 11: a move-in confirmed only by reconciliation under
 * option A, where SiteLink's processor had the card and we may not keep it).
 */
export async function autopayWantedAtMoveIn(db: Executor, locationId: number, leaseId: string): Promise<boolean> {
  const attempt = await moveInAttemptOfLease(db, locationId, leaseId);
  return attempt?.externalIds.autopay === "true" && attempt.externalIds.autopayHandled !== "true";
}

/** The tenant enrolled in or cancelled autopay in the portal: the move-in's wish is answered. */
export async function autopayWishHandled(db: Executor, locationId: number, leaseId: string, now: Date): Promise<void> {
  const attempt = await moveInAttemptOfLease(db, locationId, leaseId);
  if (attempt?.externalIds.autopay === "true" && attempt.externalIds.autopayHandled !== "true") {
    await createJournal(db, locationId).settle(attempt.key, "done", { externalIds: { autopayHandled: "true" }, now });
  }
}

/**
 * SiteLink TenantIDs our own rentals created (journal): a rental that was declined or abandoned
 * leaves its SiteLink tenant behind (re-used on retry, never a second one); it is not "an account".
 * A completed one is in our tenants table, which the caller checks first.
 */
export async function tenantsWeCreated(db: Database, locationId: number): Promise<Set<string>> {
  const list = await db
    .select({ id: sql<string>`${sitelinkWrites.externalIds}->>'tenantId'` })
    .from(sitelinkWrites)
    .where(and(eq(sitelinkWrites.locationId, locationId), eq(sitelinkWrites.operation, TENANT_NEW), eq(sitelinkWrites.state, "done")));
  return new Set(list.map((r) => r.id).filter(Boolean));
}
