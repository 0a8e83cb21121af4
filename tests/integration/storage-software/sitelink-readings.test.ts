/**
 * The SiteLink adapter against every reading of what the sources leave open (issue 20, decision 180),
 * over real SOAP to the simulator. The full contract suite runs on the default reading (LSETUP's
 * iPayMethod ids, positive success ids: storage-software-sitelink.test.ts); here each reading gets
 * the cases that depend on it:
 *
 * - iPayMethod "lsetup" (card 1, cash 2) or "manual" (card 0, check 1, cash 2), with the location's
 *   pay-method ids configured to match: a card move-in (option A) and a cash one (option B) go through
 *   as a card and as cash respectively;
 * - success code "id" or "zero" for ScheduleMoveOut, TenantUpdate_v3, PaymentSimpleWithSource and
 *   PaymentSimpleCheckWithSource: each write is done (journal `done`), nothing refunded at our gateway;
 * - a website reservation is held by the renter's own tenant record and cancelled (ReservationUpdate 0);
 * - a move-in answered -2 while the unit is free (the pay-method ids wrong for the site): the unit
 *   stays available, the renter is not charged and told to call the office, the operator is told.
 */
import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reservations, sitelinkWrites, units } from "~/db/schema";
import { createTestGateway, setPaymentGatewayForTests, type PaymentGateway } from "~/platform/payments/gateway.server";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import { CardNotTakenOnlineError } from "~/storage-software/errors";
import { collectSiteLinkStatus, storageFor } from "~/storage-software/index.server";
import { action as rentAction } from "~/routes/rental/rent";
import { getCsrfToken } from "~/services/web/csrf.server";
import { rentalCookieHeader } from "~/services/rental/record.server";
import { card, ctxFor, NOW, signedRental } from "../support/rental-fixtures";
import { callRoute } from "../support/route-helpers";
import { DEFAULT_READINGS, roomiestSyncedUnitType, startSyncedSiteLinkTestbed, useReadings, type Readings, type SiteLinkTestbed } from "../support/sitelink-testbed";

const ORIGIN = "https://www.example.com";

/** Our gateway, counting real charges and refunds (option B). */
function countingGateway() {
  const base = createTestGateway();
  const counts = { charges: 0, refunds: 0 };
  const gateway: PaymentGateway = {
    ...base,
    async charge(input) {
      const r = await base.charge(input);
      if (r.status === "approved") counts.charges++;
      return r;
    },
    async refund(key) {
      const r = await base.refund(key);
      if (r.refunded) counts.refunds++;
      return r;
    },
  };
  return { gateway, counts };
}

async function rent(bed: SiteLinkTestbed, unitTypeId: string) {
  const { id, details } = await signedRental(bed.handle.db, unitTypeId, { plan: "none" });
  const ctx = await ctxFor(bed.handle.db, unitTypeId);
  const rental = (await getRental(bed.handle.db, id, unitTypeId))!;
  const outcome = await placeMoveIn(bed.handle.db, ctx, rental, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: ORIGIN });
  return { id, details, outcome };
}

const journalOf = (bed: SiteLinkTestbed, prefix: string) =>
  bed.handle.db.select().from(sitelinkWrites).where(like(sitelinkWrites.idempotencyKey, `${prefix}%`));

// The default reading (lsetup, id) is the contract suite's. Each other value of each setting once
// here (manual with id, lsetup with zero), so a failure names the setting; runtime stays modest.
const OTHER_READINGS: Readings[] = [
  { payMethod: "manual", successCode: "id" },
  { payMethod: "lsetup", successCode: "zero" },
];
for (const readings of OTHER_READINGS) {
  describe(`SiteLink adapter, reading iPayMethod=${readings.payMethod}, success code=${readings.successCode}`, () => {
    let bed: SiteLinkTestbed;
    let lumbertonType: string;
    let jacksonvilleType: string;
    const { gateway, counts } = countingGateway();

    beforeAll(async () => {
      setPaymentGatewayForTests(gateway);
      bed = await startSyncedSiteLinkTestbed(NOW);
      await useReadings(bed, readings);
      lumbertonType = (await roomiestSyncedUnitType(bed, bed.lumberton)).id;
      jacksonvilleType = (await roomiestSyncedUnitType(bed, bed.jacksonville)).id;
    });
    afterAll(async () => {
      setPaymentGatewayForTests(null);
      await bed?.close();
    });

    it("a card move-in (option A) is taken as a card, a gateway one (option B) is recorded as cash", async () => {
      const a = await rent(bed, lumbertonType);
      expect(a.outcome).toMatchObject({ status: "completed", created: true });
      expect(bed.sim.control.inspectSite("L001").payments.at(-1)).toMatchObject({ description: "Move-in payment: Visa ending 4242", last4: "4242" });
      const b = await rent(bed, jacksonvilleType);
      expect(b.outcome).toMatchObject({ status: "completed", created: true });
      expect(bed.sim.control.inspectSite("L002").payments.at(-1)).toMatchObject({ description: "Move-in payment: Cash" });
      expect(counts.refunds).toBe(0);
    });

    it("portal writes whose success code no source shows are done, never refused, never refunded", async () => {
      const storageA = storageFor(bed.handle.db, bed.lumberton);
      const storageB = storageFor(bed.handle.db, bed.jacksonville);
      const a = await rent(bed, lumbertonType);
      const b = await rent(bed, jacksonvilleType);
      const leaseA = (a.outcome as { leaseId: string }).leaseId;
      const leaseB = (b.outcome as { leaseId: string }).leaseId;
      const tA = await tenantIdOf(leaseA);
      const tB = await tenantIdOf(leaseB);

      // PaymentSimpleWithSource (option A).
      const paidA = bed.sim.control.inspectSite("L001").payments.length;
      await storageA.makePayment({ tenantId: tA, leaseId: leaseA, amount: 1000, method: { kind: "card", card: card(), saveCard: false }, idempotencyKey: `readings-pay-a-${readings.successCode}-${readings.payMethod}`, now: NOW });
      expect(bed.sim.control.inspectSite("L001").payments.length).toBe(paidA + 1);
      expect((await journalOf(bed, `payment:`)).filter((j) => j.operation === "PaymentSimpleWithSource").map((j) => j.state)).toEqual(["done"]);

      // PaymentSimpleCheckWithSource (option B): our gateway charged, SiteLink booked it: never refunded.
      const refundsBefore = counts.refunds;
      const paidB = bed.sim.control.inspectSite("L002").payments.length;
      await storageB.makePayment({ tenantId: tB, leaseId: leaseB, amount: 1000, method: { kind: "card", card: card(), saveCard: false }, idempotencyKey: `readings-pay-b-${readings.successCode}-${readings.payMethod}`, now: NOW });
      expect(bed.sim.control.inspectSite("L002").payments.length).toBe(paidB + 1);
      expect((await journalOf(bed, `payment:`)).filter((j) => j.operation === "PaymentSimpleCheckWithSource").map((j) => j.state)).toEqual(["done"]);
      expect(counts.refunds).toBe(refundsBefore);

      // ScheduleMoveOut.
      await storageA.giveMoveOutNotice({ tenantId: tA, leaseId: leaseA, moveOutDate: "2026-12-15", reason: null, now: NOW });
      const ledgerA = bed.sim.control.inspectSite("L001").ledgers.find((l) => l.TenantID === Number(siteLinkTenantOf(bed, "L001", a.details.email)))!;
      expect(ledgerA.schedOut).toBe("2026-12-15");
      expect((await journalOf(bed, "moveout:")).map((j) => j.state)).toEqual(["done"]);

      // TenantUpdate_v3; the military flag on, then off: both sent.
      const before = (await storageA.getTenant(tA))!;
      const contact = { firstName: before.firstName, lastName: "Byron", email: before.email, addr1: "2 Oak Avenue", addr2: null, city: "Fayetteville", region: "NC", postalCode: "28301", isMilitary: true, isCompany: false, isCommercial: false, altContactFirstName: null, altContactLastName: null, altContactPhone: null };
      await storageA.updateTenantContact(tA, contact);
      const record = () => bed.sim.control.inspectSite("L001").tenants.find((t) => t.TenantID === Number(siteLinkTenantOf(bed, "L001", before.email)))!;
      expect(record().fields).toMatchObject({ sLName: "Byron", sCity: "Fayetteville" });
      expect(record().military).toBe(true);
      await storageA.updateTenantContact(tA, { ...contact, isMilitary: false });
      expect(record().military).toBe(false);
      expect((await journalOf(bed, "contact:")).map((j) => j.state)).toEqual(["done"]);
    });

    it("a website reservation is held by the renter's own tenant record; cancelling it is done in SiteLink", async () => {
      const storage = storageFor(bed.handle.db, bed.lumberton);
      const email = `held.${readings.payMethod}.${readings.successCode}@example.com`;
      const r = await storage.reserveUnit({ unitTypeId: lumbertonType, firstName: "Rita", lastName: "Reserve", email, phone: "9105550188", desiredMoveInDate: "2026-11-25", expiresAt: new Date(NOW.getTime() + 7 * 86_400_000), cancelTokenHash: "c".repeat(64), confirmationCode: `RD${readings.payMethod}${readings.successCode}`, idempotencyKey: `readings-reserve-${readings.payMethod}-${readings.successCode}`, now: NOW });
      const [row] = await bed.handle.db.select().from(reservations).where(eq(reservations.id, Number(r.id)));
      const site = bed.sim.control.inspectSite("L001");
      const held = site.reservations.find((x) => x.WaitingID === Number(row!.externalId))!;
      expect(site.tenants.find((t) => t.TenantID === held.TenantID)!.fields).toMatchObject({ sFName: "Rita", sLName: "Reserve", sEmail: email });
      await storage.cancelReservation({ id: r.id, cancelTokenHash: "c".repeat(64), now: NOW });
      expect(bed.sim.control.inspectSite("L001").reservations.find((x) => x.WaitingID === held.WaitingID)!.iWaitingStatus).toBe(2);
      expect((await journalOf(bed, "reservation-cancel:")).map((j) => j.state)).toEqual(["done"]);
    });

    async function tenantIdOf(leaseId: string): Promise<string> {
      const lease = await bed.handle.db.query.leases.findFirst({ columns: { tenantId: true }, where: (l, { eq }) => eq(l.id, Number(leaseId)) });
      return String(lease!.tenantId);
    }
  });
}

function siteLinkTenantOf(bed: SiteLinkTestbed, code: string, email: string): number {
  return bed.sim.control.inspectSite(code).tenants.find((t) => String(t.fields.sEmail ?? "").toLowerCase() === email.toLowerCase())!.TenantID;
}

describe("a move-in answered -2 while the unit is free (the site reads our pay-method id as 'none')", () => {
  let bed: SiteLinkTestbed;
  let lumbertonType: string;
  let jacksonvilleType: string;
  const { gateway, counts } = countingGateway();
  const readings: Readings = DEFAULT_READINGS; // LSETUP: 0 is "none"

  beforeAll(async () => {
    setPaymentGatewayForTests(gateway);
    bed = await startSyncedSiteLinkTestbed(NOW);
    // The manual's ids on a site that reads iPayMethod as LSETUP does: card 0 is "none" there (-2).
    await useReadings(bed, readings, { card: 0, cash: 0, check: 1 });
    lumbertonType = (await roomiestSyncedUnitType(bed, bed.lumberton)).id;
    jacksonvilleType = (await roomiestSyncedUnitType(bed, bed.jacksonville)).id;
  });
  afterAll(async () => {
    setPaymentGatewayForTests(null);
    await bed?.close();
  });

  it("option A: nothing rented, nothing charged, the renter told to call the office; the operator sees it", async () => {
    const { id } = await signedRental(bed.handle.db, lumbertonType, { plan: "none" });
    const rental = (await getRental(bed.handle.db, id, lumbertonType))!;
    const [held] = await bed.handle.db.select().from(units).where(eq(units.id, rental.unitId!));
    const paymentsBefore = bed.sim.control.inspectSite("L001").payments.length;
    expect((await collectSiteLinkStatus(bed.handle.db, NOW)).needsAttention).toBe(false);
    const ctx = await ctxFor(bed.handle.db, lumbertonType);
    const error = await placeMoveIn(bed.handle.db, ctx, rental, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: ORIGIN }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CardNotTakenOnlineError);
    // The unit is free here and in SiteLink; nothing paid there; the rental can be paid again later.
    const [after] = await bed.handle.db.select().from(units).where(eq(units.id, held!.id));
    expect(after!.status).toBe("available");
    expect(bed.sim.control.inspectSite("L001").units.find((u) => u.UnitID === Number(held!.externalId))!.rented).toBe(false);
    expect(bed.sim.control.inspectSite("L001").payments.length).toBe(paymentsBefore);
    expect((await getRental(bed.handle.db, id, lumbertonType))!.status).toBe("open");
    // The operator: the journal's attention list and sitelink:status.
    const [attempt] = await bed.handle.db.select().from(sitelinkWrites).where(and(like(sitelinkWrites.idempotencyKey, `movein:${id}:%`)));
    expect(attempt).toMatchObject({ state: "failed" });
    expect(attempt!.lastError).toMatch(/^-2 .*the unit is still free in SiteLink.*--pay-method/);
    const status = await collectSiteLinkStatus(bed.handle.db, NOW);
    expect(status.needsAttention).toBe(true);
    expect(status.locations.find((l) => l.locationId === bed.lumberton.id)!.attention.map((a) => a.idempotencyKey)).toContain(attempt!.idempotencyKey);
  });

  it("option B: our gateway's charge is given back (SiteLink booked nothing)", async () => {
    const before = { ...counts };
    const { id } = await signedRental(bed.handle.db, jacksonvilleType, { plan: "none" });
    const rental = (await getRental(bed.handle.db, id, jacksonvilleType))!;
    const ctx = await ctxFor(bed.handle.db, jacksonvilleType);
    const error = await placeMoveIn(bed.handle.db, ctx, rental, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: ORIGIN }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CardNotTakenOnlineError);
    expect(counts.charges - before.charges).toBe(1);
    expect(counts.refunds - before.refunds).toBe(1);
    const [after] = await bed.handle.db.select().from(units).where(eq(units.id, rental.unitId!));
    expect(after!.status).toBe("available");
  });

  it("the rental page says so plainly (409, no 500), keeps what was typed but never the card number", async () => {
    process.env.FAKE_NOW = NOW.toISOString();
    try {
      const { id } = await signedRental(bed.handle.db, lumbertonType, { plan: "none" });
      const cookie = (await rentalCookieHeader(id)).split(";")[0]!;
      const url = `/rent/${lumbertonType}`;
      const { token, setCookie } = await getCsrfToken(new Request(`http://localhost${url}`, { headers: { Cookie: cookie } }));
      const fields = { csrf: token, intent: "pay", card_number: "4242424242424242", exp_month: "12", exp_year: "2030", cvv: "123", name_on_card: "Ada Lovelace", billing_postal_code: "28358" };
      const r = await callRoute<{ formError: string; result: { initialValue: Record<string, string> } }>(rentAction, bed.handle.db, `${url}?step=pay`, {
        params: { unitTypeId: lumbertonType },
        init: { method: "POST", body: new URLSearchParams(fields), headers: { Cookie: [setCookie?.split(";")[0], cookie].filter(Boolean).join("; "), "Content-Type": "application/x-www-form-urlencoded" } },
      });
      expect(r.status).toBe(409);
      expect(r.data.formError).toMatch(/^We could not take your card online for this unit\. Nothing was charged and the unit is still free\. Please call the office at .+ to finish your rental\.$/);
      expect(r.data.result.initialValue).toMatchObject({ name_on_card: "Ada Lovelace", billing_postal_code: "28358" });
      expect(JSON.stringify(r.data)).not.toContain("4242424242424242");
    } finally {
      delete process.env.FAKE_NOW;
    }
  });
});
