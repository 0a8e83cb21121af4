/**
 * A tenant who rented at the office creates their portal sign-in (issue 11, decision 141).
 * Proof: SiteLink's TenantLogin with the email and web password on the site's tenant record (the
 * password the office gave them, or the one they chose on SiteLink's own tenant pages). Only then is
 * our tenant created (bcrypt hash of the new password), linked to the site's TenantID, with our lease
 * records of the tenant's active ledgers on units we mirror. Nothing is written to SiteLink.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { leases, locations, tenantSoftwareLinks, tenants, units } from "~/db/schema";
import { nextDueAfter } from "~/domain/payments/billing";
import type { LocationRef, OfficeClaimResult } from "../port";
import { tenantIdFromLogin } from "./answers";
import { rows } from "./calls";
import { type SiteLinkCall } from "./client";
import { readLedgers } from "./ledger-reads";
import { dateOf, decimalToCents } from "./quote";

const OFFICE_LEASE_TEXT = "Rented at the office. The signed rental agreement is kept at the office.";

export function siteLinkOfficeTenants(deps: { db: Database; location: LocationRef; call: SiteLinkCall }) {
  const { db, location, call } = deps;

  async function claimOfficeTenant(input: { email: string; webPassword: string; passwordHash: string; now: Date }): Promise<OfficeClaimResult> {
    const email = input.email.trim().toLowerCase();
    if (!email || !input.webPassword) return { kind: "no_match" };
    // The answer carries every matching record's web password in clear (sWebPassword): only the
    // chosen TenantID leaves this line; the answer itself is never logged, journalled or kept.
    const siteLinkTenantId = tenantIdFromLogin(await call("TenantLogin", { sTenantLogin: email, sTenantPassword: input.webPassword }, { write: false }));
    if (!siteLinkTenantId) return { kind: "no_match" };
    const info = rows(await call("TenantInfoByTenantID", { iTenantID: Number(siteLinkTenantId) }, { write: false }), "Table")[0];
    // The record must carry this very email (TenantLogin may accept another login name).
    if (
      !info ||
      String(info.sEmail ?? "")
        .trim()
        .toLowerCase() !== email
    )
      return { kind: "no_match" };
    const [loc] = await db.select({ accountId: locations.accountId }).from(locations).where(eq(locations.id, location.id));
    if (!loc) return { kind: "no_match" };
    const ledgers = await readLedgers(call, siteLinkTenantId);
    const digits = (v: unknown) =>
      String(v ?? "")
        .replace(/\D/g, "")
        .slice(-10);
    return db.transaction(async (tx) => {
      const existing = await tx.query.tenants.findFirst({
        columns: { id: true },
        where: and(eq(tenants.accountId, loc.accountId), sql`lower(${tenants.email}) = ${email}`),
      });
      if (existing) return { kind: "has_account" } as const;
      const [row] = await tx
        .insert(tenants)
        .values({
          accountId: loc.accountId,
          firstName: String(info.sFName ?? "").trim(),
          lastName: String(info.sLName ?? "").trim(),
          email,
          cellPhone: digits(info.sMobile) || digits(info.sPhone),
          webPwHash: input.passwordHash,
          addr1: String(info.sAddr1 ?? "").trim(),
          addr2: String(info.sAddr2 ?? "").trim() || null,
          city: String(info.sCity ?? "").trim(),
          region: String(info.sRegion ?? "").trim(),
          postalCode: String(info.sPostalCode ?? "").trim(),
          externalId: siteLinkTenantId,
        })
        .returning({ id: tenants.id });
      const tenantId = row!.id;
      await tx.insert(tenantSoftwareLinks).values({ tenantId, locationId: location.id, externalTenantId: siteLinkTenantId }).onConflictDoNothing();
      for (const l of ledgers) {
        const unit = await tx.query.units.findFirst({
          columns: { id: true },
          where: and(eq(units.locationId, location.id), eq(units.externalId, String(l.UnitID))),
        });
        if (!unit) continue;
        const already = await tx.query.leases.findFirst({
          columns: { id: true },
          where: and(eq(leases.locationId, location.id), eq(leases.externalId, String(l.LedgerID))),
        });
        // One unit, one active lease: a stray active record of ours on the unit (our mirror behind
        // SiteLink) leaves this one out; the sign-in is still created.
        const taken = await tx.query.leases.findFirst({ columns: { id: true }, where: and(eq(leases.unitId, unit.id), eq(leases.status, "active")) });
        if (already || taken) continue;
        const movedIn = dateOf(l.dMovedIn) ?? input.now.toISOString().slice(0, 10);
        const paidThrough = dateOf(l.dPaidThru) ?? movedIn;
        await tx.insert(leases).values({
          tenantId,
          unitId: unit.id,
          locationId: location.id,
          moveInDate: movedIn,
          monthlyRate: decimalToCents(l.dcRent ?? "0"),
          insurancePremium: decimalToCents(l.dcInsurPremium ?? "0"),
          paidThroughDate: paidThrough,
          nextDueDate: nextDueAfter(paidThrough),
          gateCode: String(l.sAccessCode ?? ""),
          leaseText: OFFICE_LEASE_TEXT,
          leaseHash: "",
          signedName: `${String(info.sFName ?? "")} ${String(info.sLName ?? "")}`.trim(),
          signedAt: new Date(`${movedIn}T12:00:00Z`),
          signedIp: "",
          externalId: String(l.LedgerID),
        });
      }
      return { kind: "claimed", tenantId: String(tenantId) } as const;
    });
  }

  return { claimOfficeTenant };
}
