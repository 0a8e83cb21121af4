/**
 * Issue 14: no transaction stays open while the card is charged, and a charge that was approved but
 * not recorded (the database went away between the two) is recorded on the visitor's retry — charged
 * once — or voided by the sweep when nobody comes back.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { Database, DatabaseHandle } from "~/db/client.server";
import { rentals, leases, payments, units } from "~/db/schema";
import { isDatabaseUnavailable } from "~/db/unavailable";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { getRental, sweepUnrecordedCharges } from "~/services/rental/record.server";
import { createTestGateway, setPaymentGatewayForTests, type PaymentGateway } from "~/platform/payments/gateway.server";
import { leaseBalance } from "~/storage-software/shared/ledger";
import { createTestDatabase } from "../support/db";
import { card, ctxFor, lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";

const origin = "http://localhost";

/** A gateway that counts real charges (a repeated idempotency key is not a new charge) and refunds. */
function countingGateway() {
  const base = createTestGateway();
  const counts = { charges: 0, refunds: 0, inTransaction: 0 };
  const gateway: PaymentGateway = {
    ...base,
    async charge(input) {
      if (!(await base.lookup(input.idempotencyKey))) counts.charges++;
      return base.charge(input);
    },
    async refund(key) {
      const r = await base.refund(key);
      if (r.refunded) counts.refunds++;
      return r;
    },
  };
  return { gateway, counts };
}

/**
 * The database as the adapter sees it, with a switch: when armed, the Nth transaction from then on
 * fails as a lost connection does (57P01), and `open` tells whether a transaction is open right now.
 */
function flakyDatabase(db: Database) {
  const state = { failAt: 0, seen: 0, open: 0 };
  const proxy = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === "transaction") {
        return async (fn: (tx: unknown) => Promise<unknown>, config?: unknown) => {
          state.seen++;
          if (state.failAt && state.seen === state.failAt) {
            throw Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
          }
          state.open++;
          try {
            return await (target.transaction as (f: typeof fn, c?: unknown) => Promise<unknown>)(fn, config);
          } finally {
            state.open--;
          }
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  return { db: proxy as Database, arm: (nth: number) => Object.assign(state, { failAt: nth, seen: 0 }), disarm: () => (state.failAt = 0), state };
}

/**
 * One rental, signed and quoted, paid through a database whose transactions can be made to fail;
 * `pay` pays it with the rental as it stands now (or the one given) through the flaky database.
 */
async function outageRental(db: Database, gatewayFor?: (flaky: ReturnType<typeof flakyDatabase>) => PaymentGateway) {
  const { unitTypeId } = await lumbertonUnitType(db);
  const { id, quote } = await signedRental(db, unitTypeId);
  const flaky = flakyDatabase(db);
  const { gateway, counts } = countingGateway();
  setPaymentGatewayForTests(gatewayFor ? gatewayFor(flaky) : gateway);
  const ctx = await ctxFor(flaky.db, unitTypeId);
  const current = async () => (await getRental(db, id, unitTypeId))!;
  const pay = async (options: { autopay?: boolean; rental?: Awaited<ReturnType<typeof current>> } = {}) =>
    placeMoveIn(db, ctx, options.rental ?? (await current()), { payment: { kind: "card", card: card() }, autopay: options.autopay ?? false, now: NOW, origin });
  return { id, quote, counts, flaky, ctx, current, pay };
}

describe("move-in through a database outage (local adapter)", () => {
  let handle: DatabaseHandle;
  beforeEach(async () => {
    handle = await createTestDatabase();
  });
  afterEach(async () => {
    setPaymentGatewayForTests(null);
    await handle.close();
  });

  it("charges outside any transaction", async () => {
    const openAtCharge: number[] = [];
    const base = createTestGateway();
    const { pay } = await outageRental(handle.db, (flaky) => ({
      ...base,
      async charge(input) {
        openAtCharge.push(flaky.state.open);
        return base.charge(input);
      },
    }));
    const r = await pay();
    expect(r.status).toBe("completed");
    expect(openAtCharge).toEqual([0]);
  });

  it("approved but not recorded: paying again records the same charge once and gives the lease", async () => {
    const { db } = handle;
    const { id, quote, counts, flaky, current, pay } = await outageRental(db);

    // Transaction 1 holds the unit, the card is charged, transaction 2 (the record) loses its connection.
    flaky.arm(2);
    const error = await pay({ autopay: true }).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error)).toBe(true);
    flaky.disarm();
    expect(counts.charges).toBe(1);
    const pending = await current();
    expect(pending.status).toBe("charging");
    expect(pending.completedLeaseId).toBeNull();
    expect((await db.select({ n: count() }).from(payments))[0]!.n).toBe(0);
    // The unit is still held for this visitor, not free for anyone else.
    expect((await db.query.units.findFirst({ where: eq(units.id, pending.unitId!) }))!.holdToken).toBe(id);

    // The visitor clicks Pay again.
    const again = await pay({ autopay: true, rental: pending });
    expect(again).toMatchObject({ status: "completed", created: true });
    expect(counts.charges).toBe(1);
    const leaseId = Number((again as { leaseId: string }).leaseId);
    const paid = await db.select().from(payments).where(eq(payments.leaseId, leaseId));
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ amount: quote.total, status: "approved" });
    expect(await leaseBalance(db, leaseId)).toBe(0);
    expect(await current()).toMatchObject({ status: "completed", completedLeaseId: leaseId });

    // And once more (a double click): the same lease, no charge.
    const third = await pay({ autopay: true });
    expect(third).toMatchObject({ status: "completed", created: false, leaseId: String(leaseId) });
    expect(counts.charges).toBe(1);
  });

  it("the hold transaction fails: nothing is charged and the rental stays open", async () => {
    const { counts, flaky, current, pay } = await outageRental(handle.db);
    flaky.arm(1);
    const error = await pay().catch((e: unknown) => e);
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(counts.charges).toBe(0);
    expect((await current()).status).toBe("open");
  });

  it("nobody comes back: the sweep voids the unrecorded charge and releases the unit", async () => {
    const { db } = handle;
    const { id, counts, flaky, current, pay } = await outageRental(db);
    flaky.arm(2);
    await pay().catch(() => null);
    flaky.disarm();
    const unitId = (await current()).unitId!;

    // Too early: the visitor may still come back.
    expect(await sweepUnrecordedCharges(db, new Date(NOW.getTime() + 5 * 60_000))).toBe(0);
    expect(await sweepUnrecordedCharges(db, new Date(NOW.getTime() + 25 * 60_000))).toBe(1);
    expect(counts.refunds).toBe(1);
    expect((await db.query.rentals.findFirst({ where: eq(rentals.id, id) }))!.status).toBe("abandoned");
    expect((await db.query.units.findFirst({ where: eq(units.id, unitId) }))).toMatchObject({ status: "available", holdToken: null });
    expect((await db.select({ n: count() }).from(payments))[0]!.n).toBe(0);
    expect((await db.select({ n: count() }).from(leases).where(eq(leases.unitId, unitId)))[0]!.n).toBe(0);
    // A second sweep finds nothing more.
    expect(await sweepUnrecordedCharges(db, new Date(NOW.getTime() + 30 * 60_000))).toBe(0);
  });

  it("changing the plan after a started payment voids it; the next payment is a new charge of the new total", async () => {
    const { db } = handle;
    const { counts, flaky, ctx, current, pay } = await outageRental(db);
    flaky.arm(2);
    await pay().catch(() => null);
    flaky.disarm();
    const { saveProtection } = await import("~/services/rental/record.server");
    await saveProtection(db, ctx, await current(), "none", NOW);
    expect(counts.refunds).toBe(1);
    expect((await current()).status).toBe("open");
  });
});
