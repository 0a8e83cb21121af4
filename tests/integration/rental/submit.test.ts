/**
 * Issue 21 (decision 225): the rental's and the reservation's form submissions, asked of the services
 * directly — no request, no route, no cookie jar. Each step's answer (where to go next, with the rental
 * cookie to set or clear; or the errors beside the fields with the values typed), the details step's
 * order (hold first: a second visitor learns "sold out"), the e-mail that has an account, the card
 * declined and approved, a repeated payment, and the reservation form.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq, inArray, like } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { emailOutbox, rentals, locations, units } from "~/db/schema";
import { formatPhone } from "~/domain/shared/phone";
import { rentalBlockMessage } from "~/domain/rental/rules";
import { requireRentalContext } from "~/services/rental/context.server";
import { submitRentalStep, type RentalSubmitResult } from "~/services/rental/submit.server";
import { reservationBlockMessage, submitReservation } from "~/services/rental/reservation.server";
import { createTestDatabase } from "../support/db";
import { detailsFormFields, leaveAvailable, lumbertonUnitType, NOW } from "../support/rental-fixtures";

const LUMBERTON = "lumberton-nc-28358";
const ORIGIN = async () => "https://www.example.com";
let handle: DatabaseHandle;
let unitTypeId: string;
let k = 0;
/** The type's units free at the start: each test starts with them free again (holds released, none made unavailable). */
let freeAtStart: number[] = [];

beforeAll(async () => {
  handle = await createTestDatabase();
  unitTypeId = (await lumbertonUnitType(handle.db)).unitTypeId;
  freeAtStart = (await handle.db.select({ id: units.id }).from(units).where(and(eq(units.unitTypeId, Number(unitTypeId)), eq(units.status, "available")))).map((u) => u.id);
});
afterAll(() => handle?.close());
beforeEach(async () => {
  await handle.db.update(locations).set({ globalSettings: {}, status: "Live" }).where(eq(locations.urlSlug, LUMBERTON));
  const open = (await handle.db.select({ id: rentals.id }).from(rentals).where(eq(rentals.status, "open"))).map((c) => c.id);
  if (open.length) {
    await handle.db.update(units).set({ holdToken: null, heldUntil: null }).where(inArray(units.holdToken, open));
    await handle.db.update(rentals).set({ status: "abandoned", unitId: null }).where(inArray(rentals.id, open));
  }
  await handle.db.update(units).set({ status: "available" }).where(and(inArray(units.id, freeAtStart), eq(units.status, "unavailable")));
});

const ctx = () => requireRentalContext(handle.db, unitTypeId, NOW);
const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [name, value] of Object.entries(fields)) f.set(name, value);
  return f;
};
const details = (overrides: Record<string, string> = {}) => ({ ...detailsFormFields(`ada.submit.${process.pid}.${++k}@example.com`), ...overrides });
const PAY = { intent: "pay", exp_month: "12", exp_year: "2030", cvv: "123", name_on_card: "Ada Lovelace", billing_postal_code: "28358" };

async function submit(fields: Record<string, string>, rentalId: string | null = null, clientIp = `198.51.100.${(k % 200) + 1}`) {
  return submitRentalStep(handle.db, await ctx(), { unitTypeId, formData: form(fields), rentalId, clientIp, now: NOW, origin: ORIGIN });
}
function answer(r: RentalSubmitResult) {
  if (!("answer" in r)) throw new Error(`expected an answer, got ${JSON.stringify(r)}`);
  return r;
}
/** The visitor's rental after the details step (the cookie's value). */
async function afterDetails(): Promise<string> {
  const r = await submit(details());
  if (!("redirect" in r) || typeof r.cookie !== "object") throw new Error(`details not saved: ${JSON.stringify(r)}`);
  return r.cookie.set;
}

describe("submitRentalStep: the details step", () => {
  it("bad input: 400, an error beside each bad field, the values typed kept, never the password", async () => {
    const r = answer(await submit(details({ email: "not-an-email", postal_code: "" })));
    expect(r.status).toBe(400);
    expect(r.answer.result?.error?.email?.length).toBeGreaterThan(0);
    expect(r.answer.result?.error?.postal_code?.length).toBeGreaterThan(0);
    expect(r.answer.result?.initialValue).toMatchObject({ first_name: "Ada", email: "not-an-email", addr_1: "1 Main St" });
    expect(r.answer.result?.initialValue).not.toHaveProperty("web_pw");
    expect(await handle.db.select().from(rentals).where(eq(rentals.unitTypeId, Number(unitTypeId)))).toHaveLength(0);
  });

  it("valid: the unit is held, the rental saved, on to the protection step with the rental cookie", async () => {
    const r = await submit(details());
    expect(r).toMatchObject({ redirect: `/rent/${unitTypeId}?step=protection`, cookie: { set: expect.any(String) } });
    const id = (r as { cookie: { set: string } }).cookie.set;
    const [row] = await handle.db.select().from(rentals).where(eq(rentals.id, id));
    expect(row?.unitId).not.toBeNull();
  });

  // Issue 36, finding 6 (decision 465): the details step told anyone which e-mails have accounts.
  it("an e-mail that already has an account: the details step answers as for any e-mail, the holder is e-mailed, the pay step refuses before charging", async () => {
    const email = `ada.taken.${process.pid}.${++k}@example.com`;
    const first = await afterDetails();
    expect(first).toBeTruthy();
    // Rent once with this e-mail so that it has an account.
    const id = (await submit(details({ email })) as { cookie: { set: string } }).cookie.set;
    const c = await ctx();
    await submit({ intent: "protection", insurance_plan: "none", move_in_date: c.today }, id);
    await submit({ intent: "sign", signed_name: "Ada Lovelace", consent: "on" }, id);
    expect(await submit({ ...PAY, card_number: "4242424242424242" }, id)).toEqual({ redirect: `/rent/${unitTypeId}/confirmation` });
    const fresh = await submit(details({ email: `ada.new.${process.pid}.${++k}@example.com` }));
    const again = await submit(details({ email }));
    // The same answer as for a new e-mail: on to the next step, with the rental's cookie.
    expect(again).toMatchObject({ redirect: `/rent/${unitTypeId}?step=protection`, cookie: { set: expect.any(String) } });
    expect(Object.keys(again).sort()).toEqual(Object.keys(fresh).sort());
    // The address's owner is told, once an hour however often it is tried.
    await submit(details({ email }));
    const notices = await handle.db.select({ subject: emailOutbox.subject, text: emailOutbox.text }).from(emailOutbox).where(and(eq(emailOutbox.to, email), like(emailOutbox.subject, "Renting at%")));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.text).toContain("/customer-portal/login");
    // The move-in itself is refused before any charge (one e-mail is one tenant), with the note to sign in.
    const againId = (again as { cookie: { set: string } }).cookie.set;
    await submit({ intent: "protection", insurance_plan: "none", move_in_date: c.today }, againId);
    await submit({ intent: "sign", signed_name: "Ada Lovelace", consent: "on" }, againId);
    const paid = answer(await submit({ ...PAY, card_number: "4242424242424242" }, againId));
    expect(paid.status).toBe(409);
    expect(paid.answer.emailTaken).toBe(true);
    const [row] = await handle.db.select({ status: rentals.status }).from(rentals).where(eq(rentals.id, againId));
    expect(row?.status).not.toBe("completed");
  });

  it("the last unit: the first visitor holds it, the second learns 'sold out' (409) before anything is saved for them", async () => {
    await leaveAvailable(handle.db, unitTypeId, 1);
    expect(await submit(details(), null, "203.0.113.1")).toMatchObject({ redirect: `/rent/${unitTypeId}?step=protection` });
    const c = await ctx();
    const r = answer(await submit(details({ first_name: "Grace" }), null, "203.0.113.2"));
    expect(r.status).toBe(409);
    expect(r.answer.formError).toBe(rentalBlockMessage("sold_out", formatPhone(c.location.phoneNumber)));
    expect(r.answer.result).toBeNull();
    expect(await handle.db.select().from(rentals).where(and(eq(rentals.unitTypeId, Number(unitTypeId)), eq(rentals.status, "open")))).toHaveLength(1);
  });
});

describe("submitRentalStep: the later steps", () => {
  it("a later step without the details: back to the details step", async () => {
    expect(await submit({ intent: "protection", insurance_plan: "none" })).toEqual({ redirect: `/rent/${unitTypeId}?step=details` });
  });

  it("protection, sign, pay declined, pay approved, then a repeated payment lands on the confirmation", async () => {
    const id = await afterDetails();
    const c = await ctx();
    const bad = answer(await submit({ intent: "protection", move_in_date: c.today }, id));
    expect(bad.status).toBe(400);
    expect(bad.answer.result?.error?.insurance_plan?.length).toBeGreaterThan(0);
    expect(await submit({ intent: "protection", insurance_plan: "none", move_in_date: c.today }, id)).toEqual({ redirect: `/rent/${unitTypeId}?step=review` });

    const unsigned = answer(await submit({ intent: "sign", signed_name: "Someone Else", consent: "on" }, id));
    expect(unsigned.status).toBe(400);
    expect(unsigned.answer.result?.error?.signed_name?.[0]).toMatch(/exactly as on your details/);
    expect(await submit({ intent: "sign", signed_name: "Ada Lovelace", consent: "on" }, id)).toEqual({ redirect: `/rent/${unitTypeId}?step=pay` });

    const declined = answer(await submit({ ...PAY, card_number: "4000000000000002" }, id));
    expect(declined.status).toBe(402);
    expect(declined.answer.formError).toMatch(/declined/i);
    expect(declined.answer.result?.initialValue).not.toHaveProperty("card_number");
    expect(declined.answer.result?.initialValue).not.toHaveProperty("cvv");

    expect(await submit({ ...PAY, card_number: "4242424242424242" }, id)).toEqual({ redirect: `/rent/${unitTypeId}/confirmation` });
    expect(await submit({ ...PAY, card_number: "4242424242424242" }, id)).toEqual({ redirect: `/rent/${unitTypeId}/confirmation` });
    const [row] = await handle.db.select().from(rentals).where(eq(rentals.id, id));
    expect(row?.status).toBe("completed");
  });

  it("without e-sign, the sign step sends on to the pay step", async () => {
    await handle.db.update(locations).set({ globalSettings: { is_sitelink_esign_enabled: false } }).where(eq(locations.urlSlug, LUMBERTON));
    const id = await afterDetails();
    expect(await submit({ intent: "sign", signed_name: "x" }, id)).toEqual({ redirect: `/rent/${unitTypeId}?step=pay` });
  });

  it("cancel: the rental is given up, back to the location page, the cookie cleared", async () => {
    const id = await afterDetails();
    expect(await submit({ intent: "cancel" }, id)).toEqual({ redirect: `/locations/${LUMBERTON}`, cookie: "clear" });
    const [row] = await handle.db.select().from(rentals).where(eq(rentals.id, id));
    expect(row?.status).toBe("abandoned");
  });

  it("a step that does not exist is not an answer of the form", async () => {
    const id = await afterDetails();
    expect(await submit({ intent: "teleport" }, id)).toEqual({ unknownStep: true });
  });
});

describe("submitReservation", () => {
  const reserve = async (fields: Record<string, string>) =>
    submitReservation(handle.db, await ctx(), { formData: form(fields), clientIp: `192.0.2.${(++k % 200) + 1}`, now: NOW, origin: ORIGIN });
  const valid = () => ({ first_name: "Ada", last_name: "Lovelace", email: `ada.res.${process.pid}.${++k}@example.com`, phone: "910-555-0134", desired_move_in_date: "2026-11-23" });

  it("reservations off: 409 with the reason", async () => {
    const r = await reserve(valid());
    const c = await ctx();
    expect(r).toEqual({ status: 409, answer: { result: null, formError: reservationBlockMessage("reservations_off", formatPhone(c.location.phoneNumber)) } });
  });

  it("bad input: 400 with errors beside the fields and the values typed; valid: on to the confirmation", async () => {
    await handle.db.update(locations).set({ globalSettings: { is_reservations_enabled: true, reservation_days_valid: 3 } }).where(eq(locations.urlSlug, LUMBERTON));
    const bad = await reserve({ ...valid(), email: "nope" });
    if (!("answer" in bad)) throw new Error("expected an answer");
    expect(bad.status).toBe(400);
    expect(bad.answer.result?.error?.email?.length).toBeGreaterThan(0);
    expect(bad.answer.result?.initialValue).toMatchObject({ first_name: "Ada", email: "nope" });
    const ok = await reserve(valid());
    expect(ok).toMatchObject({ redirect: expect.stringMatching(/^\/reserve\/confirmed\//) });
  });
});
