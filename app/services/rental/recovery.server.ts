/**
 * Abandoned-rental recovery (issue 40, decisions 517–519). A renter who gave their details and did not
 * pay gets ONE reminder, a delay after they started (`rental_recovery_delay_minutes`, per location over
 * the account's, default 60; `is_rental_recovery_enabled`, default on): an e-mail through the outbox,
 * and a text when their phone agreed to texts, inside the location's texting hours only. The rental is
 * claimed by a conditional UPDATE (`recovery_sent_at`) in the transaction that queues the mail, so two
 * processes or runs send it once. The e-mail's link (a token signed with the session secret, its hash
 * kept on the rental, good for LINK_VALID_MS) brings the renter back to the step they reached with a
 * unit of the same type held again and today's price; its unsubscribe link records the address so no
 * recovery mail goes to it again. Sent by housekeeping.
 */
import crypto from "node:crypto";
import { and, asc, count, eq, gte, inArray, isNotNull, isNull, lt, lte, sql, type SQL } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { accounts, locations, rentalRecoveryOptOuts, rentals, unitTypes, websites } from "~/db/schema";
import { parseAccountGlobalSettings, settingsForLocation } from "~/domain/shared/account-settings";
import { holdEndsAt } from "~/domain/rental/hold";
import { furthestStep, STEP_LABELS } from "~/domain/rental/steps";
import { formatPhone } from "~/domain/shared/phone";
import { env } from "~/platform/env.server";
import { logger } from "~/platform/logger.server";
import { UnitUnavailableError } from "~/storage-software/errors";
import { oneClickUnsubscribeHeaders } from "../mail/unsubscribe-headers.server";
import { queueEmail, sendQueuedEmail } from "../mail/outbox.server";
import { publicOrigin } from "../site/origin.server";
import { textRentalReminder } from "../texts/rental.server";
import { loadRentalContext } from "./context.server";
import { rentalDetails, rentalProgress, sha256, type Rental } from "./record.server";

/** The shortest delay a location may set: no reminder before this (the renter may still be on the page). */
const MIN_DELAY_MS = 30 * 60_000;
/** The link in the reminder brings the renter back for this long after it was sent. */
const LINK_VALID_MS = 48 * 60 * 60_000;
/** A text not sent within this long after its e-mail (outside the texting hours meanwhile) is not sent. */
const TEXT_GIVE_UP_MS = 12 * 60 * 60_000;
/** At most this many reminder e-mails per run (the rest wait for the next run). */
const PER_RUN = 100;

/** The link's token: signed with the first session secret, so the text sent later rebuilds the same link. */
function recoveryToken(rentalId: string): string {
  return crypto.createHmac("sha256", env().sessionSecrets[0]!).update(`rental-recovery:${rentalId}`, "utf8").digest("base64url");
}

const validToken = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token);
const lower = (email: string) => email.trim().toLowerCase();

function recoveryLinks(origin: string, token: string): { back: string; unsubscribe: string } {
  return { back: `${origin}/rent/back/${token}`, unsubscribe: `${origin}/rent/unsubscribe/${token}` };
}

const unitLabel = (t: { width: number; length: number; name: string }) => `${t.width}' x ${t.length}' ${t.name}`;

/** Whether this address asked for no more recovery mail from the account. */
async function optedOut(db: Database, accountId: number, email: string): Promise<boolean> {
  const row = await db.query.rentalRecoveryOptOuts.findFirst({ columns: { id: true }, where: and(eq(rentalRecoveryOptOuts.accountId, accountId), eq(rentalRecoveryOptOuts.email, lower(email))) });
  return Boolean(row);
}

/** Whether the renter has rented at this location since starting this rental (came back on their own, another way). */
async function rentedSince(db: Database, rental: Rental, email: string): Promise<boolean> {
  const [row] = await db
    .select({ n: count() })
    .from(rentals)
    .where(and(eq(rentals.locationId, rental.locationId), eq(rentals.status, "completed"), gte(rentals.createdAt, rental.createdAt), sql`lower(${rentals.tenantDetails}->>'email') = ${lower(email)}`));
  return (row?.n ?? 0) > 0;
}

/**
 * Sends the reminders that are due (each rental once, across processes), then the texts that may go now.
 * Returns how many e-mails were queued by this run.
 */
export async function sendRentalRecoveryReminders(db: Database, now: Date): Promise<{ emails: number; texts: number }> {
  const due = await db
    .select({ rental: rentals, location: locations, accountSettings: accounts.globalSettings, siteName: websites.websiteName, domain: websites.domain, unitType: { name: unitTypes.name, width: unitTypes.width, length: unitTypes.length } })
    .from(rentals)
    .innerJoin(locations, eq(locations.id, rentals.locationId))
    .innerJoin(accounts, eq(accounts.id, locations.accountId))
    .innerJoin(websites, eq(websites.accountId, locations.accountId))
    .innerJoin(unitTypes, eq(unitTypes.id, rentals.unitTypeId))
    .where(
      and(
        eq(rentals.status, "open"),
        isNotNull(rentals.tenantDetails),
        isNull(rentals.recoverySentAt),
        isNull(rentals.completedLeaseId),
        lte(rentals.createdAt, new Date(now.getTime() - MIN_DELAY_MS)),
      ),
    )
    // Every candidate is read (open rentals with details live about a day): one skipped here (its
    // location's delay not reached, its address unsubscribed) never keeps a due one waiting.
    .orderBy(asc(rentals.createdAt));
  let emails = 0;
  for (const { rental, location, accountSettings, siteName, domain, unitType } of due) {
    if (emails >= PER_RUN) break;
    const settings = settingsForLocation(parseAccountGlobalSettings(accountSettings), location.globalSettings);
    if (!settings.is_rental_recovery_enabled) continue;
    if (now.getTime() - rental.createdAt.getTime() < settings.rental_recovery_delay_minutes * 60_000) continue;
    const details = rentalDetails(rental);
    const email = typeof details?.email === "string" ? details.email : "";
    if (!email || (await optedOut(db, location.accountId, email)) || (await rentedSince(db, rental, email))) continue;
    const token = recoveryToken(rental.id);
    const links = recoveryLinks(publicOrigin({ domain }), token);
    const place = `${siteName} ${location.name}`.replace(/\s+/g, " ").trim();
    const step = STEP_LABELS[furthestStep(rentalProgress(rental), settings.is_sitelink_esign_enabled)];
    const outboxId = await db.transaction(async (tx) => {
      const [claimed] = await tx
        .update(rentals)
        .set({ recoverySentAt: now, recoveryTokenHash: sha256(token) })
        .where(and(eq(rentals.id, rental.id), isNull(rentals.recoverySentAt), eq(rentals.status, "open")))
        .returning({ id: rentals.id });
      if (!claimed) return null;
      const { id } = await queueEmail(tx, {
        locationId: rental.locationId,
        to: email,
        subject: `Your ${unitLabel(unitType)} unit at ${place}: pick up where you left off`,
        text: [
          `Hello ${details?.first_name ?? ""},`.replace(" ,", ","),
          "",
          `You started renting a ${unitLabel(unitType)} unit at ${place} and got as far as the "${step}" step. Your answers are saved: this link takes you back there.`,
          "",
          links.back,
          "",
          "We will hold a unit of that size for you again if one is still free, at today's price. The link works for two days.",
          ...(location.phoneNumber ? ["", `Questions? Call us at ${formatPhone(location.phoneNumber)}.`] : []),
          "",
          "This is the only reminder we send about this rental. To get no more reminders like it:",
          links.unsubscribe,
          "",
          siteName,
        ].join("\n"),
        secrets: [links.back, links.unsubscribe],
        // One-click unsubscribe in the mail client (RFC 8058, decision 612): the same link, POSTed.
        headers: oneClickUnsubscribeHeaders(links.unsubscribe),
      });
      return id;
    });
    if (outboxId === null) continue;
    emails++;
    await sendQueuedEmail(db, outboxId).catch((error: unknown) => logger.warn({ err: error, outboxId }, "[rental recovery] the mail job will send it"));
  }
  const texts = await sendRecoveryTexts(db, now);
  return { emails, texts };
}

/**
 * The texts of reminders already e-mailed, to renters who ticked the opt-in (and whose phone's consent
 * still says yes): sent by the first run inside the location's texting hours, within TEXT_GIVE_UP_MS of
 * the e-mail; each settled once (`recovery_text_settled_at`, a conditional UPDATE in the transaction
 * that logs the text).
 */
async function sendRecoveryTexts(db: Database, now: Date): Promise<number> {
  const rows = await db
    .select({ rental: rentals, location: locations, domain: websites.domain, unitType: { name: unitTypes.name, width: unitTypes.width, length: unitTypes.length } })
    .from(rentals)
    .innerJoin(locations, eq(locations.id, rentals.locationId))
    .innerJoin(websites, eq(websites.accountId, locations.accountId))
    .innerJoin(unitTypes, eq(unitTypes.id, rentals.unitTypeId))
    .where(and(isNotNull(rentals.recoverySentAt), isNull(rentals.recoveryTextSettledAt)))
    .orderBy(asc(rentals.recoverySentAt));
  let sent = 0;
  for (const { rental, location, domain, unitType } of rows) {
    const settle = () => db.update(rentals).set({ recoveryTextSettledAt: now }).where(and(eq(rentals.id, rental.id), isNull(rentals.recoveryTextSettledAt)));
    const details = rentalDetails(rental);
    const token = recoveryToken(rental.id);
    const stale = now.getTime() - rental.recoverySentAt!.getTime() > TEXT_GIVE_UP_MS;
    // No text: not asked for, rented or left since, too late, or the secret that signed the link changed.
    if (!details?.text_opt_in || !details.cell_phone || rental.status !== "open" || stale || sha256(token) !== rental.recoveryTokenHash) {
      await settle();
      continue;
    }
    try {
      const outcome = await textRentalReminder(db, {
        location,
        rentalId: rental.id,
        to: details.cell_phone,
        body: `${location.name}: your ${unitLabel(unitType)} rental is saved. Pick up where you left off: ${recoveryLinks(publicOrigin({ domain }), token).back} Reply STOP to stop texts.`,
        origin: publicOrigin({ domain }),
        now,
        claim: async (tx) => {
          const [claimed] = await tx
            .update(rentals)
            .set({ recoveryTextSettledAt: now })
            .where(and(eq(rentals.id, rental.id), isNull(rentals.recoveryTextSettledAt)))
            .returning({ id: rentals.id });
          return Boolean(claimed);
        },
      });
      if (outcome === "sent") sent++;
      else if (outcome === "refused") await settle();
      // "later": outside the texting hours, left for a run inside them.
    } catch (error) {
      logger.error({ err: error }, "[rental recovery] a reminder text could not be sent; the next run tries again");
    }
  }
  return sent;
}

type ResumeResult =
  | { ok: true; rentalId: string; redirect: string }
  | { ok: false; reason: "invalid" | "expired" | "rented"; locationPath: string | null }
  | { ok: false; reason: "sold_out"; unit: string; locationName: string; locationPath: string };

async function rentalOfToken(db: Database, token: string): Promise<Rental | null> {
  if (!validToken(token)) return null;
  return (await db.query.rentals.findFirst({ where: eq(rentals.recoveryTokenHash, sha256(token)) })) ?? null;
}

/**
 * The reminder's link followed: the rental is open again with a unit of its type held for it (the
 * hold's cap counting from now), and the renter is sent to the furthest step they reached; the page
 * quotes today's price from the storage software. When no unit of the type is free, says so.
 */
export async function resumeRental(db: Database, token: string, now: Date): Promise<ResumeResult> {
  const rental = await rentalOfToken(db, token);
  if (!rental) return { ok: false, reason: "invalid", locationPath: null };
  const ctx = await loadRentalContext(db, String(rental.unitTypeId), now);
  const locationPath = ctx ? `/locations/${ctx.location.urlSlug}` : null;
  if (rental.status === "completed") return { ok: false, reason: "rented", locationPath };
  if (!rental.recoverySentAt || now.getTime() - rental.recoverySentAt.getTime() > LINK_VALID_MS || !ctx) return { ok: false, reason: "expired", locationPath };
  const page = `/rent/${rental.unitTypeId}`;
  // Being charged or confirmed: the rental's own page says where it stands.
  if (rental.status === "charging" || rental.status === "confirming") return { ok: true, rentalId: rental.id, redirect: page };
  const until = holdEndsAt(now);
  let unitId: string;
  try {
    unitId = (await ctx.storage.holdUnit({ unitTypeId: ctx.unitType.id, holdToken: rental.id, until, now })).unitId;
  } catch (error) {
    if (!(error instanceof UnitUnavailableError)) throw error;
    return { ok: false, reason: "sold_out", unit: unitLabel(ctx.unitType), locationName: ctx.location.name, locationPath: `/locations/${ctx.location.urlSlug}` };
  }
  await db
    .update(rentals)
    .set({ status: "open", unitId: Number(unitId), expiresAt: until, resumedAt: now })
    .where(and(eq(rentals.id, rental.id), inArray(rentals.status, ["open", "abandoned"])));
  const resumed = { ...rental, status: "open" as const };
  return { ok: true, rentalId: rental.id, redirect: `${page}?step=${furthestStep(rentalProgress(resumed), ctx.settings.is_sitelink_esign_enabled)}` };
}

/**
 * The reminder's unsubscribe link (one click, no JavaScript): the address is recorded for the rental's
 * account, so no recovery mail goes to it again. True when the token names a rental (the link works
 * however old it is, and again).
 */
export async function unsubscribeFromRecovery(db: Database, token: string, now: Date): Promise<{ ok: true; email: string } | { ok: false }> {
  const rental = await rentalOfToken(db, token);
  const email = rentalDetails(rental)?.email;
  if (!rental || !email) return { ok: false };
  const location = await db.query.locations.findFirst({ columns: { accountId: true }, where: eq(locations.id, rental.locationId) });
  if (!location) return { ok: false };
  await db.insert(rentalRecoveryOptOuts).values({ accountId: location.accountId, email: lower(email), rentalId: rental.id, createdAt: now }).onConflictDoNothing();
  return { ok: true, email };
}

/**
 * The numbers for the home page, the leads list and the reports: reminders sent in [from, to), and how
 * many of those rentals the renter came back to and rented (completed after the reminder).
 */
export async function countRentalRecovery(db: Database, input: { accountId: number; locationIds?: readonly number[]; from: Date; to: Date }): Promise<{ remindersSent: number; recovered: number }> {
  const where: SQL[] = [eq(locations.accountId, input.accountId), gte(rentals.recoverySentAt, input.from), lt(rentals.recoverySentAt, input.to)];
  if (input.locationIds) where.push(inArray(rentals.locationId, input.locationIds.length ? [...input.locationIds] : [-1]));
  const [row] = await db
    .select({ sent: count(), recovered: sql<number>`count(*) filter (where ${rentals.status} = 'completed')`.mapWith(Number) })
    .from(rentals)
    .innerJoin(locations, eq(locations.id, rentals.locationId))
    .where(and(...where));
  return { remindersSent: row?.sent ?? 0, recovered: row?.recovered ?? 0 };
}
