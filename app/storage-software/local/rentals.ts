/**
 * Rentals on our own database (issue 4): rental holds, move-ins and reservations (the records
 * both adapters keep, reservations among them, are ../shared/rentals.ts).
 *
 * One unit is never rented or reserved twice: a unit is claimed by a conditional UPDATE of a row
 * picked with `FOR UPDATE SKIP LOCKED` (status must still be `available` and not held by another
 * rental), and the partial unique indexes (one active lease / one active reservation per unit)
 * refuse whatever might slip through. docs/decisions/041-move-in-transaction.md.
 */
import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { rentals, ledgerEntries, leases, locations, payments, savedCards, units } from "~/db/schema";
import { getPaymentGateway, type ChargeResult } from "~/platform/payments/gateway.server";
import type { MoveInInput, MoveInQuote, MoveInResult, Rentals, UnitHold } from "../port";
import type { LocationRef } from "../port";
import { PaymentDeclinedError, StorageSoftwareError, StorageValidationError, UnitUnavailableError } from "../errors";
import { postCharges, recordApprovedPayment, recordDeclinedPayment } from "../shared/ledger";
import { quoteMoveIn as quoteFromDomain } from "~/domain/rental/move-in-quote";
import { promotionOn } from "~/domain/rental/promotion";
import { promotionColumnsOf } from "../shared/promotion";
import { holdEndsAt } from "~/domain/rental/hold";
import { methodLast4 } from "~/domain/payments/method";
import { localInventory } from "./inventory";
import { claimUnit, rentalRows, sharedRentals } from "../shared/rentals";


export function localRentals(db: Database, location: LocationRef): Rentals {
  const rows = rentalRows(db, location);
  const { unitTypeNumber, expireReservations, refuseTakenEmail, insertTenant } = rows;

  async function existingMoveIn(tx: Database | Transaction, leaseId: number): Promise<MoveInResult> {
    const lease = await tx.query.leases.findFirst({ where: eq(leases.id, leaseId) });
    if (!lease) throw new StorageSoftwareError(`Lease ${leaseId} is missing`);
    const unit = await tx.query.units.findFirst({ columns: { name: true }, where: eq(units.id, lease.unitId) });
    const payment = await tx.query.payments.findFirst({
      where: and(eq(payments.leaseId, leaseId), eq(payments.source, "move_in"), eq(payments.status, "approved")),
    });
    return {
      leaseId: String(lease.id),
      tenantId: String(lease.tenantId),
      unitId: String(lease.unitId),
      unitName: unit?.name ?? "",
      gateCode: lease.gateCode,
      paymentId: String(payment?.id ?? ""),
      authReference: payment?.authReference ?? "",
      cardBrand: payment?.cardBrand ?? "",
      cardLast4: payment?.cardLast4 ?? "",
      created: false,
    };
  }

  async function newGateCode(tx: Database | Transaction): Promise<string> {
    for (let i = 0; i < 20; i++) {
      const code = String(crypto.randomInt(100000, 1000000));
      const taken = await tx.query.leases.findFirst({
        columns: { id: true },
        where: and(eq(leases.locationId, location.id), eq(leases.gateCode, code), eq(leases.status, "active")),
      });
      if (!taken) return code;
    }
    throw new StorageSoftwareError("Could not find a free gate code");
  }

  async function lockRental(tx: Transaction, rentalId: string) {
    // The rental row is the lock that serialises a double submit: the second waits here, then
    // finds the lease the first one made.
    const [row] = await tx
      .select({ id: rentals.id, status: rentals.status, completedLeaseId: rentals.completedLeaseId })
      .from(rentals)
      .where(eq(rentals.id, rentalId))
      .for("update");
    if (!row) throw new StorageSoftwareError("This rental does not exist");
    return row;
  }

  /** Tenant, lease, ledger lines, payment, saved card and the completed rental: one transaction. */
  async function recordMoveIn(
    tx: Transaction,
    input: MoveInInput,
    ctx: { email: string; unit: { id: number; name: string }; charge: Extract<ChargeResult, { status: "approved" }> },
  ): Promise<MoveInResult> {
    const { unit, charge } = ctx;
    const tenant = await insertTenant(tx, input.tenant, ctx.email);

    const gateCode = await newGateCode(tx);
    const [lease] = await tx
      .insert(leases)
      .values({
        tenantId: tenant!.id,
        unitId: unit.id,
        locationId: location.id,
        moveInDate: input.moveInDate,
        monthlyRate: input.monthlyRate,
        insurancePlanId: input.insurancePlanId ? Number(input.insurancePlanId) : null,
        insurancePremium: input.insurancePremium,
        // The promotion's later months are discounted by the billing run (decision 602).
        promotionDiscount: input.promotion?.monthlyDiscount ?? 0,
        promotionMonths: input.promotion?.months ?? 0,
        promotionWording: input.promotion?.wording ?? "",
        paidThroughDate: input.paidThroughDate,
        nextDueDate: input.nextDueDate,
        gateCode,
        leaseText: input.lease.text,
        leaseHash: input.lease.hash,
        signedName: input.lease.signedName,
        signedAt: input.lease.signedAt,
        signedIp: input.lease.signedIp,
        // The move-in's clock (as the ledger's and the payment's dates), not the database's: the desk
        // dates an online rental by it (desk-rentals.server.ts), and FAKE_NOW must move both alike.
        createdAt: input.now,
      })
      .returning({ id: leases.id });
    const leaseId = lease!.id;

    await postCharges(tx, {
      leaseId,
      tenantId: tenant!.id,
      now: input.now,
      lines: input.lines.filter((l) => l.kind !== "discount").map((l) => ({ ...l, entryDate: input.moveInDate })),
    });
    const discounts = input.lines.filter((l) => l.kind === "discount");
    if (discounts.length) {
      await tx.insert(ledgerEntries).values(
        discounts.map((l) => ({
          leaseId,
          tenantId: tenant!.id,
          kind: "credit" as const,
          description: l.description,
          amount: -l.amount,
          tax: 0,
          entryDate: input.moveInDate,
          postingKey: l.postingKey,
          postedAt: input.now,
        })),
      );
    }

    const paid = await recordApprovedPayment(tx, {
      tenantId: tenant!.id,
      leaseId,
      amount: input.total,
      source: "move_in",
      cardBrand: charge.brand,
      cardLast4: charge.last4,
      authReference: charge.authReference,
      idempotencyKey: input.idempotencyKey,
      entryDate: input.moveInDate,
      description: `Move-in payment (card ending ${charge.last4})`,
      now: input.now,
    });

    if (input.autopay) {
      const [card] = await tx
        .insert(savedCards)
        .values({
          tenantId: tenant!.id,
          brand: charge.brand,
          last4: charge.last4,
          expMonth: charge.expMonth ?? (input.payment.kind === "card" ? input.payment.card.expMonth : 0),
          expYear: charge.expYear ?? (input.payment.kind === "card" ? input.payment.card.expYear : 0),
          nameOnCard: input.payment.kind === "card" ? input.payment.card.nameOnCard : `${input.tenant.firstName} ${input.tenant.lastName}`,
          gatewayToken: charge.cardToken,
        })
        .returning({ id: savedCards.id });
      await tx.update(leases).set({ autopayEnabled: true, autopayCardId: card!.id }).where(eq(leases.id, leaseId));
    }

    await tx.update(rentals).set({ status: "completed", completedLeaseId: leaseId, unitId: unit.id }).where(eq(rentals.id, input.rentalId));

    return {
      leaseId: String(leaseId),
      tenantId: String(tenant!.id),
      unitId: String(unit.id),
      unitName: unit.name,
      gateCode,
      paymentId: String(paid.paymentId),
      authReference: charge.authReference,
      cardBrand: charge.brand,
      cardLast4: charge.last4,
      created: true,
    };
  }

  return {
    ...sharedRentals(db, location, rows),
    // Every card taken here goes through our payment gateway.
    async cardsChargedBy() {
      return "gateway" as const;
    },
    // Our own records: nothing outside to check before going live.
    async goLive() {
      return { live: true, reason: "the local adapter" };
    },
    async holdUnit({ unitTypeId, holdToken, until, now, swept }): Promise<UnitHold> {
      const typeId = unitTypeNumber(unitTypeId);
      // Units of expired reservations become free first, unless the caller has just swept (decision 420).
      if (!swept) await expireReservations(now);
      // One statement: lets go of a unit of another type this rental may hold, and holds one of this type.
      const unit = await claimUnit(db, { locationId: location.id, unitTypeId: typeId, holdToken, now, set: "hold", until });
      if (!unit) throw new UnitUnavailableError("No unit of this type is available");
      return { unitId: String(unit.id), unitName: unit.name, holdToken, heldUntil: until };
    },

    async quoteMoveIn(input): Promise<MoveInQuote> {
      const inventory = localInventory(db, location);
      const unitType = await inventory.getUnitType(input.unitTypeId, { now: input.now });
      if (!unitType) throw new UnitUnavailableError("No such unit type at this location");
      const [loc] = await db
        .select({ show: locations.isShowExtraChargesAtCheckout, hide: locations.isHideExtraChargesForParkingOrOffice })
        .from(locations)
        .where(eq(locations.id, location.id));
      if (!loc) throw new StorageSoftwareError(`Location ${location.id} does not exist`);
      const [plans, charges] = await Promise.all([input.insurancePlanId ? inventory.listInsurancePlans() : Promise.resolve([]), inventory.listExtraCharges()]);
      const plan = input.insurancePlanId ? (plans.find((p) => p.id === input.insurancePlanId) ?? null) : null;
      if (input.insurancePlanId && !plan) throw new StorageValidationError("Choose one of the protection plans.", { insurance: ["Choose one of the protection plans."] });
      return quoteFromDomain({
        unitType,
        settings: {
          isWebRatesEnabled: input.pricing.isWebRatesEnabled,
          fakeDiscountPercentage: input.pricing.fakeDiscountPercentage,
          isShowExtraChargesAtCheckout: loc.show,
          isHideExtraChargesForParkingOrOffice: loc.hide,
        },
        charges,
        insurancePlan: plan,
        moveInDate: input.moveInDate,
        // The unit type's promotion on the move-in date: an amount or a percentage off its first months (decision 602).
        promotion: promotionOn(await promotionColumnsOf(db, location.id, Number(input.unitTypeId)), input.moveInDate, "local"),
      });
    },

    async releaseHold(holdToken) {
      await db.update(units).set({ heldUntil: null, holdToken: null }).where(eq(units.holdToken, holdToken));
    },

    async moveIn(input: MoveInInput): Promise<MoveInResult> {
      const typeId = unitTypeNumber(input.unitTypeId);
      const gateway = getPaymentGateway(location);
      const expected = input.lines.reduce((s, l) => s + l.amount + l.tax, 0);
      if (expected !== input.total) throw new StorageSoftwareError(`Move-in total ${input.total} does not match its lines (${expected})`);
      const email = input.tenant.email.trim().toLowerCase();

      // 1. A short transaction: the rental is still open, the email is free, the unit is held for
      //    this rental long enough to charge and record; the rental is marked "charging". No
      //    transaction stays open while the gateway is called (issue 14).
      const before = await db.transaction(async (tx) => {
        const locked = await lockRental(tx, input.rentalId);
        if (locked.completedLeaseId != null) return { done: await existingMoveIn(tx, locked.completedLeaseId) };
        await refuseTakenEmail(tx, email);
        // Held for one hold length while the card is charged and the move-in recorded.
        const until = holdEndsAt(input.now);
        const unit = await claimUnit(tx, { locationId: location.id, unitTypeId: typeId, holdToken: input.rentalId, now: input.now, set: "hold", until });
        if (!unit) throw new UnitUnavailableError("No unit of this type is available");
        await tx.update(rentals).set({ status: "charging", unitId: unit.id, expiresAt: until }).where(eq(rentals.id, input.rentalId));
        return { done: null };
      });
      if (before.done) return before.done;

      // 2. The charge, outside any transaction. The idempotency key is the rental's: a retry after
      //    an error (the visitor clicks Pay again) gets the first charge's result, never a second charge.
      const charge = await gateway.charge({ amount: input.total, idempotencyKey: input.idempotencyKey, method: input.payment, saveCard: input.autopay });
      if (charge.status === "declined" && charge.authentication?.inPage && charge.authentication.clientSecret) {
        // Not declined: the bank wants the visitor to confirm it on the page (3-D Secure, decision 405).
        // The rental stays "charging" under its key with its unit held, so the intent completed in the
        // browser is recorded with this key; if the visitor leaves, the sweep cancels or refunds it.
        throw new PaymentDeclinedError(charge.reason, charge.authentication);
      }
      if (charge.status === "declined") {
        await db.update(rentals).set({ status: "open" }).where(and(eq(rentals.id, input.rentalId), eq(rentals.status, "charging")));
        // The office sees the declined attempt (no tenant or lease yet); nothing of the card but brand and last 4.
        await recordDeclinedPayment(db, {
          tenantId: null,
          leaseId: null,
          locationId: location.id,
          amount: input.total,
          source: "move_in",
          cardBrand: charge.brand ?? "visa",
          cardLast4: charge.last4 || methodLast4(input.payment),
          idempotencyKey: `${input.idempotencyKey}:declined`,
          reason: charge.reason,
        });
        throw new PaymentDeclinedError(charge.reason);
      }

      // 3. Record everything in one transaction. If this fails after an approved charge (the database
      //    went away), the rental stays "charging": the next attempt records the same charge, and
      //    the sweep voids it if nobody comes back (sweepUnrecordedCharges).
      try {
        return await db.transaction(async (tx) => {
          const locked = await lockRental(tx, input.rentalId);
          if (locked.completedLeaseId != null) return existingMoveIn(tx, locked.completedLeaseId);
          await refuseTakenEmail(tx, email);
          const unit = await claimUnit(tx, { locationId: location.id, unitTypeId: typeId, holdToken: input.rentalId, now: input.now, set: "rented" });
          if (!unit) throw new UnitUnavailableError("No unit of this type is available");
          return recordMoveIn(tx, input, { email, unit, charge });
        });
      } catch (error) {
        // The charge stands only with its lease: a refusal that will not change on retry voids it.
        if (error instanceof UnitUnavailableError || error instanceof StorageValidationError) {
          await gateway.refund(input.idempotencyKey);
          await db.update(rentals).set({ status: "open", idempotencyKey: crypto.randomBytes(24).toString("base64url") }).where(eq(rentals.id, input.rentalId));
        }
        throw error;
      }
    },

    // The local move-in is one transaction: its outcome is never unknown.
    async confirmMoveIn({ rentalId }) {
      const [row] = await db.select({ completedLeaseId: rentals.completedLeaseId }).from(rentals).where(eq(rentals.id, rentalId));
      if (row?.completedLeaseId != null) return { status: "completed", result: await existingMoveIn(db, row.completedLeaseId) };
      return { status: "not_completed", reason: "no move-in of this rental" };
    },
  };
}
