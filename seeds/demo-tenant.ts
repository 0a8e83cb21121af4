/**
 * DEMO tenant for trying the customer portal (README "Customer portal"): created only when the
 * account's use_demo_units is on, once (looked up by email). The lease goes on one of the demo
 * inventory's units that is already marked rented, so no availability changes; it moved in 20 days
 * ago with a paid first month and a protection plan.
 *
 * Not under NODE_ENV=test (the golden test databases and the browser tests' server): other suites
 * count leases and payments in a fresh seeded database. Tests call it with { force: true }.
 *
 * Not in production on PostgreSQL either, unless SEED_DEMO_TENANT=true (issue 8): the password is
 * published in the README, so a real deployment must not get this account by accident.
 * SEED_DEMO_TENANT=false turns it off everywhere. See docs/decisions/073-demo-tenant-in-production.md.
 */
import { and, asc, eq, isNull, ne, sql } from "drizzle-orm";
import type { Transaction } from "~/db/client.server";
import { accounts, leases, locations, tenants, unitTypes, units } from "~/db/schema";
import { addDaysIso, localDate } from "~/domain/billing";
import { createTenantWithLease } from "~/services/portal-demo.server";
import { now as clockNow } from "~/services/clock.server";

export const DEMO_TENANT_EMAIL = "demo.tenant@example.com";
export const DEMO_TENANT_PASSWORD = "demo1234"; // DEMO credentials, written in the README

/** Whether the demo tenant may be seeded in this environment (before looking at the account's flag). */
export function demoTenantWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.SEED_DEMO_TENANT === "true") return true;
  if (env.SEED_DEMO_TENANT === "false") return false;
  if (env.NODE_ENV === "test") return false;
  return !(env.NODE_ENV === "production" && env.DATABASE_URL);
}

export async function seedDemoTenant(
  tx: Transaction,
  accountId: number,
  options: { force?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<string[]> {
  if (!options.force && !demoTenantWanted(options.env ?? process.env)) return [];
  const account = await tx.query.accounts.findFirst({ where: eq(accounts.id, accountId) });
  if (!account?.useDemoUnits) return [];
  const existing = await tx.query.tenants.findFirst({
    columns: { id: true },
    where: and(eq(tenants.accountId, accountId), sql`lower(${tenants.email}) = ${DEMO_TENANT_EMAIL}`),
  });
  if (existing) return [];
  const location = await tx.query.locations.findFirst({
    where: and(eq(locations.accountId, accountId), eq(locations.status, "Live")),
    orderBy: asc(locations.id),
  });
  if (!location) return [];
  const [unit] = await tx
    .select({ id: units.id })
    .from(units)
    .innerJoin(unitTypes, eq(unitTypes.id, units.unitTypeId))
    .leftJoin(leases, and(eq(leases.unitId, units.id), eq(leases.status, "active")))
    .where(and(eq(units.locationId, location.id), eq(units.status, "rented"), ne(unitTypes.category, "parking"), isNull(leases.id)))
    .orderBy(asc(units.id))
    .limit(1);
  if (!unit) return [];
  const now = clockNow();
  await createTenantWithLease(tx, {
    email: DEMO_TENANT_EMAIL,
    password: DEMO_TENANT_PASSWORD,
    firstName: "Demo",
    lastName: "Tenant",
    now,
    moveInDate: addDaysIso(localDate(now, location.timeZone.timeZoneId), -20),
    withInsurance: true,
    locationId: location.id,
    unitId: unit.id,
  });
  return [`demo tenant ${DEMO_TENANT_EMAIL}`];
}
