/**
 * Rate limits of the anonymous flows (issue 8 item 2): rental details, held units per IP, contact,
 * notify, reservations and forgot-password per recipient. Limited forms keep the typed values.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, eq, ne, sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { rentals, contactMessages, emailOutbox, tenants, units, unitTypes } from "~/db/schema";
import { ANONYMOUS_LIMITS, HOLDS_PER_IP, HOLDS_PER_TYPE_PER_IP, limitAnonymousForm, releaseHoldCount } from "~/services/web/anonymous-limits.server";
import { MAX_HOLD_MINUTES } from "~/domain/rental/hold";
import { getRental, renewHold, saveDetails } from "~/services/rental/record.server";
import { requestPasswordReset, RESET_LIMIT_PER_EMAIL } from "~/services/portal/sign-in-limits.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { accountStorage, portalLocations } from "~/services/portal/context.server";
import type { StorageSoftware } from "~/storage-software/port";
import { action as contactAction } from "~/routes/site/contact";
import { action as rentAction } from "~/routes/rental/rent";
import { createTestDatabase } from "../support/db";
import { loadContext } from "../support/route-helpers";
import { ctxFor, detailsFormFields, leaveAvailable, lumbertonUnitType, NOW, tenantDetails } from "../support/rental-fixtures";

let handle: DatabaseHandle;
let storage: StorageSoftware;
let n = 0;

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  handle = await createTestDatabase();
  const [account] = await handle.db.query.accounts.findMany({ limit: 1 });
  storage = accountStorage(handle.db, await portalLocations(handle.db, account!.id)).storage;
});
afterAll(async () => {
  delete process.env.FAKE_NOW;
  await handle?.close();
});

/** Posts a form to a route action from `ip`, the way the server does. */
async function post<T>(fn: (args: never) => unknown, url: string, fields: Record<string, string>, ip: string, params: Record<string, string> = {}) {
  const { token, setCookie } = await getCsrfToken(new Request(`http://localhost${url}`));
  const request = new Request(`http://localhost${url}`, {
    method: "POST",
    body: new URLSearchParams({ csrf: token, ...fields }),
    headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" },
  });
  const context = loadContext(handle.db, ip);
  try {
    const r = (await fn({ request, params, context } as never)) as { data: T; init: ResponseInit | null };
    return { status: r.init?.status ?? 200, data: r.data };
  } catch (thrown) {
    if (thrown instanceof Response) return { status: thrown.status, data: null as T };
    throw thrown;
  }
}

const details = (email: string) => detailsFormFields(email);

type FormReply = { result: { error: Record<string, string[] | null>; initialValue: Record<string, string> } | null; formError?: string | null };

/** Lumberton's unit types (not parking) with a free unit, most free first. */
async function freeUnitTypes(): Promise<string[]> {
  const { locationId } = await lumbertonUnitType(handle.db);
  const rows = await handle.db
    .select({ id: unitTypes.id, free: sql<number>`count(*) filter (where ${units.status} = 'available' and ${units.heldUntil} is null)`.mapWith(Number) })
    .from(unitTypes)
    .innerJoin(units, eq(units.unitTypeId, unitTypes.id))
    .where(and(eq(unitTypes.locationId, locationId), ne(unitTypes.category, "parking")))
    .groupBy(unitTypes.id);
  return rows
    .filter((r) => r.free >= 3)
    .sort((a, b) => b.free - a.free)
    .map((r) => String(r.id));
}

describe("held units per IP", () => {
  it(`holds at most ${HOLDS_PER_IP} units for one IPv6 /64 (any of its addresses); the next visitor keeps what they typed and is told when to try again`, async () => {
    const types = await freeUnitTypes();
    const net = `2001:db8:${(++n).toString(16)}:1`;
    const before = (await handle.db.select({ n: count() }).from(rentals))[0]!.n;
    for (let i = 0; i < HOLDS_PER_IP; i++) {
      const unitTypeId = types[i]!;
      const r = await post<FormReply>(rentAction, `/rent/${unitTypeId}?step=details`, details(`hold-${n}-${i}@example.com`), `${net}::${i + 1}`, { unitTypeId });
      expect(r.status).toBe(303);
    }
    const email = `hold-${n}-x@example.com`;
    const unitTypeId = types[HOLDS_PER_IP]!;
    // Another address of the same /64 is the same visitor.
    const r = await post<FormReply>(rentAction, `/rent/${unitTypeId}?step=details`, details(email), `${net}:abcd:ef01:2345:6789`, { unitTypeId });
    expect(r.status).toBe(429);
    expect(r.data.formError).toMatch(/already holding 3 units.*try again in 15 minutes/);
    expect(r.data.result!.initialValue).toMatchObject({ email, first_name: "Ada" });
    expect(r.data.result!.initialValue.web_pw).toBeUndefined();
    expect((await handle.db.select({ n: count() }).from(rentals))[0]!.n).toBe(before + HOLDS_PER_IP);
    // Another /64 is not affected.
    expect((await post<FormReply>(rentAction, `/rent/${unitTypeId}?step=details`, details(`hold-${n}-y@example.com`), `2001:db8:${n.toString(16)}:2::1`, { unitTypeId })).status).toBe(303);
  });

  it(`holds at most ${HOLDS_PER_TYPE_PER_IP} units of one type an hour for one address, even when it cancels them`, async () => {
    const [unitTypeId, other] = await freeUnitTypes();
    const ip = `198.18.6.${++n}`;
    for (let i = 0; i < HOLDS_PER_TYPE_PER_IP; i++) {
      const r = await post<FormReply>(rentAction, `/rent/${unitTypeId}?step=details`, details(`type-${n}-${i}@example.com`), ip, { unitTypeId: unitTypeId! });
      expect(r.status).toBe(303);
    }
    // Cancelling (what the cancel button does to the counts) gives the per-address hold back, not the per-type one.
    await releaseHoldCount(handle.db, ip);
    const r = await post<FormReply>(rentAction, `/rent/${unitTypeId}?step=details`, details(`type-${n}-x@example.com`), ip, { unitTypeId: unitTypeId! });
    expect(r.status).toBe(429);
    expect(r.data.formError).toMatch(/already held for your connection.*try again in 60 minutes/);
    // Another type is fine.
    expect((await post<FormReply>(rentAction, `/rent/${other}?step=details`, details(`type-${n}-o@example.com`), ip, { unitTypeId: other! })).status).toBe(303);
  });

  it(`keeps a unit for one rental at most ${MAX_HOLD_MINUTES} minutes, however often it renews; it can still rent it while free`, async () => {
    const { unitTypeId } = await lumbertonUnitType(handle.db, { category: "parking" });
    await leaveAvailable(handle.db, unitTypeId, 1);
    const ctx = await ctxFor(handle.db, unitTypeId, NOW);
    const id = await saveDetails(handle.db, ctx, { existing: null, details: tenantDetails(), webPw: "secret1", now: NOW });
    const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
    await renewHold(handle.db, ctx, (await getRental(handle.db, id, unitTypeId))!, at(10));
    expect((await getRental(handle.db, id, unitTypeId))!.expiresAt).toEqual(at(MAX_HOLD_MINUTES));
    // Still renewing after the cap: nothing more is held, and another visitor can hold the last unit.
    await renewHold(handle.db, ctx, (await getRental(handle.db, id, unitTypeId))!, at(MAX_HOLD_MINUTES + 1));
    expect((await getRental(handle.db, id, unitTypeId))!.expiresAt).toEqual(at(MAX_HOLD_MINUTES));
    const later = await ctxFor(handle.db, unitTypeId, at(MAX_HOLD_MINUTES + 1));
    await expect(saveDetails(handle.db, later, { existing: null, details: tenantDetails(), webPw: "secret1", now: at(MAX_HOLD_MINUTES + 1) })).resolves.toBeTruthy();
  });

  // Issue 36, finding 6 (decision 465): the answer no longer says whether the e-mail has an account.
  it("the rental details step answers the same whether or not the e-mail has an account, and counts the limit as for any e-mail", async () => {
    const [unitTypeId] = await freeUnitTypes();
    const ip = `198.18.7.${++n}`;
    const [account] = await handle.db.query.accounts.findMany({ limit: 1 });
    const RETURNING = `returning-${n}@example.com`;
    await handle.db.insert(tenants).values({
      accountId: account!.id,
      firstName: "Rita",
      lastName: "Returning",
      email: RETURNING,
      cellPhone: "(910) 555-0100",
      webPwHash: "x",
      addr1: "2 Main St",
      city: "Lumberton",
      region: "NC",
      postalCode: "28358",
    });
    const returning = await post<FormReply & { emailTaken: boolean }>(rentAction, `/rent/${unitTypeId}?step=details`, details(RETURNING), ip, { unitTypeId: unitTypeId! });
    const fresh = await post<FormReply & { emailTaken: boolean }>(rentAction, `/rent/${unitTypeId}?step=details`, details(`nobody-${n}@example.com`), `198.18.8.${n}`, { unitTypeId: unitTypeId! });
    expect(returning).toEqual(fresh);
    expect(returning.status).toBe(303);
    for (let i = 1; i < ANONYMOUS_LIMITS["rental-details"].limit; i++) {
      expect((await post<FormReply>(rentAction, `/rent/${unitTypeId}?step=details`, details(RETURNING.toUpperCase()), ip, { unitTypeId: unitTypeId! })).status).not.toBe(400);
    }
    const r = await post<FormReply & { emailTaken: boolean }>(rentAction, `/rent/${unitTypeId}?step=details`, details(RETURNING), ip, { unitTypeId: unitTypeId! });
    expect(r.status).toBe(429);
  });

  it("limits saves of the rental details per IP (each costs a password hash)", async () => {
    const ip = `198.18.2.${++n}`;
    for (let i = 0; i < ANONYMOUS_LIMITS["rental-details"].limit; i++) expect(await limitAnonymousForm(handle.db, "rental-details", ip, NOW)).toBeNull();
    expect(await limitAnonymousForm(handle.db, "rental-details", ip, NOW)).toMatch(/try again in 15 minutes/);
  });
});

describe("contact, notify and reservations", () => {
  it("the contact form refuses the 6th message from one IP within the hour, keeping what was typed, and stores nothing", async () => {
    const ip = `198.18.3.${++n}`;
    const fields = { name: "Sam Spammer", email: `spam-${n}@example.com`, phone: "", message: "Hello there, is a 10x10 free?" };
    for (let i = 0; i < ANONYMOUS_LIMITS.contact.limit; i++) expect((await post(contactAction, "/contact", fields, ip)).status).toBe(303);
    const stored = (await handle.db.select({ n: count() }).from(contactMessages).where(eq(contactMessages.email, fields.email)))[0]!.n;
    const r = await post<FormReply>(contactAction, "/contact", fields, ip);
    expect(r.status).toBe(429);
    expect(r.data.result!.error[""]).toEqual([expect.stringMatching(/try again in 60 minutes/)]);
    expect(r.data.result!.initialValue).toMatchObject({ message: fields.message, email: fields.email });
    expect((await handle.db.select({ n: count() }).from(contactMessages).where(eq(contactMessages.email, fields.email)))[0]!.n).toBe(stored);
  });

  it("notify and reservations have their own limits", async () => {
    const ip = `198.18.4.${++n}`;
    for (let i = 0; i < ANONYMOUS_LIMITS.notify.limit; i++) expect(await limitAnonymousForm(handle.db, "notify", ip, NOW)).toBeNull();
    expect(await limitAnonymousForm(handle.db, "notify", ip, NOW)).not.toBeNull();
    for (let i = 0; i < ANONYMOUS_LIMITS.reservation.limit; i++) expect(await limitAnonymousForm(handle.db, "reservation", ip, NOW)).toBeNull();
    expect(await limitAnonymousForm(handle.db, "reservation", ip, NOW)).toMatch(/try again in 1440 minutes/);
  });
});

describe("forgot password per recipient", () => {
  it(`sends at most ${RESET_LIMIT_PER_EMAIL} reset e-mails an hour to one address, from any IPs`, async () => {
    const email = `victim-${++n}@example.com`;
    const results = [];
    for (let i = 0; i < RESET_LIMIT_PER_EMAIL + 1; i++) {
      results.push(await requestPasswordReset(handle.db, storage, { email, ip: `198.18.5.${i}`, origin: "http://localhost", now: NOW, siteName: "G" }));
    }
    expect(results.slice(0, RESET_LIMIT_PER_EMAIL).every((r) => !r.limited)).toBe(true);
    expect(results.at(-1)).toMatchObject({ limited: true, retryAfterMinutes: 60 });
    expect((await handle.db.select({ n: count() }).from(emailOutbox).where(eq(emailOutbox.to, email)))[0]!.n).toBe(0);
  });
});
