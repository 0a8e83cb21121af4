/**
 * Review requests (issue 40, decision 501): a set number of days after a move-in, one e-mail (or one
 * text, to a tenant who agreed to texts where the location can text) asking
 * the tenant to review the location at its review link (Google, else Yelp, else Facebook); never twice
 * to one tenant; not to a tenant who owes money or has given notice; only where the operator turned it
 * on (`is_review_request_enabled` in the location's or the account's settings). Run by housekeeping:
 * a tenant is claimed by a conditional UPDATE in the transaction that queues the mail, so several
 * processes (or runs) at once send it once.
 */
import { and, asc, eq, isNull, lte } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { accounts, leases, locations, tenants, websites } from "~/db/schema";
import { parseAccountGlobalSettings, settingsForLocation } from "~/domain/shared/account-settings";
import { addDaysIso, localDate } from "~/domain/shared/calendar";
import { reviewLinkOf } from "~/domain/marketing/review-link";
import { storageFor } from "~/storage-software/index.server";
import { queueEmail, sendQueuedEmail } from "../mail/outbox.server";
import { planText, sendPlannedTexts } from "../texts/planned.server";
import { phoneAgreedToTexts } from "../texts/rental.server";
import { logger } from "~/platform/logger.server";

/** At most this many requests per run (the rest wait for the next run). */
const PER_RUN = 50;

export async function sendReviewRequests(db: Database, now: Date): Promise<number> {
  const rows = await db
    .select({
      location: {
        id: locations.id,
        accountId: locations.accountId,
        name: locations.name,
        sms: locations.sms,
        software: locations.software,
        status: locations.status,
        timeZone: locations.timeZone,
        globalSettings: locations.globalSettings,
        googleReviewLink: locations.googleReviewLink,
        yelpReviewLink: locations.yelpReviewLink,
        facebookReviewLink: locations.facebookReviewLink,
      },
      accountSettings: accounts.globalSettings,
      siteName: websites.websiteName,
    })
    .from(locations)
    .innerJoin(accounts, eq(accounts.id, locations.accountId))
    .innerJoin(websites, eq(websites.accountId, locations.accountId));
  let sent = 0;
  for (const { location, accountSettings, siteName } of rows) {
    if (sent >= PER_RUN) break;
    const settings = settingsForLocation(parseAccountGlobalSettings(accountSettings), location.globalSettings);
    const link = reviewLinkOf(location);
    if (!settings.is_review_request_enabled || !link) continue;
    const today = localDate(now, location.timeZone.timeZoneId);
    const movedInBy = addDaysIso(today, -settings.review_request_days_after_move_in);
    const due = await db
      .select({ lease: leases, tenant: tenants })
      .from(leases)
      .innerJoin(tenants, eq(tenants.id, leases.tenantId))
      .where(and(eq(leases.locationId, location.id), eq(leases.status, "active"), isNull(leases.moveOutDate), lte(leases.moveInDate, movedInBy), isNull(tenants.reviewRequestedAt)))
      .orderBy(asc(leases.moveInDate), asc(leases.id))
      .limit(PER_RUN - sent);
    const storage = storageFor(db, location);
    for (const { lease, tenant } of due) {
      // What the storage software says now: still active, no notice, nothing owed.
      const live = await storage.getTenantLease(String(tenant.id), String(lease.id)).catch(() => undefined);
      if (!live || live.status !== "active" || live.moveOutDate || live.balance > 0) continue;
      const queued = await db.transaction(async (tx): Promise<{ outboxId: number } | { textId: number } | null> => {
        const [claimed] = await tx
          .update(tenants)
          .set({ reviewRequestedAt: now })
          .where(and(eq(tenants.id, tenant.id), isNull(tenants.reviewRequestedAt)))
          .returning({ id: tenants.id });
        if (!claimed) return null;
        // By text to a tenant who agreed to texts, where the location can text (sent inside the texting
        // hours, the consent checked again then); else by e-mail. One request either way.
        if (location.sms && (await phoneAgreedToTexts(tx, location.accountId, tenant.cellPhone))) {
          const textId = await planText(tx, { tenantId: tenant.id, leaseId: lease.id, kind: "review_request", key: "review", now });
          if (textId !== null) return { textId };
        }
        const place = `${siteName} ${location.name}`.replace(/\s+/g, " ").trim();
        const { id } = await queueEmail(tx, {
          locationId: location.id,
          to: tenant.email,
          subject: `How is your storage at ${place}?`,
          text: [
            `Hello ${tenant.firstName},`,
            "",
            `You moved in to ${place} a little while ago. If we have looked after you well, would you tell others in a short review?`,
            "",
            link,
            "",
            "It takes a minute and helps a local business. We will not ask again.",
            "",
            siteName,
          ].join("\n"),
        });
        return { outboxId: id };
      });
      if (queued === null) continue;
      sent++;
      if ("textId" in queued) {
        await sendPlannedTexts(db, { now, ids: [queued.textId] }).catch((error: unknown) => logger.warn({ err: error, plannedTextId: queued.textId }, "[review requests] the next run sends the text"));
        continue;
      }
      const { outboxId } = queued;
      await sendQueuedEmail(db, outboxId).catch((error: unknown) => logger.warn({ err: error, outboxId }, "[review requests] the mail job will send it"));
    }
  }
  return sent;
}
