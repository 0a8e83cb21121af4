/**
 * Our own rental records, kept by both adapters (issue 21): claiming a unit on our catalogue (the
 * conditional UPDATE that holds, reserves or rents one free unit), reservations on our tables, the
 * move-in record the confirmation reads (our lease record), and whether an email already has a
 * tenant of the account. The local adapter is built of these and its move-in; the SiteLink adapter
 * keeps the same rows and adds its calls to SiteLink around them. Neither adapter is imported here
 * (decision 220). One unit is never reserved twice: docs/decisions/041-move-in-transaction.md.
 */
import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { writeIfChanged, type Database, type Transaction } from "~/db/client.server";
import { leases, locations, payments, reservations, tenants, units } from "~/db/schema";
import type { MoveInRecord, MoveInTenant, ReservationRecord, Rentals } from "../port";
import type { LocationRef } from "../port";
import { EMAIL_TAKEN_MESSAGE, StorageSoftwareError, StorageValidationError, UnitUnavailableError } from "../errors";
import { listLedger } from "./ledger";
import { newTenantRow } from "./tenants";

type Row = Record<string, unknown>;
const rowsOf = (result: unknown): Row[] => (result as { rows: Row[] }).rows;

/** Claims one free unit of the type, preferring the one this rental holds. Returns null when none is free. */
export async function claimUnit(
  tx: Database | Transaction,
  opts: { locationId: number; unitTypeId: number; holdToken: string | null; now: Date; set: "rented" | "reserved" | "hold"; until?: Date },
): Promise<{ id: number; name: string } | null> {
  const nowIso = opts.now.toISOString();
  const token = opts.holdToken ?? "";
  const setClause =
    opts.set === "hold"
      ? sql`held_until = ${opts.until!.toISOString()}::timestamptz, hold_token = ${token}`
      : sql`status = ${opts.set}, held_until = null, hold_token = null`;
  // A hold lets go, in the same statement, of a unit of another type held with the same token (one
  // rental holds at most one unit): one round trip instead of a transaction of four (issue 22).
  const releaseOtherTypes =
    opts.set === "hold" && opts.holdToken
      ? sql`released as (update units set held_until = null, hold_token = null where hold_token = ${token} and unit_type_id <> ${opts.unitTypeId} returning id), `
      : sql``;
  const releasedCount = opts.set === "hold" && opts.holdToken ? sql`(select count(*) from released)::int` : sql`0`;
  // Always one row: the unit claimed (or nulls) and how many units of other types were let go, so a
  // claim that found no unit and let nothing go is known to have changed nothing (writeIfChanged: the
  // losers of a rush drop no cache, issue 22).
  const result = await writeIfChanged(
    () =>
      tx.execute(sql`
    with ${releaseOtherTypes}claimed as (
      update units set ${setClause}, updated_at = now()
      where id = (
        select id from units
        where location_id = ${opts.locationId} and unit_type_id = ${opts.unitTypeId} and status = 'available'
          and (hold_token = ${token} or held_until is null or held_until <= ${nowIso}::timestamptz)
        order by (hold_token is not distinct from ${token}) desc, name
        limit 1
        for update skip locked
      )
      and status = 'available'
      and (hold_token = ${token} or held_until is null or held_until <= ${nowIso}::timestamptz)
      returning id, name
    )
    select claimed.id, claimed.name, ${releasedCount} as released from (select 1) as one left join claimed on true`),
    (r) => {
      const row = rowsOf(r)[0];
      return row?.id != null || Number(row?.released ?? 1) > 0;
    },
  );
  const row = rowsOf(result)[0];
  return row?.id != null ? { id: Number(row.id), name: String(row.name) } : null;
}

function toReservation(r: typeof reservations.$inferSelect, unitName: string): ReservationRecord {
  return {
    id: String(r.id),
    unitTypeId: String(r.unitTypeId),
    unitId: String(r.unitId),
    unitName,
    firstName: r.firstName,
    lastName: r.lastName,
    email: r.email,
    phone: r.phone,
    desiredMoveInDate: r.desiredMoveInDate,
    status: r.status,
    expiresAt: r.expiresAt,
    confirmationCode: r.confirmationCode,
    cancelTokenHash: r.cancelTokenHash,
    createdAt: r.createdAt,
    tenantId: r.tenantId == null ? null : String(r.tenantId),
  };
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; cause?: { code?: string } };
  return e?.code === "23505" || e?.cause?.code === "23505";
}

/** The rental rows' helpers for one location: its account, a unit type id checked, expiry, the email check and the tenant row. */
export function rentalRows(db: Database, location: LocationRef) {
  const accountIdOf = async (tx: Database | Transaction) => {
    const [row] = await tx.select({ accountId: locations.accountId }).from(locations).where(eq(locations.id, location.id));
    if (!row) throw new StorageSoftwareError(`Location ${location.id} does not exist`);
    return row.accountId;
  };
  const unitTypeNumber = (id: string) => {
    if (!/^\d{1,9}$/.test(id)) throw new UnitUnavailableError("No such unit type");
    return Number(id);
  };

  /**
   * Reservations past their time give their units back. One statement (atomic on its own; runs on every
   * rental page and hold, so it costs one round trip rather than a transaction of three; issue 22).
   */
  async function expireReservations(now: Date): Promise<number> {
    // Counted as a write only when it expired one (writeIfChanged): mostly it changes nothing.
    const result = await writeIfChanged(
      () =>
        db.execute(sql`
      with expired as (
        update reservations set status = 'expired'
        where location_id = ${location.id} and status = 'active' and expires_at <= ${now.toISOString()}::timestamptz
        returning unit_id
      ), freed as (
        update units set status = 'available'
        where id in (select unit_id from expired) and status = 'reserved'
        returning id
      )
      select count(*)::int as n from expired`),
      (r) => Number(rowsOf(r)[0]?.n ?? 1) > 0,
    );
    return Number(rowsOf(result)[0]?.n ?? 0);
  }

  async function refuseTakenEmail(tx: Transaction, email: string) {
    const accountId = await accountIdOf(tx);
    const taken = await tx.query.tenants.findFirst({
      columns: { id: true },
      where: and(eq(tenants.accountId, accountId), sql`lower(${tenants.email}) = ${email}`),
    });
    if (taken) throw new StorageValidationError(EMAIL_TAKEN_MESSAGE, { email: [EMAIL_TAKEN_MESSAGE] });
  }

  /** The tenant row of a move-in or a full-form reservation (the email already checked free). */
  async function insertTenant(tx: Transaction, t: MoveInTenant, email: string): Promise<{ id: number }> {
    const accountId = await accountIdOf(tx);
    const [tenant] = await tx.insert(tenants).values(newTenantRow(t, email, accountId)).returning({ id: tenants.id });
    return tenant!;
  }

  return { accountIdOf, unitTypeNumber, expireReservations, refuseTakenEmail, insertTenant };
}

type SharedRentalMethods = "getMoveIn" | "isEmailRegistered" | "reserveUnit" | "getReservation" | "cancelReservation" | "expireReservations";

/**
 * The Rentals methods both adapters answer from our own tables (the SiteLink adapter wraps the
 * reservations with its calls to SiteLink). `rows` lets the caller share its helpers.
 */
export function sharedRentals(db: Database, location: LocationRef, rows = rentalRows(db, location)): Pick<Rentals, SharedRentalMethods> {
  const { accountIdOf, unitTypeNumber, expireReservations, refuseTakenEmail, insertTenant } = rows;
  return {
    async getMoveIn(leaseId): Promise<MoveInRecord | null> {
      if (!/^\d{1,9}$/.test(leaseId)) return null;
      const lease = await db.query.leases.findFirst({
        where: and(eq(leases.id, Number(leaseId)), eq(leases.locationId, location.id)),
        with: { unit: { columns: { name: true } }, tenant: { columns: { firstName: true, email: true } } },
      });
      if (!lease) return null;
      const ledger = await listLedger(db, lease.id);
      const payment = await db.query.payments.findFirst({
        where: and(eq(payments.leaseId, lease.id), eq(payments.source, "move_in"), eq(payments.status, "approved")),
      });
      return {
        leaseId: String(lease.id),
        tenantId: String(lease.tenantId),
        unitName: lease.unit.name,
        gateCode: lease.gateCode,
        firstName: lease.tenant.firstName,
        email: lease.tenant.email,
        moveInDate: lease.moveInDate,
        paidThroughDate: lease.paidThroughDate,
        nextDueDate: lease.nextDueDate,
        monthlyRate: lease.monthlyRate,
        autopayEnabled: lease.autopayEnabled,
        // The local move-in enrols autopay in its own transaction: never chosen and left off (the SiteLink adapter sets this from its move-in attempts).
        autopayNotSetUp: false,
        createdAt: lease.createdAt,
        lines: ledger
          .filter((l) => l.kind !== "payment")
          .map((l) => ({ description: l.description, kind: l.kind === "credit" ? ("credit" as const) : ("charge" as const), amount: l.kind === "credit" ? -l.amount : l.amount, tax: l.tax })),
        payment: payment
          ? { id: String(payment.id), amount: payment.amount, cardBrand: payment.cardBrand, cardLast4: payment.cardLast4, authReference: payment.authReference }
          : null,
        lease: { text: lease.leaseText, hash: lease.leaseHash, signedName: lease.signedName, signedAt: lease.signedAt, signedIp: lease.signedIp },
      };
    },

    async isEmailRegistered(email) {
      const accountId = await accountIdOf(db);
      const row = await db.query.tenants.findFirst({
        columns: { id: true },
        where: and(eq(tenants.accountId, accountId), sql`lower(${tenants.email}) = ${email.trim().toLowerCase()}`),
      });
      return Boolean(row);
    },

    async reserveUnit(input) {
      const typeId = unitTypeNumber(input.unitTypeId);
      await expireReservations(input.now);
      const previous = await db.query.reservations.findFirst({ where: eq(reservations.idempotencyKey, input.idempotencyKey) });
      if (previous) {
        const u = await db.query.units.findFirst({ columns: { name: true }, where: eq(units.id, previous.unitId) });
        return toReservation(previous, u?.name ?? "");
      }
      try {
        return await db.transaction(async (tx) => {
          // The full form's tenant account: created with the reservation or not at all.
          const email = input.email.trim().toLowerCase();
          if (input.tenant) await refuseTakenEmail(tx, email);
          const unit = await claimUnit(tx, { locationId: location.id, unitTypeId: typeId, holdToken: null, now: input.now, set: "reserved" });
          if (!unit) throw new UnitUnavailableError("No unit of this type is available");
          const tenant = input.tenant ? await insertTenant(tx, input.tenant, email) : null;
          const [row] = await tx
            .insert(reservations)
            .values({
              locationId: location.id,
              unitTypeId: typeId,
              unitId: unit.id,
              tenantId: tenant?.id ?? null,
              firstName: input.firstName,
              lastName: input.lastName,
              email: input.email.trim().toLowerCase(),
              phone: input.phone,
              desiredMoveInDate: input.desiredMoveInDate,
              expiresAt: input.expiresAt,
              cancelTokenHash: input.cancelTokenHash,
              confirmationCode: input.confirmationCode,
              idempotencyKey: input.idempotencyKey,
            })
            .returning();
          return toReservation(row!, unit.name);
        });
      } catch (error) {
        // Two full forms with the same new email at once: the second finds it taken.
        if (isUniqueViolation(error) && String((error as { cause?: { constraint?: string } }).cause?.constraint ?? (error as { constraint?: string }).constraint ?? "").includes("tenants_account_email")) {
          throw new StorageValidationError(EMAIL_TAKEN_MESSAGE, { email: [EMAIL_TAKEN_MESSAGE] });
        }
        if (isUniqueViolation(error)) throw new UnitUnavailableError("This unit was just reserved");
        throw error;
      }
    },

    async getReservation({ id, confirmationCode, now }) {
      await expireReservations(now);
      const where = id
        ? /^\d{1,9}$/.test(id)
          ? eq(reservations.id, Number(id))
          : undefined
        : confirmationCode
          ? eq(reservations.confirmationCode, confirmationCode)
          : undefined;
      if (!where) return null;
      const row = await db.query.reservations.findFirst({ where: and(where, eq(reservations.locationId, location.id)) });
      if (!row) return null;
      const u = await db.query.units.findFirst({ columns: { name: true }, where: eq(units.id, row.unitId) });
      return toReservation(row, u?.name ?? "");
    },

    async cancelReservation({ id, cancelTokenHash, now }) {
      if (!/^\d{1,9}$/.test(id)) return null;
      await expireReservations(now);
      return db.transaction(async (tx) => {
        const [row] = await tx
          .select()
          .from(reservations)
          .where(and(eq(reservations.id, Number(id)), eq(reservations.locationId, location.id)))
          .for("update");
        if (!row) return null;
        const a = Buffer.from(row.cancelTokenHash);
        const b = Buffer.from(cancelTokenHash);
        if (a.length !== b.length || !crypto.timingSafeEqual(a, b)) return null;
        const u = await tx.query.units.findFirst({ columns: { name: true }, where: eq(units.id, row.unitId) });
        if (row.status !== "active") return toReservation(row, u?.name ?? "");
        const [updated] = await tx
          .update(reservations)
          .set({ status: "cancelled", cancelledAt: now })
          .where(eq(reservations.id, row.id))
          .returning();
        await tx.update(units).set({ status: "available" }).where(and(eq(units.id, row.unitId), eq(units.status, "reserved")));
        return toReservation(updated!, u?.name ?? "");
      });
    },

    expireReservations,
  };
}
