import fs from "node:fs";
import { and, asc, eq, isNull, lt, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { billReminders, billingRuns, locations } from "~/db/schema";
import { formatDate, localDate } from "~/domain/shared/calendar";
import { formatCents } from "~/domain/shared/money";
import { storageFor } from "~/storage-software/index.server";
import type { LeaseBilling, StorageSoftware } from "~/storage-software/port";
import { queueEmail, sendQueuedEmail } from "../mail/outbox.server";
import { withReminderPayLink } from "./pay-links.server";
import { planText, sendPlannedTexts } from "../texts/planned.server";
import { emailAuthenticationLink } from "./authentication.server";
import { now as clockNow } from "~/platform/clock.server";
import { pruneTenantSessions } from "../web/session.server";
import { pruneStaffSessions } from "../staff/session.server";
import { pruneRateLimits } from "../web/rate-limit.server";
import { pruneResetTokens } from "../portal/sign-in-limits.server";
import { logger } from "~/platform/logger.server";
import { env } from "~/platform/env.server";

interface BillingRunResult {
  runDate: string;
  /** True when another run (another process, or earlier today) had claimed the date. */
  skipped: boolean;
  leases: number;
  chargesPosted: number;
  autopayCharged: number;
  autopayDeclined: number;
}

/** A claim older than this with no finish is taken to be a crashed run and is taken over. */
const STALE_CLAIM_MS = 60 * 60 * 1000;

/**
 * Claims the run date: an INSERT that only one process can win, or the takeover of a claim that
 * was left unfinished long ago. Returns false when the date is (being) done by someone else.
 */
async function claim(db: Database, runDate: string, now: Date): Promise<boolean> {
  const inserted = await db.insert(billingRuns).values({ runDate, startedAt: now }).onConflictDoNothing().returning({ runDate: billingRuns.runDate });
  if (inserted.length) return true;
  const taken = await db
    .update(billingRuns)
    .set({ startedAt: now })
    .where(and(eq(billingRuns.runDate, runDate), isNull(billingRuns.finishedAt), lt(billingRuns.startedAt, new Date(now.getTime() - STALE_CLAIM_MS))))
    .returning({ runDate: billingRuns.runDate });
  return taken.length > 0;
}

/**
 * The daily billing run for `runDate` (a calendar date of the locations' time zone): every location's
 * storage software bills its active leases through the port (`billLeases`). Safe to
 * run twice and from several processes: the date is claimed once in billing_runs, and every posting
 * and autopay charge is idempotent on its own key besides. `force` skips the claim (the CLI's
 * --force, tests); `tenantId` limits the run to one tenant's leases (tests).
 */
export async function runBilling(
  db: Database,
  input: { runDate: string; now?: Date; force?: boolean; tenantId?: number; log?: (line: string) => void },
): Promise<BillingRunResult> {
  const now = input.now ?? clockNow();
  const result: BillingRunResult = { runDate: input.runDate, skipped: false, leases: 0, chargesPosted: 0, autopayCharged: 0, autopayDeclined: 0 };
  if (!input.force && !(await claim(db, input.runDate, now))) return { ...result, skipped: true };

  // Each location's storage software bills its own leases (the local adapter posts and runs autopay;
  // SiteLink posts its charges, and runs autopay itself where its processor charges (option A, billedBy
  // "software"); where our gateway charges (option B) the adapter charges autopay, decision 170).
  const list = await db
    .select({ id: locations.id, name: locations.name, software: locations.software, status: locations.status })
    .from(locations)
    .orderBy(asc(locations.id));
  for (const location of list) {
    const storage = storageFor(db, location);
    let billing;
    try {
      billing = await storage.billLeases({ runDate: input.runDate, now, tenantId: input.tenantId === undefined ? undefined : String(input.tenantId) });
    } catch (error) {
      logger.error({ err: error, locationId: location.id, runDate: input.runDate }, "[billing] a location could not be billed; the next run retries it");
      continue;
    }
    for (const f of billing.failed) {
      logger.error({ err: f.error, leaseId: f.leaseId, runDate: input.runDate }, "[billing] a lease could not be billed; the next run retries it");
    }
    for (const r of billing.leases) {
      result.leases++;
      result.chargesPosted += r.chargesPosted;
      if (r.autopay === "approved") result.autopayCharged++;
      if (r.autopay === "none" && r.chargesPosted > 0) {
        await remindBillDue(db, storage, r, input.runDate, now).catch((error) =>
          logger.error({ err: error, leaseId: r.leaseId }, "[billing] the bill-due reminder could not be queued"),
        );
      }
      if (r.autopay === "declined") {
        result.autopayDeclined++;
        await notifyDecline(db, storage, r, input.runDate, now).catch((error) =>
          logger.error({ err: error, leaseId: r.leaseId }, "[billing] the autopay decline email could not be queued"),
        );
      }
    }
  }
  await db
    .insert(billingRuns)
    .values({ runDate: input.runDate, startedAt: now, finishedAt: new Date(), chargesPosted: result.chargesPosted, autopayCharged: result.autopayCharged, autopayDeclined: result.autopayDeclined })
    .onConflictDoUpdate({
      target: billingRuns.runDate,
      set: {
        finishedAt: new Date(),
        chargesPosted: sql`${billingRuns.chargesPosted} + ${result.chargesPosted}`,
        autopayCharged: sql`${billingRuns.autopayCharged} + ${result.autopayCharged}`,
        autopayDeclined: sql`${billingRuns.autopayDeclined} + ${result.autopayDeclined}`,
      },
    });
  // The reminders' texts planned above go now where it is within the texting hours (decision 512).
  await sendPlannedTexts(db, { now }).catch((error) => logger.error({ err: error }, "[billing] the reminder texts could not be sent; the next run tries again"));
  input.log?.(
    `[billing] ${input.runDate}: ${result.leases} lease(s), ${result.chargesPosted} charge line(s) posted, autopay ${result.autopayCharged} charged / ${result.autopayDeclined} declined`,
  );
  return result;
}

/**
 * Tells the tenant their autopay card was declined, with what they owe now (the port's balance): the
 * billing run's reminder. Where the location takes payments through our portal it carries a fresh pay
 * link (decision 240), created in the same transaction that queues the e-mail.
 */
async function notifyDecline(db: Database, storage: StorageSoftware, billed: LeaseBilling, runDate: string, now: Date) {
  const tenant = await storage.getTenant(billed.tenantId);
  const lease = await storage.getTenantLease(billed.tenantId, billed.leaseId);
  if (!tenant || !lease) return;
  // The bank wants the tenant to confirm the charge: a link to do that, not "declined" (decision 395).
  if (billed.authentication && tenant.email) {
    const sent = await emailAuthenticationLink(db, { ...billed.authentication, to: tenant.email, firstName: tenant.firstName, now });
    if (sent) return;
  }
  const reason = billed.declineReason ?? "Your card was declined.";
  const queued = await withReminderPayLink(db, { tenantId: Number(billed.tenantId), leaseId: Number(billed.leaseId), now }, async (tx, link) => {
    const pay = link
      ? `To pay now with another card, without signing in, open this link (it works once, for 72 hours):\n\n${link.url}\n\nOr sign in to the customer portal, or call the office.`
      : "Please sign in to the customer portal to pay with another card, or call the office.";
    const mail = await queueEmail(tx, {
      locationId: lease.locationId,
      to: tenant.email,
      subject: "Your autopay payment was declined",
      secrets: link ? [link.url, link.signed] : undefined,
      text: `Hello ${tenant.firstName},\n\nWe tried to charge your autopay card for ${formatCents(lease.balance)} today, and it was declined: ${reason}\n${pay}\n`,
    });
    // And by text with its own pay link, where the tenant agreed to texts (decision 512).
    if (link) await planText(tx, { tenantId: Number(billed.tenantId), leaseId: Number(billed.leaseId), kind: "autopay_declined", key: runDate, now });
    return mail;
  });
  await sendQueuedEmail(db, queued.id);
}

/** Thrown inside the reminder's transaction when another run sent it: rolls back its pay link. */
class AlreadyReminded extends Error {}

/**
 * The bill-due reminder (issue 23, decision 281): when this run posted a month's charges to a lease
 * that is not on autopay and a balance is due, the tenant gets an e-mail with the amount, the due
 * date and, where the location takes payments through our portal, a fresh pay link (decision 240).
 * Once per lease and billing date: the `bill_reminders` row is written in the transaction that
 * queues the e-mail and creates the link, so a repeated or concurrent run sends nothing again.
 */
async function remindBillDue(db: Database, storage: StorageSoftware, billed: LeaseBilling, billDate: string, now: Date) {
  const leaseId = Number(billed.leaseId);
  const sent = await db.query.billReminders.findFirst({ where: and(eq(billReminders.leaseId, leaseId), eq(billReminders.billDate, billDate)) });
  if (sent) return;
  const tenant = await storage.getTenant(billed.tenantId);
  const lease = await storage.getTenantLease(billed.tenantId, billed.leaseId);
  if (!tenant?.email || !lease || lease.autopay.enabled || lease.balance <= 0) return;
  let queued: { id: number };
  try {
    queued = await withReminderPayLink(db, { tenantId: Number(billed.tenantId), leaseId, now }, async (tx, link) => {
      const pay = link
        ? `You can pay it by card without signing in, through this link (it works once, for 72 hours):\n\n${link.url}\n\nOr sign in to the customer portal, or call the office.`
        : "Please sign in to the customer portal to pay, or call the office.";
      const mail = await queueEmail(tx, {
        locationId: lease.locationId,
        to: tenant.email,
        subject: `Your storage bill is due: unit ${lease.unitName}`,
        secrets: link ? [link.url, link.signed] : undefined,
        text: `Hello ${tenant.firstName},\n\nYour bill for unit ${lease.unitName} is due on ${formatDate(billDate)}: ${formatCents(lease.balance)}.\n\n${pay}\n`,
      });
      const claimed = await tx.insert(billReminders).values({ leaseId, billDate, outboxId: mail.id, payLinkId: link?.id ?? null, createdAt: now }).onConflictDoNothing().returning({ leaseId: billReminders.leaseId });
      if (!claimed.length) throw new AlreadyReminded();
      // And by text with its own pay link, where the tenant agreed to texts (decision 512).
      if (link) await planText(tx, { tenantId: Number(billed.tenantId), leaseId, kind: "bill_due", key: billDate, now });
      return mail;
    });
  } catch (error) {
    if (error instanceof AlreadyReminded) return;
    throw error;
  }
  await sendQueuedEmail(db, queued.id);
}

/** Today's billing date: the calendar date in the account's (first live location's) time zone. */
export async function billingDateToday(db: Database, now: Date): Promise<string> {
  const [loc] = await db
    .select({ timeZone: locations.timeZone })
    .from(locations)
    .orderBy(sql`case when ${locations.status} = 'Live' then 0 else 1 end`, asc(locations.id))
    .limit(1);
  return localDate(now, loc?.timeZone.timeZoneId ?? "America/New_York");
}

// ---------------------------------------------------------------- the in-server daily job

const CHECK_EVERY_MS = 10 * 60 * 1000;
/** After a failed run (the database unreachable meanwhile), the next try. */
const RETRY_AFTER_FAILURE_MS = 15_000;

/** The file that tells the billing CLI that a server has this PGlite directory open. */
export function serverPidFile(pgliteDir: string): string {
  return `${pgliteDir.replace(/[/\\]+$/, "")}.server.pid`;
}

/**
 * Starts the daily billing job in the server process: shortly after start-up and then every ten
 * minutes it bills today's date unless today's run is already claimed (by this or another process).
 * Off under NODE_ENV=test (tests run billing through the test hook) and with BILLING_SCHEDULE=off.
 */
export function startBillingSchedule(db: Database, options: { pgliteDir?: string | null } = {}): () => void {
  const e = env();
  if (e.NODE_ENV === "test" || e.BILLING_SCHEDULE === "off") return () => {};
  // Once per process, even when the dev server evaluates server/app.ts again.
  const g = globalThis as unknown as { __gatehouseBilling?: () => void };
  if (g.__gatehouseBilling) return g.__gatehouseBilling;
  if (options.pgliteDir) {
    const file = serverPidFile(options.pgliteDir);
    try {
      fs.writeFileSync(file, String(process.pid));
      process.on("exit", () => {
        try {
          if (fs.readFileSync(file, "utf8") === String(process.pid)) fs.rmSync(file);
        } catch {
          /* already gone */
        }
      });
    } catch {
      /* the CLI falls back to PGlite's own postmaster.pid */
    }
  }
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const now = clockNow();
      // Planned texts held for the texting hours go at the first run inside them (decision 512).
      await sendPlannedTexts(db, { now }).catch((error) => logger.error({ err: error }, "[texts] planned texts could not be sent; the next run tries again"));
      const runDate = await billingDateToday(db, now);
      const done = await db.query.billingRuns.findFirst({ columns: { finishedAt: true }, where: eq(billingRuns.runDate, runDate) });
      if (!done?.finishedAt) {
        const run = await runBilling(db, { runDate, now, log: (l) => logger.info(l) });
        // The day's pruning goes with the day's claim: one process does it (decision 562).
        if (run.skipped) return;
        await pruneTenantSessions(db, now);
        await pruneStaffSessions(db, now);
        await pruneRateLimits(db, now);
        await pruneResetTokens(db, now);
      }
    } catch (error) {
      // A run cut off by the database going away (a restart, a failover) is tried again shortly, not
      // at the next check ten minutes later; its claim makes it once across processes all the same.
      logger.error({ err: error }, "[billing] the daily run failed; it will be retried");
      const retry = setTimeout(tick, RETRY_AFTER_FAILURE_MS);
      retry.unref();
    } finally {
      running = false;
    }
  };
  const first = setTimeout(tick, 5_000);
  const every = setInterval(tick, CHECK_EVERY_MS);
  first.unref();
  every.unref();
  g.__gatehouseBilling = () => {
    clearTimeout(first);
    clearInterval(every);
  };
  return g.__gatehouseBilling;
}
