/**
 * Connects the seeded demo locations the SiteLink simulator knows (Lumberton L001, Jacksonville L002)
 * to a running simulator: `use_demo_units` off for their accounts and each location's SiteLink
 * settings, the corp password and API key named by environment variables (never stored). A site with
 * a processor charges cards itself (option A); one without records our gateway's payments (option B).
 * Each is switched on by the seed's go-live record for the simulator (issue 37, decision 470).
 * Used by `npm run start:sitelink` and the SiteLink browser tests' server.
 */
import { eq, inArray } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import type { EnvSource } from "~/platform/env.server";
import { accounts, locations } from "~/db/schema";
import { recordSimulatorPass, saveSiteLinkSettings } from "~/storage-software/index.server";
import { DEMO_CORP, DEMO_SITES } from "../sitelink-simulator/index";

type DemoSite = (typeof DEMO_SITES)[number];

export async function connectDemoSites(
  db: Database,
  simulatorUrl: string,
  secrets: { passwordEnv: string; apiKeyEnv: string },
  env?: EnvSource,
): Promise<Array<{ locationId: number; slug: string; site: DemoSite }>> {
  const rows = await db
    .select({ id: locations.id, slug: locations.urlSlug, accountId: locations.accountId })
    .from(locations)
    .where(inArray(locations.urlSlug, DEMO_SITES.map((s) => s.slug)));
  for (const site of DEMO_SITES) if (!rows.some((r) => r.slug === site.slug)) throw new Error(`no seeded ${site.name}`);
  for (const accountId of new Set(rows.map((r) => r.accountId))) {
    await db.update(accounts).set({ useDemoUnits: false }).where(eq(accounts.id, accountId));
  }
  const connected: Array<{ locationId: number; slug: string; site: DemoSite }> = [];
  for (const row of rows) {
    const site = DEMO_SITES.find((s) => s.slug === row.slug)!;
    const cardTypeIds = Object.fromEntries(site.paymentTypes.filter((p) => p.brand).map((p) => [p.brand!, p.PmtTypeID]));
    await saveSiteLinkSettings(db, {
      locationId: row.id,
      endpoint: simulatorUrl,
      corpCode: DEMO_CORP.corpCode,
      locationCode: site.sLocationCode,
      corpUser: DEMO_CORP.userName,
      passwordEnv: secrets.passwordEnv,
      apiKeyEnv: secrets.apiKeyEnv,
      cardChargedBy: site.processor ? "sitelink" : "gateway",
      testMode: true,
      cardTypeIds,
    }, env);
    // Switched on by the seed's record, not by sitelink:verify (issue 37, decision 470): the simulator
    // is no real account. A real location goes live through npm run sitelink:verify.
    await recordSimulatorPass(db, row.id, new Date());
    connected.push({ locationId: row.id, slug: row.slug, site });
  }
  return connected;
}
