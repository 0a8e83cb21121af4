/**
 * Issue 21 (decision 225): the rental and reservation pages' view models, asked of the services
 * directly — no request, no route. Each step of /rent/:unitTypeId (details, protection, review with the
 * quote's lines, sign, pay), the redirects the steps decide, the blocked cases (sold out, coming soon),
 * the web rate, and what /reserve/:unitTypeId shows.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { rentals, locations, unitTypes } from "~/db/schema";
import { rentalBlockMessage } from "~/domain/rental/rules";
import { formatPhone } from "~/domain/shared/phone";
import { rentPage, type RentPageView } from "~/services/rental/steps.server";
import { rentalLeaseText, quoteRental } from "~/services/rental/move-in.server";
import { getRental, saveDetails, saveProtection } from "~/services/rental/record.server";
import { requireRentalContext } from "~/services/rental/context.server";
import { reservationBlockMessage, reservePage } from "~/services/rental/reservation.server";
import { createTestDatabase } from "../support/db";
import { leaveAvailable, lumbertonUnitType, NOW, signedRental, tenantDetails } from "../support/rental-fixtures";

const LUMBERTON = "lumberton-nc-28358";
let handle: DatabaseHandle;
let unitTypeId: string;

beforeAll(async () => {
  handle = await createTestDatabase();
  unitTypeId = (await lumbertonUnitType(handle.db)).unitTypeId;
});
afterAll(() => handle?.close());
beforeEach(async () => {
  await handle.db.update(locations).set({ globalSettings: {}, status: "Live" }).where(eq(locations.urlSlug, LUMBERTON));
});

const ctx = () => requireRentalContext(handle.db, unitTypeId, NOW);

async function open(query: string, rentalId: string | null = null) {
  return rentPage(handle.db, await ctx(), { unitTypeId, searchParams: new URLSearchParams(query), rentalId, csrfToken: "token", now: NOW });
}

/** The page's view model (fails the test on a redirect). */
async function view(query: string, rentalId: string | null = null): Promise<RentPageView> {
  const page = await open(query, rentalId);
  if (!("page" in page)) throw new Error(`redirected to ${page.redirect}`);
  return page.page;
}

/** A rental with the visitor's details (step 1 done). */
async function detailsRental() {
  const details = tenantDetails();
  const id = await saveDetails(handle.db, await ctx(), { existing: null, details, webPw: "secret1", now: NOW });
  return { id, details };
}

describe("rentPage: each step's view model", () => {
  it("details, without a rental: the unit, the rate, no hold, the five steps, an empty form", async () => {
    const c = await ctx();
    const p = await view("");
    expect(p).toMatchObject({
      basePath: `/rent/${unitTypeId}`,
      csrfToken: "token",
      locationName: "Lumberton",
      locationPath: `/locations/${LUMBERTON}`,
      phone: formatPhone(c.location.phoneNumber),
      monthlyRate: c.unitType.standardRate,
      standardRate: c.unitType.standardRate,
      heldUntil: null,
      hasRental: false,
      eSign: true,
      steps: ["details", "protection", "review", "sign", "pay"],
      blocked: null,
      furthest: "details",
      view: { step: "details", hasPassword: false, defaults: {} },
    });
    expect(p.unit).toMatch(new RegExp(`^\\d+' x \\d+' ${c.unitType.name}$`));
  });

  it("a later step asked for before it is reached: sent to the furthest step (the redirect is the service's answer)", async () => {
    expect(await open("step=review")).toEqual({ redirect: `/rent/${unitTypeId}?step=details` });
    const { id } = await detailsRental();
    expect(await open("step=pay", id)).toEqual({ redirect: `/rent/${unitTypeId}?step=protection` });
  });

  it("details again, with a rental: the saved details in the form's shape (phones formatted, booleans as on/empty), the password kept", async () => {
    const { id, details } = await detailsRental();
    const p = await view("step=details", id);
    expect(p.hasRental).toBe(true);
    expect(p.heldUntil).toMatch(/^\d{1,2}:\d{2} [AP]M$/);
    expect(p.view).toMatchObject({
      step: "details",
      hasPassword: true,
      defaults: { first_name: details.first_name, email: details.email, cell_phone: "(910) 555-0134", addr_2: "", is_military: "", alt_contact_phone: "" },
    });
  });

  it("protection: the plans with their wording, the choice, the move-in dates with today marked", async () => {
    const c = await ctx();
    const { id } = await detailsRental();
    const p = await view("step=protection", id);
    expect(p.furthest).toBe("protection");
    const plans = (await quoteRental(c, null)).plans;
    expect(plans.length).toBeGreaterThan(0);
    if (p.view?.step !== "protection") throw new Error("not the protection step");
    expect(p.view.plans[0]).toEqual({
      id: plans[0]!.id,
      label: expect.stringMatching(/^\$[\d,]+\.\d{2} coverage for \$[\d,]+\.\d{2} a month$/),
      detail: expect.stringMatching(/^Theft covered at .+\./),
    });
    expect(p.view.plans).toHaveLength(plans.length);
    expect(p.view).toMatchObject({ required: false, choice: null });
    expect(p.view.moveInDates.map((d) => d.value)).toEqual(c.moveInDates);
    expect(p.view.moveInDate).toBe(c.moveInDates.includes(c.today) ? c.today : c.moveInDates[0]);
    expect(p.view.moveInDateLabel).toMatch(/^[A-Z][a-z]+day, [A-Z][a-z]+ \d{1,2}, \d{4}$/);
    for (const d of p.view.moveInDates) expect(d.label.endsWith(" (today)")).toBe(d.value === c.today);
  });

  it("review: the quote's lines and totals, the dates in words, and the 'charges changed' note", async () => {
    const c = await ctx();
    const { id } = await detailsRental();
    await saveProtection(handle.db, c, (await getRental(handle.db, id, unitTypeId))!, "none", NOW);
    const rental = (await getRental(handle.db, id, unitTypeId))!;
    const q = (await quoteRental(c, rental.insuranceChoice, rental.moveInDate)).quote;
    const p = await view("step=review", id);
    expect(p.furthest).toBe("sign");
    expect(p.view).toMatchObject({ step: "review", lines: q.lines, total: q.total, monthlyTotal: q.monthlyTotal, changed: false });
    expect(p.view).toMatchObject({ moveInDate: expect.stringContaining(", 20"), paidThroughDate: expect.any(String), nextDueDate: expect.any(String) });
    expect(q.lines.map((l) => l.kind)).toContain("rent");
    expect((await view("step=review&changed=1", id)).view).toMatchObject({ step: "review", changed: true });
  });

  it("sign: the lease text of this rental's quote and the name to type", async () => {
    const c = await ctx();
    const { id, details } = await detailsRental();
    await saveProtection(handle.db, c, (await getRental(handle.db, id, unitTypeId))!, "none", NOW);
    const rental = (await getRental(handle.db, id, unitTypeId))!;
    const q = await quoteRental(c, rental.insuranceChoice, rental.moveInDate);
    expect((await view("step=sign", id)).view).toEqual({
      step: "sign",
      leaseText: rentalLeaseText(c, details, q),
      fullName: `${details.first_name} ${details.last_name}`,
      signedName: null,
    });
  });

  it("pay: the total, the card form's defaults, autopay, and the notes (a replaced unit, sanitised; a retry)", async () => {
    const c = await ctx();
    const { id, details, quote } = await signedRental(handle.db, unitTypeId, { plan: "none" });
    const p = await view("step=pay", id);
    expect(p.furthest).toBe("pay");
    expect(p.view).toMatchObject({
      step: "pay",
      total: quote.total,
      today: { year: Number(c.today.slice(0, 4)), month: Number(c.today.slice(5, 7)) },
      acceptedCards: c.acceptedCards,
      nameOnCard: `${details.first_name} ${details.last_name}`,
      postalCode: details.postal_code,
      replacedUnit: null,
      retry: false,
    });
    const noted = await view(`step=pay&replaced=${encodeURIComponent("B-12<script>")}&retry=1`, id);
    expect(noted.view).toMatchObject({ step: "pay", replacedUnit: "B-12script", retry: true });
  });

  it("a completed rental asked for its payment step, or one being confirmed: the confirmation page", async () => {
    const { id } = await signedRental(handle.db, unitTypeId, { plan: "none" });
    await handle.db.update(rentals).set({ status: "confirming" }).where(eq(rentals.id, id));
    expect(await open("step=review", id)).toEqual({ redirect: `/rent/${unitTypeId}/confirmation` });
    await handle.db.update(rentals).set({ status: "completed" }).where(eq(rentals.id, id));
    expect(await open("step=pay", id)).toEqual({ redirect: `/rent/${unitTypeId}/confirmation` });
    // Any other step of a completed rental starts a new rental.
    expect((await view("step=details", id)).hasRental).toBe(false);
  });
});

describe("rentPage: the web rate", () => {
  it("on, with a web rate: the web rate; off: the standard rate (app/domain/site/rates.ts)", async () => {
    const c = await ctx();
    const webRate = c.unitType.standardRate - 1000;
    await handle.db.update(unitTypes).set({ webRate }).where(eq(unitTypes.id, Number(unitTypeId)));
    expect((await view("")).monthlyRate).toBe(c.unitType.standardRate);
    expect(reservePage(await ctx(), { csrfToken: "t" }).rate).toBe(c.unitType.standardRate);
    await handle.db.update(locations).set({ globalSettings: { is_web_rates_enabled: true } }).where(eq(locations.urlSlug, LUMBERTON));
    expect(await view("")).toMatchObject({ monthlyRate: webRate, standardRate: c.unitType.standardRate });
    expect(reservePage(await ctx(), { csrfToken: "t" })).toMatchObject({ rate: webRate, standardRate: c.unitType.standardRate });
    await handle.db.update(unitTypes).set({ webRate: 0 }).where(eq(unitTypes.id, Number(unitTypeId)));
    expect((await view("")).monthlyRate).toBe(c.unitType.standardRate);
  });
});

describe("reservePage", () => {
  it("the unit, the days it is kept, the move-in window, the form; reservations off: the block", async () => {
    const c = await ctx();
    const phone = formatPhone(c.location.phoneNumber);
    // The operator's seed has reservations off.
    expect(reservePage(c, { csrfToken: "t" })).toMatchObject({ blocked: reservationBlockMessage("reservations_off", phone) });
    await handle.db.update(locations).set({ globalSettings: { is_reservations_enabled: true, reservation_days_valid: 3 } }).where(eq(locations.urlSlug, LUMBERTON));
    const p = reservePage(await ctx(), { csrfToken: "t" });
    expect(p).toMatchObject({
      csrfToken: "t",
      locationName: "Lumberton",
      locationPath: `/locations/${LUMBERTON}`,
      phone,
      daysValid: 3,
      window: { min: c.today },
      blocked: null,
      shortForm: expect.any(Boolean),
    });
    expect(p.idempotencyKey).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(reservePage(await ctx(), { csrfToken: "t" }).idempotencyKey).not.toBe(p.idempotencyKey);
  });
});

describe("rentPage: blocked", () => {
  it("coming soon: the block's message, no step", async () => {
    await handle.db.update(locations).set({ status: "Coming Soon" }).where(eq(locations.urlSlug, LUMBERTON));
    const p = await view("step=details");
    expect(p).toMatchObject({ blocked: rentalBlockMessage("coming_soon", p.phone), view: null, furthest: null });
  });

  it("sold out: blocked for a new visitor; a visitor already holding a unit goes on", async () => {
    const { id } = await detailsRental();
    await leaveAvailable(handle.db, unitTypeId, 0);
    const p = await view("");
    expect(p).toMatchObject({ blocked: rentalBlockMessage("sold_out", p.phone), view: null, furthest: null, hasRental: false });
    expect((await view("step=protection", id)).view?.step).toBe("protection");
  });
});
