/**
 * Portal payments whose answer was unclear (PaymentSimpleWithSource / PaymentSimpleCheckWithSource:
 * no answer, or 0 / -1) and whose receipt was not on SiteLink's ledger at once: the journal row
 * `payment:<key>` stays open (issue 37 point 6, decision 481). They are settled by reading SiteLink
 * back, never by sending again, like autopay (./autopay.ts) and move-ins (./move-in.ts):
 *
 * - on a schedule: the server's housekeeping calls `settleUnclearSiteLinkPayments` every few minutes;
 * - before a new payment for the same ledger (./tenants.ts `pay`): it waits, and the tenant is told
 *   the first one is being confirmed, until the row is settled. Never a second charge.
 *
 * A new receipt of the amount (not among those read before sending) settles the row done and records
 * the payment here (once: on its own idempotency key), dated the day the tenant paid. None after
 * SiteLink's settle time: SiteLink did not book it; the row is failed and, where our gateway charged
 * (option B), that charge is refunded. SiteLink unreachable: nothing changes, the next round tries.
 */
import type { CardBrand } from "~/domain/payments/cards";
import { and, eq, inArray, like } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations, sitelinkWrites } from "~/db/schema";
import { localDate } from "~/domain/shared/calendar";
import { getPaymentGateway } from "~/platform/payments/gateway.server";
import { logger } from "~/platform/logger.server";
import type { LocationRef } from "../port";
import { recordApprovedPayment } from "../shared/ledger";
import { rows } from "./calls";
import type { SiteLinkCall } from "./client";
import { okRead } from "./errors";
import { createJournal, type Journal, type JournalEntry } from "./journal";
import { decimalToCents } from "./quote";
import { loadSiteLinkSettings, settleAfterMsFor, type SiteLinkSettings } from "./settings";

/** The journal key prefix of portal and prepay payments. */
export const PAYMENT_PREFIX = "payment:";

interface UnclearPaymentDeps {
  db: Database;
  location: LocationRef;
  call: SiteLinkCall;
  journal: Journal;
  settings: Pick<SiteLinkSettings, "writeTimeoutMs">;
}

const isOpen = (e: JournalEntry) => e.state === "pending" || e.state === "unknown";

/** The location's calendar date now (payments are dated in the location's time zone). */
export async function locationDate(db: Database, locationId: number, now: Date): Promise<string> {
  const [row] = await db.select({ tz: locations.timeZone }).from(locations).where(eq(locations.id, locationId));
  return localDate(now, row?.tz.timeZoneId ?? "America/New_York");
}

/**
 * Our record of a payment SiteLink was found to have booked (receipt `receipt`) after an unclear
 * answer: once, on the tenant's form key, dated the day the tenant paid in the location's time zone.
 * Also used by the back office's "check SiteLink again" (./journal-check.ts). Nothing when the row
 * does not say whose payment it was (rows journalled before decision 481).
 */
export async function recordFoundPayment(db: Database, locationId: number, entry: JournalEntry, receipt: string, now: Date): Promise<void> {
  const x = entry.externalIds;
  if (!x.idempotencyKey || !/^\d+$/.test(x.tenantId ?? "") || !/^\d+$/.test(x.leaseId ?? "") || !Number.isInteger(Number(x.amount))) return;
  await recordApprovedPayment(db, {
    tenantId: Number(x.tenantId),
    leaseId: Number(x.leaseId),
    amount: Number(x.amount),
    source: x.purpose === "prepay" ? "prepay" : "portal",
    cardBrand: (x.brand || "visa") as CardBrand,
    cardLast4: x.last4 ?? "",
    authReference: x.gatewayAuth || `SiteLink receipt ${receipt}`,
    idempotencyKey: x.idempotencyKey,
    // The day the tenant paid, in the location's time zone (SiteLink may have booked it later).
    entryDate: await locationDate(db, locationId, entry.startedAt),
    now,
  });
}

/** The open payment rows of one SiteLink ledger (what a new payment of that balance waits for). */
export async function openPaymentsOfLedger(journal: Journal, ledgerId: string): Promise<JournalEntry[]> {
  return (await journal.withPrefix(PAYMENT_PREFIX)).filter((e) => isOpen(e) && e.externalIds.ledgerId === ledgerId);
}

/**
 * Reads SiteLink back for one open payment row and settles it when the read proves the outcome.
 * "open": not shown yet and too early to say it never will be. Throws when SiteLink cannot be read.
 */
export async function settleUnclearPayment(deps: UnclearPaymentDeps, entry: JournalEntry, now: Date): Promise<"done" | "failed" | "open"> {
  const { db, call, journal } = deps;
  const x = entry.externalIds;
  const amount = Number(x.amount);
  if (!isOpen(entry) || !x.ledgerId || !Number.isInteger(amount)) return "open";
  const before = (x.before ?? "").split(",").filter(Boolean);
  const history = rows(okRead(await call("PaymentsByLedgerID", { sLedgerID: x.ledgerId }, { write: false }), "PaymentsByLedgerID"), "PmtHistory");
  const found = history.find((p) => p.Receipt && !before.includes(p.Receipt) && decimalToCents(p.Payment) === amount);
  if (found?.Receipt) {
    // Our record first (idempotent on the form's key), then the row: a failure in between is redone next round.
    await recordFoundPayment(db, deps.location.id, entry, found.Receipt, now);
    await journal.settle(entry.key, "done", { externalIds: { receipt: found.Receipt }, error: "confirmed by reading SiteLink's payments back", now });
    return "done";
  }
  if (now.getTime() - entry.startedAt.getTime() < settleAfterMsFor(deps.settings)) return "open";
  await journal.settle(entry.key, "failed", { error: "no receipt in SiteLink after the settle time: SiteLink did not book it", now });
  // Option B: our gateway charged and SiteLink booked nothing, so the charge goes back (as on a clear refusal).
  if (x.gatewayAuth && x.idempotencyKey) await getPaymentGateway(deps.location).refund(x.idempotencyKey);
  return "failed";
}

/**
 * The scheduled read-back (housekeeping): every open payment row of every SiteLink location. Returns
 * how many were settled. A location that cannot be read is left for the next round.
 */
export async function settleUnclearSiteLinkPayments(
  db: Database,
  now: Date,
  connect: (location: LocationRef, settings: SiteLinkSettings) => { call: SiteLinkCall },
): Promise<number> {
  const open = await db
    .selectDistinct({ id: locations.id, name: locations.name, software: locations.software, status: locations.status })
    .from(sitelinkWrites)
    .innerJoin(locations, eq(locations.id, sitelinkWrites.locationId))
    .where(and(like(sitelinkWrites.idempotencyKey, `${PAYMENT_PREFIX}%`), inArray(sitelinkWrites.state, ["pending", "unknown"])));
  let settled = 0;
  for (const location of open) {
    const settings = await loadSiteLinkSettings(db, location.id).catch(() => null);
    if (!settings) continue;
    const journal = createJournal(db, location.id);
    const deps: UnclearPaymentDeps = { db, location, call: connect(location, settings).call, journal, settings };
    for (const entry of (await journal.withPrefix(PAYMENT_PREFIX)).filter(isOpen)) {
      try {
        if ((await settleUnclearPayment(deps, entry, now)) !== "open") settled++;
      } catch (error) {
        logger.warn({ location: location.id, key: entry.key, error: error instanceof Error ? error.message : String(error) }, "[sitelink] an unclear payment could not be read back; the next round tries again");
        break;
      }
    }
  }
  return settled;
}
