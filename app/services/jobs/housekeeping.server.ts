/**
 * Housekeeping in the server process: every few minutes, release the units of reservations past
 * their `reservation_days_valid` window and close rentals left idle for a day (issue 4), and prune
 * the email outbox (issue 8: give up mail unsent after two days, delete old mail; decision 071) and the
 * SiteLink write journal (issue 19: settled rows deleted after 90 days, personal data of rows still
 * open removed after 30; docs/security.md) and the pay links expired 90 days ago (decision 240), and the
 * content's history: old versions' snapshots and uploaded images nothing can show again (decision 361), and
 * sends the review requests that are due (decision 501), the abandoned-rental reminders (decision 517) and the
 * staff's reports by e-mail (decision 613). They are
 * also done on read and by `npx tsx scripts/sweep-reservations.ts`; each is a conditional UPDATE, so
 * several processes running it at once do no harm. In the server, each five-minute period's sweep and
 * each hour's reconciliation is claimed by one process (`job_runs`, issue 41, decision 562).
 */
import type { Database } from "~/db/client.server";
import { now as clockNow } from "~/platform/clock.server";
import { isDatabaseUnavailable, outageReason } from "~/db/unavailable";
import { sweepConfirmingRentals } from "../rental/move-in.server";
import { sweepAbandonedRentals, sweepUnrecordedCharges } from "../rental/record.server";
import { sweepExpiredReservations } from "../rental/reservation.server";
import { pruneOutbox } from "../mail/outbox.server";
import { recheckWaitingWebhooks } from "../payments/waiting-webhooks.server";
import { prunePayLinks } from "../payments/pay-links.server";
import { pruneContentHistory } from "../content/retention.server";
import { sendReviewRequests } from "../marketing/review-requests.server";
import { sendRentalRecoveryReminders } from "../rental/recovery.server";
import { sendDueReports } from "../console/reports.server";
import { logger } from "~/platform/logger.server";
import { reconcileRecentDays } from "../desk/reconciliation.server";
import { pruneSiteLinkJournal, settleUnclearSiteLinkPayments, startSiteLinkSync } from "~/storage-software/index.server";
import { env } from "~/platform/env.server";
import { claimJobPeriod, finishJobRun, pruneJobRuns } from "./claims.server";

/** The sweep's period: every process ticks once per period, one of them runs it (HOUSEKEEPING_EVERY_MS in tests). */
const EVERY_MS = 5 * 60_000;
/** The reconciliation with the card processor's list: once an hour across processes (decision 440). */
const RECONCILE_EVERY_MS = 60 * 60_000;

export async function runHousekeeping(
  db: Database,
  now: Date,
): Promise<{
  reservations: number;
  rentals: number;
  unrecordedCharges: number;
  confirmedMoveIns: number;
  settledPayments: number;
  webhooksRechecked: number;
  emailsGivenUp: number;
  emailsDeleted: number;
  journalDeleted: number;
  journalScrubbed: number;
  payLinksDeleted: number;
  snapshotsPruned: number;
  mediaDeleted: number;
  reviewRequests: number;
  recoveryEmails: number;
  recoveryTexts: number;
  reports: number;
  jobRunsDeleted: number;
}> {
  const reservations = await sweepExpiredReservations(db, now);
  const rentals = await sweepAbandonedRentals(db, now);
  const unrecordedCharges = await sweepUnrecordedCharges(db, now);
  // Move-ins the facility's software did not confirm in time (SiteLink): read back, never resent.
  const confirmedMoveIns = await sweepConfirmingRentals(db, now);
  // Portal payments SiteLink answered unclearly: its payments read back, never sent again (decision 481).
  const settledPayments = await settleUnclearSiteLinkPayments(db, now);
  // Stripe webhooks that came before the page's request recorded anything (decision 411).
  const webhooksRechecked = await recheckWaitingWebhooks(db, now);
  const outbox = await pruneOutbox(db, now);
  const journal = await pruneSiteLinkJournal(db, now);
  const payLinksDeleted = await prunePayLinks(db, now);
  const history = await pruneContentHistory(db, now);
  // Review requests due (issue 40, decision 501): each tenant claimed once, whichever process runs it.
  const reviewRequests = await sendReviewRequests(db, now);
  // Abandoned-rental reminders (issue 40, decision 517): each rental claimed once, whichever process runs it.
  const recovery = await sendRentalRecoveryReminders(db, now);
  // Reports by e-mail due at this hour (issue 40, decision 613): each member, zone and time claimed once.
  const reports = await sendDueReports(db, now);
  const jobRunsDeleted = await pruneJobRuns(db, now);
  return {
    reservations,
    rentals,
    unrecordedCharges,
    confirmedMoveIns,
    settledPayments,
    webhooksRechecked,
    emailsGivenUp: outbox.gaveUp,
    emailsDeleted: outbox.deleted,
    journalDeleted: journal.deleted,
    journalScrubbed: journal.scrubbed,
    payLinksDeleted,
    ...history,
    reviewRequests,
    recoveryEmails: recovery.emails,
    recoveryTexts: recovery.texts,
    reports,
    jobRunsDeleted,
  };
}

/**
 * Starts the sweep's timer once per process (off under NODE_ENV=test or HOUSEKEEPING=off), and the
 * SiteLink inventory sync of the locations served by SiteLink (every minute; off under NODE_ENV=test
 * or SITELINK_SYNC=off; docs/decisions/111; one process syncs, under a lease, decision 480). Every
 * process ticks once per period; the one that claims the period (`job_runs`) runs the sweep, and the
 * one that claims the hour runs the reconciliation (decision 562).
 */
export function startHousekeeping(db: Database): () => void {
  startSiteLinkSync(db, clockNow);
  const e = env();
  if (e.NODE_ENV === "test" || e.HOUSEKEEPING === "off") return () => {};
  const g = globalThis as unknown as { __gatehouseHousekeeping?: () => void };
  if (g.__gatehouseHousekeeping) return g.__gatehouseHousekeeping;
  const everyMs = e.HOUSEKEEPING_EVERY_MS ?? EVERY_MS;
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const period = await claimJobPeriod(db, "housekeeping", everyMs, clockNow());
      if (period) {
        const done = await runHousekeeping(db, clockNow());
        await finishJobRun(db, "housekeeping", period, clockNow());
        logger.info({ period: period.toISOString(), ...Object.fromEntries(Object.entries(done).filter(([, n]) => n > 0)) }, "[housekeeping] sweep run by this process");
      }
      // Reconciliation with the card processor's list, yesterday and today, hourly (decision 440).
      const hour = await claimJobPeriod(db, "reconciliation", RECONCILE_EVERY_MS, clockNow());
      if (hour) {
        const differences = await reconcileRecentDays(db, clockNow());
        await finishJobRun(db, "reconciliation", hour, clockNow());
        logger.info({ period: hour.toISOString(), differences }, "[housekeeping] reconciliation run by this process");
        if (differences > 0) logger.warn({ differences }, "[housekeeping] payments that do not match the card processor");
      }
    } catch (error) {
      if (isDatabaseUnavailable(error)) logger.warn({ reason: outageReason(error) }, "[housekeeping] database unavailable; the sweep will be retried");
      else logger.error({ err: error }, "[housekeeping] sweep failed; it will be retried");
    } finally {
      running = false;
    }
  };
  const first = setTimeout(tick, Math.min(10_000, everyMs));
  const every = setInterval(tick, everyMs);
  first.unref();
  every.unref();
  g.__gatehouseHousekeeping = () => {
    clearTimeout(first);
    clearInterval(every);
  };
  return g.__gatehouseHousekeeping;
}
