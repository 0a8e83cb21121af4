/**
 * Online rental at a SiteLink location, end to end through the services, against the SiteLink
 * simulator over real SOAP/HTTP (issue 11 §3): the totals are SiteLink's MoveInCostRetrieve to the
 * cent, the confirmation carries SiteLink's gate code, and the hard cases: commit-then-timeout at
 * move-in (one lease, one charge, success), a unit rented at the office a second before the payment
 * (clear message, another unit offered, no charge), a declined card and refused credentials (clear
 * messages, nothing half-saved), and option B (our gateway charges, SiteLink records cash).
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { leases, sitelinkSites, sitelinkWrites, tenants, units } from "~/db/schema";
import { confirmRental, placeMoveIn, sweepConfirmingRentals } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import { SoftwareUnreachableError, UnitUnavailableError } from "~/storage-software/errors";
import { forgetStorageChoices } from "~/storage-software/index.server";
import { card, ctxFor, NOW, signedRental } from "../support/rental-fixtures";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

let bed: SiteLinkTestbed;
let unitTypeId: string;

/** A Lumberton unit type (synced from SiteLink) with at least three free units. */
async function roomyType(): Promise<string> {
  const pick = await roomiestSyncedUnitType(bed, bed.lumberton);
  expect(pick.free).toBeGreaterThanOrEqual(3);
  return pick.id;
}

beforeAll(async () => {
  bed = await startSyncedSiteLinkTestbed(NOW);
  unitTypeId = await roomyType();
});
afterAll(() => bed?.close());
beforeEach(() => {
  bed.sim.control.clearFaults();
});

const site = () => bed.sim.control.inspectSite("L001");
const moveInCalls = () =>
  bed.sim.control.calls({
    operation: "MoveInWithDiscount_v7",
    location: "L001",
  }).length;
const ORIGIN = "https://www.example.com";

async function pay(rentalId: string, number = "4242424242424242") {
  const ctx = await ctxFor(bed.handle.db, unitTypeId);
  const rental = (await getRental(bed.handle.db, rentalId, unitTypeId))!;
  return placeMoveIn(bed.handle.db, ctx, rental, {
    payment: { kind: "card", card: card(number) },
    autopay: false,
    now: NOW,
    origin: ORIGIN,
  });
}

describe("renting at a SiteLink location (SiteLink's processor charges)", () => {
  it("shows SiteLink's MoveInCostRetrieve to the cent, charges exactly that once, and confirms with SiteLink's gate code", async () => {
    const { id, quote } = await signedRental(bed.handle.db, unitTypeId);
    const rental = (await getRental(bed.handle.db, id, unitTypeId))!;
    const [held] = await bed.handle.db.select().from(units).where(eq(units.id, rental.unitId!));
    // What SiteLink asks for this unit, read straight from the simulator's answer.
    const ctx = await ctxFor(bed.handle.db, unitTypeId);
    const cost = await ctx.storage.quoteMoveIn({
      unitTypeId,
      insurancePlanId: rental.insuranceChoice === "none" ? null : rental.insuranceChoice,
      moveInDate: quote.moveInDate,
      pricing: {
        isWebRatesEnabled: ctx.settings.is_web_rates_enabled,
        fakeDiscountPercentage: 0,
      },
      now: NOW,
    });
    expect(quote.total).toBe(cost.total);
    const before = moveInCalls();
    const outcome = await pay(id);
    expect(outcome).toMatchObject({ status: "completed", created: true });
    expect(moveInCalls()).toBe(before + 1);
    const sent = bed.sim.control.calls({ operation: "MoveInWithDiscount_v7", location: "L001" }).at(-1)!;
    expect(Math.round(Number(sent.params.dcPaymentAmount) * 100)).toBe(quote.total);
    const ledger = site().ledgers.find((l) => l.UnitID === Number(held!.externalId))!;
    expect(ledger).toBeTruthy();
    const payment = site().payments.filter((p) => p.LedgerID === ledger.LedgerID);
    expect(payment).toHaveLength(1);
    expect(payment[0]!.amount).toBe(quote.total);
    const record = await ctx.storage.getMoveIn((outcome as { leaseId: string }).leaseId);
    const tenant = site().tenants.find((t) => t.TenantID === ledger.TenantID)!;
    expect(record!.gateCode).toBe(tenant.accessCode);
    expect(record!.lines.reduce((s, l) => s + l.amount + l.tax, 0)).toBe(quote.total);
  });

  it("commit then timeout at move-in: SiteLink moved in but did not answer; the visitor sees success, one lease, one charge", async () => {
    const { id } = await signedRental(bed.handle.db, unitTypeId);
    bed.sim.control.addFault({
      operation: "MoveInWithDiscount_v7",
      kind: "commit_then_hang",
      times: 1,
    });
    const ledgersBefore = site().ledgers.length;
    const paymentsBefore = site().payments.length;
    const outcome = await pay(id);
    expect(outcome).toMatchObject({ status: "completed", created: true });
    expect(site().ledgers.length).toBe(ledgersBefore + 1);
    expect(site().payments.length).toBe(paymentsBefore + 1);
    // Pressing Pay again changes nothing.
    expect(await pay(id)).toMatchObject({
      status: "completed",
      created: false,
    });
    expect(site().payments.length).toBe(paymentsBefore + 1);
    const [journal] = await bed.handle.db
      .select()
      .from(sitelinkWrites)
      .where(sql`${sitelinkWrites.idempotencyKey} like ${`movein:${id}:%`}`);
    expect(journal!.state).toBe("done");
  });

  it("commit then timeout and SiteLink unreadable for a moment: the rental is 'confirming' (a page state), then the page finds the rental", async () => {
    const { id } = await signedRental(bed.handle.db, unitTypeId);
    bed.sim.control.addFault({
      operation: "MoveInWithDiscount_v7",
      kind: "commit_then_hang",
      times: 1,
    });
    bed.sim.control.addFault({
      operation: "LedgersByTenantID_v3",
      kind: "http_503",
      times: 2,
    });
    const paymentsBefore = site().payments.length;
    expect(await pay(id)).toEqual({ status: "confirming" });
    expect((await getRental(bed.handle.db, id, unitTypeId))!.status).toBe("confirming");
    const ctx = await ctxFor(bed.handle.db, unitTypeId);
    const settled = await confirmRental(bed.handle.db, ctx, (await getRental(bed.handle.db, id, unitTypeId))!, { now: NOW, origin: ORIGIN });
    expect(settled.status).toBe("completed");
    expect((await getRental(bed.handle.db, id, unitTypeId))!.status).toBe("completed");
    expect(site().payments.length).toBe(paymentsBefore + 1);
  });

  it("no answer and nothing done: the background sweep settles it after the settle time (nothing charged) and the visitor can pay again", async () => {
    const { id } = await signedRental(bed.handle.db, unitTypeId);
    bed.sim.control.addFault({
      operation: "MoveInWithDiscount_v7",
      kind: "drop_before",
      times: 1,
    });
    const paymentsBefore = site().payments.length;
    expect(await pay(id)).toEqual({ status: "confirming" });
    expect(await sweepConfirmingRentals(bed.handle.db, NOW)).toBe(0);
    expect(await sweepConfirmingRentals(bed.handle.db, new Date(NOW.getTime() + 10 * 60_000))).toBe(1);
    const reopened = (await getRental(bed.handle.db, id, unitTypeId))!;
    expect(reopened.status).toBe("open");
    expect(site().payments.length).toBe(paymentsBefore);
    expect(await pay(id)).toMatchObject({ status: "completed", created: true });
    expect(site().payments.length).toBe(paymentsBefore + 1);
  });

  it("a unit rented at the office a second before the payment: a clear message, another unit held, no charge", async () => {
    const { id } = await signedRental(bed.handle.db, unitTypeId);
    const rental = (await getRental(bed.handle.db, id, unitTypeId))!;
    const [held] = await bed.handle.db.select().from(units).where(eq(units.id, rental.unitId!));
    bed.sim.control.setUnitStatus("L001", Number(held!.externalId), "rented");
    const paymentsBefore = site().payments.length;
    const calls = moveInCalls();
    const error = await pay(id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnitUnavailableError);
    const replacement = (error as UnitUnavailableError).replacementUnitName;
    expect(replacement).toBeTruthy();
    expect(replacement).not.toBe(held!.name);
    expect(moveInCalls()).toBe(calls);
    expect(site().payments.length).toBe(paymentsBefore);
    // The next payment rents the unit now held.
    expect(await pay(id)).toMatchObject({ status: "completed", created: true });
    const lease = (
      await bed.handle.db
        .select()
        .from(leases)
        .where(eq(leases.id, (await getRental(bed.handle.db, id, unitTypeId))!.completedLeaseId!))
    )[0]!;
    expect((await bed.handle.db.select().from(units).where(eq(units.id, lease.unitId)))[0]!.name).toBe(replacement);
  });

  it("a declined card: a clear decline, nothing half-saved here, SiteLink's tenant re-used on the next card", async () => {
    const { id, details } = await signedRental(bed.handle.db, unitTypeId);
    const tenantsBefore = site().tenants.length;
    const outcome = await pay(id, "4000000000000002");
    expect(outcome).toMatchObject({ status: "declined" });
    expect(
      await bed.handle.db
        .select()
        .from(tenants)
        .where(sql`lower(${tenants.email}) = ${details.email.toLowerCase()}`),
    ).toHaveLength(0);
    expect((await getRental(bed.handle.db, id, unitTypeId))!.status).toBe("open");
    expect(await pay(id)).toMatchObject({ status: "completed", created: true });
    expect(site().tenants.length).toBe(tenantsBefore + 1);
  });

  it("credentials SiteLink refuses: 'could not reach', nothing journalled or half-saved", async () => {
    const { id } = await signedRental(bed.handle.db, unitTypeId);
    const original = process.env.SITELINK_TEST_PASSWORD;
    process.env.SITELINK_TEST_PASSWORD = "wrong-password";
    forgetStorageChoices(bed.handle.db);
    try {
      await expect(pay(id)).rejects.toBeInstanceOf(SoftwareUnreachableError);
    } finally {
      process.env.SITELINK_TEST_PASSWORD = original;
      forgetStorageChoices(bed.handle.db);
    }
    expect(
      await bed.handle.db
        .select()
        .from(sitelinkWrites)
        .where(sql`${sitelinkWrites.idempotencyKey} like ${`%${id}%`}`),
    ).toHaveLength(0);
    expect((await getRental(bed.handle.db, id, unitTypeId))!.status).toBe("open");
    expect(await pay(id)).toMatchObject({ status: "completed" });
  });
});

describe("renting at a SiteLink location where our gateway charges (option B)", () => {
  beforeAll(async () => {
    await bed.handle.db.update(sitelinkSites).set({ cardChargedBy: "gateway" }).where(eq(sitelinkSites.locationId, bed.lumberton.id));
    forgetStorageChoices(bed.handle.db);
  });
  afterAll(async () => {
    await bed.handle.db.update(sitelinkSites).set({ cardChargedBy: "sitelink" }).where(eq(sitelinkSites.locationId, bed.lumberton.id));
    forgetStorageChoices(bed.handle.db);
  });

  it("charges through the gateway once and SiteLink records cash (no card data sent to SiteLink), even after commit-then-timeout", async () => {
    const { id, quote } = await signedRental(bed.handle.db, unitTypeId);
    bed.sim.control.addFault({
      operation: "MoveInWithDiscount_v7",
      kind: "commit_then_hang",
      times: 1,
    });
    const paymentsBefore = site().payments.length;
    expect(await pay(id)).toMatchObject({ status: "completed", created: true });
    const sent = bed.sim.control.calls({ operation: "MoveInWithDiscount_v7", location: "L001" }).at(-1)!;
    expect(sent.params.iPayMethod).toBe("2");
    expect(sent.params.sCreditCardNumber ?? "").toBe("");
    const posted = site().payments.slice(paymentsBefore);
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({ amount: quote.total, payMethod: 2 });
    expect(await pay(id)).toMatchObject({
      status: "completed",
      created: false,
    });
  });
});
