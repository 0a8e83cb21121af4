import { asc } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations } from "~/db/schema/location";
import type { LocationRef, StorageSoftware } from "./port";
import { createLocalAdapter } from "./local";
import { recordLateCardPayment as recordLocalLatePayment, type LatePaymentOutcome } from "./local/late-payments";
// "Save this card" on a payment completed on the page after the bank's check (decision 443).
export { saveLatePaymentCard } from "./local/late-payments";
import { createSiteLinkAdapter, siteLinkDeps } from "./sitelink";
import { settleUnclearSiteLinkPayments as settleUnclearPayments } from "./sitelink/payments-unclear";
import { chooseAdapter, loadSiteLinkSettings } from "./sitelink/settings";
import { logger } from "~/platform/logger.server";
import { paymentGatewayFor } from "~/platform/payments/gateway.server";

// SiteLink operations for the server, the housekeeping and the CLI scripts (never the adapter itself).
export { runSiteLinkSync, siteLinkSyncRunner, startSiteLinkSync, statusSnapshotFile, stopSiteLinkSync, syncLeaseHolder } from "./sitelink/scheduler";
export { collectSiteLinkStatus, formatSiteLinkStatus, type SiteLinkStatus } from "./sitelink/status";
export { saveSiteLinkSettings, settingsProblems as siteLinkSettingsProblems } from "./sitelink/settings";
// A location added from the console with demo units (issue 40, decision 621): the demo inventory of decision 034.
export { demoInventory, stockDemoUnits } from "./local/demo-units";
export { verifySiteLinkLocation, formatGoLiveReport, goLiveSaw, testTenantEmail, type GoLiveReport } from "./sitelink/verify";
// Going live through a passed check (issue 37, decision 470).
export { goLiveOfLocations, goLiveState, latestGoLiveCheck, recordGoLiveCheck, recordSimulatorPass, saveGoLiveSuggestions } from "./sitelink/go-live";
export { pruneJournal as pruneSiteLinkJournal, JOURNAL_RETENTION_DAYS, JOURNAL_PERSONAL_DAYS } from "./sitelink/journal";
// The back office's journal desk (issue 23, decision 261): rows needing attention, marking one resolved.
export { listJournalAttention, getJournalDeskRow, markJournalRowResolved, type JournalDeskRow } from "./sitelink/journal-desk";
// "Check SiteLink again" for a row that is not a move-in (decision 341): read back, never resent.
export { checkJournalWrite } from "./sitelink/journal-check";
// The site's discount plans as SiteLink last listed them (issue 40, decision 673): the console's attention.
export { discountPlansAsRead } from "./sitelink/discount-plans";

/**
 * What kind of promotion a location's rentals take (decisions 600, 671): one of SiteLink's plans where
 * SiteLink rents (the SiteLink adapter serves it), an amount or a percentage where we do.
 */
export async function promotionSoftwareOf(db: Database, locationId: number): Promise<"local" | "sitelink"> {
  return (await chooseAdapter(db, locationId)).choice;
}

/**
 * Portal payments SiteLink answered unclearly and whose receipt was not found at once: read back on a
 * schedule (the server's housekeeping), never sent again (decision 481). Returns how many were settled.
 */
export function settleUnclearSiteLinkPayments(db: Database, now: Date): Promise<number> {
  return settleUnclearPayments(db, now, (location, settings) => siteLinkDeps(db, location, { settings }));
}

export type { LocationRef };

/**
 * A card payment recorded as declined (awaiting authentication) that the processor confirms as paid
 * later (the Stripe webhook, the authentication page's return): recorded once where the location's
 * storage software is ours (decision 395); "not ours" at a SiteLink location (the office sees it).
 */
export function recordLateCardPayment(db: Database, input: { idempotencyKey: string; amount: number; authReference: string; now: Date }): Promise<LatePaymentOutcome> {
  return recordLocalLatePayment(db, input, async (locationId) => (await chooseAdapter(db, locationId)).choice === "local");
}

/** Whether a location takes cards online and whether its card forms are a demonstration (decision 200). */
export interface CardPayments {
  /** False: this location's cards need our gateway and none is configured (offer "call the office"). */
  online: boolean;
  /** True: the built-in test gateway takes the cards; the card forms say that no real card is charged. */
  demonstration: boolean;
  /** True: the processor's hosted fields (Stripe): the card forms post back a token, never a card number (decision 383). */
  hosted: boolean;
  /**
   * True: a SiteLink location that has not passed `sitelink:verify` with its current settings (issue
   * 37, decision 470): rentals show as switched off and payments as "call the office" (`online` false).
   */
  awaitingGoLive: boolean;
}

/**
 * Cards go through our gateway at local-adapter locations and at SiteLink locations under option B
 * (`cardsChargedBy`); there, without a configured gateway (`paymentGatewayFor` answers null), the
 * rental, the unit cards and the portal's pay, prepay and autopay pages ask the visitor to call the
 * office instead of offering a card form. SiteLink's own processor (option A) needs none.
 */
export async function cardPaymentsAt(storage: Pick<StorageSoftware, "cardsChargedBy" | "goLive">, location: { id: number }): Promise<CardPayments> {
  // A SiteLink location goes live only through a passed check (issue 37, decision 470).
  if (!(await storage.goLive()).live) return { online: false, demonstration: false, hosted: false, awaitingGoLive: true };
  if ((await storage.cardsChargedBy()) === "software") return { online: true, demonstration: false, hosted: false, awaitingGoLive: false };
  const gateway = paymentGatewayFor(location);
  return gateway
    ? { online: true, demonstration: gateway.demonstration, hosted: gateway.gateway.fields === "hosted", awaitingGoLive: false }
    : { online: false, demonstration: false, hosted: false, awaitingGoLive: false };
}

/**
 * The one factory: the storage software of a location (docs/decisions/030, 110):
 * - the account's `use_demo_units` on: the demo inventory (local adapter), whatever `software` says;
 * - off: `software: sitelink` with SiteLink settings (table sitelink_sites) -> the SiteLink adapter;
 *   `sitelink` without settings, and `no_api`, -> the local adapter (the start-up notice says so).
 *
 * The choice needs two reads, so a `sitelink` location gets an adapter that decides on its first call
 * (and remembers the choice for CHOICE_TTL_MS); callers see the same synchronous factory as before.
 */
export function storageFor(db: Database, location: LocationRef): StorageSoftware {
  if (location.software !== "sitelink") return createLocalAdapter(db, location);
  return deferredAdapter(db, location, () => resolveAdapter(db, location));
}

const CHOICE_TTL_MS = 30_000;
const choices = new WeakMap<Database, Map<number, { at: number; adapter: Promise<StorageSoftware> }>>();

/** Forget the remembered choices (tests and `sitelink:configure` after changing settings). */
export function forgetStorageChoices(db?: Database): void {
  if (db) choices.delete(db);
}

function resolveAdapter(db: Database, location: LocationRef): Promise<StorageSoftware> {
  let perDb = choices.get(db);
  if (!perDb) choices.set(db, (perDb = new Map()));
  const cached = perDb.get(location.id);
  if (cached && Date.now() - cached.at < CHOICE_TTL_MS) return cached.adapter;
  const adapter = (async () => {
    const { choice } = await chooseAdapter(db, location.id);
    if (choice === "local") return createLocalAdapter(db, location);
    const settings = await loadSiteLinkSettings(db, location.id);
    if (!settings) return createLocalAdapter(db, location);
    return createSiteLinkAdapter(db, location, { settings });
  })();
  perDb.set(location.id, { at: Date.now(), adapter });
  adapter.catch(() => perDb.delete(location.id));
  return adapter;
}

/**
 * An adapter whose every method first resolves the real one. Its methods are the local adapter's
 * (every adapter implements the whole port), so it is a plain object with the port's keys.
 */
function deferredAdapter(db: Database, location: LocationRef, resolve: () => Promise<StorageSoftware>): StorageSoftware {
  const deferred: Record<string, unknown> = { kind: "sitelink" };
  for (const [name, value] of Object.entries(createLocalAdapter(db, location))) {
    if (typeof value !== "function") continue;
    deferred[name] = async (...args: unknown[]) => {
      const adapter = (await resolve()) as unknown as Record<string, (...a: unknown[]) => unknown>;
      return adapter[name]!.apply(adapter, args);
    };
  }
  return deferred as unknown as StorageSoftware;
}

/** The line the server logs at start-up, or null when no SiteLink location is served locally. */
export function storageSoftwareNotice(list: ReadonlyArray<Pick<LocationRef, "name" | "software">>): string | null {
  const sitelink = list.filter((l) => l.software === "sitelink");
  if (!sitelink.length) return null;
  return `[storage-software] ${sitelink.map((l) => l.name).join(", ")}: software is "sitelink", served by the built-in local adapter (no SiteLink adapter configured).`;
}

let announced: Promise<void> | null = null;

/**
 * Says once per process, at server start-up (server/app.ts), which locations configured for SiteLink
 * are served by the local adapter. Never throws: a database that is not ready yet only skips the notice.
 */
export function announceStorageSoftware(db: Database, log: (line: string) => void = (line) => logger.info(line)): Promise<void> {
  announced ??= (async () => {
    try {
      const rows = await db
        .select({ id: locations.id, name: locations.name, software: locations.software })
        .from(locations)
        .orderBy(asc(locations.id));
      const servedLocally: typeof rows = [];
      for (const row of rows) {
        const { choice, reason } = await chooseAdapter(db, row.id);
        if (choice === "sitelink") log(`[storage-software] ${row.name}: served by the SiteLink adapter.`);
        else if (row.software === "sitelink" && /use_demo_units/.test(reason)) log(`[storage-software] ${row.name}: ${reason}.`);
        else servedLocally.push(row);
      }
      const line = storageSoftwareNotice(servedLocally);
      if (line) log(line);
    } catch (error) {
      log(`[storage-software] could not list locations at start-up: ${error instanceof Error ? error.message : String(error)}`);
    }
  })();
  return announced;
}
