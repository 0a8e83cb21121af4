import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, emailOutbox, reservations, units } from "~/db/schema";
import { reserveUnit, sweepExpiredReservations } from "~/services/reservation.server";
import { sha256 } from "~/services/move-in.server";
import { UnitUnavailableError } from "~/storage-software/errors";
import { createTestDatabase } from "./db";
import { ctxFor, leaveAvailable, lumbertonUnitType, NOW } from "./move-in-fixtures";
import { sql } from "drizzle-orm";

const form = (n: number) => ({
  first_name: "Grace",
  last_name: "Hopper",
  email: `grace.${process.pid}.${Date.now()}.${n}@example.com`,
  phone: "(910) 555-0199",
  desired_move_in_date: "2026-11-23",
});

describe("reservations (local adapter, real database)", () => {
  let handle: DatabaseHandle;
  beforeEach(async () => {
    handle = await createTestDatabase();
    await handle.db.update(accounts).set({ globalSettings: sql`${accounts.globalSettings} || '{"is_reservations_enabled": true}'::jsonb` });
  });
  afterEach(() => handle.close());

  it("keeps a unit for reservation_days_valid days, emails a cancel link, and is idempotent", async () => {
    const { db } = handle;
    const { unitTypeId } = await lumbertonUnitType(db);
    const ctx = await ctxFor(db, unitTypeId);
    const before = ctx.unitType.availableCount;
    const { reservation, cancelToken } = await reserveUnit(db, ctx, { form: form(1), idempotencyKey: "k1", now: NOW, origin: "http://x" });
    expect(reservation.status).toBe("active");
    expect(reservation.expiresAt.toISOString()).toBe("2026-11-24T15:00:00.000Z");
    expect(cancelToken).toBeTruthy();
    const row = (await db.query.reservations.findFirst({ where: eq(reservations.id, Number(reservation.id)) }))!;
    expect(row.cancelTokenHash).toBe(sha256(cancelToken!));
    expect(row.cancelTokenHash).not.toContain(cancelToken!);
    expect((await db.query.units.findFirst({ where: eq(units.id, row.unitId) }))!.status).toBe("reserved");
    expect((await ctxFor(db, unitTypeId)).unitType.availableCount).toBe(before - 1);
    const [mail] = await db.select().from(emailOutbox).where(eq(emailOutbox.to, reservation.email));
    expect(mail!.text).toContain(`/reserve/cancel/${reservation.id}?token=${cancelToken}`);

    const again = await reserveUnit(db, ctx, { form: form(1), idempotencyKey: "k1", now: NOW, origin: "http://x" });
    expect(again.reservation.id).toBe(reservation.id);
    expect(again.cancelToken).toBeNull();
    expect((await db.select({ n: count() }).from(reservations))[0]!.n).toBe(1);
  });

  it("expires after two days: released on read and by the sweep", async () => {
    const { db } = handle;
    const { unitTypeId } = await lumbertonUnitType(db);
    const ctx = await ctxFor(db, unitTypeId);
    const before = ctx.unitType.availableCount;
    const { reservation } = await reserveUnit(db, ctx, { form: form(2), idempotencyKey: "k2", now: NOW, origin: "http://x" });
    const almost = new Date(NOW.getTime() + 2 * 24 * 3600_000 - 1000);
    expect((await ctx.storage.getReservation({ id: reservation.id, now: almost }))!.status).toBe("active");
    const after = new Date(NOW.getTime() + 2 * 24 * 3600_000);
    expect((await ctx.storage.getReservation({ id: reservation.id, now: after }))!.status).toBe("expired");
    expect((await ctxFor(db, unitTypeId, after)).unitType.availableCount).toBe(before);

    const second = await reserveUnit(db, ctx, { form: form(3), idempotencyKey: "k3", now: after, origin: "http://x" });
    const later = new Date(after.getTime() + 3 * 24 * 3600_000);
    expect(await sweepExpiredReservations(db, later)).toBe(1);
    expect(await sweepExpiredReservations(db, later)).toBe(0);
    const row = (await db.query.reservations.findFirst({ where: eq(reservations.id, Number(second.reservation.id)) }))!;
    expect(row.status).toBe("expired");
    expect((await db.query.units.findFirst({ where: eq(units.id, row.unitId) }))!.status).toBe("available");
  });

  it("cancels with the emailed token only", async () => {
    const { db } = handle;
    const { unitTypeId } = await lumbertonUnitType(db);
    const ctx = await ctxFor(db, unitTypeId);
    const { reservation, cancelToken } = await reserveUnit(db, ctx, { form: form(4), idempotencyKey: "k4", now: NOW, origin: "http://x" });
    expect(await ctx.storage.cancelReservation({ id: reservation.id, cancelTokenHash: sha256("wrong"), now: NOW })).toBeNull();
    const cancelled = await ctx.storage.cancelReservation({ id: reservation.id, cancelTokenHash: sha256(cancelToken!), now: NOW });
    expect(cancelled!.status).toBe("cancelled");
    expect((await db.query.units.findFirst({ where: eq(units.id, Number(reservation.unitId)) }))!.status).toBe("available");
  });

  it("the last unit cannot be reserved twice, nor reserved while held for a checkout", async () => {
    const { db } = handle;
    const { unitTypeId } = await lumbertonUnitType(db);
    await leaveAvailable(db, unitTypeId, 1);
    const ctx = await ctxFor(db, unitTypeId);
    const results = await Promise.allSettled([
      reserveUnit(db, ctx, { form: form(5), idempotencyKey: "k5", now: NOW, origin: "http://x" }),
      reserveUnit(db, ctx, { form: form(6), idempotencyKey: "k6", now: NOW, origin: "http://x" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(UnitUnavailableError);
    expect((await db.select({ n: count() }).from(reservations).where(eq(reservations.status, "active")))[0]!.n).toBe(1);
  });
});
