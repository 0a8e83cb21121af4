/**
 * Card-testing protection (issue 8 item 1) and the portal payment cap (item 5), on the services and
 * through the rental route's action (a real form post with the CSRF token and rental cookie).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { count, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { rentals, leases, payments } from "~/db/schema";
import { getCsrfToken } from "~/services/web/csrf.server";
import { rentalCookieHeader } from "~/services/rental/record.server";
import {
  beginCardAttempt,
  CARD_DECLINED_MESSAGE,
  CARD_DECLINES_PER_EMAIL,
  CARD_DECLINES_PER_IP,
  cardApproved,
  cardDeclined,
  isCardLocked,
} from "~/services/payments/card-attempts.server";
import { hitRateLimit } from "~/services/web/rate-limit.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { accountStorage, portalLocations, type PortalContext } from "~/services/portal/context.server";
import { enrolAutopay, payLease, PAYMENT_ATTEMPTS_PER_TENANT, prepayLease } from "~/services/portal/payments.server";
import type { StorageSoftware } from "~/storage-software/port";
import { action as rentAction, loader as rentLoader } from "~/routes/rental/rent";
import { createTestDatabase } from "../support/db";
import { lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";
import { callRoute } from "../support/route-helpers";

let handle: DatabaseHandle;
let storage: StorageSoftware;
let ctx: PortalContext;
let unitTypeId: string;
let n = 0;
const INSUFFICIENT = "4000000000009995"; // the test gateway declines it with "Your card has insufficient funds."

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  handle = await createTestDatabase();
  const [account] = await handle.db.query.accounts.findMany({ limit: 1 });
  const locs = await portalLocations(handle.db, account!.id);
  storage = accountStorage(handle.db, locs).storage;
  ctx = { db: handle.db, now: NOW, locations: locs, siteName: "Gatehouse", accountId: account!.id } as PortalContext;
  unitTypeId = (await lumbertonUnitType(handle.db)).unitTypeId;
});
afterAll(async () => {
  delete process.env.FAKE_NOW;
  await handle?.close();
});
let warnSpy: { mockRestore: () => void } | null = null;
const spyWarn = () => {
  const spy = vi.spyOn(console, "warn").mockImplementation(() => {});
  warnSpy = spy;
  return spy;
};
afterEach(() => {
  warnSpy?.mockRestore();
  warnSpy = null;
});

async function payPost(rentalId: string, cardNumber: string) {
  const { token, setCookie } = await getCsrfToken(new Request("http://localhost/rent"));
  const cookie = `${setCookie!.split(";")[0]!}; ${(await rentalCookieHeader(rentalId)).split(";")[0]!}`;
  const body = new URLSearchParams({
    csrf: token,
    intent: "pay",
    card_number: cardNumber,
    exp_month: "12",
    exp_year: "2030",
    cvv: "987",
    name_on_card: "Ada Lovelace",
    billing_postal_code: "28358",
  });
  return callRoute<{ formError: string | null }>(rentAction, handle.db, `/rent/${unitTypeId}?step=pay`, {
    params: { unitTypeId },
    init: { method: "POST", body, headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } },
  });
}

describe("rental pay step (form post)", () => {
  it("says only 'declined', logs the reason without the card number, and locks the rental after 3 declined cards", async () => {
    const warn = spyWarn();
    const { id } = await signedRental(handle.db, unitTypeId);
    for (let i = 1; i <= 2; i++) {
      const r = await payPost(id, INSUFFICIENT);
      expect(r.status).toBe(402);
      expect(r.data.formError).toBe(CARD_DECLINED_MESSAGE);
    }
    const third = await payPost(id, INSUFFICIENT);
    expect(third.status).toBe(402);
    expect(third.data.formError).toContain("call the office at");
    expect(third.data.formError).not.toMatch(/insufficient/i);
    // A good card is not even tried now: the rental is locked.
    const fourth = await payPost(id, "4242424242424242");
    expect(fourth.status).toBe(429);
    expect(fourth.data.formError).toContain("call the office");
    const row = await handle.db.query.rentals.findFirst({ where: eq(rentals.id, id) });
    expect(row!.completedLeaseId).toBeNull();
    expect(await isCardLocked(handle.db, { kind: "rental", rentalId: id }, NOW)).toBe(true);
    // The page shows the locked notice instead of the form.
    const { setCookie } = await getCsrfToken(new Request("http://localhost/rent"));
    const page = await callRoute<{ blocked: string | null; view: unknown }>(rentLoader, handle.db, `/rent/${unitTypeId}?step=pay`, {
      params: { unitTypeId },
      init: { headers: { Cookie: `${setCookie!.split(";")[0]!}; ${(await rentalCookieHeader(id)).split(";")[0]!}` } },
    });
    expect(page.data.blocked).toContain("call the office");
    expect(page.data.view).toBeNull();
    // The server log has the gateway's reason and the last four digits only.
    const logged = warn.mock.calls.map((c) => c.join(" ")).join("\n");
    expect(logged).toContain("insufficient funds");
    expect(logged).toContain("ending 9995");
    expect(logged).not.toContain(INSUFFICIENT);
    expect(logged).not.toContain("987");
    expect(logged).not.toContain(id); // the rental's id is the cookie's value
  });

  it("an approved card after a decline rents the unit and gives the attempts back", async () => {
    spyWarn();
    const { id } = await signedRental(handle.db, unitTypeId);
    expect((await payPost(id, INSUFFICIENT)).status).toBe(402);
    const ok = await payPost(id, "4242424242424242");
    expect(ok.status).toBe(303);
    expect(await isCardLocked(handle.db, { kind: "rental", rentalId: id }, NOW)).toBe(false);
  });
});

describe("card attempt limits per e-mail and per IP (service)", () => {
  const decline = async (scope: { kind: "rental"; rentalId: string }, email: string, ip: string) => {
    const a = await beginCardAttempt(handle.db, { scope, email, ip, now: NOW });
    if (a.allowed) cardDeclined(a.ticket, { where: "test", reason: "declined", last4: "0002", phone: "9105550134", log: () => {} });
    return a.allowed;
  };

  it(`refuses the ${CARD_DECLINES_PER_EMAIL + 1}th declined card of one e-mail within the hour, across rentals`, async () => {
    const email = `carder-${++n}@example.com`;
    const results: boolean[] = [];
    for (let i = 0; i < CARD_DECLINES_PER_EMAIL; i++) results.push(await decline({ kind: "rental", rentalId: `ck-email-${n}-${Math.floor(i / 2)}` }, email, `198.51.100.${n}`));
    expect(results.every(Boolean)).toBe(true);
    expect(await decline({ kind: "rental", rentalId: `ck-email-${n}-fresh` }, email, `198.51.100.${n}`)).toBe(false);
    // An hour later the e-mail may try again.
    const later = new Date(NOW.getTime() + 61 * 60_000);
    expect((await beginCardAttempt(handle.db, { scope: { kind: "rental", rentalId: `ck-email-${n}-next` }, email, ip: "198.51.100.200", now: later })).allowed).toBe(true);
  });

  it(`refuses the ${CARD_DECLINES_PER_IP + 1}th declined card from one IP, whatever the e-mail and rental`, async () => {
    const ip = `192.0.2.${++n}`;
    for (let i = 0; i < CARD_DECLINES_PER_IP; i++) {
      expect(await decline({ kind: "rental", rentalId: `ck-ip-${n}-${i}` }, `ip-${n}-${i}@example.com`, ip)).toBe(true);
    }
    expect(await decline({ kind: "rental", rentalId: `ck-ip-${n}-x` }, `ip-${n}-x@example.com`, ip)).toBe(false);
  });

  it("an approved card does not count", async () => {
    const ip = `192.0.2.${++n}`;
    for (let i = 0; i < CARD_DECLINES_PER_IP + 2; i++) {
      const a = await beginCardAttempt(handle.db, { scope: { kind: "rental", rentalId: `ck-ok-${n}-${i}` }, email: `ok-${n}@example.com`, ip, now: NOW });
      expect(a.allowed).toBe(true);
      if (a.allowed) await cardApproved(handle.db, a.ticket);
    }
  });
});

describe("portal card attempts", () => {
  async function tenant() {
    const email = `card-portal-${++n}-${Date.now()}@example.com`;
    const t = await createTenantWithLease(handle.db, { email, password: "secret1", now: NOW, moveInDate: "2026-11-22", withInsurance: true });
    return { ...t, email };
  }
  const cardOf = (number: string) => ({ number, expMonth: 12, expYear: 2030, cvv: "987", nameOnCard: "Pat Tenant", postalCode: "28358" });
  const payments$ = async (leaseId: number) => (await handle.db.select({ n: count() }).from(payments).where(eq(payments.leaseId, leaseId)))[0]!.n;

  it("pay: no gateway reason, locked after 3 declined cards, then nothing reaches the gateway", async () => {
    const warn = spyWarn();
    const t = await tenant();
    const base = { tenantId: String(t.tenantId), leaseId: String(t.leaseId), amount: 1000, origin: "http://localhost", phone: "9105550134", ip: `203.0.113.${++n}`, prepayMonths: 3 };
    const key = (i: number) => `cardtest-${n}-${i}-abcdefghij`;
    const messages: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await payLease(ctx, storage, { ...base, method: { kind: "card", card: cardOf(INSUFFICIENT), saveCard: false }, idempotencyKey: key(i) });
      expect(r.ok).toBe(false);
      if (!r.ok) messages.push(r.message);
    }
    expect(messages[0]).toBe(CARD_DECLINED_MESSAGE);
    expect(messages[2]).toContain("call the office at (910) 555-0134");
    expect(messages.join(" ")).not.toMatch(/insufficient/i);
    const before = await payments$(t.leaseId);
    const locked = await payLease(ctx, storage, { ...base, method: { kind: "card", card: cardOf("4242424242424242"), saveCard: false }, idempotencyKey: key(9) });
    expect(locked).toMatchObject({ ok: false, message: expect.stringContaining("call the office") });
    expect(await payments$(t.leaseId)).toBe(before);
    // Prepay is locked too (same tenant).
    const prepay = await prepayLease(ctx, storage, { ...base, months: 1, expectedTotal: 0, method: { kind: "card", card: cardOf("4242424242424242"), saveCard: false }, idempotencyKey: key(10) });
    expect(prepay).toMatchObject({ ok: false, message: expect.stringContaining("call the office") });
    expect(warn.mock.calls.map((c) => c.join(" ")).join("\n")).not.toContain(INSUFFICIENT);
  });

  it("autopay enrolment counts as a card attempt and against the portal payment limit", async () => {
    spyWarn();
    const t = await tenant();
    const base = { tenantId: String(t.tenantId), leaseId: String(t.leaseId), phone: "9105550134", ip: `203.0.113.${++n}` };
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await enrolAutopay(ctx, storage, { ...base, method: { kind: "card", card: cardOf("4000000000000002"), saveCard: false } }));
    expect(results[0]).toEqual({ ok: false, message: CARD_DECLINED_MESSAGE });
    expect(results[2]).toMatchObject({ ok: false, message: expect.stringContaining("call the office") });
    const fourth = await enrolAutopay(ctx, storage, { ...base, method: { kind: "card", card: cardOf("4242424242424242"), saveCard: false } });
    expect(fourth.ok).toBe(false);
    const lease = await handle.db.query.leases.findFirst({ where: eq(leases.id, t.leaseId) });
    expect(lease!.autopayEnabled).toBe(false);

    // The portal's payment limit applies to enrolment too.
    const u = await tenant();
    for (let i = 0; i < PAYMENT_ATTEMPTS_PER_TENANT; i++) await hitRateLimit(handle.db, { key: `pay:tenant:${u.tenantId}`, limit: PAYMENT_ATTEMPTS_PER_TENANT, windowMs: 15 * 60_000, now: NOW });
    const limited = await enrolAutopay(ctx, storage, { ...base, tenantId: String(u.tenantId), leaseId: String(u.leaseId), method: { kind: "card", card: cardOf("4242424242424242"), saveCard: false } });
    expect(limited).toMatchObject({ ok: false, message: expect.stringContaining("Too many payment attempts") });
  });

  it("caps a payment at the balance plus the allowed prepayment, with a message beside the amount", async () => {
    const t = await tenant();
    const lease = (await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!;
    const offer = (await storage.quotePrepay(String(t.tenantId), String(t.leaseId), 1))!;
    const monthly = offer.lines.reduce((s, l) => s + l.amount + l.tax, 0);
    const cap = Math.max(0, lease.balance) + 3 * monthly;
    const base = { tenantId: String(t.tenantId), leaseId: String(t.leaseId), origin: "http://localhost", phone: "9105550134", ip: `203.0.113.${++n}`, prepayMonths: 3, method: { kind: "card" as const, card: cardOf("4242424242424242"), saveCard: false } };
    const before = await payments$(t.leaseId);
    const over = await payLease(ctx, storage, { ...base, amount: cap + 1, idempotencyKey: `cap-over-${n}-abcdefghij` });
    expect(over).toMatchObject({ ok: false, fieldErrors: { other_amount: [expect.stringContaining("You can pay at most")] } });
    expect(await payments$(t.leaseId)).toBe(before);
    // "1,50" was charged as $150.00; at the cap exactly it is fine.
    const atCap = await payLease(ctx, storage, { ...base, amount: cap, idempotencyKey: `cap-ok-${n}-abcdefghij` });
    expect(atCap.ok).toBe(true);
    const noPrepay = await payLease(ctx, storage, { ...base, amount: 100, prepayMonths: 0, idempotencyKey: `cap-none-${n}-abcdefghij` });
    expect(noPrepay).toMatchObject({ ok: false, fieldErrors: { other_amount: [expect.any(String)] } });
  });
});
