import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, emailOutbox, reservations, tenants, units } from "~/db/schema";
import { getCsrfToken } from "~/services/web/csrf.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { action as reserveAction, loader as reserveLoader } from "~/routes/rental/reserve";
import { loader as confirmedLoader } from "~/routes/rental/reserve.confirmed";
import { callRoute } from "../support/route-helpers";
import { reserveUnit, sweepExpiredReservations } from "~/services/rental/reservation.server";
import { sha256 } from "~/services/rental/record.server";
import { EMAIL_TAKEN_MESSAGE, StorageValidationError, UnitUnavailableError } from "~/storage-software/errors";
import { createTestDatabase } from "../support/db";
import { ctxFor, leaveAvailable, lumbertonUnitType, NOW } from "../support/rental-fixtures";
import { sql } from "drizzle-orm";
import { readOutboxMail } from "~/services/mail/outbox.server";
import { productionBcryptCost } from "../support/bcrypt-cost";

// bcrypt at the production cost (decision 523): the stored hash is checked to be a production one.
productionBcryptCost();

const form = (n: number) => ({
  first_name: "Grace",
  last_name: "Hopper",
  email: `grace.${process.pid}.${Date.now()}.${n}@example.com`,
  phone: "(910) 555-0199",
  desired_move_in_date: "2026-11-23",
});

describe("reservations (local adapter, real database)", () => {
  let handle: DatabaseHandle;
  beforeEach(async () => {
    handle = await createTestDatabase();
    await handle.db.update(accounts).set({ globalSettings: sql`${accounts.globalSettings} || '{"is_reservations_enabled": true}'::jsonb` });
  });
  afterEach(() => handle.close());

  it("keeps a unit for reservation_days_valid days, emails a cancel link, and is idempotent", async () => {
    const { db } = handle;
    const { unitTypeId } = await lumbertonUnitType(db);
    const ctx = await ctxFor(db, unitTypeId);
    const before = ctx.unitType.availableCount;
    const { reservation, cancelToken } = await reserveUnit(db, ctx, { form: form(1), idempotencyKey: "k1", now: NOW, origin: "http://x" });
    expect(reservation.status).toBe("active");
    expect(reservation.expiresAt.toISOString()).toBe("2026-11-24T15:00:00.000Z");
    expect(cancelToken).toBeTruthy();
    const row = (await db.query.reservations.findFirst({ where: eq(reservations.id, Number(reservation.id)) }))!;
    expect(row.cancelTokenHash).toBe(sha256(cancelToken!));
    expect(row.cancelTokenHash).not.toContain(cancelToken!);
    expect((await db.query.units.findFirst({ where: eq(units.id, row.unitId) }))!.status).toBe("reserved");
    expect((await ctxFor(db, unitTypeId)).unitType.availableCount).toBe(before - 1);
    const [mail] = await db.select().from(emailOutbox).where(eq(emailOutbox.to, reservation.email));
    expect(readOutboxMail(mail!).text).toContain(`/reserve/cancel/${reservation.id}?token=${cancelToken}`);

    const again = await reserveUnit(db, ctx, { form: form(1), idempotencyKey: "k1", now: NOW, origin: "http://x" });
    expect(again.reservation.id).toBe(reservation.id);
    expect(again.cancelToken).toBeNull();
    expect((await db.select({ n: count() }).from(reservations))[0]!.n).toBe(1);
  });

  it("expires after two days: released on read and by the sweep", async () => {
    const { db } = handle;
    const { unitTypeId } = await lumbertonUnitType(db);
    const ctx = await ctxFor(db, unitTypeId);
    const before = ctx.unitType.availableCount;
    const { reservation } = await reserveUnit(db, ctx, { form: form(2), idempotencyKey: "k2", now: NOW, origin: "http://x" });
    const almost = new Date(NOW.getTime() + 2 * 24 * 3600_000 - 1000);
    expect((await ctx.storage.getReservation({ id: reservation.id, now: almost }))!.status).toBe("active");
    const after = new Date(NOW.getTime() + 2 * 24 * 3600_000);
    expect((await ctx.storage.getReservation({ id: reservation.id, now: after }))!.status).toBe("expired");
    expect((await ctxFor(db, unitTypeId, after)).unitType.availableCount).toBe(before);

    const second = await reserveUnit(db, ctx, { form: form(3), idempotencyKey: "k3", now: after, origin: "http://x" });
    const later = new Date(after.getTime() + 3 * 24 * 3600_000);
    expect(await sweepExpiredReservations(db, later)).toBe(1);
    expect(await sweepExpiredReservations(db, later)).toBe(0);
    const row = (await db.query.reservations.findFirst({ where: eq(reservations.id, Number(second.reservation.id)) }))!;
    expect(row.status).toBe("expired");
    expect((await db.query.units.findFirst({ where: eq(units.id, row.unitId) }))!.status).toBe("available");
  });

  it("cancels with the emailed token only", async () => {
    const { db } = handle;
    const { unitTypeId } = await lumbertonUnitType(db);
    const ctx = await ctxFor(db, unitTypeId);
    const { reservation, cancelToken } = await reserveUnit(db, ctx, { form: form(4), idempotencyKey: "k4", now: NOW, origin: "http://x" });
    expect(await ctx.storage.cancelReservation({ id: reservation.id, cancelTokenHash: sha256("wrong"), now: NOW })).toBeNull();
    const cancelled = await ctx.storage.cancelReservation({ id: reservation.id, cancelTokenHash: sha256(cancelToken!), now: NOW });
    expect(cancelled!.status).toBe("cancelled");
    expect((await db.query.units.findFirst({ where: eq(units.id, Number(reservation.unitId)) }))!.status).toBe("available");
  });

  it("the last unit cannot be reserved twice, nor reserved while held for a rental", async () => {
    const { db } = handle;
    const { unitTypeId } = await lumbertonUnitType(db);
    await leaveAvailable(db, unitTypeId, 1);
    const ctx = await ctxFor(db, unitTypeId);
    const results = await Promise.allSettled([
      reserveUnit(db, ctx, { form: form(5), idempotencyKey: "k5", now: NOW, origin: "http://x" }),
      reserveUnit(db, ctx, { form: form(6), idempotencyKey: "k6", now: NOW, origin: "http://x" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(UnitUnavailableError);
    expect((await db.select({ n: count() }).from(reservations).where(eq(reservations.status, "active")))[0]!.n).toBe(1);
  });
});

describe("reservation short form flag off: the full account-creation form (decision 135)", () => {
  let handle: DatabaseHandle;
  beforeEach(async () => {
    handle = await createTestDatabase();
    await handle.db
      .update(accounts)
      .set({ globalSettings: sql`${accounts.globalSettings} || '{"is_reservations_enabled": true, "is_reservation_short_form_enabled": false}'::jsonb` });
  });
  afterEach(() => handle.close());

  const fullForm = (email: string, over: Record<string, string> = {}) => ({
    csrf: "", idempotency_key: `fullform${Date.now()}${Math.random().toString(36).slice(2)}`,
    first_name: "Grace", last_name: "Hopper", email, cell_phone: "910 555 0199", web_pw: "Navy-1906", confirm_web_pw: "Navy-1906",
    addr_1: "1 Main St", addr_2: "", city: "Lumberton", region: "NC", postal_code: "28358", is_military: "on",
    alt_contact_first_name: "Ada", alt_contact_last_name: "Byron", alt_contact_phone: "(910) 555-0134", desired_move_in_date: "2026-11-23",
    ...over,
  });

  async function post(unitTypeId: string, fields: Record<string, string>) {
    const { token, setCookie } = await getCsrfToken(new Request("http://localhost/"));
    // The page's own first date (the route's clock is the real one).
    const page = await callRoute<{ window: { min: string } }>(reserveLoader, handle.db, `/reserve/${unitTypeId}`, { params: { unitTypeId } });
    const body = new URLSearchParams({ ...fields, desired_move_in_date: page.data.window.min, csrf: token });
    return callRoute<{ result?: { error?: Record<string, string[]>; initialValue?: Record<string, unknown> } }>(reserveAction, handle.db, `/reserve/${unitTypeId}`, {
      params: { unitTypeId },
      clientIp: `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
      init: { method: "POST", body, headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" } },
    });
  }

  it("the page asks for the account-creation form instead of the short form", async () => {
    const { unitTypeId } = await lumbertonUnitType(handle.db);
    const page = await callRoute<{ shortForm: boolean }>(reserveLoader, handle.db, `/reserve/${unitTypeId}`, { params: { unitTypeId } });
    expect(page.data.shortForm).toBe(false);
  });

  it("creates the tenant with the reservation: every field stored, the password hashed, and the visitor can sign in", async () => {
    const { db } = handle;
    const { unitTypeId } = await lumbertonUnitType(db);
    const email = `grace.full.${Date.now()}@example.com`;
    const r = await post(unitTypeId, fullForm(email));
    expect(r.status).toBe(303);
    expect(r.headers.get("Location")).toMatch(/^\/reserve\/confirmed\//);
    const tenant = (await db.query.tenants.findFirst({ where: eq(tenants.email, email) }))!;
    expect(tenant).toMatchObject({
      firstName: "Grace", lastName: "Hopper", cellPhone: "(910) 555-0199", addr1: "1 Main St", addr2: null, city: "Lumberton", region: "NC",
      postalCode: "28358", isMilitary: true, isCompany: false, isCommercial: false, altContactFirstName: "Ada", altContactLastName: "Byron", altContactPhone: "(910) 555-0134",
    });
    expect(tenant.webPwHash).toMatch(/^\$2[aby]\$10\$/);
    expect(tenant.webPwHash).not.toContain("Navy-1906");
    const reservation = (await db.query.reservations.findFirst({ where: eq(reservations.email, email) }))!;
    expect(reservation.tenantId).toBe(tenant.id);
    const ctx = await ctxFor(db, unitTypeId);
    expect(await ctx.storage.authenticateTenant({ email, password: "Navy-1906" })).toEqual({ tenantId: String(tenant.id) });
    const [mail] = await db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
    expect(mail!.text).toContain("/customer-portal/login");
    const confirmed = await callRoute<{ hasAccount: boolean }>(confirmedLoader, db, r.headers.get("Location")!, { params: { code: r.headers.get("Location")!.split("/").pop()! } });
    expect(confirmed.data.hasAccount).toBe(true);
  });

  it("keeps the spec's rules: required fields, 6–20 character passwords that match, the email of an existing account refused with its message; nothing saved", async () => {
    const { db } = handle;
    const { unitTypeId } = await lumbertonUnitType(db);
    const before = (await db.select({ n: count() }).from(reservations))[0]!.n;
    const missing = await post(unitTypeId, fullForm("x1@example.com", { addr_1: "", city: "", region: "", postal_code: "", web_pw: "", confirm_web_pw: "" }));
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.data.result!.error!).sort()).toEqual(["addr_1", "city", "confirm_web_pw", "postal_code", "region", "web_pw"]);
    expect((await post(unitTypeId, fullForm("x2@example.com", { web_pw: "abc", confirm_web_pw: "abc" }))).data.result!.error!.web_pw).toEqual(["Your password must be at least 6 characters."]);
    expect((await post(unitTypeId, fullForm("x3@example.com", { web_pw: "a".repeat(21), confirm_web_pw: "a".repeat(21) }))).data.result!.error!.web_pw).toEqual(["Your password can be at most 20 characters."]);
    const mismatch = await post(unitTypeId, fullForm("x4@example.com", { confirm_web_pw: "Navy-1907" }));
    expect(mismatch.data.result!.error!.confirm_web_pw).toEqual(["The passwords do not match."]);
    // The passwords are never sent back into the page.
    expect(mismatch.data.result!.initialValue).not.toHaveProperty("web_pw");
    await createTenantWithLease(db, { email: "taken@example.com", password: "secret1", now: NOW });
    const taken = await post(unitTypeId, fullForm("Taken@Example.com"));
    expect(taken.status).toBe(400);
    expect(taken.data.result!.error!.email).toEqual([EMAIL_TAKEN_MESSAGE]);
    expect((await db.select({ n: count() }).from(reservations))[0]!.n).toBe(before);
    expect((await db.select({ n: count() }).from(tenants).where(eq(tenants.email, "x4@example.com")))[0]!.n).toBe(0);
  });

  it("the same email at the same time: one account, the other told the email is taken, and its unit not reserved", async () => {
    const { db } = handle;
    const { unitTypeId } = await lumbertonUnitType(db);
    const ctx = await ctxFor(db, unitTypeId);
    const tenant = { firstName: "Grace", lastName: "Hopper", email: "race@example.com", cellPhone: "(910) 555-0199", webPwHash: "$2b$04$abcdefghijklmnopqrstuu5Pc1b1YkYxQm0yR6uXh5Z3v2nC6Q7bO", addr1: "1 Main St", city: "Lumberton", region: "NC", postalCode: "28358", isMilitary: false, isCompany: false, isCommercial: false };
    const base = { unitTypeId, firstName: "Grace", lastName: "Hopper", email: "race@example.com", phone: "(910) 555-0199", desiredMoveInDate: "2026-11-23", expiresAt: new Date(NOW.getTime() + 86_400_000), cancelTokenHash: "h", now: NOW, tenant };
    const results = await Promise.allSettled([
      ctx.storage.reserveUnit({ ...base, confirmationCode: "racecode1", idempotencyKey: "race-1" }),
      ctx.storage.reserveUnit({ ...base, confirmationCode: "racecode2", idempotencyKey: "race-2" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(StorageValidationError);
    expect((await db.select({ n: count() }).from(reservations))[0]!.n).toBe(1);
    expect((await db.select({ n: count() }).from(tenants).where(eq(tenants.email, "race@example.com")))[0]!.n).toBe(1);
  });
});
