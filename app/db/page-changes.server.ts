/**
 * The change counter (issue 41, decision 710): how many committed changes to what public pages show
 * there have been. Each transaction that changes such a row bumps it once, at its commit, and notifies
 * the new value on `gatehouse_changed` (drizzle/0032_page_changes.sql); the values follow the commit
 * order, so a value read (or notified) means every change up to it is committed and visible to any
 * statement sent afterwards.
 */
import { eq } from "drizzle-orm";
import type { Database } from "./client.server";
import { pageChanges } from "./schema";

/** The counter's current value (one primary-key read). */
export async function readPageChanges(db: Database): Promise<number> {
  const [row] = await db.select({ count: pageChanges.count }).from(pageChanges).where(eq(pageChanges.id, 1));
  return row?.count ?? 0;
}

/**
 * The counter's value a `gatehouse_changed` notification carries, or null: the counter's own notice
 * says the committed value ("42"); the change triggers' notice for a change no page shows names its
 * table, and a test's control notice says what it likes.
 */
export function pageChangesOfNotice(payload: string): number | null {
  return /^\d{1,15}$/.test(payload) ? Number(payload) : null;
}
