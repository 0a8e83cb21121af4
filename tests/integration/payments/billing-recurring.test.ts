import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { leases, ledgerEntries, locations } from "~/db/schema";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import { runBilling } from "~/services/payments/billing-run.server";
import { createTestDatabase } from "../support/db";
import { card, ctxFor, lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";

/**
 * A recurring extra charge without a sitelink_id: the move-in posts it under a key built from its
 * name, and the monthly billing run must find that key and bill the charge every month.
 */
describe("recurring extra charges are billed after move-in", () => {
  let handle: DatabaseHandle;
  beforeEach(async () => {
    handle = await createTestDatabase();
  });
  afterEach(() => handle.close());

  it("posts a recurring charge with no sitelink_id on the next due date", async () => {
    const { db } = handle;
    const { unitTypeId, locationId } = await lumbertonUnitType(db);
    const charges = [
      { sitelink_id: null, name: "Admin Fee", tax_1_rate: 5, tax_2_rate: 0, amount: 10, is_recurring: true },
      { sitelink_id: "lock", name: "Lock fee", tax_1_rate: 6.75, tax_2_rate: 0, amount: 7, is_recurring: false },
    ];
    await db.update(locations).set({ chargesToShowAtCheckout: JSON.stringify(charges) }).where(eq(locations.id, locationId));

    const { id } = await signedRental(db, unitTypeId, { plan: "none" });
    const ctx = await ctxFor(db, unitTypeId);
    const result = await placeMoveIn(db, ctx, (await getRental(db, id, unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: "http://localhost" });
    expect(result).toMatchObject({ status: "completed" });
    const leaseId = Number((result as { leaseId: string }).leaseId);
    const lease = (await db.query.leases.findFirst({ where: eq(leases.id, leaseId) }))!;

    const atMoveIn = await db.select().from(ledgerEntries).where(eq(ledgerEntries.leaseId, leaseId));
    expect(atMoveIn.map((l) => l.postingKey)).toContain("charge:admin-fee:2026-11-22");

    await runBilling(db, { runDate: "2026-12-22", now: NOW, force: true, tenantId: lease.tenantId });
    const after = await db.select().from(ledgerEntries).where(eq(ledgerEntries.leaseId, leaseId));
    const december = after.filter((l) => l.postingKey?.endsWith(":2026-12-22"));
    expect(december.map((l) => l.postingKey).sort()).toEqual(["charge:admin-fee:2026-12-22", "rent:2026-12-22"]);
    expect(december.find((l) => l.postingKey === "charge:admin-fee:2026-12-22")).toMatchObject({ amount: 1000, tax: 50 });
  });
});
