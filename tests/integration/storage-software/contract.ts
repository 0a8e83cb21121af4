/**
 * The StorageSoftware contract: behaviour every adapter must show, whatever software is behind it.
 * It covers every method of the port (app/storage-software/port*.ts): inventory, rentals (holds,
 * quotes, move-ins, reservations), tenants (sign-in, profile, leases, ledger, payments, prepay,
 * autopay, move-out) and billing.
 *
 * Run it for an adapter by calling `storageSoftwareContract(name, makeHarness)` from a *.test.ts file
 * (storage-software-local.test.ts does so for the built-in adapter; a SiteLink adapter runs the very
 * same suite with a harness around its simulator). `makeHarness` is called once per describe block
 * (four blocks), so each block gets a fresh site.
 *
 * The harness (`ContractHarness`):
 *  - `storage`: the adapter of a Live location with at least one unit type with free units, the
 *    insurance plans (at least one) and at least one extra charge; `otherStorage`: the adapter
 *    of another location of the same operator (ids must not leak across sites).
 *  - `createUnitType({ statuses, width?, length? })`: a new unit type at the live location with one
 *    unit per status given, rates 5000 standard / 4500 web cents; returns its id and the units' ids.
 *  - `setUnitStatus(unitId, status)`: the office changes a unit (rented, reserved, available...).
 *  - `holdUnit(unitId, until)`: a rental holds the unit until `until` (outside the port's holdUnit:
 *    to check that availability honours holds).
 *  - `openRental({ unitTypeId, now })`: whatever must exist before `moveIn` for a rental (the local
 *    adapter: a `checkouts` row); returns the rental's id and its idempotency key.
 *  - `softwareContact(tenantId)` (optional): the contact details in the software's own tenant record.
 *  - `softwareReservation(reservationId)` (optional): the reservation in the software's own records
 *    and the tenant record that holds it (SiteLink: the WaitingID and its TenantID's record).
 *  - `advanceClock(to)`: moves the software's own clock (a simulator's business date) to `to`; the
 *    port's calls also get `now`/`runDate` explicitly. The local adapter has no clock of its own.
 *  - `close()`.
 * Cards: the gateway (or the simulated processor) approves 4242 4242 4242 4242 and 5555 5555 5555
 * 4444 and declines 4000 0000 0000 0002 ("Your card was declined.").
 * Time: the suite runs on 2026-06-15 (NOW below); billing runs on the next due date.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CardDetails, MoveInQuote, MoveInResult, PaymentMethodInput, StorageSoftware } from "~/storage-software/port";
import type { UnitStatus } from "~/db/schema/unit";
import { PaymentDeclinedError, StorageValidationError, UnitUnavailableError } from "~/storage-software/errors";
import { addDaysIso, localDate } from "~/domain/shared/calendar";
import { hashPassword } from "~/platform/password.server";

export interface ContractHarness {
  /** The adapter of a live location that has at least one unit type, insurance plans and the lock-fee charge. */
  storage: StorageSoftware;
  /** The adapter of another location, to check that ids do not leak across sites. */
  otherStorage: StorageSoftware;
  /** Creates a unit type at the live location with one unit per status given; returns the ids. */
  createUnitType(input: { statuses: UnitStatus[]; width?: number; length?: number }): Promise<{ unitTypeId: string; unitIds: string[] }>;
  setUnitStatus(unitId: string, status: UnitStatus): Promise<void>;
  /** Holds a unit for a rental until `until` (as the rentals part would). */
  holdUnit(unitId: string, until: Date): Promise<void>;
  /** What must exist before `moveIn` for a rental of this unit type (local: the checkouts row). */
  openRental(input: { unitTypeId: string; now: Date }): Promise<{ rentalId: string; idempotencyKey: string }>;
  /** Moves the software's own clock to `to` (a simulator's business date); no-op for the local adapter. */
  advanceClock(to: Date): Promise<void>;
  /**
   * The tenant's contact details as the software's own tenant record holds them, when the software
   * keeps one of its own (SiteLink: the site's tenant record); absent for the local adapter.
   */
  softwareContact?(tenantId: string): Promise<{ lastName: string; addr1: string; city: string; email: string; cellPhone: string } | null>;
  /**
   * The reservation as the software's own records hold it, with the tenant record holding it, when the
   * software keeps one (SiteLink: the WaitingID's row and its tenant); absent for the local adapter.
   */
  softwareReservation?(reservationId: string): Promise<{ status: "active" | "cancelled" | "converted"; holder: { firstName: string; lastName: string; email: string } } | null>;
  /** The card attempts recorded on our payments table for a lease (the desk's payments list reads them, issue 23). */
  paymentAttempts(leaseId: string): Promise<Array<{ status: string; amount: number }>>;
  close(): Promise<void>;
}

/** The day the suite runs on. */
export const CONTRACT_NOW = new Date("2026-06-15T14:00:00Z");
const NOW = CONTRACT_NOW;

export function contractCard(number = "4242424242424242"): CardDetails {
  return { number, expMonth: 12, expYear: 2030, cvv: "123", nameOnCard: "Ada Lovelace", postalCode: "28358" };
}
const DECLINED = "4000000000000002";

let serial = 0;
const uniqueEmail = (tag: string) => `contract.${tag}.${Date.now()}.${++serial}@example.com`;

/** A unit type of the live site with at least `min` free units (a new one is made for the test). */
async function freshType(h: ContractHarness, free = 3) {
  return h.createUnitType({ statuses: Array.from({ length: free }, () => "available" as const) });
}

async function todayAt(storage: StorageSoftware, now: Date) {
  return localDate(now, (await storage.getSiteInformation()).timeZone);
}

async function quote(h: ContractHarness, unitTypeId: string, insurancePlanId: string | null = null): Promise<MoveInQuote> {
  return h.storage.quoteMoveIn({
    unitTypeId,
    insurancePlanId,
    moveInDate: await todayAt(h.storage, NOW),
    pricing: { isWebRatesEnabled: false, fakeDiscountPercentage: 0 },
    now: NOW,
  });
}

/** A move-in through the port; returns the result, the quote charged and the tenant's email and password. */
export async function contractMoveIn(
  h: ContractHarness,
  options: { unitTypeId?: string; email?: string; card?: CardDetails; payment?: PaymentMethodInput; autopay?: boolean; insurance?: boolean } = {},
): Promise<{ result: MoveInResult; quote: MoveInQuote; email: string; password: string; unitTypeId: string; rentalId: string; idempotencyKey: string }> {
  const unitTypeId = options.unitTypeId ?? (await freshType(h, 2)).unitTypeId;
  const plans = options.insurance ? await h.storage.listInsurancePlans() : [];
  const q = await quote(h, unitTypeId, plans[0]?.id ?? null);
  const { rentalId, idempotencyKey } = await h.openRental({ unitTypeId, now: NOW });
  await h.storage.holdUnit({ unitTypeId, holdToken: rentalId, until: new Date(NOW.getTime() + 15 * 60_000), now: NOW });
  const email = options.email ?? uniqueEmail("tenant");
  const password = "contract-pass-1";
  const text = `Lease of a unit from ${q.moveInDate}.`;
  const result = await h.storage.moveIn({
    rentalId,
    idempotencyKey,
    unitTypeId,
    tenant: {
      firstName: "Ada",
      lastName: "Lovelace",
      email,
      cellPhone: "9105550123",
      webPwHash: await hashPassword(password),
      addr1: "1 Main Street",
      city: "Lumberton",
      region: "NC",
      postalCode: "28358",
      isMilitary: false,
      isCompany: false,
      isCommercial: false,
    },
    moveInDate: q.moveInDate,
    paidThroughDate: q.paidThroughDate,
    nextDueDate: q.nextDueDate,
    monthlyRate: q.monthlyRate,
    insurancePlanId: q.insurancePlanId,
    insurancePremium: q.insurancePremium,
    lines: q.lines,
    total: q.total,
    payment: options.payment ?? { kind: "card", card: options.card ?? contractCard() },
    autopay: options.autopay ?? false,
    lease: { text, hash: "0".repeat(64), signedName: "Ada Lovelace", signedAt: NOW, signedIp: "203.0.113.7" },
    now: NOW,
  });
  return { result, quote: q, email, password, unitTypeId, rentalId, idempotencyKey };
}

export function storageSoftwareContract(adapterName: string, makeHarness: () => Promise<ContractHarness>) {
  describe(`StorageSoftware contract: inventory (${adapterName})`, () => {
    let h: ContractHarness;
    const now = new Date("2026-06-15T14:00:00Z");
    beforeAll(async () => {
      h = await makeHarness();
    });
    afterAll(() => h?.close());

    it("describes the site", async () => {
      const site = await h.storage.getSiteInformation();
      expect(site.name).not.toBe("");
      expect(() => new Intl.DateTimeFormat("en-US", { timeZone: site.timeZone })).not.toThrow();
    });

    it("lists unit types smallest first, with whole-cent rates and consistent counts", async () => {
      const list = await h.storage.listUnitTypes({ now });
      expect(list.length).toBeGreaterThan(0);
      for (const t of list) {
        expect(typeof t.id).toBe("string");
        expect(t.width).toBeGreaterThan(0);
        expect(t.length).toBeGreaterThan(0);
        expect(Number.isInteger(t.standardRate) && t.standardRate > 0).toBe(true);
        expect(Number.isInteger(t.webRate) && t.webRate > 0).toBe(true);
        expect(t.availableCount).toBeGreaterThanOrEqual(0);
        expect(t.availableCount).toBeLessThanOrEqual(t.totalCount);
        expect(Array.isArray(t.features)).toBe(true);
      }
      const areas = list.map((t) => t.width * t.length);
      expect(areas).toEqual([...areas].sort((a, b) => a - b));
    });

    it("answers one unit type as the list does, and null for an unknown or foreign id", async () => {
      const list = await h.storage.listUnitTypes({ now });
      const first = list[0]!;
      expect(await h.storage.getUnitType(first.id, { now })).toEqual(first);
      expect(await h.storage.getUnitType("999999999", { now })).toBeNull();
      expect(await h.storage.getUnitType("not-an-id", { now })).toBeNull();
      expect(await h.storage.getUnitType("", { now })).toBeNull();
      const foreign = (await h.otherStorage.listUnitTypes({ now }))[0];
      if (foreign) expect(await h.storage.getUnitType(foreign.id, { now })).toBeNull();
    });

    it("says how fresh its counts are: null when live, else a past time no older than the last read", async () => {
      const asOf = await h.storage.availabilityAsOf();
      if (asOf !== null) {
        expect(asOf).toBeInstanceOf(Date);
        expect(asOf.getTime()).toBeLessThanOrEqual(Date.now());
      }
    });

    it("counts only units that are available and not held", async () => {
      const { unitTypeId } = await h.createUnitType({
        statuses: ["available", "available", "available", "rented", "reserved", "unavailable"],
      });
      const t = await h.storage.getUnitType(unitTypeId, { now });
      expect(t).toMatchObject({ availableCount: 3, totalCount: 6 });
      expect((await h.storage.listUnitTypes({ now })).find((x) => x.id === unitTypeId)).toMatchObject({ availableCount: 3, totalCount: 6 });
    });

    it("follows status changes: rented, reserved and unavailable units leave the count, freed ones return", async () => {
      const { unitTypeId, unitIds } = await h.createUnitType({ statuses: ["available", "available", "available"] });
      const count = async () => (await h.storage.getUnitType(unitTypeId, { now }))!.availableCount;
      expect(await count()).toBe(3);
      await h.setUnitStatus(unitIds[0]!, "rented");
      expect(await count()).toBe(2);
      await h.setUnitStatus(unitIds[1]!, "reserved");
      expect(await count()).toBe(1);
      await h.setUnitStatus(unitIds[2]!, "unavailable");
      expect(await count()).toBe(0);
      await h.setUnitStatus(unitIds[0]!, "available");
      expect(await count()).toBe(1);
    });

    it("does not count a held unit until its hold ends", async () => {
      const { unitTypeId, unitIds } = await h.createUnitType({ statuses: ["available", "available"] });
      await h.holdUnit(unitIds[0]!, new Date(now.getTime() + 15 * 60_000));
      expect((await h.storage.getUnitType(unitTypeId, { now }))!.availableCount).toBe(1);
      const later = new Date(now.getTime() + 15 * 60_000);
      expect((await h.storage.getUnitType(unitTypeId, { now: later }))!.availableCount).toBe(2);
    });

    it("shows a sold-out type with a zero count rather than hiding it", async () => {
      const { unitTypeId } = await h.createUnitType({ statuses: ["rented", "rented"] });
      expect(await h.storage.getUnitType(unitTypeId, { now })).toMatchObject({ availableCount: 0, totalCount: 2 });
    });

    it("lists insurance plans lowest coverage first, in cents", async () => {
      const plans = await h.storage.listInsurancePlans();
      expect(plans.length).toBeGreaterThan(0);
      for (const p of plans) {
        expect(Number.isInteger(p.coverage) && Number.isInteger(p.premium)).toBe(true);
        expect(typeof p.id).toBe("string");
      }
      const coverages = plans.map((p) => p.coverage);
      expect(coverages).toEqual([...coverages].sort((a, b) => a - b));
    });

    it("lists the site's discount plans (issue 40, decision 672): whole ids, names, what each gives or why it is not offered", async () => {
      const plans = await h.storage.listDiscountPlans();
      for (const p of plans) {
        expect(Number.isInteger(p.id) && p.id > 0).toBe(true);
        expect(typeof p.name).toBe("string");
        if (p.terms === null) expect(p.notOffered).toEqual(expect.any(String));
        else {
          expect(p.notOffered).toBeNull();
          expect(p.terms.months >= 1 && (p.terms.fromMonth ?? 1) >= 1).toBe(true);
          if (p.terms.kind === "percent") expect(p.terms.percent > 0 && p.terms.percent <= 100).toBe(true);
          else expect(Number.isInteger(p.terms.amount) && p.terms.amount > 0).toBe(true);
        }
      }
    });

    it("lists extra charges in cents with their tax rates", async () => {
      const charges = await h.storage.listExtraCharges();
      expect(charges.length).toBeGreaterThan(0);
      for (const c of charges) {
        expect(Number.isInteger(c.amount)).toBe(true);
        expect(c.tax1Rate).toBeGreaterThanOrEqual(0);
        expect(typeof c.isRecurring).toBe("boolean");
      }
    });
  });

  describe(`StorageSoftware contract: holds, quotes and move-ins (${adapterName})`, () => {
    let h: ContractHarness;
    beforeAll(async () => {
      h = await makeHarness();
    });
    afterAll(() => h?.close());
    const available = async (unitTypeId: string, now = NOW) => (await h.storage.getUnitType(unitTypeId, { now }))!.availableCount;

    it("says who charges the card: our payment gateway, or the software's own processor", async () => {
      const who = await h.storage.cardsChargedBy();
      expect(["gateway", "software"]).toContain(who);
      // The local adapter has no processor of its own (decision 200): our gateway charges there.
      if (!h.softwareContact) expect(who).toBe("gateway");
    });

    it("holds one unit per rental, renews the same hold, refuses the last unit to another rental and releases it", async () => {
      const { unitTypeId } = await freshType(h, 2);
      const until = new Date(NOW.getTime() + 15 * 60_000);
      const a = await h.storage.holdUnit({ unitTypeId, holdToken: "contract-hold-a-0000000000", until, now: NOW });
      expect(a).toMatchObject({ holdToken: "contract-hold-a-0000000000", heldUntil: until });
      expect(typeof a.unitId).toBe("string");
      expect(a.unitName).not.toBe("");
      expect(await available(unitTypeId)).toBe(1);
      const again = await h.storage.holdUnit({ unitTypeId, holdToken: "contract-hold-a-0000000000", until: new Date(until.getTime() + 60_000), now: NOW });
      expect(again.unitId).toBe(a.unitId);
      expect(await available(unitTypeId)).toBe(1);
      const b = await h.storage.holdUnit({ unitTypeId, holdToken: "contract-hold-b-0000000000", until, now: NOW });
      expect(b.unitId).not.toBe(a.unitId);
      await expect(h.storage.holdUnit({ unitTypeId, holdToken: "contract-hold-c-0000000000", until, now: NOW })).rejects.toBeInstanceOf(UnitUnavailableError);
      await h.storage.releaseHold("contract-hold-a-0000000000");
      expect(await available(unitTypeId)).toBe(1);
      // A hold that has run out counts as free again.
      expect(await available(unitTypeId, new Date(until.getTime() + 1))).toBe(2);
    });

    it("quotes a move-in in whole cents: total = Σ(line + tax), first month paid through the day before the next due date", async () => {
      const { unitTypeId } = await freshType(h, 1);
      const plans = await h.storage.listInsurancePlans();
      const plain = await quote(h, unitTypeId);
      const covered = await quote(h, unitTypeId, plans[0]!.id);
      const today = await todayAt(h.storage, NOW);
      for (const q of [plain, covered]) {
        expect(q.moveInDate).toBe(today);
        expect(q.paidThroughDate > q.moveInDate && q.nextDueDate === addDaysIso(q.paidThroughDate, 1)).toBe(true);
        expect(q.total).toBe(q.lines.reduce((s, l) => s + l.amount + l.tax, 0));
        for (const l of q.lines) expect(Number.isInteger(l.amount) && Number.isInteger(l.tax)).toBe(true);
        expect(q.lines.some((l) => l.kind === "rent" && l.amount === q.monthlyRate)).toBe(true);
      }
      expect(plain.insurancePlanId).toBeNull();
      expect(covered.insurancePlanId).toBe(plans[0]!.id);
      expect(covered.insurancePremium).toBe(plans[0]!.premium);
      expect(covered.total - plain.total).toBe(covered.lines.filter((l) => l.kind === "insurance").reduce((s, l) => s + l.amount + l.tax, 0));
      expect(covered.total).toBeGreaterThan(plain.total);
      await expect(quote(h, "999999999")).rejects.toBeInstanceOf(UnitUnavailableError);
      const foreign = (await h.otherStorage.listUnitTypes({ now: NOW }))[0];
      if (foreign) await expect(quote(h, foreign.id)).rejects.toBeInstanceOf(UnitUnavailableError);
    });

    it("moves a tenant in once: tenant, lease, charges and payment; a repeat returns the first result and charges nothing", async () => {
      const { unitTypeId } = await freshType(h, 2);
      const first = await contractMoveIn(h, { unitTypeId, insurance: true });
      const r = first.result;
      expect(r.created).toBe(true);
      expect(r.gateCode).toMatch(/^\d{4,}$/);
      expect(r.cardLast4).toBe("4242");
      expect(r.authReference).not.toBe("");
      expect(await available(unitTypeId)).toBe(1);
      expect(await h.storage.isEmailRegistered(first.email.toUpperCase())).toBe(true);

      const record = (await h.storage.getMoveIn(r.leaseId))!;
      expect(record).toMatchObject({
        leaseId: r.leaseId,
        tenantId: r.tenantId,
        unitName: r.unitName,
        gateCode: r.gateCode,
        firstName: "Ada",
        moveInDate: first.quote.moveInDate,
        paidThroughDate: first.quote.paidThroughDate,
        nextDueDate: first.quote.nextDueDate,
        monthlyRate: first.quote.monthlyRate,
        autopayEnabled: false,
      });
      expect(record.email.toLowerCase()).toBe(first.email.toLowerCase());
      expect(record.payment).toMatchObject({ amount: first.quote.total, cardLast4: "4242" });
      expect(record.lines.reduce((s, l) => s + l.amount + (l.kind === "credit" ? 0 : l.tax), 0)).toBe(first.quote.total);
      expect(record.lease).toMatchObject({ text: `Lease of a unit from ${first.quote.moveInDate}.`, signedName: "Ada Lovelace" });
      expect(await h.storage.getMoveIn("999999999")).toBeNull();
      expect(await h.storage.getMoveIn("not-an-id")).toBeNull();
      expect(await h.otherStorage.getMoveIn(r.leaseId)).toBeNull();

      // The same rental again (double click, retry after a timeout): the first result, nothing new.
      const again = await h.storage.moveIn({
        rentalId: first.rentalId,
        idempotencyKey: first.idempotencyKey,
        unitTypeId,
        tenant: { firstName: "Ada", lastName: "Lovelace", email: first.email, cellPhone: "9105550123", webPwHash: "x", addr1: "1 Main Street", city: "Lumberton", region: "NC", postalCode: "28358", isMilitary: false, isCompany: false, isCommercial: false },
        moveInDate: first.quote.moveInDate,
        paidThroughDate: first.quote.paidThroughDate,
        nextDueDate: first.quote.nextDueDate,
        monthlyRate: first.quote.monthlyRate,
        insurancePlanId: first.quote.insurancePlanId,
        insurancePremium: first.quote.insurancePremium,
        lines: first.quote.lines,
        total: first.quote.total,
        payment: { kind: "card", card: contractCard() },
        autopay: false,
        lease: { text: "x", hash: "0".repeat(64), signedName: "Ada Lovelace", signedAt: NOW, signedIp: "203.0.113.7" },
        now: NOW,
      });
      expect(again).toMatchObject({ created: false, leaseId: r.leaseId, tenantId: r.tenantId, paymentId: r.paymentId });
      expect(await available(unitTypeId)).toBe(1);
      const ledger = (await h.storage.getLedger(r.tenantId, r.leaseId))!;
      expect(ledger.filter((l) => l.kind === "payment")).toHaveLength(1);
    });

    it("confirmMoveIn settles a rental from what the software holds: the move-in done, or none", async () => {
      const done = await contractMoveIn(h);
      expect(await h.storage.confirmMoveIn({ rentalId: done.rentalId, now: NOW })).toEqual({ status: "completed", result: { ...done.result, created: false } });
      const { rentalId } = await h.openRental({ unitTypeId: done.unitTypeId, now: NOW });
      expect(await h.storage.confirmMoveIn({ rentalId, now: NOW })).toMatchObject({ status: "not_completed" });
    });

    it("a declined card raises PaymentDeclinedError and leaves no tenant, no lease and the unit free", async () => {
      const { unitTypeId } = await freshType(h, 1);
      const email = uniqueEmail("declined");
      const error = await contractMoveIn(h, { unitTypeId, email, card: contractCard(DECLINED) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PaymentDeclinedError);
      expect((error as PaymentDeclinedError).reason).not.toBe("");
      expect(await h.storage.isEmailRegistered(email)).toBe(false);
      expect(await h.storage.findTenantByEmail(email)).toBeNull();
      expect(await available(unitTypeId, new Date(NOW.getTime() + 16 * 60_000))).toBe(1);
    });

    it("refuses a move-in with an email that already has an account, before charging", async () => {
      const first = await contractMoveIn(h);
      const { unitTypeId } = await freshType(h, 1);
      const error = await contractMoveIn(h, { unitTypeId, email: first.email }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StorageValidationError);
      expect((error as StorageValidationError).fieldErrors.email?.length).toBeGreaterThan(0);
      expect(await h.storage.isEmailRegistered(uniqueEmail("nobody"))).toBe(false);
    });

    it("refuses a move-in when the last unit was rented by the office meanwhile", async () => {
      const { unitTypeId, unitIds } = await freshType(h, 1);
      const q = await quote(h, unitTypeId);
      const { rentalId, idempotencyKey } = await h.openRental({ unitTypeId, now: NOW });
      await h.setUnitStatus(unitIds[0]!, "rented");
      await expect(
        h.storage.moveIn({
          rentalId,
          idempotencyKey,
          unitTypeId,
          tenant: { firstName: "Bo", lastName: "Late", email: uniqueEmail("late"), cellPhone: "9105550123", webPwHash: "x", addr1: "1 Main Street", city: "Lumberton", region: "NC", postalCode: "28358", isMilitary: false, isCompany: false, isCommercial: false },
          moveInDate: q.moveInDate,
          paidThroughDate: q.paidThroughDate,
          nextDueDate: q.nextDueDate,
          monthlyRate: q.monthlyRate,
          insurancePlanId: null,
          insurancePremium: 0,
          lines: q.lines,
          total: q.total,
          payment: { kind: "card", card: contractCard() },
          autopay: false,
          lease: { text: "x", hash: "0".repeat(64), signedName: "Bo Late", signedAt: NOW, signedIp: "203.0.113.7" },
          now: NOW,
        }),
      ).rejects.toBeInstanceOf(UnitUnavailableError);
    });
  });

  describe(`StorageSoftware contract: reservations (${adapterName})`, () => {
    let h: ContractHarness;
    beforeAll(async () => {
      h = await makeHarness();
    });
    afterAll(() => h?.close());
    let n = 0;
    const reserve = (unitTypeId: string, over: { expiresAt?: Date; key?: string; email?: string } = {}) => {
      n++;
      return h.storage.reserveUnit({
        unitTypeId,
        firstName: "Rita",
        lastName: "Reserve",
        email: over.email ?? uniqueEmail("reserve"),
        phone: "9105550188",
        desiredMoveInDate: "2026-06-20",
        expiresAt: over.expiresAt ?? new Date(NOW.getTime() + 7 * 86_400_000),
        cancelTokenHash: "a".repeat(64),
        confirmationCode: `CT${Date.now().toString(36).toUpperCase()}${n}`,
        idempotencyKey: over.key ?? `contract-reserve-${Date.now()}-${n}`,
        now: NOW,
      });
    };

    it("reserves a unit (idempotent on the key), finds it by id and by code, and takes the unit out of availability", async () => {
      const { unitTypeId } = await freshType(h, 2);
      const key = `contract-reserve-once-${Date.now()}`;
      const r = await reserve(unitTypeId, { key });
      expect(r).toMatchObject({ unitTypeId, status: "active", firstName: "Rita", desiredMoveInDate: "2026-06-20" });
      expect(r.unitName).not.toBe("");
      expect((await reserve(unitTypeId, { key })).id).toBe(r.id);
      expect((await h.storage.getUnitType(unitTypeId, { now: NOW }))!.availableCount).toBe(1);
      expect(await h.storage.getReservation({ id: r.id, now: NOW })).toMatchObject({ id: r.id, status: "active" });
      expect(await h.storage.getReservation({ confirmationCode: r.confirmationCode, now: NOW })).toMatchObject({ id: r.id });
      expect(await h.storage.getReservation({ id: "999999999", now: NOW })).toBeNull();
      expect(await h.otherStorage.getReservation({ id: r.id, now: NOW })).toBeNull();
    });

    it("is held in the software by the renter's own tenant record, and cancelled there too", async () => {
      if (!h.softwareReservation) return;
      const { unitTypeId } = await freshType(h, 1);
      const email = uniqueEmail("held");
      const r = await reserve(unitTypeId, { email });
      expect(await h.softwareReservation(r.id)).toEqual({ status: "active", holder: { firstName: "Rita", lastName: "Reserve", email } });
      await h.storage.cancelReservation({ id: r.id, cancelTokenHash: "a".repeat(64), now: NOW });
      expect((await h.softwareReservation(r.id))!.status).toBe("cancelled");
    });

    it("refuses a reservation when no unit is free", async () => {
      const { unitTypeId } = await h.createUnitType({ statuses: ["rented"] });
      await expect(reserve(unitTypeId)).rejects.toBeInstanceOf(UnitUnavailableError);
    });

    it("cancels only with the right token hash, and gives the unit back", async () => {
      const { unitTypeId } = await freshType(h, 1);
      const r = await reserve(unitTypeId);
      expect(await h.storage.cancelReservation({ id: r.id, cancelTokenHash: "b".repeat(64), now: NOW })).toBeNull();
      expect((await h.storage.getReservation({ id: r.id, now: NOW }))!.status).toBe("active");
      expect(await h.storage.cancelReservation({ id: r.id, cancelTokenHash: "a".repeat(64), now: NOW })).toMatchObject({ id: r.id, status: "cancelled" });
      expect((await h.storage.getUnitType(unitTypeId, { now: NOW }))!.availableCount).toBe(1);
    });

    it("expires reservations whose time has passed and frees their units", async () => {
      const { unitTypeId } = await freshType(h, 1);
      const r = await reserve(unitTypeId, { expiresAt: new Date(NOW.getTime() + 60 * 60_000) });
      const later = new Date(NOW.getTime() + 2 * 60 * 60_000);
      await h.advanceClock(later);
      expect(await h.storage.expireReservations(later)).toBeGreaterThanOrEqual(1);
      expect(await h.storage.expireReservations(later)).toBe(0);
      expect((await h.storage.getReservation({ id: r.id, now: later }))!.status).toBe("expired");
      expect((await h.storage.getUnitType(unitTypeId, { now: later }))!.availableCount).toBe(1);
      await h.advanceClock(NOW);
    });
  });

  describe(`StorageSoftware contract: tenants, payments and billing (${adapterName})`, () => {
    let h: ContractHarness;
    let t: Awaited<ReturnType<typeof contractMoveIn>>;
    let tenantId: string;
    let leaseId: string;
    let other: Awaited<ReturnType<typeof contractMoveIn>>;
    beforeAll(async () => {
      h = await makeHarness();
      t = await contractMoveIn(h, { insurance: true });
      tenantId = t.result.tenantId;
      leaseId = t.result.leaseId;
      other = await contractMoveIn(h);
    });
    afterAll(() => h?.close());
    let k = 0;
    const key = (tag: string) => `contract-${tag}-${Date.now()}-${++k}-abcdefgh`;
    const lease = async () => (await h.storage.getTenantLease(tenantId, leaseId))!;

    it("signs a tenant in by email (any case) and password, and answers null otherwise", async () => {
      expect(await h.storage.authenticateTenant({ email: t.email.toUpperCase(), password: t.password })).toEqual({ tenantId });
      expect(await h.storage.authenticateTenant({ email: t.email, password: "wrong-password" })).toBeNull();
      expect(await h.storage.authenticateTenant({ email: uniqueEmail("nobody"), password: t.password })).toBeNull();
    });

    it("refuses to refund a payment it does not have (another tenant's, or none), recording nothing", async () => {
      const record = async () => {
        throw new Error("nothing may be recorded for a refused refund");
      };
      for (const paymentId of ["999999999", "abc"]) {
        const outcome = await h.storage.refundPayment({ tenantId, paymentId, now: new Date(), record });
        expect(outcome.kind).toBe("refused");
      }
    });

    it("finds and reads the tenant; unknown ids and emails are null", async () => {
      expect(await h.storage.findTenantByEmail(t.email.toUpperCase())).toMatchObject({ id: tenantId, firstName: "Ada", lastName: "Lovelace", cellPhone: "9105550123" });
      expect(await h.storage.getTenant(tenantId)).toMatchObject({ id: tenantId, city: "Lumberton", postalCode: "28358", isMilitary: false });
      expect(await h.storage.getTenant("999999999")).toBeNull();
      expect(await h.storage.getTenant("abc")).toBeNull();
      expect(await h.storage.findTenantByEmail(uniqueEmail("nobody"))).toBeNull();
    });

    it("claims no office record for an unknown email or a wrong proof, and creates no tenant", async () => {
      const email = uniqueEmail("office-none");
      const r = await h.storage.claimOfficeTenant({ email, webPassword: "wrong1", passwordHash: "x", now: NOW });
      expect(["no_match", "not_supported"]).toContain(r.kind);
      expect(await h.storage.findTenantByEmail(email)).toBeNull();
      const own = await h.storage.claimOfficeTenant({ email: t.email, webPassword: "wrong1", passwordHash: "x", now: NOW });
      expect(["no_match", "not_supported"]).toContain(own.kind);
    });

    it("checks and changes the web password", async () => {
      expect(await h.storage.verifyTenantPassword(tenantId, t.password)).toBe(true);
      expect(await h.storage.verifyTenantPassword(tenantId, "nope-nope")).toBe(false);
      await h.storage.setTenantPassword(tenantId, "new-contract-pass-2");
      expect(await h.storage.verifyTenantPassword(tenantId, "new-contract-pass-2")).toBe(true);
      expect(await h.storage.authenticateTenant({ email: t.email, password: "new-contract-pass-2" })).toEqual({ tenantId });
      expect(await h.storage.authenticateTenant({ email: t.email, password: t.password })).toBeNull();
      await h.storage.setTenantPassword(tenantId, t.password);
    });

    it("takes a texting opt-in changed after the move-in: kept by the software, or not a field it keeps (decision 614)", async () => {
      const answer = await h.storage.setTenantTextOptIn(tenantId, true);
      expect(["sent", "not_kept"]).toContain(answer);
      // Saying it again, or taking it back, answers the same way and leaves the tenant as they were.
      expect(await h.storage.setTenantTextOptIn(tenantId, false)).toBe(answer);
      expect(await h.storage.getTenant(tenantId)).toMatchObject({ id: tenantId });
    });

    it("updates contact details and phone; an email of another tenant is refused on the email field", async () => {
      const before = (await h.storage.getTenant(tenantId))!;
      const update = {
        firstName: "Ada",
        lastName: "King",
        email: before.email,
        addr1: "2 Oak Avenue",
        addr2: "Apt 3",
        city: "Fayetteville",
        region: "NC",
        postalCode: "28301",
        isMilitary: true,
        isCompany: false,
        isCommercial: false,
        altContactFirstName: "Charles",
        altContactLastName: "Babbage",
        altContactPhone: "9105550177",
      };
      await h.storage.updateTenantContact(tenantId, update);
      expect(await h.storage.getTenant(tenantId)).toMatchObject({ lastName: "King", addr1: "2 Oak Avenue", addr2: "Apt 3", city: "Fayetteville", isMilitary: true, altContactLastName: "Babbage" });
      const taken = await h.storage.updateTenantContact(tenantId, { ...update, email: other.email }).catch((e: unknown) => e);
      expect(taken).toBeInstanceOf(StorageValidationError);
      expect((taken as StorageValidationError).fieldErrors.email?.length).toBeGreaterThan(0);
      expect((await h.storage.getTenant(tenantId))!.email.toLowerCase()).toBe(t.email.toLowerCase());
      await h.storage.updateTenantPhone(tenantId, "9105550999");
      expect((await h.storage.getTenant(tenantId))!.cellPhone).toBe("9105550999");
      // The software's own record follows (and was not touched by the refused change).
      if (h.softwareContact) {
        expect(await h.softwareContact(tenantId)).toEqual({ lastName: "King", addr1: "2 Oak Avenue", city: "Fayetteville", email: before.email.toLowerCase(), cellPhone: "9105550999" });
      }
    });

    it("lists the tenant's leases with balance, dates, gate code and plan; another tenant's or site's lease is null", async () => {
      const list = await h.storage.listTenantLeases(tenantId);
      expect(list.map((l) => l.leaseId)).toContain(leaseId);
      const l = await lease();
      expect(l).toMatchObject({
        leaseId,
        unitName: t.result.unitName,
        status: "active",
        moveInDate: t.quote.moveInDate,
        monthlyRate: t.quote.monthlyRate,
        insurancePremium: t.quote.insurancePremium,
        paidThroughDate: t.quote.paidThroughDate,
        nextDueDate: t.quote.nextDueDate,
        balance: 0,
        gateCode: t.result.gateCode,
        moveOutDate: null,
        autopayDecline: null,
      });
      expect(l.width).toBeGreaterThan(0);
      expect(l.insuranceCoverage).toBeGreaterThan(0);
      expect(await h.storage.getTenantLease(other.result.tenantId, leaseId)).toBeNull();
      expect(await h.storage.getTenantLease(tenantId, "999999999")).toBeNull();
      expect(await h.otherStorage.getTenantLease(tenantId, leaseId)).toBeNull();
      expect(await h.storage.listTenantLeases("999999999")).toEqual([]);
    });

    it("gives the ledger with a running balance that ends at the lease's balance; not to another tenant", async () => {
      const ledger = (await h.storage.getLedger(tenantId, leaseId))!;
      expect(ledger.length).toBeGreaterThanOrEqual(2);
      const payment = ledger.find((e) => e.kind === "payment")!;
      expect(payment.amount).toBe(t.quote.total);
      expect(payment.paymentId).toBe(t.result.paymentId);
      expect(ledger.at(-1)!.runningBalance).toBe((await lease()).balance);
      // The move-in's charges, as the software posted them: whole cents, dated the move-in day, and
      // (less any credit) exactly what was paid; each line's running balance follows from the one before.
      const atMoveIn = ledger.filter((e) => e.entryDate === t.quote.moveInDate);
      const charged = atMoveIn.filter((e) => e.kind === "charge");
      expect(charged.length).toBeGreaterThanOrEqual(2);
      for (const e of ledger) {
        expect(Number.isInteger(e.amount) && Number.isInteger(e.tax) && e.amount >= 0).toBe(true);
        expect(e.entryDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(e.description.length).toBeGreaterThan(0);
      }
      expect(charged.reduce((s, e) => s + e.amount + e.tax, 0) - atMoveIn.filter((e) => e.kind === "credit").reduce((s, e) => s + e.amount, 0)).toBe(t.quote.total);
      expect(charged.some((e) => e.tax > 0)).toBe(t.quote.lines.some((l) => l.tax > 0));
      ledger.reduce((prev, e) => {
        expect(e.runningBalance).toBe(prev + (e.kind === "charge" ? e.amount + e.tax : -e.amount));
        return e.runningBalance;
      }, 0);
      expect(await h.storage.getLedger(other.result.tenantId, leaseId)).toBeNull();
    });

    it("takes a payment once per idempotency key, with a receipt; a declined card charges nothing", async () => {
      const balance = (await lease()).balance;
      const k1 = key("pay");
      const p = await h.storage.makePayment({ tenantId, leaseId, amount: 1000, method: { kind: "card", card: contractCard(), saveCard: false }, idempotencyKey: k1, now: NOW });
      expect(p).toMatchObject({ amount: 1000, status: "approved", cardLast4: "4242" });
      const repeat = await h.storage.makePayment({ tenantId, leaseId, amount: 1000, method: { kind: "card", card: contractCard(), saveCard: false }, idempotencyKey: k1, now: NOW });
      expect(repeat.id).toBe(p.id);
      expect((await lease()).balance).toBe(balance - 1000);
      const receipt = (await h.storage.getReceipt(tenantId, p.id))!;
      expect(receipt).toMatchObject({ leaseId, unitName: t.result.unitName, source: "portal", balance: balance - 1000 });
      expect(receipt.payment).toMatchObject({ id: p.id, amount: 1000 });
      expect(await h.storage.getReceipt(other.result.tenantId, p.id)).toBeNull();
      expect(await h.storage.getReceipt(tenantId, "999999999")).toBeNull();
      await expect(
        h.storage.makePayment({ tenantId, leaseId, amount: 500, method: { kind: "card", card: contractCard(DECLINED), saveCard: false }, idempotencyKey: key("dec"), now: NOW }),
      ).rejects.toBeInstanceOf(PaymentDeclinedError);
      expect((await lease()).balance).toBe(balance - 1000);
      // The decline is recorded for the office (no ledger line: nothing was paid).
      expect((await h.paymentAttempts(leaseId)).filter((a) => a.status === "declined" && a.amount === 500)).toHaveLength(1);
      await expect(
        h.storage.makePayment({ tenantId: other.result.tenantId, leaseId, amount: 100, method: { kind: "card", card: contractCard(), saveCard: false }, idempotencyKey: key("x"), now: NOW }),
      ).rejects.toBeInstanceOf(StorageValidationError);
    });

    it("quotes and takes a prepayment only at the quoted total, and moves paid-through forward", async () => {
      const before = await lease();
      const offer = (await h.storage.quotePrepay(tenantId, leaseId, 2))!;
      expect(offer.months).toBe(2);
      expect(offer.balance).toBe(before.balance);
      expect(offer.total).toBe(offer.balance + offer.lines.reduce((s, l) => s + l.amount + l.tax, 0));
      expect(offer.newPaidThroughDate > before.paidThroughDate).toBe(true);
      expect(await h.storage.quotePrepay(other.result.tenantId, leaseId, 2)).toBeNull();
      await expect(
        h.storage.prepay({ tenantId, leaseId, months: 2, expectedTotal: offer.total - 1, method: { kind: "card", card: contractCard(), saveCard: false }, idempotencyKey: key("pre-x"), now: NOW }),
      ).rejects.toBeInstanceOf(StorageValidationError);
      const paid = await h.storage.prepay({ tenantId, leaseId, months: 2, expectedTotal: offer.total, method: { kind: "card", card: contractCard(), saveCard: false }, idempotencyKey: key("pre"), now: NOW });
      expect(paid).toMatchObject({ amount: offer.total, status: "approved" });
      const after = await lease();
      expect(after.paidThroughDate).toBe(offer.newPaidThroughDate);
      expect(after.balance).toBe(0);
      expect((await h.storage.getReceipt(tenantId, paid.id))!.source).toBe("prepay");
    });

    it("enrols autopay with a new card (then listed as saved), re-enrols with the saved card, and cancels", async () => {
      const saved = await h.storage.enrolAutopay({ tenantId, leaseId, method: { kind: "card", card: contractCard("5555555555554444"), saveCard: true }, now: NOW });
      expect(saved).toMatchObject({ brand: "mastercard", last4: "4444", expMonth: 12, expYear: 2030 });
      expect((await h.storage.listSavedCards(tenantId)).map((c) => c.id)).toContain(saved.id);
      expect((await lease()).autopay).toMatchObject({ enabled: true, card: { id: saved.id, last4: "4444" } });
      await h.storage.cancelAutopay({ tenantId, leaseId });
      expect((await lease()).autopay.enabled).toBe(false);
      await h.storage.enrolAutopay({ tenantId, leaseId, method: { kind: "saved", savedCardId: saved.id }, now: NOW });
      expect((await lease()).autopay).toMatchObject({ enabled: true, card: { id: saved.id } });
      await expect(h.storage.enrolAutopay({ tenantId: other.result.tenantId, leaseId: other.result.leaseId, method: { kind: "saved", savedCardId: saved.id }, now: NOW })).rejects.toBeInstanceOf(
        StorageValidationError,
      );
      await expect(h.storage.enrolAutopay({ tenantId, leaseId, method: { kind: "card", card: contractCard(DECLINED), saveCard: true }, now: NOW })).rejects.toBeInstanceOf(PaymentDeclinedError);
      expect(await h.storage.listSavedCards(other.result.tenantId)).toEqual([]);
    });

    it("autopay chosen at the move-in is on with the card it will charge; it is never 'on' without a card", async () => {
      const withAutopay = await contractMoveIn(h, { autopay: true, card: contractCard("5555555555554444") });
      const tid = withAutopay.result.tenantId;
      const on = (await h.storage.getTenantLease(tid, withAutopay.result.leaseId))!;
      expect(on.autopay).toMatchObject({ enabled: true, card: { brand: "mastercard", last4: "4444" } });
      await h.storage.cancelAutopay({ tenantId: tid, leaseId: withAutopay.result.leaseId });
      expect((await h.storage.getTenantLease(tid, withAutopay.result.leaseId))!.autopay.enabled).toBe(false);
      for (const l of [...(await h.storage.listTenantLeases(tid)), ...(await h.storage.listTenantLeases(tenantId))]) {
        if (l.autopay.enabled) expect(l.autopay.card).not.toBeNull();
      }
    });

    it("bills the next due date once (or says the software bills its own leases)", async () => {
      const before = await h.storage.getTenantLease(other.result.tenantId, other.result.leaseId);
      const runDate = before!.nextDueDate;
      const at = new Date(`${runDate}T15:00:00Z`);
      await h.advanceClock(at);
      const first = await h.storage.billLeases({ runDate, now: at, tenantId: other.result.tenantId });
      const second = await h.storage.billLeases({ runDate, now: at, tenantId: other.result.tenantId });
      await h.advanceClock(NOW);
      expect(first.failed).toEqual([]);
      if (first.billedBy === "software") {
        expect(first.leases).toEqual([]);
        return;
      }
      const billed = first.leases.find((l) => l.leaseId === other.result.leaseId)!;
      expect(billed).toMatchObject({ tenantId: other.result.tenantId, autopay: "none" });
      expect(billed.chargesPosted).toBeGreaterThan(0);
      expect(first.leases.every((l) => l.tenantId === other.result.tenantId)).toBe(true);
      expect(second.leases.find((l) => l.leaseId === other.result.leaseId)!.chargesPosted).toBe(0);
      const after = (await h.storage.getTenantLease(other.result.tenantId, other.result.leaseId))!;
      expect(after.balance).toBeGreaterThanOrEqual(other.quote.monthlyRate);
    });

    it("records a move-out notice on the lease", async () => {
      const date = addDaysIso(await todayAt(h.storage, NOW), 10);
      await h.storage.giveMoveOutNotice({ tenantId, leaseId, moveOutDate: date, reason: "Moving away", now: NOW });
      expect((await lease()).moveOutDate).toBe(date);
      await expect(h.storage.giveMoveOutNotice({ tenantId: other.result.tenantId, leaseId, moveOutDate: date, reason: null, now: NOW })).rejects.toBeInstanceOf(StorageValidationError);
    });

    it("says whether online rentals and payments may run at the location, and why not", async () => {
      const g = await h.storage.goLive();
      expect(g).toMatchObject({ live: expect.any(Boolean), reason: expect.any(String) });
      if (!g.live) expect(g.reason).toMatch(/\S/);
      // Our own units are always live; a SiteLink test bed has a passed check recorded.
      expect(g.live).toBe(true);
    });

    it("records a move-out done once: the lease ends and the unit can be rented again (or the software says it moves tenants out itself)", async () => {
      const leaving = await contractMoveIn(h);
      const { unitTypeId } = leaving;
      const freeBefore = (await h.storage.getUnitType(unitTypeId, { now: NOW }))!.availableCount;
      const today = await todayAt(h.storage, NOW);
      let recorded = 0;
      const record = async () => {
        recorded++;
      };
      const outcome = await h.storage.recordMoveOut({ tenantId: leaving.result.tenantId, leaseId: leaving.result.leaseId, moveOutDate: today, now: NOW, record });
      if (outcome.kind === "refused") {
        expect(outcome.message).toMatch(/\S/);
        expect(recorded).toBe(0);
        expect((await h.storage.getTenantLease(leaving.result.tenantId, leaving.result.leaseId))!.status).toBe("active");
        return;
      }
      expect(outcome.kind).toBe("moved_out");
      expect(recorded).toBe(1);
      const ended = await h.storage.getTenantLease(leaving.result.tenantId, leaving.result.leaseId);
      expect(ended).toMatchObject({ status: "moved_out", moveOutDate: today });
      expect((await h.storage.getUnitType(unitTypeId, { now: NOW }))!.availableCount).toBe(freeBefore + 1);
      // A second submit changes nothing and records nothing.
      expect(await h.storage.recordMoveOut({ tenantId: leaving.result.tenantId, leaseId: leaving.result.leaseId, moveOutDate: today, now: NOW, record })).toEqual({ kind: "already_moved_out" });
      expect(recorded).toBe(1);
      // Another tenant's lease is not this tenant's to end.
      expect((await h.storage.recordMoveOut({ tenantId: other.result.tenantId, leaseId: leaving.result.leaseId, moveOutDate: today, now: NOW, record })).kind).not.toBe("moved_out");
    });
  });
}
