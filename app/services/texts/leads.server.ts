import { and, asc, eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations, textMessages } from "~/db/schema";
import { formatDeskTime } from "~/domain/desk/time";
import { LEAD_TEXT_MAX, textNumber } from "~/domain/texts/rules";
import { textsOffReason } from "~/platform/texts/provider.server";
import { recordAudit } from "../audit/events.server";
import { getDeskLead, type DeskLeadRow, type LeadActor } from "../desk/leads.server";
import type { DeskViewer } from "../desk/scope.server";
import { publicOrigin } from "../site/origin.server";
import { currentTextConsent, recordTextConsent } from "./consent.server";
import { checkText, deliverText, logTextToSend } from "./send.server";

/** A lead's text conversation and whether the desk can text them (issue 40, decision 495). */
interface LeadTexts {
  /** Why no text can be sent from this page, or null. */
  cannot: string | null;
  /** No consent on record yet: the desk must confirm the person agreed. */
  needsConsent: boolean;
  conversation: Array<{ id: number; direction: "outbound" | "inbound"; body: string; at: string; status: string }>;
}

const DESK_CONSENT_WORDING = "Agreed to receive texts when they spoke with the office (recorded by the office).";

export async function leadTexts(db: Database, accountId: number, lead: DeskLeadRow, timeZone: string): Promise<LeadTexts> {
  const rows = await db
    .select()
    .from(textMessages)
    .where(and(eq(textMessages.accountId, accountId), eq(textMessages.leadKey, lead.key)))
    .orderBy(asc(textMessages.id));
  const phone = textNumber(lead.phone);
  const consent = phone ? await currentTextConsent(db, accountId, phone) : null;
  const cannot = textsOffReason() ?? (lead.locationId == null ? "This lead names no location: texts go from a location's number." : phone ? null : "This lead gave no mobile number to text.");
  return {
    cannot,
    needsConsent: !consent,
    conversation: rows.map((r) => ({ id: r.id, direction: r.direction, body: r.body, at: formatDeskTime(r.createdAt, timeZone), status: r.status })),
  };
}

class Refused extends Error {}

type TextLeadResult = { ok: true } | { ok: false; notFound: true } | { ok: false; notFound?: false; fieldErrors: Record<string, string> };

/**
 * The desk texts a lead from the lead's location's number (two-way: the answer is attached to the lead
 * by the inbound webhook). Consent: the phone's recorded consent, or, when none was ever recorded, the
 * desk's confirmation that the person agreed (stored as a `desk` consent with the text, audited);
 * a STOP is never overridden by the desk. The consent, the logged text and the audit row are one
 * transaction; the provider is called after it.
 */
export async function textLead(db: Database, viewer: DeskViewer, actor: LeadActor, input: { key: string; body: string; consentGiven: boolean; now: Date }): Promise<TextLeadResult> {
  const lead = await getDeskLead(db, viewer, input.key, input.now);
  if (!lead) return { ok: false, notFound: true };
  const body = input.body.trim();
  if (!body) return { ok: false, fieldErrors: { text_body: "Write the text to send." } };
  if (body.length > LEAD_TEXT_MAX) return { ok: false, fieldErrors: { text_body: `Keep the text under ${LEAD_TEXT_MAX} characters.` } };
  const phone = textNumber(lead.phone);
  if (!phone || lead.locationId == null) return { ok: false, fieldErrors: { text_body: lead.locationId == null ? "This lead names no location: texts go from a location's number." : "This lead gave no mobile number to text." } };
  const location = await db.query.locations.findFirst({ where: eq(locations.id, lead.locationId) });
  if (!location) return { ok: false, notFound: true };
  const website = await db.query.websites.findFirst({ where: (w, { eq: is }) => is(w.accountId, location.accountId) });
  const origin = publicOrigin(website ?? { domain: "localhost" });
  const existing = await currentTextConsent(db, location.accountId, phone);
  if (!existing && !input.consentGiven) return { ok: false, fieldErrors: { text_consent: "Tick the box once they have agreed to receive texts (by phone or in person), or e-mail them instead." } };
  let messageId: number;
  try {
    messageId = await db.transaction(async (tx) => {
      if (!existing) {
        await recordTextConsent(tx, { accountId: location.accountId, phone, optedIn: true, source: "desk", wording: DESK_CONSENT_WORDING, locationId: location.id, now: input.now });
      }
      const check = await checkText(tx, { location, to: phone, now: input.now });
      if (!check.ok) throw new Refused(check.message);
      const id = await logTextToSend(tx, { location, to: phone, body, purpose: "lead_reply", leadKey: lead.key, staffId: actor.staffId, origin, now: input.now }, check);
      await recordAudit(tx, { ...actor, action: "lead.texted", entity: "lead", entityId: lead.key, locationId: location.id, detail: { textMessageId: id, consentId: check.consentId, consentRecorded: !existing }, at: input.now });
      return id;
    });
  } catch (error) {
    if (error instanceof Refused) return { ok: false, fieldErrors: { text_body: error.message } };
    throw error;
  }
  const sent = await deliverText(db, messageId, origin);
  if (!sent.ok) return { ok: false, fieldErrors: { text_body: sent.message } };
  return { ok: true };
}
