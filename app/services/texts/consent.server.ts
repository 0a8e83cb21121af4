import { and, desc, eq } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { textConsents } from "~/db/schema";
import { textNumber } from "~/domain/texts/rules";

type Db = Database | Transaction;
type TextConsent = typeof textConsents.$inferSelect;

/** The words a tenant agrees to, shown beside the opt-in and stored with it (decision 490). */
export const TEXT_OPT_IN_WORDING =
  "Text me about my storage (payment links, reminders, replies from the office). Msg & data rates may apply. Reply STOP to stop, HELP for help.";

/** A phone's consent to texts from this account now: its newest opt-in or opt-out, or null (never asked: no texts). */
export async function currentTextConsent(db: Db, accountId: number, phone: string): Promise<TextConsent | null> {
  const number = textNumber(phone);
  if (!number) return null;
  const [row] = await db
    .select()
    .from(textConsents)
    .where(and(eq(textConsents.accountId, accountId), eq(textConsents.phone, number)))
    .orderBy(desc(textConsents.id))
    .limit(1);
  return row ?? null;
}

/**
 * Records an opt-in or opt-out as given (appended; the newest row is the answer). Nothing is written
 * when it says what the phone's consent already says, so a profile saved again keeps its first date.
 */
export async function recordTextConsent(
  db: Db,
  input: { accountId: number; phone: string; optedIn: boolean; source: TextConsent["source"]; wording: string; locationId?: number | null; tenantId?: number | null; rentalId?: string | null; now: Date },
): Promise<TextConsent | null> {
  const phone = textNumber(input.phone);
  if (!phone) return null;
  const current = await currentTextConsent(db, input.accountId, phone);
  if (current && current.optedIn === input.optedIn && input.source !== "inbound_keyword") return current;
  if (!current && !input.optedIn && input.source !== "inbound_keyword") return null;
  const [row] = await db
    .insert(textConsents)
    .values({
      accountId: input.accountId,
      phone,
      optedIn: input.optedIn,
      source: input.source,
      wording: input.wording,
      locationId: input.locationId ?? null,
      tenantId: input.tenantId ?? null,
      rentalId: input.rentalId ?? null,
      givenAt: input.now,
    })
    .returning();
  return row!;
}
