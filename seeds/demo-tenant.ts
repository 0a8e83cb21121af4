/**
 * DEMO tenant for trying the customer portal (README "Customer portal"): created only when the
 * account's use_demo_units is on, once (looked up by email), through the storage port's moveIn like
 * any rental (app/services/portal/demo-tenant.server.ts). The lease goes on one of the demo inventory's
 * units that is marked rented without a lease: the seed gives that unit back to the inventory and
 * holds it for the demo rental, so the move-in rents exactly it and no availability changes. It
 * moved in 20 days ago with a paid first month and a protection plan.
 *
 * Not under NODE_ENV=test (the golden test databases and the browser tests' server): other suites
 * count leases and payments in a fresh seeded database. Tests call it with { force: true }.
 *
 * Not in production either (on PostgreSQL since issue 8, on PGlite too since issue 19), unless
 * SEED_DEMO_TENANT=true: the password is published in the README, so a real deployment must not get
 * this account by accident.
 * And in production only on a demonstration site (PAYMENT_GATEWAY=test, decision 200): the first
 * month is paid through the payment gateway. SEED_DEMO_TENANT=false turns it off everywhere. See docs/decisions/073-demo-tenant-in-production.md.
 */
import crypto from "node:crypto";
import { and, asc, eq, isNull, ne, sql } from "drizzle-orm";
import type { Transaction } from "~/db/client.server";
import { accounts, rentals, leases, locations, tenants, unitTypes, units } from "~/db/schema";
import { addDaysIso, localDate } from "~/domain/shared/calendar";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { now as clockNow } from "~/platform/clock.server";
import { hashPassword, verifyPassword } from "~/platform/password.server";
import { rawEnv, type EnvSource } from "~/platform/env.server";

export const DEMO_TENANT_EMAIL = "demo.tenant@example.com";
export const DEMO_TENANT_PASSWORD = "demo1234"; // DEMO credentials, written in the README

/** Whether the demo tenant may be seeded in this environment (before looking at the account's flag). */
export function demoTenantWanted(env: EnvSource): boolean {
  // Its first month is paid through the payment gateway: in production only on a demonstration site
  // (PAYMENT_GATEWAY=test, decision 200); with no gateway the move-in could not be paid.
  if (env.NODE_ENV === "production" && env.PAYMENT_GATEWAY !== "test") return false;
  if (env.SEED_DEMO_TENANT === "true") return true;
  if (env.SEED_DEMO_TENANT === "false") return false;
  // Production never gets it unless asked, whatever the database: the Docker image's default is
  // production on PGlite, and that is a real deployment too (issue 19).
  return env.NODE_ENV !== "test" && env.NODE_ENV !== "production";
}

/**
 * In production, unless SEED_DEMO_TENANT=true, a demo tenant seeded by an earlier version (when
 * production on PGlite still got it) loses its published password: the tenant and its lease stay
 * (the seed never deletes), but `demo1234` no longer signs in. Idempotent.
 */
export async function disablePublishedDemoPassword(tx: Transaction, accountId: number, env: EnvSource): Promise<string[]> {
  if (env.NODE_ENV !== "production" || env.SEED_DEMO_TENANT === "true") return [];
  const demo = await tx.query.tenants.findFirst({
    columns: { id: true, webPwHash: true },
    where: and(eq(tenants.accountId, accountId), sql`lower(${tenants.email}) = ${DEMO_TENANT_EMAIL}`),
  });
  if (!demo || !(await verifyPassword(DEMO_TENANT_PASSWORD, demo.webPwHash))) return [];
  await tx
    .update(tenants)
    .set({ webPwHash: await hashPassword(crypto.randomBytes(32).toString("base64url")) })
    .where(eq(tenants.id, demo.id));
  return [`demo tenant ${DEMO_TENANT_EMAIL}: published password disabled (production)`];
}

export async function seedDemoTenant(
  tx: Transaction,
  accountId: number,
  options: { force?: boolean; env?: EnvSource } = {},
): Promise<string[]> {
  if (!options.force && !demoTenantWanted(options.env ?? rawEnv())) return [];
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
    .select({ id: units.id, unitTypeId: units.unitTypeId })
    .from(units)
    .innerJoin(unitTypes, eq(unitTypes.id, units.unitTypeId))
    .leftJoin(leases, and(eq(leases.unitId, units.id), eq(leases.status, "active")))
    .where(and(eq(units.locationId, location.id), eq(units.status, "rented"), ne(unitTypes.category, "parking"), isNull(leases.id)))
    .orderBy(asc(units.id))
    .limit(1);
  if (!unit) return [];
  const now = clockNow();
  // The demo inventory's "rented" unit becomes the demo tenant's: free it and hold it for the demo
  // rental (seed data, like seeds/demo-units.ts), then move in through the port.
  const rentalId = `demo-tenant-${crypto.randomBytes(16).toString("hex")}`;
  const moveInDate = addDaysIso(localDate(now, location.timeZone.timeZoneId), -20);
  const until = new Date(now.getTime() + 15 * 60_000);
  await tx.insert(rentals).values({ id: rentalId, locationId: location.id, unitTypeId: unit.unitTypeId, idempotencyKey: crypto.randomBytes(24).toString("base64url"), moveInDate, expiresAt: until });
  await tx.update(units).set({ status: "available", heldUntil: until, holdToken: rentalId }).where(eq(units.id, unit.id));
  await createTenantWithLease(tx, {
    email: DEMO_TENANT_EMAIL,
    password: DEMO_TENANT_PASSWORD,
    firstName: "Demo",
    lastName: "Tenant",
    now,
    moveInDate,
    withInsurance: true,
    locationId: location.id,
    unitTypeId: String(unit.unitTypeId),
    holdToken: rentalId,
  });
  return [`demo tenant ${DEMO_TENANT_EMAIL}`];
}
