import crypto from "node:crypto";
import type { Database, Transaction } from "~/db/client.server";
import { textNumber, withinTextingHours } from "~/domain/texts/rules";
import { textsOffReason } from "~/platform/texts/provider.server";
import { currentTextConsent, recordTextConsent } from "./consent.server";
import { checkText, deliverText, logTextToSend } from "./send.server";

/**
 * The texting opt-in on the rental's details step (issue 40, decision 511): the words beside the box,
 * stored with the consent. Unticked unless the renter ticks it.
 */
export const RENTAL_TEXT_OPT_IN_WORDING =
  "Text me about my rental (reminders and pay links). Msg & data rates may apply. Reply STOP to opt out, HELP for help.";

/**
 * The opt-in the details step shows, or null when this location cannot text (texts off, or no text
 * message number): a box that promises texts that never come is not offered.
 */
export function rentalTextOptIn(location: { sms: string | null }): { wording: string } | null {
  if (textsOffReason() || !textNumber(location.sms)) return null;
  return { wording: RENTAL_TEXT_OPT_IN_WORDING };
}

/**
 * Stores the renter's answer with the rental's details, in the caller's transaction: ticked, an opt-in
 * (source `rental_details`, the rental's id, the location, the wording); unticked after it had been
 * ticked on this rental, an opt-out. Unticked otherwise records nothing: leaving a box as it was is no
 * answer, and does not undo a consent given elsewhere (the portal, START by text).
 */
export async function recordRentalTextChoice(
  tx: Database | Transaction,
  input: { accountId: number; locationId: number; rentalId: string; phone: string; optedIn: boolean; tickedBefore: boolean; now: Date },
): Promise<void> {
  if (!input.optedIn && !input.tickedBefore) return;
  await recordTextConsent(tx, {
    accountId: input.accountId,
    phone: input.phone,
    optedIn: input.optedIn,
    source: "rental_details",
    wording: RENTAL_TEXT_OPT_IN_WORDING,
    locationId: input.locationId,
    rentalId: input.rentalId,
    now: input.now,
  });
}

/** Whether this phone has agreed to texts from the account now (its newest consent says yes): SiteLink's bSMSOptIn at the move-in. */
export async function phoneAgreedToTexts(db: Database | Transaction, accountId: number, phone: string): Promise<boolean> {
  return (await currentTextConsent(db, accountId, phone))?.optedIn === true;
}

/**
 * The abandoned-rental reminder by text (issue 40, decision 517): only inside the location's texting
 * hours ("later" outside them), only on the phone's recorded consent ("refused" otherwise). `claim`
 * runs in the transaction that logs the text (a conditional UPDATE: false when another run took it),
 * so it goes once; the provider is called after the commit. The text is attached to the desk's lead.
 */
export async function textRentalReminder(
  db: Database,
  input: {
    location: { id: number; accountId: number; name: string; sms: string | null; timeZone: { timeZoneId: string } };
    rentalId: string;
    to: string;
    body: string;
    origin: string;
    now: Date;
    claim: (tx: Transaction) => Promise<boolean>;
  },
): Promise<"sent" | "later" | "refused" | "taken"> {
  if (!withinTextingHours(input.now, input.location.timeZone.timeZoneId)) return "later";
  const check = await checkText(db, { location: input.location, to: input.to, now: input.now });
  if (!check.ok) return "refused";
  const leadKey = `rental-${crypto.createHash("sha256").update(input.rentalId, "utf8").digest("hex").slice(0, 20)}`;
  const messageId = await db.transaction(async (tx) => {
    if (!(await input.claim(tx))) return null;
    return logTextToSend(tx, { location: input.location, to: input.to, body: input.body, purpose: "rental_recovery", leadKey, origin: input.origin, now: input.now }, check);
  });
  if (messageId === null) return "taken";
  const sent = await deliverText(db, messageId, input.origin);
  return sent.ok ? "sent" : "refused";
}
