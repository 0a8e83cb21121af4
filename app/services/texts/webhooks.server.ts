import { and, desc, eq, isNotNull } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations, textMessages } from "~/db/schema";
import { formatPhone } from "~/domain/shared/phone";
import { isTextStatus, keywordReply, statusMovesForward, textKeyword, textNumber } from "~/domain/texts/rules";
import { textProvider } from "~/platform/texts/provider.server";
import { recordTextConsent } from "./consent.server";
import { pushTextOptIn } from "./software.server";

/**
 * Twilio's webhooks (issue 40, decisions 490 and 493): the delivery status of a text we sent, and a
 * text someone sent to a location's number. The signature is the only gate: X-Twilio-Signature over
 * the site's configured public address of the webhook (never the Host header) and the form fields.
 */
export interface WebhookInput {
  /** The configured origin + the request's path and query: the address Twilio was given. */
  url: string;
  params: Record<string, string>;
  signature: string | null;
  now: Date;
}

export interface WebhookAnswer {
  status: number;
  body: string;
  contentType: string;
}

const plain = (status: number, body: string): WebhookAnswer => ({ status, body, contentType: "text/plain; charset=utf-8" });

function verified(input: WebhookInput): WebhookAnswer | null {
  const provider = textProvider();
  if (!provider) return plain(404, "Texts are off.");
  if (!provider.verifyWebhook({ url: input.url, params: input.params, signature: input.signature })) return plain(403, "The request's X-Twilio-Signature does not match.");
  return null;
}

/** A status callback: moves the logged text's status forward (a late or repeated callback never moves it back). */
export async function takeTextStatus(db: Database, input: WebhookInput): Promise<WebhookAnswer> {
  const refused = verified(input);
  if (refused) return refused;
  const sid = input.params.MessageSid ?? input.params.SmsSid ?? "";
  const status = input.params.MessageStatus ?? input.params.SmsStatus ?? "";
  if (!sid || !isTextStatus(status)) return plain(400, "MessageSid and a known MessageStatus are required.");
  // Our row by the id in the callback's (signed) address, else by the provider's id.
  const ours = Number(new URL(input.url).searchParams.get("text"));
  await db.transaction(async (tx) => {
    const byId = Number.isSafeInteger(ours) && ours > 0 ? await tx.query.textMessages.findFirst({ where: eq(textMessages.id, ours) }) : undefined;
    const row = byId && (byId.providerSid === null || byId.providerSid === sid) ? byId : await tx.query.textMessages.findFirst({ where: eq(textMessages.providerSid, sid) });
    if (!row || !statusMovesForward(row.status, status)) return;
    await tx
      .update(textMessages)
      .set({ status, providerSid: sid, errorCode: input.params.ErrorCode || row.errorCode, updatedAt: input.now })
      .where(eq(textMessages.id, row.id));
  });
  return plain(200, "");
}

/**
 * A text to one of the locations' numbers: logged; STOP/START/HELP (and their synonyms) recorded as
 * the phone's consent at once and answered in the same exchange; any other text is attached to the
 * lead or tenant we last texted from that number, so the office sees the answer there.
 */
export async function takeInboundText(db: Database, input: WebhookInput): Promise<WebhookAnswer> {
  const refused = verified(input);
  if (refused) return refused;
  const provider = textProvider()!;
  const sid = input.params.MessageSid ?? input.params.SmsSid ?? "";
  const from = textNumber(input.params.From);
  const to = textNumber(input.params.To);
  const body = input.params.Body ?? "";
  if (!sid || !from || !to) return plain(400, "MessageSid, From and To are required.");
  const candidates = await db.select().from(locations).where(isNotNull(locations.sms));
  const location = candidates.find((l) => textNumber(l.sms) === to);
  const answer = (reply: string | null): WebhookAnswer => ({ status: 200, ...provider.replyDocument(reply) });
  if (!location) return answer(null);
  const already = await db.query.textMessages.findFirst({ where: eq(textMessages.providerSid, sid) });
  if (already) return answer(null);
  const keyword = textKeyword(body);
  const reply = keyword ? keywordReply(keyword, { name: location.name, phone: location.phoneNumber ? formatPhone(location.phoneNumber) : null }) : null;
  await db.transaction(async (tx) => {
    const [last] = await tx
      .select({ tenantId: textMessages.tenantId, leadKey: textMessages.leadKey })
      .from(textMessages)
      .where(and(eq(textMessages.accountId, location.accountId), eq(textMessages.direction, "outbound"), eq(textMessages.to, from), eq(textMessages.from, to)))
      .orderBy(desc(textMessages.id))
      .limit(1);
    const consent =
      keyword === "stop" || keyword === "start"
        ? await recordTextConsent(tx, { accountId: location.accountId, phone: from, optedIn: keyword === "start", source: "inbound_keyword", wording: body.trim(), locationId: location.id, tenantId: last?.tenantId ?? null, now: input.now })
        : null;
    const common = { accountId: location.accountId, locationId: location.id, tenantId: last?.tenantId ?? null, leadKey: last?.leadKey ?? null, createdAt: input.now, updatedAt: input.now };
    await tx.insert(textMessages).values({ ...common, direction: "inbound", from, to, body, purpose: keyword ? `keyword_${keyword}` : "inbound", providerSid: sid, status: "received", consentId: consent?.id ?? null });
    if (reply) await tx.insert(textMessages).values({ ...common, direction: "outbound", from: to, to: from, body: reply, purpose: "keyword_reply", status: "sent_as_reply", consentId: consent?.id ?? null });
  });
  // STOP/START reach the facility's software too (SiteLink's bSMSOptIn, decision 614), after ours is recorded.
  if (keyword === "stop" || keyword === "start") await pushTextOptIn(db, { accountId: location.accountId, phone: from, optedIn: keyword === "start" });
  return answer(reply);
}
