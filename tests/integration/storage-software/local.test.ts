import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import crypto from "node:crypto";
import { payments, rentals, locations, unitTypes, units } from "~/db/schema";
import { storageFor, storageSoftwareNotice } from "~/storage-software/index.server";
import { StorageSoftwareError } from "~/storage-software/errors";
import { createTestDatabase } from "../support/db";
import { contractMoveIn, storageSoftwareContract, type ContractHarness } from "./contract";
import { getPaymentGateway } from "~/platform/payments/gateway.server";

async function locationRef(handle: DatabaseHandle, slug: string) {
  const row = await handle.db.query.locations.findFirst({ where: eq(locations.urlSlug, slug) });
  if (!row) throw new Error(`no location ${slug}`);
  return { id: row.id, name: row.name, software: row.software, status: row.status };
}

async function localHarness(): Promise<ContractHarness> {
  const handle = await createTestDatabase();
  const lumberton = await locationRef(handle, "lumberton-nc-28358");
  const jacksonville = await locationRef(handle, "jacksonville-nc-28546");
  let serial = 0;
  return {
    storage: storageFor(handle.db, lumberton),
    otherStorage: storageFor(handle.db, jacksonville),
    async createUnitType({ statuses, width = 7, length = 9 }) {
      const [type] = await handle.db
        .insert(unitTypes)
        .values({ locationId: lumberton.id, name: "Contract Test", category: "indoor", width, length, standardRate: 5000, webRate: 4500 })
        .returning({ id: unitTypes.id });
      const n = ++serial;
      const rows = await handle.db
        .insert(units)
        .values(statuses.map((status, i) => ({ locationId: lumberton.id, unitTypeId: type!.id, name: `T${n}-${i}`, status })))
        .returning({ id: units.id });
      return { unitTypeId: String(type!.id), unitIds: rows.map((r) => String(r.id)) };
    },
    async setUnitStatus(unitId, status) {
      await handle.db.update(units).set({ status }).where(eq(units.id, Number(unitId)));
    },
    async holdUnit(unitId, until) {
      await handle.db.update(units).set({ heldUntil: until, holdToken: `hold-${unitId}` }).where(eq(units.id, Number(unitId)));
    },
    async openRental({ unitTypeId, now }) {
      const id = `contract-rental-${++serial}-${crypto.randomBytes(8).toString("hex")}`;
      const idempotencyKey = `contract-key-${crypto.randomBytes(12).toString("hex")}`;
      await handle.db.insert(rentals).values({ id, locationId: lumberton.id, unitTypeId: Number(unitTypeId), idempotencyKey, expiresAt: new Date(now.getTime() + 15 * 60_000) });
      return { rentalId: id, idempotencyKey };
    },
    // The local adapter has no clock of its own: every call takes `now`.
    async advanceClock() {},
    paymentAttempts: (leaseId) => handle.db.select({ status: payments.status, amount: payments.amount }).from(payments).where(eq(payments.leaseId, Number(leaseId))),
    close: () => handle.close(),
  };
}

storageSoftwareContract("local", localHarness);

describe("local adapter on the seeded demo inventory", () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase();
  });
  afterAll(() => handle.close());

  it("counts each Lumberton type's available units as the units table says", async () => {
    const ref = await locationRef(handle, "lumberton-nc-28358");
    const list = await storageFor(handle.db, ref).listUnitTypes();
    expect(list).toHaveLength(12);
    const rows = await handle.db
      .select({
        unitTypeId: units.unitTypeId,
        available: sql<number>`count(*) filter (where ${units.status} = 'available')`.mapWith(Number),
        total: sql<number>`count(*)`.mapWith(Number),
      })
      .from(units)
      .where(eq(units.locationId, ref.id))
      .groupBy(units.unitTypeId);
    const expected = new Map(rows.map((r) => [String(r.unitTypeId), r]));
    for (const t of list) {
      expect(t.availableCount).toBe(expected.get(t.id)!.available);
      expect(t.totalCount).toBe(expected.get(t.id)!.total);
    }
    expect(list.some((t) => t.availableCount === 0)).toBe(true);
    expect(list.some((t) => t.availableCount > 0 && t.availableCount <= 2)).toBe(true);
  });

  it("reads the seeded lock fee and the four insurance tiers", async () => {
    const storage = storageFor(handle.db, await locationRef(handle, "lumberton-nc-28358"));
    expect(await storage.listExtraCharges()).toEqual([
      expect.objectContaining({ name: expect.stringMatching(/lock/i), amount: 700, tax1Rate: 6.75, tax2Rate: 0, isRecurring: false }),
    ]);
    const plans = await storage.listInsurancePlans();
    expect(plans.map((p) => [p.coverage, p.premium])).toEqual([
      [100000, 895],
      [500000, 1195],
      [1000000, 2195],
      [1500000, 3695],
    ]);
  });

  it("gives coming-soon locations no units, no plans and no charges", async () => {
    const storage = storageFor(handle.db, await locationRef(handle, "kinston-nc-28501"));
    expect(await storage.listUnitTypes()).toEqual([]);
    expect(await storage.listInsurancePlans()).toEqual([]);
    expect(await storage.listExtraCharges()).toEqual([]);
  });

  it("raises a StorageSoftwareError for unreadable extra charges", async () => {
    const ref = await locationRef(handle, "jacksonville-nc-28546");
    await handle.db.update(locations).set({ chargesToShowAtCheckout: "{not json" }).where(and(eq(locations.id, ref.id)));
    await expect(storageFor(handle.db, ref).listExtraCharges()).rejects.toBeInstanceOf(StorageSoftwareError);
  });

  it("names the SiteLink locations served by the local adapter in one start-up line", () => {
    expect(
      storageSoftwareNotice([
        { name: "Lumberton", software: "sitelink" },
        { name: "Jacksonville", software: "sitelink" },
        { name: "Kinston", software: "no_api" },
      ]),
    ).toBe('[storage-software] Lumberton, Jacksonville: software is "sitelink", served by the built-in local adapter (no SiteLink adapter configured).');
    expect(storageSoftwareNotice([{ name: "Kinston", software: "no_api" }])).toBeNull();
  });
});

describe("the contract suite covers the whole port", () => {
  it("calls every method the local adapter implements", async () => {
    const fs = await import("node:fs");
    const source = fs.readFileSync(new URL("./contract.ts", import.meta.url), "utf8");
    const handle = await createTestDatabase();
    try {
      const adapter = storageFor(handle.db, await locationRef(handle, "lumberton-nc-28358"));
      const methods = Object.keys(adapter).filter((k) => typeof (adapter as unknown as Record<string, unknown>)[k] === "function");
      expect(methods.length).toBe(43);
      const missing = methods.filter((m) => !source.includes(`storage.${m}(`));
      expect(missing).toEqual([]);
    } finally {
      await handle.close();
    }
  });
});

describe("a processor's token instead of our card fields (decision 079)", () => {
  let h: ContractHarness;
  beforeAll(async () => {
    h = await localHarness();
  });
  afterAll(() => h?.close());

  it("moves in, pays and saves a card with a token: the port never sees a card number", async () => {
    // What a processor's hosted fields would post back: a token (the test gateway makes one).
    const tokenOf = async (number: string) => {
      const t = await getPaymentGateway().tokenize({ number, expMonth: 11, expYear: 2031, cvv: "123", nameOnCard: "Tok En", postalCode: "28358" });
      if (t.status !== "ok") throw new Error("not tokenised");
      return t.cardToken;
    };
    const m = await contractMoveIn(h, { autopay: true, payment: { kind: "token", token: await tokenOf("5555555555554444") } });
    expect(m.result).toMatchObject({ created: true, cardBrand: "mastercard", cardLast4: "4444" });
    const { tenantId, leaseId } = m.result;
    expect((await h.storage.getTenantLease(tenantId, leaseId))!.autopay).toMatchObject({ enabled: true, card: { last4: "4444", expMonth: 11, expYear: 2031 } });

    const paid = await h.storage.makePayment({ tenantId, leaseId, amount: 700, method: { kind: "token", token: await tokenOf("4242424242424242"), saveCard: true }, idempotencyKey: `tok-pay-${Date.now()}-abcdefgh`, now: new Date("2026-06-15T15:00:00Z") });
    expect(paid).toMatchObject({ status: "approved", cardLast4: "4242", amount: 700 });
    expect((await h.storage.listSavedCards(tenantId)).map((c) => [c.last4, c.expMonth, c.expYear])).toContainEqual(["4242", 11, 2031]);

    const saved = await h.storage.enrolAutopay({ tenantId, leaseId, method: { kind: "token", token: await tokenOf("6011111111111117"), saveCard: true }, now: new Date("2026-06-15T15:00:00Z") });
    expect(saved).toMatchObject({ brand: "discover", last4: "1117", expMonth: 11, expYear: 2031 });
  });
});
