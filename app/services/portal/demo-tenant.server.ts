/**
 * A tenant with one paid lease, made the way a visitor's rental makes one: through the storage
 * port's quoteMoveIn and moveIn (first month, protection premium and extra charges posted with the
 * move-in posting keys and paid by card with the test gateway). For the demo tenant (seeds/demo-tenant.ts),
 * tests and the browser tests' hook; real rentals go through the rental flow (move-in.server.ts),
 * which adds the tenant form, the signature and the email.
 */
import crypto from "node:crypto";
import { asc, eq } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { rentals, locations } from "~/db/schema";
import { localDate } from "~/domain/shared/calendar";
import { holdEndsAt } from "~/domain/rental/hold";
import { storageFor } from "~/storage-software/index.server";
import { hashPassword } from "~/platform/password.server";

export interface TenantWithLease {
  tenantId: number;
  leaseId: number;
  unitName: string;
  locationId: number;
  gateCode: string;
  total: number;
}

/** The test gateway's always-approved card (app/platform/payments/gateway.server.ts). */
const DEMO_CARD = { number: "4242424242424242", expMonth: 12, expYear: new Date().getUTCFullYear() + 5, cvv: "123", nameOnCard: "Demo Tenant", postalCode: "28358" };

export async function createTenantWithLease(
  db: Database | Transaction,
  input: {
    email: string;
    password: string;
    firstName?: string;
    lastName?: string;
    now: Date;
    /** Defaults to today in the location's time zone. */
    moveInDate?: string;
    withInsurance?: boolean;
    /** A location id; defaults to the first live location. */
    locationId?: number;
    /**
     * Rent a unit of this type; defaults to the type with the most units free (not parking), so
     * other tests' choices stay available. A unit the caller already holds for `holdToken` is taken first.
     */
    unitTypeId?: string;
    /** A rental id under which the caller already holds the unit to rent (the demo seed). */
    holdToken?: string;
  },
): Promise<TenantWithLease> {
  const location = await db.query.locations.findFirst({
    where: input.locationId ? eq(locations.id, input.locationId) : eq(locations.status, "Live"),
    orderBy: asc(locations.id),
  });
  if (!location) throw new Error("No live location to rent at");
  const storage = storageFor(db as Database, location);
  let unitTypeId = input.unitTypeId;
  if (!unitTypeId) {
    const types = (await storage.listUnitTypes({ now: input.now })).filter((t) => t.category !== "parking" && t.availableCount > 0);
    const best = types.sort((a, b) => b.availableCount - a.availableCount || Number(a.id) - Number(b.id))[0];
    if (!best) throw new Error(`No available unit at ${location.name}`);
    unitTypeId = best.id;
  }
  const moveInDate = input.moveInDate ?? localDate(input.now, location.timeZone.timeZoneId);
  const plan = input.withInsurance ? (await storage.listInsurancePlans())[0] : undefined;
  const quote = await storage.quoteMoveIn({
    unitTypeId,
    insurancePlanId: plan?.id ?? null,
    moveInDate,
    pricing: { isWebRatesEnabled: false, fakeDiscountPercentage: 0 },
    now: input.now,
  });

  const rentalId = input.holdToken ?? crypto.randomBytes(24).toString("base64url");
  const until = holdEndsAt(input.now);
  if (!input.holdToken) {
    await db.insert(rentals).values({ id: rentalId, locationId: location.id, unitTypeId: Number(unitTypeId), idempotencyKey: crypto.randomBytes(24).toString("base64url"), moveInDate, expiresAt: until });
  }
  const hold = await storage.holdUnit({ unitTypeId, holdToken: rentalId, until, now: input.now });
  const [rental] = await db.select({ idempotencyKey: rentals.idempotencyKey }).from(rentals).where(eq(rentals.id, rentalId));
  if (!rental) throw new Error("The demo rental is missing");

  const firstName = input.firstName ?? "Pat";
  const lastName = input.lastName ?? "Tenant";
  const text = `Demo lease of unit ${hold.unitName} at ${location.name} from ${moveInDate}.`;
  const result = await storage.moveIn({
    rentalId,
    idempotencyKey: rental.idempotencyKey,
    unitTypeId,
    tenant: {
      firstName,
      lastName,
      email: input.email.trim().toLowerCase(),
      cellPhone: "9105550199",
      webPwHash: await hashPassword(input.password),
      addr1: "100 Main Street",
      city: "Lumberton",
      region: "NC",
      postalCode: "28358",
      isMilitary: false,
      isCompany: false,
      isCommercial: false,
    },
    moveInDate,
    paidThroughDate: quote.paidThroughDate,
    nextDueDate: quote.nextDueDate,
    monthlyRate: quote.monthlyRate,
    insurancePlanId: quote.insurancePlanId,
    insurancePremium: quote.insurancePremium,
    lines: quote.lines,
    total: quote.total,
    payment: { kind: "card", card: DEMO_CARD },
    autopay: false,
    lease: { text, hash: crypto.createHash("sha256").update(text).digest("hex"), signedName: `${firstName} ${lastName}`, signedAt: input.now, signedIp: "" },
    now: input.now,
  });
  return {
    tenantId: Number(result.tenantId),
    leaseId: Number(result.leaseId),
    unitName: result.unitName,
    locationId: location.id,
    gateCode: result.gateCode,
    total: quote.total,
  };
}
