import { and, eq } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { textMessages, type PlannedTextKind } from "~/db/schema";
import { formatDate, localDate } from "~/domain/shared/calendar";
import { QUIET_HOURS_MESSAGE, textNumber, withinTextingHours } from "~/domain/texts/rules";
import { textProvider, textsOffReason } from "~/platform/texts/provider.server";
import { currentTextConsent } from "./consent.server";

/** What a text is sent from: the location's text message number (spec: Location.sms). */
interface TextingLocation {
  id: number;
  accountId: number;
  name: string;
  sms: string | null;
  timeZone: { timeZoneId: string };
}

const STATUS_CALLBACK_PATH = "/webhooks/twilio/status";

interface TextToSend {
  location: TextingLocation;
  /** The phone as stored (ten digits or E.164). */
  to: string;
  body: string;
  purpose: "pay_link" | "lead_reply" | "rental_recovery" | PlannedTextKind;
  tenantId?: number | null;
  leadKey?: string | null;
  staffId?: number | null;
  /** The site's configured origin, for the status callback's address. */
  origin: string;
  now: Date;
}

type TextCheck = { ok: true; from: string; to: string; consentId: number } | { ok: false; message: string };

/**
 * Whether this text may go now (decisions 490, 491), in the order a person at the desk would want to
 * hear it: texts on at all, the location's number, a mobile number, recorded consent that is still
 * given (not withdrawn by STOP), and the hour in the location's time zone.
 */
export async function checkText(db: Database | Transaction, input: Pick<TextToSend, "location" | "to" | "now">): Promise<TextCheck> {
  const off = textsOffReason();
  if (off) return { ok: false, message: off };
  const from = textNumber(input.location.sms);
  if (!from) return { ok: false, message: `Texts are off at ${input.location.name}: it has no text message number.` };
  const to = textNumber(input.to);
  if (!to) return { ok: false, message: "There is no mobile number to text." };
  const consent = await currentTextConsent(db, input.location.accountId, to);
  if (!consent) return { ok: false, message: "This person has not agreed to receive texts. Ask them to turn texts on in the customer portal, or e-mail instead." };
  if (!consent.optedIn) {
    const day = formatDate(localDate(consent.givenAt, input.location.timeZone.timeZoneId));
    return { ok: false, message: `This number asked for no more texts (${consent.source === "inbound_keyword" ? `replied ${consent.wording.trim().toUpperCase()}` : "turned texts off"} on ${day}). No text was sent.` };
  }
  if (!withinTextingHours(input.now, input.location.timeZone.timeZoneId)) return { ok: false, message: QUIET_HOURS_MESSAGE };
  return { ok: true, from, to, consentId: consent.id };
}

/**
 * Logs the text (status `sending`, with the consent it relies on) with `tx`: the caller's transaction,
 * which also holds its audit row. Send it with `deliverText` after the commit.
 */
export async function logTextToSend(tx: Database | Transaction, input: TextToSend, check: Extract<TextCheck, { ok: true }>): Promise<number> {
  const [row] = await tx
    .insert(textMessages)
    .values({
      accountId: input.location.accountId,
      locationId: input.location.id,
      direction: "outbound",
      from: check.from,
      to: check.to,
      body: input.body,
      purpose: input.purpose,
      status: "sending",
      consentId: check.consentId,
      tenantId: input.tenantId ?? null,
      leadKey: input.leadKey ?? null,
      staffId: input.staffId ?? null,
      createdAt: input.now,
      updatedAt: input.now,
    })
    .returning({ id: textMessages.id });
  return row!.id;
}

type DeliverOutcome = { ok: true; status: string } | { ok: false; message: string };

/**
 * Hands a logged text to the provider and records its answer. A refusal (e.g. 21610: the number
 * replied STOP to the provider) is recorded as `failed`; no answer at all as `unknown`, never sent
 * again by us (it may have gone: decision 490).
 */
export async function deliverText(db: Database, messageId: number, origin: string): Promise<DeliverOutcome> {
  const provider = textProvider();
  const row = await db.query.textMessages.findFirst({ where: eq(textMessages.id, messageId) });
  if (!row) return { ok: false, message: "No such text." };
  if (!provider) {
    await db.update(textMessages).set({ status: "failed", errorCode: "texts_off" }).where(eq(textMessages.id, messageId));
    return { ok: false, message: textsOffReason() ?? "Texts are off." };
  }
  // The callback's address names our row: a callback that arrives before the provider's answer is recorded still finds it.
  const sent = await provider.send({ from: row.from, to: row.to, body: row.body, statusCallback: `${origin}${STATUS_CALLBACK_PATH}?text=${messageId}` });
  if (sent.outcome === "accepted") {
    await db.update(textMessages).set({ providerSid: sent.sid }).where(eq(textMessages.id, messageId));
    // The first status only if no callback has moved it on already.
    await db.update(textMessages).set({ status: sent.status }).where(and(eq(textMessages.id, messageId), eq(textMessages.status, "sending")));
    return { ok: true, status: sent.status };
  }
  if (sent.outcome === "refused") {
    await db.update(textMessages).set({ status: "failed", errorCode: sent.code }).where(eq(textMessages.id, messageId));
    return { ok: false, message: sent.code === "21610" ? "This number has opted out of texts from this location (it replied STOP). No text was sent." : `The text was not sent: ${sent.message}` };
  }
  await db.update(textMessages).set({ status: "unknown", errorCode: "no_answer" }).where(eq(textMessages.id, messageId));
  return { ok: false, message: "The text-message service did not answer: the text may or may not have gone. It will not be sent again automatically; check the text log before sending another." };
}
