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
import { desc, eq, inArray } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { DEFAULT_PAY_METHOD_IDS, sitelinkGoLiveChecks, sitelinkSites, type SiteLinkGoLiveSaw, type SiteLinkGoLiveSource, type SiteLinkPayMethodIds } from "~/db/schema";

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
  latest: GoLiveCheckRow | null;
}

/** The latest check of the location, and whether it holds for the settings now saved. */
export async function goLiveState(db: Database, locationId: number): Promise<GoLiveState> {
  const [site] = await db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, locationId));
  const [latest] = await db
    .select()
    .from(sitelinkGoLiveChecks)
    .where(eq(sitelinkGoLiveChecks.locationId, locationId))
    .orderBy(desc(sitelinkGoLiveChecks.id))
    .limit(1);
  if (!site) return { live: false, reason: "no SiteLink settings", latest: latest ?? null };
  if (!latest) return { live: false, reason: "sitelink:verify has not passed for this location yet: online rentals and payments are off", latest: null };
  const when = latest.checkedAt.toISOString();
  if (!latest.passed) return { live: false, reason: `the latest check (${latest.source}, ${when}) did not pass: online rentals and payments are off`, latest };
  if (latest.settingsFingerprint !== goLiveFingerprint(site)) {
    return { live: false, reason: `the settings changed after the check that passed (${when}): run sitelink:verify again; online rentals and payments are off`, latest };
  }
  return { live: true, reason: `passed ${latest.source} at ${when}`, latest };
}

/** Records one check of the location's settings as they are now saved. */
export async function recordGoLiveCheck(
  db: Database,
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
