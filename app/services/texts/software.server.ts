/**
 * A texting opt-in changed after the move-in (the portal's box, or STOP/START by text) is told to the
 * storage software of each location where a tenant with that phone is linked (issue 40, decision 614):
 * SiteLink's `bSMSOptIn` on its tenant record, by the port's `setTenantTextOptIn` (a journalled
 * read-modify-write: an unanswered write is read back, never sent again blindly). Our consent log
 * stays what we text by; SiteLink's record follows it. A location that could not be told is logged and
 * left in its write journal (the back office's SiteLink journal and `sitelink:status` show it); the
 * tenant's choice holds either way.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locationsWithSoftware } from "~/db/queries/location-software.server";
import { tenantSoftwareLinks, tenants } from "~/db/schema";
import { textNumber } from "~/domain/texts/rules";
import { logger } from "~/platform/logger.server";
import { storageFor } from "~/storage-software/index.server";

interface OptInPushResult {
  /** Locations whose software now shows the choice. */
  sent: number;
  /** Locations that did not confirm it or refused it (journalled, logged). */
  failed: number;
}

/** Tells every linked location's software the phone's texting choice; never throws. */
export async function pushTextOptIn(db: Database, input: { accountId: number; phone: string; optedIn: boolean }): Promise<OptInPushResult> {
  const result: OptInPushResult = { sent: 0, failed: 0 };
  const number = textNumber(input.phone);
  if (!number) return result;
  const digits = number.slice(2);
  try {
    const linked = await db
      .select({ tenantId: tenantSoftwareLinks.tenantId, locationId: tenantSoftwareLinks.locationId })
      .from(tenantSoftwareLinks)
      .innerJoin(tenants, eq(tenants.id, tenantSoftwareLinks.tenantId))
      .where(and(eq(tenants.accountId, input.accountId), sql`right(regexp_replace(${tenants.cellPhone}, '[^0-9]', '', 'g'), 10) = ${digits}`));
    if (!linked.length) return result;
    const refs = new Map((await locationsWithSoftware(db, input.accountId, [...new Set(linked.map((l) => l.locationId))])).map((r) => [r.id, r]));
    for (const link of linked) {
      const ref = refs.get(link.locationId);
      if (!ref) continue;
      try {
        const outcome = await storageFor(db, ref).setTenantTextOptIn(String(link.tenantId), input.optedIn);
        if (outcome === "sent") result.sent++;
      } catch (error) {
        result.failed++;
        logger.warn({ locationId: link.locationId, error: error instanceof Error ? error.message : String(error) }, "[texts] the texting choice could not be confirmed by the facility's software; its write journal keeps it");
      }
    }
  } catch (error) {
    logger.warn({ err: error }, "[texts] the texting choice was not pushed to the facility's software");
  }
  return result;
}

