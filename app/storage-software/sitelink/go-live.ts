/**
 * A SiteLink location goes live only through a passed check (issue 37, decision 470). Online rentals
 * and card payments at a location served by the SiteLink adapter stay off (the visitor is asked to
 * call the office) until `sitelink:verify` has passed for it with its current settings. The settings
 * that decide what SiteLink does with a card (the endpoint, the corp and location code, the pay-method
 * ids and the card types) are fingerprinted; changing any of them needs a new pass.
 *
 * Every check is kept (table sitelink_go_live_checks) with what it saw; the latest one recorded
 * decides: a later run that does not pass switches the location off again.
 */
import crypto from "node:crypto";
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import {
  DEFAULT_PAY_METHOD_IDS,
  sitelinkGoLiveChecks,
  sitelinkSites,
  type GoLiveSuggestions,
  type SiteLinkGoLiveSaw,
  type SiteLinkGoLiveSource,
  type SiteLinkPayMethodIds,
} from "~/db/schema";

type FingerprintedSettings = {
  endpoint: string;
  corpCode: string;
  locationCode: string;
  payMethodIds: Partial<SiteLinkPayMethodIds> | null;
  cardTypeIds: Record<string, number> | null;
};

/** The fingerprint of the settings a pass holds for (sha-256 of their canonical form). */
function goLiveFingerprint(row: FingerprintedSettings): string {
  const pay = { ...DEFAULT_PAY_METHOD_IDS, ...(row.payMethodIds ?? {}) };
  const cards = Object.entries(row.cardTypeIds ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const canonical = JSON.stringify([row.endpoint.trim(), row.corpCode.trim(), row.locationCode.trim(), [pay.card, pay.cash, pay.check], cards]);
  return crypto.createHash("sha256").update(canonical).digest("hex");
}

type GoLiveCheckRow = typeof sitelinkGoLiveChecks.$inferSelect;

interface GoLiveState {
  /** Online rentals and payments may go through SiteLink. */
  live: boolean;
  /** Why not (or "passed on …"), in an operator's words. */
  reason: string;
  /** The same, as a code the console words for itself. */
  code: "no settings" | "never checked" | "failed" | "settings changed" | "passed";
  /** The check that decides: the latest one that reached SiteLink (decision 681). */
  latest: GoLiveCheckRow | null;
}

/** A check that reached SiteLink (one that could not is kept, and decides nothing: decision 681). */
const reachedSiteLink = sql`(${sitelinkGoLiveChecks.saw} ->> 'unreachable') is null`;

/** The latest check of the location that reached SiteLink, and whether it holds for the settings now saved. */
export async function goLiveState(db: Database | Transaction, locationId: number): Promise<GoLiveState> {
  const [site] = await db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, locationId));
  const [latest] = await db
    .select()
    .from(sitelinkGoLiveChecks)
    .where(and(eq(sitelinkGoLiveChecks.locationId, locationId), reachedSiteLink))
    .orderBy(desc(sitelinkGoLiveChecks.id))
    .limit(1);
  if (!site) return { live: false, code: "no settings", reason: "no SiteLink settings", latest: latest ?? null };
  if (!latest) return { live: false, code: "never checked", reason: "sitelink:verify has not passed for this location yet: online rentals and payments are off", latest: null };
  const when = latest.checkedAt.toISOString();
  if (!latest.passed) return { live: false, code: "failed", reason: `the latest check (${latest.source}, ${when}) did not pass: online rentals and payments are off`, latest };
  if (latest.settingsFingerprint !== goLiveFingerprint(site)) {
    return { live: false, code: "settings changed", reason: `the settings changed after the check that passed (${when}): run sitelink:verify again; online rentals and payments are off`, latest };
  }
  return { live: true, code: "passed", reason: `passed ${latest.source} at ${when}`, latest };
}

/** The location's latest check of any kind (one that could not reach SiteLink included), or null. */
export async function latestGoLiveCheck(db: Database, locationId: number): Promise<GoLiveCheckRow | null> {
  const [row] = await db.select().from(sitelinkGoLiveChecks).where(eq(sitelinkGoLiveChecks.locationId, locationId)).orderBy(desc(sitelinkGoLiveChecks.id)).limit(1);
  return row ?? null;
}

/** Records one check of the location's settings as they are now saved. */
export async function recordGoLiveCheck(
  db: Database | Transaction,
  input: { locationId: number; passed: boolean; source: SiteLinkGoLiveSource; saw: SiteLinkGoLiveSaw; testTenantId?: string | null; now: Date },
): Promise<GoLiveCheckRow> {
  const [site] = await db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, input.locationId));
  if (!site) throw new Error(`location ${input.locationId} has no SiteLink settings`);
  const [row] = await db
    .insert(sitelinkGoLiveChecks)
    .values({
      locationId: input.locationId,
      checkedAt: input.now,
      passed: input.passed,
      settingsFingerprint: goLiveFingerprint(site),
      source: input.source,
      saw: input.saw,
      testTenantId: input.testTenantId ?? null,
    })
    .returning();
  return row!;
}

/** The SiteLink TenantID of the test tenant an earlier verify run of this location used, if any. */
export async function lastTestTenant(db: Database, locationId: number): Promise<string | null> {
  const rows = await db
    .select({ testTenantId: sitelinkGoLiveChecks.testTenantId })
    .from(sitelinkGoLiveChecks)
    .where(eq(sitelinkGoLiveChecks.locationId, locationId))
    .orderBy(desc(sitelinkGoLiveChecks.id));
  return rows.find((r) => r.testTenantId)?.testTenantId ?? null;
}

/** The demo seed's record for a location connected to the SiteLink simulator (never a real account). */
export function recordSimulatorPass(db: Database, locationId: number, now: Date): Promise<GoLiveCheckRow> {
  return recordGoLiveCheck(db, {
    locationId,
    passed: true,
    source: "demo seed",
    now,
    saw: {
      differs: [],
      notChecked: [],
      checked: [],
      payMethod: { configured: null, works: null, reading: null },
      testMoveIn: [],
      note: "the SiteLink simulator of the demo and the tests, connected by the seed: not a real account (a real one goes live through npm run sitelink:verify)",
    },
  });
}

/** The go-live state of each of these locations that has SiteLink settings (the back office's journal page). */
export async function goLiveOfLocations(db: Database, locationIds: readonly number[]): Promise<Array<{ locationId: number } & GoLiveState>> {
  if (!locationIds.length) return [];
  const sites = await db.select({ locationId: sitelinkSites.locationId }).from(sitelinkSites).where(inArray(sitelinkSites.locationId, [...locationIds]));
  return Promise.all(sites.map(async ({ locationId }) => ({ locationId, ...(await goLiveState(db, locationId)) })));
}

/**
 * Saves the settings a go-live check proposed (decision 681: the card types SiteLink lists, the
 * pay-method ids the site's test move-in took) over the location's, the others unchanged. Their
 * fingerprint changes with them, so the location needs a new passing check. Returns what they were
 * and are (for the audit), or null when the location has no SiteLink settings.
 */
export async function saveGoLiveSuggestions(
  db: Database | Transaction,
  locationId: number,
  suggested: GoLiveSuggestions,
): Promise<{ before: GoLiveSuggestions; after: GoLiveSuggestions } | null> {
  const [site] = await db.select({ cardTypeIds: sitelinkSites.cardTypeIds, payMethodIds: sitelinkSites.payMethodIds }).from(sitelinkSites).where(eq(sitelinkSites.locationId, locationId));
  if (!site) return null;
  const set: Partial<typeof sitelinkSites.$inferInsert> = {};
  const before: GoLiveSuggestions = {};
  if (suggested.cardTypeIds) {
    before.cardTypeIds = site.cardTypeIds ?? {};
    set.cardTypeIds = suggested.cardTypeIds;
  }
  if (suggested.payMethodIds) {
    before.payMethodIds = { ...DEFAULT_PAY_METHOD_IDS, ...(site.payMethodIds ?? {}) };
    set.payMethodIds = suggested.payMethodIds;
  }
  if (Object.keys(set).length) await db.update(sitelinkSites).set(set).where(eq(sitelinkSites.locationId, locationId));
  return { before, after: suggested };
}
