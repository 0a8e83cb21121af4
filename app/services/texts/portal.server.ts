import { and, eq } from "drizzle-orm";
import { tenants } from "~/db/schema";
import { formatDate, localDate } from "~/domain/shared/calendar";
import type { PortalContext } from "../portal/context.server";
import { currentTextConsent, recordTextConsent, TEXT_OPT_IN_WORDING } from "./consent.server";
import { pushTextOptIn } from "./software.server";

interface PortalTexts {
  optedIn: boolean;
  /** "Turned on 28 Nov 2026 in the customer portal", or null when never asked. */
  since: string | null;
  wording: string;
}

const SOURCES: Record<string, string> = {
  portal_profile: "in the customer portal",
  rental_details: "when renting",
  inbound_keyword: "by text",
  desk: "at the office",
};

/** Our tenants row for the storage software's tenant id, when the tenant is one of ours (local locations). */
async function ownTenantId(ctx: PortalContext, tenantId: string): Promise<number | null> {
  if (!/^\d{1,9}$/.test(tenantId)) return null;
  const [row] = await ctx.db.select({ id: tenants.id }).from(tenants).where(and(eq(tenants.id, Number(tenantId)), eq(tenants.accountId, ctx.accountId)));
  return row?.id ?? null;
}

/** The tenant's texting consent as the profile page shows it (decision 490). */
export async function portalTexts(ctx: PortalContext, phone: string): Promise<PortalTexts> {
  const consent = await currentTextConsent(ctx.db, ctx.accountId, phone);
  const zone = ctx.locations[0]?.timeZone ?? "America/New_York";
  return {
    optedIn: consent?.optedIn ?? false,
    since: consent ? `${consent.optedIn ? "Turned on" : "Turned off"} ${formatDate(localDate(consent.givenAt, zone))} ${SOURCES[consent.source] ?? ""}`.trim() : null,
    wording: TEXT_OPT_IN_WORDING,
  };
}

/** Stores the tenant's choice from the profile page, with the wording shown and when (a STOP later overrides it, and START or this page undo that). */
export async function setPortalTexts(ctx: PortalContext, input: { tenantId: string; phone: string; optedIn: boolean }): Promise<void> {
  await recordTextConsent(ctx.db, {
    accountId: ctx.accountId,
    phone: input.phone,
    optedIn: input.optedIn,
    source: "portal_profile",
    wording: TEXT_OPT_IN_WORDING,
    tenantId: await ownTenantId(ctx, input.tenantId),
    now: ctx.now,
  });
  // SiteLink's record of the tenant follows (bSMSOptIn, decision 614); ours holds whatever it answers.
  await pushTextOptIn(ctx.db, { accountId: ctx.accountId, phone: input.phone, optedIn: input.optedIn });
}
