/**
 * The SiteLink move-in orchestration (study §5): write journal, reconciliation, SiteLink's quote,
 * option A (SiteLink charges) and B (our gateway charges, SiteLink records cash). Against an in-memory
 * SiteLink at the call level (./sitelink-fake.ts) with the failures that matter: commit-then-timeout,
 * no answer before anything was applied, a unit rented at the office just before the payment, a
 * declined card, charges that changed, and credentials SiteLink refuses.
 */
import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { rentals, leases, locations, payments, sitelinkWrites, tenantSoftwareLinks, tenants, units } from "~/db/schema";
import { hashPassword } from "~/platform/password.server";
import { createTestGateway, type PaymentGateway } from "~/platform/payments/gateway.server";
import { ChargesChangedError, OutcomeUnknownError, PaymentDeclinedError, SoftwareUnreachableError, UnitUnavailableError } from "~/storage-software/errors";
import type { LocationRef } from "~/storage-software/index.server";
import type { MoveInInput } from "~/storage-software/port";
import { createJournal } from "~/storage-software/sitelink/journal";
import { createSiteLinkMoveIn, siteLinkQuote, type SiteLinkRentalSettings } from "~/storage-software/sitelink/move-in";
import { createTestDatabase } from "../support/db";
import { card, lumbertonUnitType, NOW, tenantDetails } from "../support/rental-fixtures";
import { createFakeSite, type FakeSite } from "../support/sitelink-fake";

const SETTINGS: SiteLinkRentalSettings = {
  charges: "sitelink",
  cardTypeIds: { visa: 5, mastercard: 6, discover: 8 },
  payMethodIds: { card: 1, cash: 2 },
  billingFrequency: 3,
  channelType: 1,
  testMode: true,
  settleAfterMs: 2 * 60_000,
};

let handle: DatabaseHandle;
let location: LocationRef;
let unitTypeId: number;
let unitRows: Array<{ id: number; name: string; externalId: string }>;

beforeAll(async () => {
  handle = await createTestDatabase();
  const db = handle.db;
  const [loc] = await db.select().from(locations).where(eq(locations.name, "Lumberton"));
  location = {
    id: loc!.id,
    name: loc!.name,
    software: "sitelink",
    status: loc!.status,
  };
  unitTypeId = Number((await lumbertonUnitType(db)).unitTypeId);
  const list = await db
    .select({ id: units.id, name: units.name })
    .from(units)
    .where(and(eq(units.unitTypeId, unitTypeId), eq(units.status, "available")));
  unitRows = [];
  for (const [i, u] of list.entries()) {
    const externalId = String(5000 + i);
    await db.update(units).set({ externalId }).where(eq(units.id, u.id));
    unitRows.push({ ...u, externalId });
  }
  expect(unitRows.length).toBeGreaterThanOrEqual(3);
});
afterAll(() => handle?.close());

let site: FakeSite;
beforeEach(async () => {
  // Each test starts with every unit of the type free here and in "SiteLink".
  await handle.db
    .update(leases)
    .set({ status: "moved_out" })
    .where(sql`${leases.unitId} in (select id from units where unit_type_id = ${unitTypeId})`);
  await handle.db.update(units).set({ status: "available", heldUntil: null, holdToken: null }).where(eq(units.unitTypeId, unitTypeId));
  site = createFakeSite(unitRows.map((u) => ({ id: u.externalId, name: u.name })));
});

function adapter(gateway: PaymentGateway = createTestGateway(), settings: SiteLinkRentalSettings = SETTINGS) {
  return createSiteLinkMoveIn({
    db: handle.db,
    location,
    call: site.call,
    journal: createJournal(handle.db, location.id),
    settings,
    gateway,
  });
}

/** A signed rental holding the first unit, and the MoveInInput the service would send for it. */
async function signedRental(options: { cardNumber?: string; autopay?: boolean; unitIndex?: number } = {}) {
  const id = crypto.randomBytes(24).toString("base64url");
  const details = tenantDetails();
  const unit = unitRows[options.unitIndex ?? 0]!;
  const until = new Date(NOW.getTime() + 15 * 60_000);
  await handle.db.update(units).set({ heldUntil: until, holdToken: id }).where(eq(units.id, unit.id));
  const webPwHash = await hashPassword("correct-horse-42");
  const leaseText = `Lease for ${details.first_name} ${details.last_name}`;
  const leaseHash = crypto.createHash("sha256").update(leaseText).digest("hex");
  const idempotencyKey = crypto.randomBytes(24).toString("base64url");
  await handle.db.insert(rentals).values({
    id,
    locationId: location.id,
    unitTypeId,
    unitId: unit.id,
    tenantDetails: { ...details, cell_phone: "9105550134" },
    webPwHash,
    insuranceChoice: "none",
    moveInDate: "2026-11-22",
    signedName: "Ada Lovelace",
    signedAt: NOW,
    signedIp: "127.0.0.1",
    leaseHash,
    idempotencyKey,
    expiresAt: until,
  });
  const quote = await siteLinkQuote(site.call, SETTINGS, {
    siteLinkUnitId: unit.externalId,
    moveInDate: "2026-11-22",
    insuranceCoverageId: null,
    insurancePlanId: null,
    insurancePremium: 0,
    standardRate: 4500,
    monthlyRate: 4500,
  });
  const input: MoveInInput = {
    rentalId: id,
    idempotencyKey,
    unitTypeId: String(unitTypeId),
    tenant: {
      firstName: details.first_name,
      lastName: details.last_name,
      email: details.email,
      cellPhone: "9105550134",
      webPwHash,
      addr1: details.addr_1,
      addr2: null,
      city: details.city,
      region: details.region,
      postalCode: details.postal_code,
      isMilitary: false,
      isCompany: false,
      isCommercial: false,
    },
    moveInDate: quote.moveInDate,
    paidThroughDate: quote.paidThroughDate,
    nextDueDate: quote.nextDueDate,
    monthlyRate: quote.monthlyRate,
    insurancePlanId: null,
    insurancePremium: 0,
    lines: quote.lines,
    total: quote.total,
    payment: { kind: "card", card: card(options.cardNumber) },
    autopay: options.autopay ?? false,
    lease: {
      text: leaseText,
      hash: leaseHash,
      signedName: "Ada Lovelace",
      signedAt: NOW,
      signedIp: "127.0.0.1",
    },
    now: NOW,
  };
  site.log.length = 0; // count only what the move-in sends
  return { id, input, unit, details };
}

const rentalOf = async (id: string) => (await handle.db.select().from(rentals).where(eq(rentals.id, id)))[0]!;
const leasesOf = async (rentalId: string) => {
  const c = await rentalOf(rentalId);
  return c.completedLeaseId ? await handle.db.select().from(leases).where(eq(leases.id, c.completedLeaseId)) : [];
};
const tenantsWithEmail = async (email: string) =>
  handle.db
    .select()
    .from(tenants)
    .where(sql`lower(${tenants.email}) = ${email.toLowerCase()}`);

describe("SiteLink move-in (SiteLink charges the card, option A)", () => {
  it("takes SiteLink's quote to the cent: rent + fee with SiteLink's tax, the optional deposit left out", async () => {
    const { input } = await signedRental();
    expect(input.total).toBe(4500 + 2000 + 135);
    expect(input.lines.map((l) => [l.kind, l.amount, l.tax])).toEqual([
      ["rent", 4500, 0],
      ["charge", 2000, 135],
    ]);
    expect(input.paidThroughDate).toBe("2026-12-21");
  });

  it("moves in once: one tenant, one MoveIn, the lease record with SiteLink's ledger id and gate code; a repeat sends nothing", async () => {
    const { id, input, unit, details } = await signedRental();
    const m = adapter();
    const first = await m.moveIn(input);
    expect(first.created).toBe(true);
    expect(site.count("TenantNewDetailed_v3")).toBe(1);
    expect(site.count("MoveInWithDiscount_v7")).toBe(1);
    const ledger = site.ledgers.at(-1)!;
    expect(ledger.UnitID).toBe(unit.externalId);
    expect(first.gateCode).toBe(ledger.sAccessCode);
    const [lease] = await leasesOf(id);
    expect(lease).toMatchObject({
      externalId: ledger.LedgerID,
      unitId: unit.id,
      gateCode: ledger.sAccessCode,
      paidThroughDate: "2026-12-21",
    });
    const [payment] = await handle.db
      .select()
      .from(payments)
      .where(eq(payments.id, Number(first.paymentId)));
    expect(payment).toMatchObject({
      amount: 6635,
      cardLast4: "4242",
      status: "approved",
    });
    const [tenant] = await tenantsWithEmail(details.email);
    const links = await handle.db.select().from(tenantSoftwareLinks).where(eq(tenantSoftwareLinks.tenantId, tenant!.id));
    expect(links).toEqual([
      expect.objectContaining({
        locationId: location.id,
        externalTenantId: ledger.TenantID,
      }),
    ]);
    expect((await rentalOf(id)).status).toBe("completed");
    // The MoveIn was journalled and is done.
    const journal = await handle.db
      .select()
      .from(sitelinkWrites)
      .where(sql`${sitelinkWrites.idempotencyKey} like ${`movein:${id}:%`}`);
    expect(journal).toEqual([
      expect.objectContaining({
        state: "done",
        operation: "MoveInWithDiscount_v7",
      }),
    ]);
    expect(journal[0]!.externalIds.ledgerId).toBe(ledger.LedgerID);

    const again = await m.moveIn(input);
    expect(again).toEqual({ ...first, created: false });
    expect(site.count("MoveInWithDiscount_v7")).toBe(1);
  });

  it("commit then timeout: the MoveIn went through but no answer came; reading back finds it: one lease, one charge, success", async () => {
    const { id, input } = await signedRental();
    site.fault("MoveInWithDiscount_v7", "commit_then_hang");
    const result = await adapter().moveIn(input);
    expect(result.created).toBe(true);
    expect(site.ledgers.filter((l) => l.TenantID === site.ledgers.at(-1)!.TenantID)).toHaveLength(1);
    expect(site.payments).toHaveLength(1);
    expect(site.count("MoveInWithDiscount_v7")).toBe(1);
    expect(await leasesOf(id)).toHaveLength(1);
    // A repeat (the visitor pressed Pay again) sends nothing.
    await adapter().moveIn(input);
    expect(site.count("MoveInWithDiscount_v7")).toBe(1);
    expect(site.payments).toHaveLength(1);
  });

  it("commit then timeout while SiteLink cannot be read back either: 'confirming', then settled by confirmMoveIn, never resent", async () => {
    const { id, input } = await signedRental();
    site.fault("MoveInWithDiscount_v7", "commit_then_hang");
    site.fault("LedgersByTenantID_v3", "drop_before");
    await expect(adapter().moveIn(input)).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect((await rentalOf(id)).status).toBe("confirming");
    const [entry] = await handle.db
      .select()
      .from(sitelinkWrites)
      .where(sql`${sitelinkWrites.idempotencyKey} like ${`movein:${id}:%`}`);
    expect(entry!.state).toBe("unknown");
    // The visitor presses Pay again while it is unknown: nothing is sent, still confirming.
    site.fault("LedgersByTenantID_v3", "drop_before");
    await expect(adapter().moveIn(input)).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(site.count("MoveInWithDiscount_v7")).toBe(1);
    // The page reloads: SiteLink answers now.
    const settled = await adapter().confirmMoveIn({ rentalId: id, now: NOW });
    expect(settled.status).toBe("completed");
    expect((await rentalOf(id)).status).toBe("completed");
    expect(site.payments).toHaveLength(1);
    expect(site.count("MoveInWithDiscount_v7")).toBe(1);
  });

  it("no answer and nothing applied: pending until the settle time, then 'not completed' (nothing charged) and the next payment goes through once", async () => {
    const { id, input } = await signedRental();
    site.fault("MoveInWithDiscount_v7", "drop_before");
    await expect(adapter().moveIn(input)).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(
      await adapter().confirmMoveIn({
        rentalId: id,
        now: new Date(NOW.getTime() + 60_000),
      }),
    ).toEqual({ status: "pending" });
    const later = new Date(NOW.getTime() + SETTINGS.settleAfterMs + 1000);
    expect((await adapter().confirmMoveIn({ rentalId: id, now: later })).status).toBe("not_completed");
    const reopened = await rentalOf(id);
    expect(reopened.status).toBe("open");
    expect(reopened.idempotencyKey).not.toBe(input.idempotencyKey);
    expect(site.payments).toHaveLength(0);
    const result = await adapter().moveIn({
      ...input,
      idempotencyKey: reopened.idempotencyKey,
      now: later,
    });
    expect(result.created).toBe(true);
    expect(site.count("MoveInWithDiscount_v7")).toBe(2);
    expect(site.count("TenantNewDetailed_v3")).toBe(1);
    expect(site.payments).toHaveLength(1);
  });

  it("a unit rented at the office a moment before the payment: no MoveIn, no charge, another unit of the size held and named", async () => {
    const { id, input, unit } = await signedRental();
    site.units.get(unit.externalId)!.bRented = true;
    const error = await adapter()
      .moveIn(input)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnitUnavailableError);
    const other = (error as UnitUnavailableError).replacementUnitName;
    expect(other).toBeTruthy();
    expect(other).not.toBe(unit.name);
    expect(site.count("MoveInWithDiscount_v7")).toBe(0);
    expect(site.payments).toHaveLength(0);
    const c = await rentalOf(id);
    expect(c.status).toBe("open");
    const [held] = await handle.db.select().from(units).where(eq(units.id, c.unitId!));
    expect(held).toMatchObject({ name: other, holdToken: id });
    expect((await handle.db.select().from(units).where(eq(units.id, unit.id)))[0]!.status).toBe("rented");
    // Paying again rents the unit now held.
    const result = await adapter().moveIn(input);
    expect(result.unitName).toBe(other);
  });

  it("rented in the very second between the check and the MoveIn (-2): the same clear outcome, nothing charged", async () => {
    const { input, unit } = await signedRental();
    // The office takes it between our fresh read and the MoveIn.
    const original = site.call;
    site.call = async (op, params, options) => {
      if (op === "MoveInWithDiscount_v7") site.units.get(unit.externalId)!.bRented = true;
      return original(op, params, options);
    };
    const m = createSiteLinkMoveIn({
      db: handle.db,
      location,
      call: site.call,
      journal: createJournal(handle.db, location.id),
      settings: SETTINGS,
      gateway: createTestGateway(),
    });
    const error = await m.moveIn(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnitUnavailableError);
    expect(site.payments).toHaveLength(0);
  });

  it("a declined card: PaymentDeclinedError, nothing recorded here, and the retry re-uses the SiteLink tenant", async () => {
    const { id, input, details } = await signedRental({
      cardNumber: "4000000000000002",
    });
    const error = await adapter()
      .moveIn(input)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentDeclinedError);
    expect((error as PaymentDeclinedError).reason).toBe("Your card was declined.");
    expect(await tenantsWithEmail(details.email)).toHaveLength(0);
    expect(await leasesOf(id)).toHaveLength(0);
    expect((await rentalOf(id)).status).toBe("open");
    const retry = await adapter().moveIn({
      ...input,
      idempotencyKey: `${input.idempotencyKey}-2`,
      payment: { kind: "card", card: card() },
    });
    expect(retry.created).toBe(true);
    expect(site.count("TenantNewDetailed_v3")).toBe(1);
    expect(site.payments).toHaveLength(1);
  });

  it("charges that changed in SiteLink (an office rate change): ChargesChangedError before anything is sent", async () => {
    const { input } = await signedRental();
    site.cost.rent = "49.0000";
    await expect(adapter().moveIn(input)).rejects.toBeInstanceOf(ChargesChangedError);
    expect(site.count("TenantNewDetailed_v3")).toBe(0);
    expect(site.count("MoveInWithDiscount_v7")).toBe(0);
  });

  it("credentials SiteLink refuses: 'could not reach', nothing journalled, nothing half-saved", async () => {
    const { id, input, details } = await signedRental();
    site.credentialsOk = false;
    await expect(adapter().moveIn(input)).rejects.toBeInstanceOf(SoftwareUnreachableError);
    expect(
      await handle.db
        .select()
        .from(sitelinkWrites)
        .where(sql`${sitelinkWrites.idempotencyKey} like ${`%${id}%`}`),
    ).toHaveLength(0);
    expect(await tenantsWithEmail(details.email)).toHaveLength(0);
    expect((await rentalOf(id)).status).toBe("open");
  });

  it("an email SiteLink already has (an office tenant): refused before any write", async () => {
    const { input } = await signedRental();
    site.tenants.set("77", {
      email: input.tenant.email.toLowerCase(),
      note: "",
      accessCode: "1111",
    });
    await expect(adapter().moveIn(input)).rejects.toMatchObject({
      name: "StorageValidationError",
      fieldErrors: { email: [expect.any(String)] },
    });
    expect(site.count("TenantNewDetailed_v3")).toBe(0);
  });

  it("autopay: SiteLink keeps the card on the ledger (TenantBillingInfoUpdate_v2), the lease shows autopay on", async () => {
    const { id, input } = await signedRental({ autopay: true });
    await adapter().moveIn(input);
    expect(site.count("TenantBillingInfoUpdate_v2")).toBe(1);
    expect((await leasesOf(id))[0]!.autopayEnabled).toBe(true);
  });
});

describe("SiteLink move-in (our gateway charges, SiteLink records cash, option B)", () => {
  const B = { ...SETTINGS, charges: "gateway" as const };

  it("charges once through the gateway and moves in as cash (iPayMethod 2, no card data sent to SiteLink)", async () => {
    const { input } = await signedRental();
    const gateway = createTestGateway();
    const result = await adapter(gateway, B).moveIn(input);
    expect(result.created).toBe(true);
    const sent = site.log.find((l) => l.op === "MoveInWithDiscount_v7")!.params;
    expect(sent.iPayMethod).toBe(2);
    expect(sent.sCreditCardNumber).toBe("");
    expect((await gateway.lookup(input.idempotencyKey))?.status).toBe("approved");
    expect(result.authReference).toBe(
      (
        (await gateway.lookup(input.idempotencyKey)) as {
          authReference: string;
        }
      ).authReference,
    );
  });

  it("commit then timeout: one gateway charge, one SiteLink ledger, success", async () => {
    const { input } = await signedRental();
    const gateway = createTestGateway();
    site.fault("MoveInWithDiscount_v7", "commit_then_hang");
    const result = await adapter(gateway, B).moveIn(input);
    expect(result.created).toBe(true);
    await adapter(gateway, B).moveIn(input);
    expect(site.count("MoveInWithDiscount_v7")).toBe(1);
    expect(site.payments).toHaveLength(1);
  });

  it("declined by the gateway: nothing sent to SiteLink's MoveIn", async () => {
    const { input } = await signedRental({ cardNumber: "4000000000000002" });
    await expect(adapter(createTestGateway(), B).moveIn(input)).rejects.toBeInstanceOf(PaymentDeclinedError);
    expect(site.count("MoveInWithDiscount_v7")).toBe(0);
  });

  it("the unit taken at the MoveIn (-2): the gateway charge is refunded, nothing else stays", async () => {
    const { input, unit } = await signedRental();
    const gateway = createTestGateway();
    const original = site.call;
    site.call = async (op, params, options) => {
      if (op === "MoveInWithDiscount_v7") site.units.get(unit.externalId)!.bRented = true;
      return original(op, params, options);
    };
    const m = createSiteLinkMoveIn({
      db: handle.db,
      location,
      call: site.call,
      journal: createJournal(handle.db, location.id),
      settings: B,
      gateway,
    });
    await expect(m.moveIn(input)).rejects.toBeInstanceOf(UnitUnavailableError);
    expect(await gateway.refund(input.idempotencyKey)).toEqual({
      refunded: false,
    }); // already refunded
  });
});
