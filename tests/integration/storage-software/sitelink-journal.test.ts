/**
 * Issue 19: the SiteLink write journal keeps what reconciliation needs and nothing more. No row ever
 * holds a password hash, a gate code, lease text or a gateway token; personal data goes when a row is
 * settled; settled rows are pruned after JOURNAL_RETENTION_DAYS; `sitelink:status` (text and JSON, and so
 * the server's snapshot) shows identifiers only.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rentals, leases, sitelinkWrites, tenants } from "~/db/schema";
import { runHousekeeping } from "~/services/jobs/housekeeping.server";
import { confirmRental, placeMoveIn } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import { collectSiteLinkStatus, formatSiteLinkStatus, JOURNAL_PERSONAL_DAYS, JOURNAL_RETENTION_DAYS } from "~/storage-software/index.server";
import { createJournal, JournalFieldError } from "~/storage-software/sitelink/journal";
import { card, ctxFor, NOW, signedRental, tenantDetails } from "../support/rental-fixtures";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";
import { productionBcryptCost } from "../support/bcrypt-cost";

// bcrypt at the production cost (decision 523): the hashes that must not leak into the journal are production ones.
productionBcryptCost();

let bed: SiteLinkTestbed;
let unitTypeId: string;
const ORIGIN = "https://www.example.com";
const DAY = 86_400_000;

beforeAll(async () => {
  bed = await startSyncedSiteLinkTestbed(NOW);
  unitTypeId = (await roomiestSyncedUnitType(bed, bed.lumberton)).id;
});
afterAll(() => bed?.close());
beforeEach(() => bed.sim.control.clearFaults());

const rowsOf = (rentalId: string) => bed.handle.db.select().from(sitelinkWrites).where(sql`${sitelinkWrites.idempotencyKey} like ${`%${rentalId}%`}`);

describe("what a move-in leaves in the journal", () => {
  it("confirmed only by reconciliation: no row holds the password hash, gate code, lease text or contact details; the lease gets them from the rental", async () => {
    const details = tenantDetails({ first_name: "Journaline", last_name: "Privacy", cell_phone: "(910) 555-0177" });
    const { id } = await signedRental(bed.handle.db, unitTypeId, { details });
    const ctx = await ctxFor(bed.handle.db, unitTypeId);
    // Committed in SiteLink, no answer, and SiteLink cannot be read back at once.
    bed.sim.control.addFault({ operation: "MoveInWithDiscount_v7", kind: "commit_then_hang", times: 1 });
    bed.sim.control.addFault({ operation: "LedgersByTenantID_v3", kind: "http_503", times: 2 });
    const outcome = await placeMoveIn(bed.handle.db, ctx, (await getRental(bed.handle.db, id, unitTypeId))!, {
      payment: { kind: "card", card: card() },
      autopay: false,
      now: NOW,
      origin: ORIGIN,
    });
    expect(outcome).toEqual({ status: "confirming" });
    const [rental] = await bed.handle.db.select().from(rentals).where(eq(rentals.id, id));
    const hash = rental!.webPwHash!;
    const forbidden = (json: string) => {
      expect(json).not.toContain(hash);
      expect(json).not.toContain("RENTAL AGREEMENT");
      expect(json).not.toContain("Journaline");
      expect(json).not.toContain(details.email);
      expect(json).not.toContain("5550177");
      for (const key of ["tenant", "signature", "leaseText", "accessCode", "autopayToken", "autopayCard"]) expect(json).not.toContain(`"${key}"`);
    };
    // While the outcome is open: the journal has ids and amounts, the rental what is needed to finish.
    const open = await rowsOf(id);
    expect(open.map((r) => r.operation).sort()).toEqual(["MoveInWithDiscount_v7", "TenantNewDetailed_v3"]);
    forbidden(JSON.stringify(open));
    expect(rental!.pendingMoveIn).toMatchObject({ leaseText: expect.stringContaining("RENTAL AGREEMENT") });

    const settled = await confirmRental(bed.handle.db, ctx, (await getRental(bed.handle.db, id, unitTypeId))!, { now: NOW, origin: ORIGIN });
    expect(settled.status).toBe("completed");
    const { leaseId } = (settled as { result: { leaseId: string } }).result;
    const lease = (await bed.handle.db.query.leases.findFirst({ where: eq(leases.id, Number(leaseId)) }))!;
    const ledger = bed.sim.control.inspectSite("L001").ledgers.find((l) => String(l.LedgerID) === lease.externalId)!;
    expect(lease.leaseText).toContain("RENTAL AGREEMENT");
    expect(lease.leaseText).toContain("Journaline Privacy");
    expect(lease.gateCode).toBe(ledger.accessCode);
    const tenant = (await bed.handle.db.query.tenants.findFirst({ where: eq(tenants.id, lease.tenantId) }))!;
    expect(tenant.webPwHash).toBe(hash);
    expect(tenant.firstName).toBe("Journaline");
    const after = await rowsOf(id);
    forbidden(JSON.stringify(after));
    for (const r of after) expect(Object.values(r.externalIds)).not.toContain(ledger.accessCode);
    const [done] = await bed.handle.db.select({ pending: rentals.pendingMoveIn, status: rentals.status }).from(rentals).where(eq(rentals.id, id));
    expect(done).toEqual({ pending: null, status: "completed" });
  });

  it("a declined card: nothing kept for reconciliation on the rental, nothing personal in the journal", async () => {
    const details = tenantDetails({ first_name: "Declina" });
    const { id } = await signedRental(bed.handle.db, unitTypeId, { details });
    const ctx = await ctxFor(bed.handle.db, unitTypeId);
    const outcome = await placeMoveIn(bed.handle.db, ctx, (await getRental(bed.handle.db, id, unitTypeId))!, {
      payment: { kind: "card", card: card("4000000000000002") },
      autopay: false,
      now: NOW,
      origin: ORIGIN,
    });
    expect(outcome.status).toBe("declined");
    const json = JSON.stringify(await rowsOf(id));
    expect(json).not.toContain("Declina");
    expect(json).not.toContain("RENTAL AGREEMENT");
    const [c] = await bed.handle.db.select({ pending: rentals.pendingMoveIn }).from(rentals).where(eq(rentals.id, id));
    expect(c!.pending).toBeNull();
  });
});

describe("the journal's own rules", () => {
  it("refuses a field it may not keep, and drops personal data when a row is settled", async () => {
    const journal = createJournal(bed.handle.db, bed.lumberton.id);
    const now = new Date();
    for (const field of ["leaseText", "accessCode", "autopayToken", "webPwHash", "tenant", "sCreditCardNumber"]) {
      await expect(journal.begin({ key: `test:${field}:${now.getTime()}`, operation: "X", fingerprint: "", externalIds: { [field]: "x" }, now })).rejects.toBeInstanceOf(JournalFieldError);
    }
    const key = `contact:990001:${now.getTime()}`;
    await journal.begin({ key, operation: "TenantUpdate_v3", fingerprint: "", externalIds: { tenantId: "990001", purpose: "portal", fields: '{"sEmail":"new@example.com"}' }, now });
    await expect(journal.settle(key, "unknown", { externalIds: { accessCode: "1234" }, now })).rejects.toBeInstanceOf(JournalFieldError);
    await journal.settle(key, "unknown", { error: "no answer", now });
    expect((await journal.get(key))!.externalIds).toMatchObject({ fields: '{"sEmail":"new@example.com"}' });
    await journal.settle(key, "done", { now });
    expect((await journal.get(key))!.externalIds).toEqual({ tenantId: "990001", purpose: "portal" });
  });

  it("housekeeping: settled rows deleted after the retention period, old rows cut down to ids, open rows' personal data removed after a while", async () => {
    const loc = bed.lumberton.id;
    const now = new Date("2027-06-01T12:00:00Z");
    const ago = (days: number) => new Date(now.getTime() - days * DAY);
    const legacy = { tenantId: "4242", tenant: '{"webPwHash":"$2b$10$legacyhash"}', leaseText: "LEASE", accessCode: "778899", autopayToken: "tok_legacy", ledgerId: "17" };
    await bed.handle.db.insert(sitelinkWrites).values([
      { idempotencyKey: "prune:old-done", locationId: loc, operation: "MoveInWithDiscount_v7", state: "done", externalIds: { ledgerId: "1" }, startedAt: ago(JOURNAL_RETENTION_DAYS + 2), finishedAt: ago(JOURNAL_RETENTION_DAYS + 1) },
      { idempotencyKey: "prune:old-failed", locationId: loc, operation: "ScheduleMoveOut", state: "failed", externalIds: {}, startedAt: ago(JOURNAL_RETENTION_DAYS + 2), finishedAt: ago(JOURNAL_RETENTION_DAYS + 1) },
      { idempotencyKey: "prune:old-tenant", locationId: loc, operation: "TenantNewDetailed_v3", state: "done", externalIds: { tenantId: "4343" }, startedAt: ago(400), finishedAt: ago(400) },
      { idempotencyKey: "prune:recent-legacy", locationId: loc, operation: "MoveInWithDiscount_v7", state: "done", externalIds: legacy, startedAt: ago(3), finishedAt: ago(3) },
      { idempotencyKey: "prune:old-open", locationId: loc, operation: "TenantUpdate_v3", state: "unknown", externalIds: { tenantId: "4444", fields: '{"sEmail":"old@example.com"}' }, startedAt: ago(JOURNAL_PERSONAL_DAYS + 1) },
      { idempotencyKey: "prune:young-open", locationId: loc, operation: "TenantUpdate_v3", state: "unknown", externalIds: { tenantId: "4545", fields: '{"sEmail":"young@example.com"}' }, startedAt: ago(1) },
      { idempotencyKey: "prune:old-unknown", locationId: loc, operation: "MoveInWithDiscount_v7", state: "unknown", externalIds: { tenantId: "4646" }, startedAt: ago(400) },
    ]);
    const result = await runHousekeeping(bed.handle.db, now);
    expect(result.journalDeleted).toBeGreaterThanOrEqual(2);
    const left = Object.fromEntries(
      (await bed.handle.db.select().from(sitelinkWrites).where(sql`${sitelinkWrites.idempotencyKey} like 'prune:%'`)).map((r) => [r.idempotencyKey, r.externalIds]),
    );
    expect(Object.keys(left).sort()).toEqual(["prune:old-open", "prune:old-tenant", "prune:old-unknown", "prune:recent-legacy", "prune:young-open"]);
    expect(left["prune:recent-legacy"]).toEqual({ tenantId: "4242", ledgerId: "17" });
    expect(left["prune:old-open"]).toEqual({ tenantId: "4444" });
    expect(left["prune:young-open"]).toMatchObject({ fields: '{"sEmail":"young@example.com"}' });
    expect(left["prune:old-tenant"]).toEqual({ tenantId: "4343" });
    // Idempotent.
    expect(await runHousekeeping(bed.handle.db, now)).toMatchObject({ journalDeleted: 0, journalScrubbed: 0 });
    await bed.handle.db.delete(sitelinkWrites).where(sql`${sitelinkWrites.idempotencyKey} like 'prune:%'`);
  });
});

describe("sitelink:status", () => {
  it("text and JSON (the snapshot) show a row's identifiers, never its payload, also for rows written before issue 19", async () => {
    await bed.handle.db.insert(sitelinkWrites).values({
      idempotencyKey: "movein:status-legacy:k1",
      locationId: bed.lumberton.id,
      operation: "MoveInWithDiscount_v7",
      state: "unknown",
      lastError: "no answer within 45000 ms",
      externalIds: {
        tenantId: "8080",
        tenant: '{"firstName":"Legacy","email":"legacy@example.com","webPwHash":"$2b$10$abcdefghijklmnopqrstuv"}',
        signature: '{"signedName":"Legacy Person","signedIp":"203.0.113.77"}',
        leaseText: "SELF-STORAGE RENTAL AGREEMENT for Legacy",
        accessCode: "246810",
        autopayToken: "tok_live_secret",
        lines: '[{"description":"Rent","amount":5000}]',
        total: "6642",
      },
    });
    const status = await collectSiteLinkStatus(bed.handle.db, new Date());
    const row = status.locations.flatMap((l) => l.attention).find((a) => a.idempotencyKey === "movein:status-legacy:k1")!;
    expect(row.ids).toEqual({ tenantId: "8080", total: "6642" });
    for (const text of [formatSiteLinkStatus(status, new Date()), JSON.stringify(status)]) {
      expect(text).toContain("movein:status-legacy:k1");
      for (const secret of ["$2b$10$", "legacy@example.com", "Legacy Person", "203.0.113.77", "RENTAL AGREEMENT", "246810", "tok_live_secret", '"lines"']) expect(text).not.toContain(secret);
    }
    await bed.handle.db.delete(sitelinkWrites).where(eq(sitelinkWrites.idempotencyKey, "movein:status-legacy:k1"));
  });
});
