/**
 * Texts a job or a notice means to send (issue 40, decision 512): the billing run's due and
 * declined-autopay reminders (each with a fresh pay link) and the move-out confirmation. Planned in
 * the transaction that queues their e-mail; sent by `sendPlannedTexts`, which the billing run calls at
 * its end and the billing job every ten minutes: inside the texting hours of the location (decision
 * 491) only, with the tenant's consent checked at that moment. Outside the hours a planned text waits
 * for the first run inside them; one not sent within a day is given up. Every planned text ends
 * settled with its outcome: `sent` (and the logged text), or `not sent: …` and why.
 */
import { and, asc, eq, inArray, isNull, type SQL } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { leases, locations, plannedTexts, tenants, units, type PlannedTextKind } from "~/db/schema";
import { formatDate } from "~/domain/shared/calendar";
import { formatCents } from "~/domain/shared/money";
import { formatPhone } from "~/domain/shared/phone";
import { withinTextingHours } from "~/domain/texts/rules";
import { logger } from "~/platform/logger.server";
import { reviewLinkOf } from "~/domain/marketing/review-link";
import { siteOfLease, withDeskPayLink } from "../payments/pay-links.server";
import { publicOrigin } from "../site/origin.server";
import { checkText, deliverText, logTextToSend } from "./send.server";

/** A planned text not sent within this long after it was planned is given up (its news is stale). */
const GIVE_UP_AFTER_MS = 24 * 60 * 60 * 1000;

/**
 * Plans a text (once per lease, kind and key: a second plan of the same is nothing), with `tx`, the
 * transaction that queues the same news by e-mail. Returns the planned text's id, or null when it was
 * planned already.
 */
export async function planText(tx: Database | Transaction, input: { tenantId: number; leaseId: number; kind: PlannedTextKind; key: string; now: Date }): Promise<number | null> {
  const [lease] = await tx
    .select({ locationId: leases.locationId, accountId: locations.accountId })
    .from(leases)
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .where(eq(leases.id, input.leaseId));
  if (!lease) return null;
  const [row] = await tx
    .insert(plannedTexts)
    .values({ accountId: lease.accountId, locationId: lease.locationId, tenantId: input.tenantId, leaseId: input.leaseId, kind: input.kind, key: input.key, plannedAt: input.now })
    .onConflictDoNothing()
    .returning({ id: plannedTexts.id });
  return row?.id ?? null;
}

/** Thrown inside a planned text's transaction: nothing of it is kept (the pay link is rolled back). */
class NotSent extends Error {
  constructor(readonly outcome: string | null) {
    super(outcome ?? "taken by another run");
  }
}

type Planned = Awaited<ReturnType<typeof unsettled>>[number];

function unsettled(db: Database, ids?: number[]) {
  const where: SQL[] = [isNull(plannedTexts.settledAt)];
  if (ids) where.push(inArray(plannedTexts.id, ids.length ? ids : [-1]));
  return db
    .select({ planned: plannedTexts, location: locations, cellPhone: tenants.cellPhone, unitName: units.name })
    .from(plannedTexts)
    .innerJoin(locations, eq(locations.id, plannedTexts.locationId))
    .innerJoin(tenants, eq(tenants.id, plannedTexts.tenantId))
    .innerJoin(leases, eq(leases.id, plannedTexts.leaseId))
    .innerJoin(units, eq(units.id, leases.unitId))
    .where(and(...where))
    .orderBy(asc(plannedTexts.id))
    .limit(500);
}

async function settle(db: Database | Transaction, id: number, outcome: string, now: Date): Promise<void> {
  await db.update(plannedTexts).set({ settledAt: now, outcome }).where(and(eq(plannedTexts.id, id), isNull(plannedTexts.settledAt)));
}

/** Marks it sent with its text, unless another run did first (then nothing of this one is kept). */
async function claimSent(tx: Transaction, id: number, messageId: number, now: Date): Promise<void> {
  const claimed = await tx
    .update(plannedTexts)
    .set({ settledAt: now, outcome: "sent", textMessageId: messageId })
    .where(and(eq(plannedTexts.id, id), isNull(plannedTexts.settledAt)))
    .returning({ id: plannedTexts.id });
  if (!claimed.length) throw new NotSent(null);
}

const STOP = "Reply STOP to stop texts.";

function reminderBody(kind: PlannedTextKind, key: string, about: { unitName: string; locationName: string; due: number; until: string }, url: string): string {
  const link = `(works once, until ${about.until}): ${url}`;
  if (kind === "autopay_declined") {
    return `${about.locationName}: your autopay card was declined. ${formatCents(about.due)} is due for unit ${about.unitName}. Pay with another card here ${link} ${STOP}`;
  }
  return `${about.locationName}: your bill for unit ${about.unitName} is due on ${formatDate(key)}: ${formatCents(about.due)}. Pay by card here ${link} ${STOP}`;
}

/** One planned text: true when it was handed to the provider. */
async function sendOne(db: Database, r: Planned, now: Date): Promise<boolean> {
  const { planned, location } = r;
  if (now.getTime() - planned.plannedAt.getTime() > GIVE_UP_AFTER_MS) {
    await settle(db, planned.id, "not sent: not within the texting hours of the day after it was planned", now);
    return false;
  }
  // Outside 8 am–9 pm at the location: left for the first run inside them.
  if (!withinTextingHours(now, location.timeZone.timeZoneId)) return false;
  const check = await checkText(db, { location, to: r.cellPhone, now });
  if (!check.ok) {
    await settle(db, planned.id, `not sent: ${check.message}`, now);
    return false;
  }
  const base = { location, to: r.cellPhone, purpose: planned.kind, tenantId: planned.tenantId, now };
  let made: { messageId: number; origin: string };
  try {
    if (planned.kind === "move_out") {
      const site = await siteOfLease(db, planned.leaseId);
      if (!site) throw new NotSent("not sent: the lease's website was not found");
      const origin = publicOrigin(site.website);
      const call = location.phoneNumber ? ` Questions, or a change of plan? Call ${formatPhone(location.phoneNumber)}.` : "";
      const body = `${location.name}: we have your move-out notice for unit ${r.unitName}: moving out on ${formatDate(planned.key)}. The details are in your e-mail.${call} ${STOP}`;
      made = await db.transaction(async (tx) => {
        const messageId = await logTextToSend(tx, { ...base, body, origin }, check);
        await claimSent(tx, planned.id, messageId, now);
        return { messageId, origin };
      });
    } else if (planned.kind === "review_request") {
      const review = reviewLinkOf(location);
      if (!review) throw new NotSent("not sent: the location has no review link now");
      const site = await siteOfLease(db, planned.leaseId);
      if (!site) throw new NotSent("not sent: the lease's website was not found");
      const origin = publicOrigin(site.website);
      const body = `${location.name}: how is your storage? If we have looked after you well, would you tell others in a short review? ${review} We will not ask again. ${STOP}`;
      made = await db.transaction(async (tx) => {
        const messageId = await logTextToSend(tx, { ...base, body, origin }, check);
        await claimSent(tx, planned.id, messageId, now);
        return { messageId, origin };
      });
    } else {
      const result = await withDeskPayLink(db, { tenantId: planned.tenantId, leaseId: planned.leaseId, sentBy: "billing_reminder", now }, async (tx, link, about) => {
        if (about.due <= 0) throw new NotSent("not sent: nothing is due (paid since)");
        const origin = new URL(link.url).origin;
        const messageId = await logTextToSend(tx, { ...base, body: reminderBody(planned.kind, planned.key, about, link.url), origin }, check);
        await claimSent(tx, planned.id, messageId, now);
        return { ok: true as const, messageId, origin };
      });
      if (!result.ok) throw new NotSent(`not sent: ${result.message}`);
      made = result;
    }
  } catch (error) {
    if (!(error instanceof NotSent)) throw error;
    if (error.outcome) await settle(db, planned.id, error.outcome, now);
    return false;
  }
  await deliverText(db, made.messageId, made.origin);
  return true;
}

/**
 * Sends the planned texts that may go now (all unsettled ones, or those of `ids`); returns how many
 * were handed to the provider. Safe with several processes: a text is claimed in the transaction that
 * logs it. A failure of one is logged and left for the next run.
 */
export async function sendPlannedTexts(db: Database, input: { now: Date; ids?: number[] }): Promise<number> {
  let sent = 0;
  for (const r of await unsettled(db, input.ids)) {
    try {
      if (await sendOne(db, r, input.now)) sent++;
    } catch (error) {
      logger.error({ err: error, plannedTextId: r.planned.id }, "[texts] a planned text could not be sent; the next run tries again");
    }
  }
  return sent;
}
