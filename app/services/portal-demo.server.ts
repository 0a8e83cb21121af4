import crypto from "node:crypto";
import { and, asc, desc, eq, isNull, ne, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { insurancePlans, leases, locations, tenants, unitTypes, units } from "~/db/schema";
import { parseCheckoutCharges } from "~/domain/location-settings";
import { dollarsToCents, taxedLine } from "~/domain/money";
import { addMonthsIso, chargeKey, chargePostingKey, localDate, periodEnd } from "~/domain/billing";
import { postCharges, recordApprovedPayment, type ChargeLine } from "~/storage-software/local/ledger";
import { hashPassword } from "./password.server";

export interface TenantWithLease {
  tenantId: number;
  leaseId: number;
  unitName: string;
  locationId: number;
  gateCode: string;
  total: number;
}

/**
 * A tenant with one paid lease, the way a completed move-in leaves them (docs/decisions/040): a
 * unit rented (preferably a demo unit already marked rented and without a lease), the first month, protection premium and checkout charges posted with the move-in
 * posting keys and paid by card in the same transaction, paid through addMonths(D,1) − 1 day.
 * For the demo tenant, tests and the browser tests' hook; real rentals go through the rental flow.
 */
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
    /** Put the lease on this unit, already marked rented (the demo tenant takes a demo "rented" unit). */
    unitId?: number;
  },
): Promise<TenantWithLease> {
  return (db as Database).transaction(async (tx) => {
    const location = await tx.query.locations.findFirst({
      where: input.locationId ? eq(locations.id, input.locationId) : eq(locations.status, "Live"),
      orderBy: asc(locations.id),
    });
    if (!location) throw new Error("No live location to rent at");
    let unit: { id: number; name: string; standardRate: number } | undefined;
    if (input.unitId !== undefined) {
      [unit] = await tx
        .select({ id: units.id, name: units.name, standardRate: unitTypes.standardRate })
        .from(units)
        .innerJoin(unitTypes, eq(unitTypes.id, units.unitTypeId))
        .where(eq(units.id, input.unitId));
    } else {
      // A demo unit already marked rented with no lease (the demo inventory's "existing tenants"),
      // so tests and demos change no availability; else a free unit of the type with most free.
      [unit] = await tx
        .select({ id: units.id, name: units.name, standardRate: unitTypes.standardRate })
        .from(units)
        .innerJoin(unitTypes, eq(unitTypes.id, units.unitTypeId))
        .leftJoin(leases, and(eq(leases.unitId, units.id), eq(leases.status, "active")))
        .where(and(eq(units.locationId, location.id), eq(units.status, "rented"), ne(unitTypes.category, "parking"), isNull(leases.id)))
        .orderBy(asc(units.id))
        .limit(1)
        .for("update", { of: units, skipLocked: true });
    }
    if (!unit) {
      // The unit type with the most units free (not parking), so other tests' choices stay available.
      const free = and(eq(units.locationId, location.id), eq(units.status, "available"), sql`(${units.heldUntil} is null or ${units.heldUntil} <= now())`);
      const [type] = await tx
        .select({ id: units.unitTypeId })
        .from(units)
        .innerJoin(unitTypes, eq(unitTypes.id, units.unitTypeId))
        .where(and(free, ne(unitTypes.category, "parking")))
        .groupBy(units.unitTypeId)
        .orderBy(desc(sql`count(*)`), asc(units.unitTypeId))
        .limit(1);
      [unit] = type
        ? await tx
            .select({ id: units.id, name: units.name, standardRate: unitTypes.standardRate })
            .from(units)
            .innerJoin(unitTypes, eq(unitTypes.id, units.unitTypeId))
            .where(and(free, eq(units.unitTypeId, type.id)))
            .orderBy(asc(units.id))
            .limit(1)
            .for("update", { of: units, skipLocked: true })
        : [];
      if (unit) await tx.update(units).set({ status: "rented", heldUntil: null, holdToken: null }).where(eq(units.id, unit.id));
    }
    if (!unit) throw new Error(`No available unit at ${location.name}`);

    const [tenant] = await tx
      .insert(tenants)
      .values({
        accountId: location.accountId,
        firstName: input.firstName ?? "Pat",
        lastName: input.lastName ?? "Tenant",
        email: input.email.trim().toLowerCase(),
        cellPhone: "(910) 555-0199",
        webPwHash: await hashPassword(input.password),
        addr1: "100 Main Street",
        city: "Lumberton",
        region: "NC",
        postalCode: "28358",
      })
      .returning({ id: tenants.id });

    const D = input.moveInDate ?? localDate(input.now, location.timeZone.timeZoneId);
    const plan = input.withInsurance
      ? await tx.query.insurancePlans.findFirst({ where: eq(insurancePlans.locationId, location.id), orderBy: asc(insurancePlans.coverage) })
      : undefined;
    const gateCode = String(crypto.randomInt(1000, 10000));
    const text = `Demo lease of unit ${unit.name} at ${location.name} from ${D}.`;
    const [lease] = await tx
      .insert(leases)
      .values({
        tenantId: tenant!.id,
        unitId: unit.id,
        locationId: location.id,
        moveInDate: D,
        monthlyRate: unit.standardRate,
        insurancePlanId: plan?.id ?? null,
        insurancePremium: plan?.premium ?? 0,
        paidThroughDate: periodEnd(D, 0),
        nextDueDate: addMonthsIso(D, 1),
        gateCode,
        leaseText: text,
        leaseHash: crypto.createHash("sha256").update(text).digest("hex"),
        signedName: `${input.firstName ?? "Pat"} ${input.lastName ?? "Tenant"}`,
        signedAt: input.now,
      })
      .returning({ id: leases.id });

    const span = { entryDate: D, periodStart: D, periodEnd: periodEnd(D, 0) };
    const lines: ChargeLine[] = [{ ...span, description: "Rent (first month)", amount: unit.standardRate, tax: 0, postingKey: `rent:${D}` }];
    if (plan) lines.push({ ...span, description: "Protection plan (first month)", amount: plan.premium, tax: 0, postingKey: `insurance:${D}` });
    const charges = parseCheckoutCharges(location.chargesToShowAtCheckout);
    if (location.isShowExtraChargesAtCheckout && charges.ok) {
      for (const c of charges.charges) {
        const l = taxedLine(c.name, dollarsToCents(c.amount), c.tax_1_rate, c.tax_2_rate);
        lines.push({ entryDate: D, description: c.name, amount: l.amount, tax: l.tax, postingKey: chargePostingKey(chargeKey({ sitelinkId: c.sitelink_id, name: c.name }), D) });
      }
    }
    await postCharges(tx, { leaseId: lease!.id, tenantId: tenant!.id, lines, now: input.now });
    const total = lines.reduce((s, l) => s + l.amount + l.tax, 0);
    await recordApprovedPayment(tx, {
      tenantId: tenant!.id,
      leaseId: lease!.id,
      amount: total,
      source: "move_in",
      cardBrand: "visa",
      cardLast4: "4242",
      authReference: `AUTH-DEMO${crypto.randomBytes(3).toString("hex").toUpperCase()}`,
      idempotencyKey: `move-in-demo:${crypto.randomUUID()}`,
      entryDate: D,
      description: "Card payment (Visa ending 4242)",
      now: input.now,
    });
    return { tenantId: tenant!.id, leaseId: lease!.id, unitName: unit.name, locationId: location.id, gateCode, total };
  });
}
