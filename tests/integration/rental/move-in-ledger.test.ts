import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { ledgerEntries, leases, payments } from "~/db/schema";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import { hasPosting, leaseBalance, listLedger, postCharges, recordApprovedPayment, recordDeclinedPayment } from "~/storage-software/shared/ledger";
import { createTestDatabase } from "../support/db";
import { card, ctxFor, lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";

describe("local ledger", () => {
  let handle: DatabaseHandle;
  let leaseId: number;
  let tenantId: number;
  beforeAll(async () => {
    handle = await createTestDatabase();
    const { db } = handle;
    const { unitTypeId } = await lumbertonUnitType(db);
    const { id } = await signedRental(db, unitTypeId);
    const r = await placeMoveIn(db, await ctxFor(db, unitTypeId), (await getRental(db, id, unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: "http://x" });
    leaseId = Number((r as { leaseId: string }).leaseId);
    tenantId = (await db.query.leases.findFirst({ where: eq(leases.id, leaseId) }))!.tenantId;
  });
  afterAll(() => handle.close());

  it("a move-in leaves a zero balance with a running balance per line", async () => {
    const lines = await listLedger(handle.db, leaseId);
    expect(lines.at(-1)!.kind).toBe("payment");
    expect(lines.at(-1)!.runningBalance).toBe(0);
    expect(lines.filter((l) => l.kind === "charge").length).toBe(3);
    expect(await leaseBalance(handle.db, leaseId)).toBe(0);
  });

  it("postings are idempotent by posting key", async () => {
    const line = { description: "Rent", amount: 9200, tax: 0, entryDate: "2026-12-22", postingKey: "rent:2026-12-22" };
    expect(await postCharges(handle.db, { leaseId, tenantId, lines: [line] })).toHaveLength(1);
    expect(await postCharges(handle.db, { leaseId, tenantId, lines: [line] })).toHaveLength(0);
    expect(await hasPosting(handle.db, leaseId, "rent:2026-12-22")).toBe(true);
    expect(await leaseBalance(handle.db, leaseId)).toBe(9200);
  });

  it("a payment and its ledger line are written together, once per idempotency key", async () => {
    const input = { tenantId, leaseId, amount: 9200, source: "portal" as const, cardBrand: "visa" as const, cardLast4: "4242", authReference: "AUTH-1", idempotencyKey: "pay-1", entryDate: "2026-12-22" };
    const first = await recordApprovedPayment(handle.db, input);
    const again = await recordApprovedPayment(handle.db, input);
    expect(first.created).toBe(true);
    expect(again).toEqual({ paymentId: first.paymentId, ledgerEntryId: first.ledgerEntryId, created: false });
    expect(await handle.db.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, first.paymentId))).toHaveLength(1);
    expect(await leaseBalance(handle.db, leaseId)).toBe(0);
  });

  it("a declined attempt is recorded without a ledger line; whole cents only", async () => {
    await recordDeclinedPayment(handle.db, { tenantId, leaseId, amount: 500, source: "portal", cardBrand: "visa", cardLast4: "0002", idempotencyKey: "pay-2", reason: "Your card was declined." });
    const [p] = await handle.db.select().from(payments).where(eq(payments.idempotencyKey, "pay-2"));
    expect(p).toMatchObject({ status: "declined", declineReason: "Your card was declined." });
    expect(await handle.db.select().from(ledgerEntries).where(eq(ledgerEntries.paymentId, p!.id))).toHaveLength(0);
    await expect(postCharges(handle.db, { leaseId, tenantId, lines: [{ description: "x", amount: 1.5, tax: 0, entryDate: "2026-12-22" }] })).rejects.toThrow(/whole cents/);
  });
});
