import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, eq, sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { billingRuns, emailOutbox, leases, ledgerEntries, moveOutNotices, payments, savedCards, units } from "~/db/schema";
import { DEMO_TENANT_EMAIL, DEMO_TENANT_PASSWORD, seedDemoTenant } from "../../../seeds/demo-tenant";
import { createTenantWithLease, type TenantWithLease } from "~/services/portal/demo-tenant.server";
import { portalLocations, accountStorage, requirePortalUnit, type PortalContext } from "~/services/portal/context.server";
import { isResetTokenValid, requestPasswordReset, resetPassword, signIn, SIGNIN_FAILED_MESSAGE, SIGNIN_LIMIT_PER_ACCOUNT, SIGNIN_LIMIT_PER_IP } from "~/services/portal/sign-in-limits.server";
import { createTenantSession, destroyTenantSession, getTenantSession } from "~/services/web/session.server";
import { runBilling } from "~/services/payments/billing-run.server";
import { payLease, PAYMENT_ATTEMPTS_PER_TENANT } from "~/services/portal/payments.server";
import { storageFor } from "~/storage-software/index.server";
import type { StorageSoftware } from "~/storage-software/port";
import { PaymentDeclinedError } from "~/storage-software/errors";
import { addMonthsIso } from "~/domain/shared/calendar";
import { createTestDatabase } from "../support/db";
import { readOutboxMail } from "~/services/mail/outbox.server";

const NOW = new Date("2026-11-22T15:00:00Z"); // 10:00 in Lumberton
const TODAY = "2026-11-22";
const card = (number = "4242424242424242") => ({ number, expMonth: 12, expYear: 2030, cvv: "123", nameOnCard: "Pat Tenant", postalCode: "28358" });

let handle: DatabaseHandle;
let storage: StorageSoftware;
let accountId: number;
let n = 0;
const email = () => `portal-${++n}-${Date.now()}@example.com`;

async function tenantWithLease(options: { withInsurance?: boolean; moveInDate?: string } = {}): Promise<TenantWithLease & { email: string }> {
  const e = email();
  const t = await createTenantWithLease(handle.db, { email: e, password: "secret1", now: NOW, moveInDate: options.moveInDate ?? TODAY, withInsurance: options.withInsurance ?? true });
  return { ...t, email: e };
}

beforeAll(async () => {
  handle = await createTestDatabase();
  const [account] = await handle.db.query.accounts.findMany({ limit: 1 });
  accountId = account!.id;
  storage = accountStorage(handle.db, await portalLocations(handle.db, accountId)).storage;
});
afterAll(() => handle?.close());

describe("sign-in", () => {
  it("signs in with email and web password, any case of the email", async () => {
    const t = await tenantWithLease();
    const r = await signIn(handle.db, storage, { accountId, email: t.email.toUpperCase(), password: "secret1", ip: "10.0.0.1", now: NOW });
    expect(r).toEqual({ ok: true, tenantId: String(t.tenantId) });
  });

  it("gives the same answer for a wrong password and an unknown email", async () => {
    const t = await tenantWithLease();
    const wrong = await signIn(handle.db, storage, { accountId, email: t.email, password: "nope123", ip: "10.0.0.2", now: NOW });
    const unknown = await signIn(handle.db, storage, { accountId, email: `nobody-${Date.now()}@example.com`, password: "nope123", ip: "10.0.0.2", now: NOW });
    expect(wrong).toEqual({ ok: false, limited: false, message: SIGNIN_FAILED_MESSAGE });
    expect(unknown).toEqual(wrong);
  });

  it("limits attempts per account, even with the right password, then lets the tenant in after the window", async () => {
    const t = await tenantWithLease();
    for (let i = 0; i < SIGNIN_LIMIT_PER_ACCOUNT; i++) {
      const r = await signIn(handle.db, storage, { accountId, email: t.email, password: "wrong!!", ip: `10.1.0.${i}`, now: NOW });
      expect(r.ok).toBe(false);
    }
    const blocked = await signIn(handle.db, storage, { accountId, email: t.email, password: "secret1", ip: "10.1.1.1", now: NOW });
    expect(blocked).toMatchObject({ ok: false, limited: true });
    if (!blocked.ok) expect(blocked.message).toMatch(/Too many sign-in attempts.*wait 15 minutes/);
    // An unknown email is limited the same way (no hint that it does not exist).
    const ghost = `ghost-${Date.now()}@example.com`;
    for (let i = 0; i < SIGNIN_LIMIT_PER_ACCOUNT; i++) await signIn(handle.db, storage, { accountId, email: ghost, password: "x", ip: `10.2.0.${i}`, now: NOW });
    expect(await signIn(handle.db, storage, { accountId, email: ghost, password: "x", ip: "10.2.1.1", now: NOW })).toMatchObject({ limited: true });

    const later = new Date(NOW.getTime() + 16 * 60 * 1000);
    expect(await signIn(handle.db, storage, { accountId, email: t.email, password: "secret1", ip: "10.1.1.1", now: later })).toMatchObject({ ok: true });
  });

  it("counts only failed sign-ins against an IP: many tenants behind one network can sign in", async () => {
    const t = await tenantWithLease();
    for (let i = 0; i < SIGNIN_LIMIT_PER_IP + 5; i++) {
      expect(await signIn(handle.db, storage, { accountId, email: t.email, password: "secret1", ip: "192.0.2.60", now: NOW })).toMatchObject({ ok: true });
    }
    for (let i = 0; i < SIGNIN_LIMIT_PER_IP; i++) {
      await signIn(handle.db, storage, { accountId, email: `guess-${i}-${Date.now()}@example.com`, password: "x", ip: "192.0.2.60", now: NOW });
    }
    expect(await signIn(handle.db, storage, { accountId, email: t.email, password: "secret1", ip: "192.0.2.60", now: NOW })).toMatchObject({ ok: false, limited: true });
  });

  it("limits attempts per IP across accounts", async () => {
    const t = await tenantWithLease();
    for (let i = 0; i < SIGNIN_LIMIT_PER_IP; i++) {
      await signIn(handle.db, storage, { accountId, email: `spray-${i}-${Date.now()}@example.com`, password: "x", ip: "192.0.2.50", now: NOW });
    }
    expect(await signIn(handle.db, storage, { accountId, email: t.email, password: "secret1", ip: "192.0.2.50", now: NOW })).toMatchObject({ ok: false, limited: true });
    expect(await signIn(handle.db, storage, { accountId, email: t.email, password: "secret1", ip: "192.0.2.51", now: NOW })).toMatchObject({ ok: true });
  });
});

describe("sessions", () => {
  it("are backed by a row: sign-out and expiry end them", async () => {
    const t = await tenantWithLease();
    const setCookie = await createTenantSession(handle.db, { tenantId: String(t.tenantId), now: NOW });
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const cookie = setCookie.split(";")[0]!;
    const request = new Request("http://localhost/customer-portal", { headers: { Cookie: cookie } });
    expect(await getTenantSession(handle.db, request, NOW)).toMatchObject({ tenantId: String(t.tenantId) });
    // Idle for more than an hour: gone.
    expect(await getTenantSession(handle.db, request, new Date(NOW.getTime() + 61 * 60 * 1000))).toBeNull();

    const again = (await createTenantSession(handle.db, { tenantId: String(t.tenantId), now: NOW })).split(";")[0]!;
    const r2 = new Request("http://localhost/customer-portal", { headers: { Cookie: again } });
    expect(await getTenantSession(handle.db, r2, NOW)).not.toBeNull();
    await destroyTenantSession(handle.db, r2);
    expect(await getTenantSession(handle.db, r2, NOW)).toBeNull();
    // A tampered cookie is refused.
    const tampered = new Request("http://localhost/", { headers: { Cookie: again.replace(/.$/, (c) => (c === "A" ? "B" : "A")) } });
    expect(await getTenantSession(handle.db, tampered, NOW)).toBeNull();
  });
});

describe("password reset", () => {
  it("emails a single-use link that expires after an hour", async () => {
    const t = await tenantWithLease();
    const session = (await createTenantSession(handle.db, { tenantId: String(t.tenantId), now: NOW })).split(";")[0]!;
    const r = await requestPasswordReset(handle.db, storage, { email: t.email, ip: "10.9.0.1", origin: "http://localhost", now: NOW, siteName: "Gatehouse" });
    expect(r.sent).toBe(true);
    const [mail] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, t.email));
    const token = /token=([A-Za-z0-9_-]+)/.exec(readOutboxMail(mail!).text)![1]!;
    expect(await isResetTokenValid(handle.db, token, NOW)).toBe(true);

    expect(await resetPassword(handle.db, storage, { token, password: "newpass1", now: NOW })).toMatchObject({ ok: true });
    expect(await resetPassword(handle.db, storage, { token, password: "another1", now: NOW })).toEqual({ ok: false });
    expect(await signIn(handle.db, storage, { accountId, email: t.email, password: "newpass1", ip: "10.9.0.2", now: NOW })).toMatchObject({ ok: true });
    // Every session ended with the reset.
    expect(await getTenantSession(handle.db, new Request("http://x/", { headers: { Cookie: session } }), NOW)).toBeNull();

    await requestPasswordReset(handle.db, storage, { email: t.email, ip: "10.9.0.1", origin: "http://localhost", now: NOW, siteName: "Gatehouse" });
    const mails = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, t.email));
    const token2 = /token=([A-Za-z0-9_-]+)/.exec(readOutboxMail(mails.at(-1)!).text)![1]!;
    const late = new Date(NOW.getTime() + 61 * 60 * 1000);
    expect(await isResetTokenValid(handle.db, token2, late)).toBe(false);
    expect(await resetPassword(handle.db, storage, { token: token2, password: "late1234", now: late })).toEqual({ ok: false });
  });

  it("sends nothing for an unknown email (and says the same)", async () => {
    const ghost = `ghost-reset-${Date.now()}@example.com`;
    expect(await requestPasswordReset(handle.db, storage, { email: ghost, ip: "10.9.1.1", origin: "http://localhost", now: NOW, siteName: "G" })).toEqual({ sent: false, limited: false });
    expect((await handle.db.select({ n: count() }).from(emailOutbox).where(eq(emailOutbox.to, ghost)))[0]!.n).toBe(0);
  });
});

async function ledgerCounts(leaseId: number) {
  const [p] = await handle.db.select({ n: count() }).from(payments).where(eq(payments.leaseId, leaseId));
  const [l] = await handle.db.select({ n: count() }).from(ledgerEntries).where(eq(ledgerEntries.leaseId, leaseId));
  return { payments: p!.n, lines: l!.n };
}

describe("payments", () => {
  it("a double submit charges once (idempotency key)", async () => {
    const t = await tenantWithLease();
    const s = storageFor(handle.db, (await portalLocations(handle.db, accountId)).find((l) => l.id === t.locationId)!);
    const before = await ledgerCounts(t.leaseId);
    const input = { tenantId: String(t.tenantId), leaseId: String(t.leaseId), amount: 2500, method: { kind: "card" as const, card: card(), saveCard: true }, idempotencyKey: `idem-${Date.now()}-abcdefgh`, now: NOW };
    const [a, b] = await Promise.all([s.makePayment(input), s.makePayment(input)]);
    const c = await s.makePayment(input);
    expect(a.id).toBe(b.id);
    expect(c.id).toBe(a.id);
    expect(await ledgerCounts(t.leaseId)).toEqual({ payments: before.payments + 1, lines: before.lines + 1 });
    expect((await s.getTenantLease(String(t.tenantId), String(t.leaseId)))!.balance).toBe(-2500);
    // The card was saved as brand and last four only.
    const cards = await handle.db.select().from(savedCards).where(eq(savedCards.tenantId, t.tenantId));
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({ brand: "visa", last4: "4242" });
    expect(JSON.stringify(cards[0])).not.toContain("4242424242424242");
  });

  it("a declined card charges nothing and writes no ledger line", async () => {
    const t = await tenantWithLease();
    const before = await ledgerCounts(t.leaseId);
    await expect(
      storage.makePayment({ tenantId: String(t.tenantId), leaseId: String(t.leaseId), amount: 1000, method: { kind: "card", card: card("4000000000000002"), saveCard: false }, idempotencyKey: `dec-${Date.now()}-abcdefgh`, now: NOW }),
    ).rejects.toBeInstanceOf(PaymentDeclinedError);
    const after = await ledgerCounts(t.leaseId);
    expect(after.lines).toBe(before.lines);
    const [declined] = await handle.db.select().from(payments).where(and(eq(payments.leaseId, t.leaseId), eq(payments.status, "declined")));
    expect(declined).toMatchObject({ amount: 1000, declineReason: "Your card was declined." });
  });

  it("is atomic: when the ledger line cannot be written, no payment is left", async () => {
    const t = await tenantWithLease();
    const before = await ledgerCounts(t.leaseId);
    await handle.db.execute(sql.raw(`
      create or replace function refuse_payment_line() returns trigger language plpgsql as $$
      begin
        if new.kind = 'payment' and new.lease_id = ${t.leaseId} then raise exception 'ledger is down'; end if;
        return new;
      end $$`));
    await handle.db.execute(sql.raw("create trigger refuse_payment_line before insert on ledger_entries for each row execute function refuse_payment_line()"));
    try {
      await expect(
        storage.makePayment({ tenantId: String(t.tenantId), leaseId: String(t.leaseId), amount: 1500, method: { kind: "card", card: card(), saveCard: false }, idempotencyKey: `atom-${Date.now()}-abcdefgh`, now: NOW }),
      ).rejects.toThrow();
    } finally {
      await handle.db.execute(sql.raw("drop trigger refuse_payment_line on ledger_entries"));
      await handle.db.execute(sql.raw("drop function refuse_payment_line()"));
    }
    expect(await ledgerCounts(t.leaseId)).toEqual(before);
  });

  it("refuses another tenant's lease, payment and card", async () => {
    const a = await tenantWithLease();
    const b = await tenantWithLease();
    const locs = await portalLocations(handle.db, accountId);
    const ctx = { db: handle.db, now: NOW, locations: locs } as PortalContext;
    await expect(requirePortalUnit(ctx, String(a.tenantId), String(b.leaseId))).rejects.toMatchObject({ init: { status: 404 } });
    await expect(requirePortalUnit(ctx, String(a.tenantId), "abc")).rejects.toMatchObject({ init: { status: 404 } });
    expect(await storage.getTenantLease(String(a.tenantId), String(b.leaseId))).toBeNull();
    expect(await storage.getLedger(String(a.tenantId), String(b.leaseId))).toBeNull();
    const [bPayment] = await handle.db.select().from(payments).where(eq(payments.leaseId, b.leaseId));
    expect(await storage.getReceipt(String(a.tenantId), String(bPayment!.id))).toBeNull();
    expect(await storage.getReceipt(String(b.tenantId), String(bPayment!.id))).not.toBeNull();
    await expect(
      storage.makePayment({ tenantId: String(a.tenantId), leaseId: String(b.leaseId), amount: 100, method: { kind: "card", card: card(), saveCard: false }, idempotencyKey: `other-${Date.now()}-abcdefgh`, now: NOW }),
    ).rejects.toThrow(/not on your account/);
  });
});

describe("portal payment service", () => {
  it("emails one receipt for a double submit and limits card attempts per tenant", async () => {
    const t = await tenantWithLease();
    const locs = await portalLocations(handle.db, accountId);
    const ctx = { db: handle.db, now: NOW, locations: locs, siteName: "Gatehouse" } as PortalContext;
    const input = { tenantId: String(t.tenantId), leaseId: String(t.leaseId), amount: 1000, method: { kind: "card" as const, card: card(), saveCard: false }, origin: "http://localhost", phone: "(910) 555-0134", ip: "10.9.0.1", prepayMonths: 3 };
    const key = `svc-${Date.now()}-abcdefgh`;
    const a = await payLease(ctx, storage, { ...input, idempotencyKey: key });
    const b = await payLease(ctx, storage, { ...input, idempotencyKey: key });
    expect(a).toEqual(b);
    const receipts = await handle.db.select().from(emailOutbox).where(and(eq(emailOutbox.to, t.email), sql`${emailOutbox.subject} like 'Payment receipt%'`));
    expect(receipts).toHaveLength(1);
    expect(receipts[0]!.text).toContain("$10.00");
    for (let i = 1; i < PAYMENT_ATTEMPTS_PER_TENANT; i++) await payLease(ctx, storage, { ...input, idempotencyKey: `svc-${i}-${Date.now()}-abcdefgh` });
    const limited = await payLease(ctx, storage, { ...input, idempotencyKey: `svc-x-${Date.now()}-abcdefgh` });
    expect(limited).toMatchObject({ ok: false, message: expect.stringContaining("Too many payment attempts") });
  });
});

describe("prepay", () => {
  it("quotes 1 to 3 months with rent and protection plan and pays them in one go", async () => {
    const t = await tenantWithLease({ withInsurance: true });
    const lease = (await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!;
    const monthly = lease.monthlyRate + lease.insurancePremium;
    expect(lease.insurancePremium).toBe(895);
    for (const months of [1, 2, 3]) {
      const q = (await storage.quotePrepay(String(t.tenantId), String(t.leaseId), months))!;
      expect(q.total).toBe(monthly * months);
      expect(q.newPaidThroughDate).toBe(addMonthsIso("2026-12-21", months));
    }
    const q3 = (await storage.quotePrepay(String(t.tenantId), String(t.leaseId), 3))!;
    expect(q3.newPaidThroughDate).toBe("2027-03-21");
    await expect(
      storage.prepay({ tenantId: String(t.tenantId), leaseId: String(t.leaseId), months: 3, expectedTotal: q3.total - 1, method: { kind: "card", card: card(), saveCard: false }, idempotencyKey: `pre-x-${Date.now()}-abcdef`, now: NOW }),
    ).rejects.toThrow(/amount changed/);
    const p = await storage.prepay({ tenantId: String(t.tenantId), leaseId: String(t.leaseId), months: 3, expectedTotal: q3.total, method: { kind: "card", card: card(), saveCard: false }, idempotencyKey: `pre-${Date.now()}-abcdefgh`, now: NOW });
    expect(p.amount).toBe(q3.total);
    const after = (await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!;
    expect(after).toMatchObject({ balance: 0, paidThroughDate: "2027-03-21", nextDueDate: "2027-03-22" });
    // The billing run on a prepaid due date posts nothing new and charges nothing.
    const r = await runBilling(handle.db, { runDate: "2026-12-22", now: NOW, force: true, tenantId: t.tenantId });
    expect(r.chargesPosted).toBe(0);
  });
});

describe("autopay and move-out", () => {
  it("records autopay enrolment and cancellation on the lease", async () => {
    const t = await tenantWithLease();
    const saved = await storage.enrolAutopay({ tenantId: String(t.tenantId), leaseId: String(t.leaseId), method: { kind: "card", card: card("5555555555554444"), saveCard: true }, now: NOW });
    expect(saved).toMatchObject({ brand: "mastercard", last4: "4444" });
    let row = await handle.db.query.leases.findFirst({ where: eq(leases.id, t.leaseId) });
    expect(row).toMatchObject({ autopayEnabled: true, autopayCardId: Number(saved.id) });
    expect((await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!.autopay).toMatchObject({ enabled: true, card: { last4: "4444" } });
    await storage.cancelAutopay({ tenantId: String(t.tenantId), leaseId: String(t.leaseId) });
    row = await handle.db.query.leases.findFirst({ where: eq(leases.id, t.leaseId) });
    expect(row).toMatchObject({ autopayEnabled: false, autopayCardId: null });
    // Someone else's saved card cannot be used.
    const other = await tenantWithLease();
    await expect(storage.enrolAutopay({ tenantId: String(other.tenantId), leaseId: String(other.leaseId), method: { kind: "saved", savedCardId: saved.id }, now: NOW })).rejects.toThrow(/saved cards/);
  });

  it("records a move-out notice for the office", async () => {
    const t = await tenantWithLease();
    await storage.giveMoveOutNotice({ tenantId: String(t.tenantId), leaseId: String(t.leaseId), moveOutDate: "2026-12-15", reason: "Moving away", now: NOW });
    const notices = await handle.db.select().from(moveOutNotices).where(eq(moveOutNotices.leaseId, t.leaseId));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ tenantId: t.tenantId, moveOutDate: "2026-12-15", reason: "Moving away" });
    expect((await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!.moveOutDate).toBe("2026-12-15");
    // No month starting after the move-out date is billed.
    const r = await runBilling(handle.db, { runDate: "2027-02-22", now: NOW, force: true, tenantId: t.tenantId });
    expect(r.chargesPosted).toBe(0);
  });
});

describe("billing run", () => {
  it("posts the next month on its due date once, even when run twice the same day", async () => {
    const t = await tenantWithLease({ withInsurance: true, moveInDate: "2026-10-05" });
    const lines = async () => (await handle.db.select({ n: count() }).from(ledgerEntries).where(eq(ledgerEntries.leaseId, t.leaseId)))[0]!.n;
    const start = await lines();
    expect((await runBilling(handle.db, { runDate: "2026-11-04", now: NOW, force: true, tenantId: t.tenantId })).chargesPosted).toBe(0);

    const first = await runBilling(handle.db, { runDate: "2026-11-05", now: NOW });
    expect(first.skipped).toBe(false);
    const second = await runBilling(handle.db, { runDate: "2026-11-05", now: NOW });
    expect(second.skipped).toBe(true);
    const forced = await runBilling(handle.db, { runDate: "2026-11-05", now: NOW, force: true, tenantId: t.tenantId });
    expect(forced.chargesPosted).toBe(0);
    expect(await lines()).toBe(start + 2);
    const keys = await handle.db.select({ key: ledgerEntries.postingKey }).from(ledgerEntries).where(and(eq(ledgerEntries.leaseId, t.leaseId), sql`${ledgerEntries.entryDate} = '2026-11-05'`));
    expect(keys.map((k) => k.key).sort()).toEqual(["insurance:2026-11-05", "rent:2026-11-05"]);
    const lease = (await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!;
    expect(lease.balance).toBe(lease.monthlyRate + 895);
    expect(lease.paidThroughDate).toBe("2026-11-04");
    const [run] = await handle.db.select().from(billingRuns).where(eq(billingRuns.runDate, "2026-11-05"));
    expect(run!.finishedAt).not.toBeNull();
  });

  it("two runs at the same moment (two processes) bill once", async () => {
    const t = await tenantWithLease({ moveInDate: "2026-09-10" });
    const lines = async () => (await handle.db.select({ n: count() }).from(ledgerEntries).where(eq(ledgerEntries.leaseId, t.leaseId)))[0]!.n;
    const before = await lines();
    const runs = await Promise.all([1, 2, 3].map(() => runBilling(handle.db, { runDate: "2026-10-10", now: NOW })));
    expect(runs.filter((r) => !r.skipped)).toHaveLength(1);
    expect(await lines()).toBe(before + 2); // rent and protection plan, once
  });

  it("charges autopay cards on the due date and records a decline for the portal", async () => {
    const ok = await tenantWithLease();
    const bad = await tenantWithLease();
    await storage.enrolAutopay({ tenantId: String(ok.tenantId), leaseId: String(ok.leaseId), method: { kind: "card", card: card(), saveCard: true }, now: NOW });
    await storage.enrolAutopay({ tenantId: String(bad.tenantId), leaseId: String(bad.leaseId), method: { kind: "card", card: card("4000000000000341"), saveCard: true }, now: NOW });
    for (const t of [ok, bad]) await runBilling(handle.db, { runDate: "2026-12-22", now: NOW, force: true, tenantId: t.tenantId });
    const okLease = (await storage.getTenantLease(String(ok.tenantId), String(ok.leaseId)))!;
    expect(okLease).toMatchObject({ balance: 0, paidThroughDate: "2027-01-21", autopayDecline: null });
    const badLease = (await storage.getTenantLease(String(bad.tenantId), String(bad.leaseId)))!;
    expect(badLease.balance).toBeGreaterThan(0);
    expect(badLease.autopayDecline).toMatchObject({ reason: "Your card was declined.", amount: badLease.balance });
    // Running again the same day does not retry the card.
    await runBilling(handle.db, { runDate: "2026-12-22", now: NOW, force: true, tenantId: bad.tenantId });
    const attempts = await handle.db.select().from(payments).where(and(eq(payments.leaseId, bad.leaseId), eq(payments.source, "autopay")));
    expect(attempts).toHaveLength(1);
    const [mail] = await handle.db.select().from(emailOutbox).where(and(eq(emailOutbox.to, bad.email), sql`${emailOutbox.subject} like '%declined%'`));
    expect(mail).toBeDefined();
  });
});

describe("demo tenant seed", () => {
  it("creates one signed-in-able tenant on an already rented demo unit, once", async () => {
    const available = async () => (await handle.db.select({ n: count() }).from(units).where(eq(units.status, "available")))[0]!.n;
    const before = await available();
    const first = await handle.db.transaction((tx) => seedDemoTenant(tx, accountId, { force: true }));
    expect(first).toEqual([`demo tenant ${DEMO_TENANT_EMAIL}`]);
    expect(await handle.db.transaction((tx) => seedDemoTenant(tx, accountId, { force: true }))).toEqual([]);
    expect(await available()).toBe(before);
    const r = await signIn(handle.db, storage, { accountId, email: DEMO_TENANT_EMAIL, password: DEMO_TENANT_PASSWORD, ip: "10.7.0.1", now: NOW });
    expect(r.ok).toBe(true);
    if (r.ok) expect((await storage.listTenantLeases(r.tenantId))[0]).toMatchObject({ balance: 0, status: "active" });
    // Without force, under NODE_ENV=test, it stays out of the golden databases.
    expect(await handle.db.transaction((tx) => seedDemoTenant(tx, accountId))).toEqual([]);
  });
});
