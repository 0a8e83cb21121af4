/**
 * "Pay without a password" (issue 23, decision 240): the pay-link service and the `/pay/:token` route,
 * through the route's loader and action as React Router calls them (real form posts with the CSRF
 * cookie), on PGlite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { emailOutbox, leases, locations, payLinks, payments, units } from "~/db/schema";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { accountStorage, portalLocations } from "~/services/portal/context.server";
import { runBilling } from "~/services/payments/billing-run.server";
import { readOutboxMail } from "~/services/mail/outbox.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { KEEP_PAY_LINKS_MS, lookUpPayLink, PAY_LINK_TTL_MS, sendPayLink } from "~/services/payments/pay-links.server";
import { runHousekeeping } from "~/services/jobs/housekeeping.server";
import { env } from "~/platform/env.server";
import { now as clockNow } from "~/platform/clock.server";
import { addMonthsIso, localDate } from "~/domain/shared/calendar";
import type { StorageSoftware } from "~/storage-software/port";
import { action as payAction, loader as payLoader } from "~/routes/payments/pay";
import { createTestDatabase, isPostgres } from "../support/db";
import { callRoute } from "../support/route-helpers";

let handle: DatabaseHandle;
let storage: StorageSoftware;
let n = 0;
const TZ = "America/New_York";

beforeAll(async () => {
  handle = await createTestDatabase();
  const [account] = await handle.db.query.accounts.findMany({ limit: 1 });
  storage = accountStorage(handle.db, await portalLocations(handle.db, account!.id)).storage;
});
afterAll(() => handle?.close());

/** A tenant whose lease owes a month's rent now (moved in two months ago, billed at the last due date). */
async function tenantOwing(firstName = "Quinn", lastName = "Zebulon") {
  const now = clockNow();
  const email = `paylink-${++n}-${Date.now()}@example.com`;
  const moveInDate = addMonthsIso(localDate(now, TZ), -1);
  const t = await createTenantWithLease(handle.db, { email, password: "secret1", firstName, lastName, now, moveInDate, withInsurance: false });
  await runBilling(handle.db, { runDate: localDate(now, TZ), now, force: true, tenantId: t.tenantId });
  const lease = (await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!;
  expect(lease.balance).toBeGreaterThan(0);
  return { ...t, email, balance: lease.balance, firstName, lastName };
}

/** The signed token of the newest pay-link e-mail to `to`. */
async function linkMailedTo(to: string): Promise<{ token: string; text: string; stored: string }> {
  const [mail] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, to)).orderBy(sql`${emailOutbox.id} desc`).limit(1);
  expect(mail).toBeDefined();
  const text = readOutboxMail(mail!).text;
  const m = /\/pay\/([A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43})/.exec(text);
  expect(m).not.toBeNull();
  return { token: m![1]!, text, stored: mail!.text };
}

async function sendLink(t: { tenantId: number; leaseId: number; email: string }, now = clockNow()) {
  const r = await sendPayLink(handle.db, { tenantId: t.tenantId, leaseId: t.leaseId, staffId: 7, now });
  expect(r.ok).toBe(true);
  return (await linkMailedTo(t.email)).token;
}

/** A browser: its CSRF cookie, and what the paid-confirmation cookie adds. */
async function browser() {
  const { setCookie } = await getCsrfToken(new Request("http://localhost/pay"));
  return { cookies: [setCookie!.split(";")[0]!] };
}
type Browser = Awaited<ReturnType<typeof browser>>;

type PageData =
  | { state: "valid"; locationName: string; unitName: string; due: number; csrfToken: string; idempotencyKey: string }
  | { state: "used" | "expired"; message: string }
  | { state: "paid"; receipt: { locationName: string; unitName: string; amount: number; date: string; receiptNumber: string } };

const open = (token: string, b: Browser) => callRoute<PageData>(payLoader, handle.db, `/pay/${token}`, { init: { headers: { Cookie: b.cookies.join("; ") } } });

async function submit(token: string, b: Browser, page: PageData, card = "4242424242424242", ip = "198.51.100.7") {
  if (page.state !== "valid") throw new Error(`not a payable page: ${page.state}`);
  const body = new URLSearchParams({
    csrf: page.csrfToken,
    idempotency_key: page.idempotencyKey,
    expected_amount: String(page.due),
    payment_method: "new",
    card_number: card,
    exp_month: "12",
    exp_year: String(new Date().getUTCFullYear() + 3),
    cvv: "123",
    name_on_card: "Card Holder",
    billing_postal_code: "28358",
  });
  const r = await callRoute<{ result?: { error?: Record<string, string[]> } }>(payAction, handle.db, `/pay/${token}`, {
    clientIp: ip,
    init: { method: "POST", body, headers: { Cookie: b.cookies.join("; "), "Content-Type": "application/x-www-form-urlencoded" } },
  });
  for (const c of r.headers.getSetCookie()) b.cookies.push(c.split(";")[0]!);
  return r;
}

const paymentsOf = (leaseId: number) => handle.db.select().from(payments).where(and(eq(payments.leaseId, leaseId), eq(payments.status, "approved"), eq(payments.source, "pay_link")));

describe("sending a pay link", () => {
  it("stores only the token's hash, mails the link (sealed while unsent) and expires in 72 hours", async () => {
    const t = await tenantOwing();
    const now = clockNow();
    const r = await sendPayLink(handle.db, { tenantId: t.tenantId, leaseId: t.leaseId, staffId: 42, now });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const { token, text, stored } = await linkMailedTo(t.email);
    const [row] = await handle.db.select().from(payLinks).where(eq(payLinks.id, r.linkId));
    expect(row).toMatchObject({ tenantId: t.tenantId, leaseId: t.leaseId, sentBy: "staff", createdByStaffId: 42, usedAt: null, paymentId: null });
    expect(row!.expiresAt.getTime() - now.getTime()).toBe(PAY_LINK_TTL_MS);
    const raw = token.split(".")[0]!;
    expect(row!.tokenHash).toBe(crypto.createHash("sha256").update(raw).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(raw);
    expect(stored).not.toContain(raw); // sealed in the outbox until sent (decision 198)
    expect(text).toContain(`${(await handle.db.query.websites.findFirst())!.domain}/pay/${token}`);
    expect(text).toContain(t.unitName);
    expect(await lookUpPayLink(handle.db, token, now)).toMatchObject({ status: "valid" });
  });

  it("creates the link and its e-mail in the caller's transaction: a rollback leaves neither", async () => {
    const t = await tenantOwing();
    const linksBefore = (await handle.db.select().from(payLinks).where(eq(payLinks.leaseId, t.leaseId))).length;
    await expect(
      handle.db.transaction(async (tx) => {
        const r = await sendPayLink(handle.db, { tenantId: t.tenantId, leaseId: t.leaseId, staffId: 1, now: clockNow() }, tx);
        expect(r.ok).toBe(true);
        throw new Error("the audit row failed");
      }),
    ).rejects.toThrow("the audit row failed");
    expect(await handle.db.select().from(payLinks).where(eq(payLinks.leaseId, t.leaseId))).toHaveLength(linksBefore);
    expect(await handle.db.select().from(emailOutbox).where(and(eq(emailOutbox.to, t.email), sql`${emailOutbox.subject} like 'Pay your storage bill%'`))).toHaveLength(0);
  });

  it("refuses another tenant's lease and a location that takes payments on its own site", async () => {
    const a = await tenantOwing();
    const b = await tenantOwing();
    expect(await sendPayLink(handle.db, { tenantId: a.tenantId, leaseId: b.leaseId, now: clockNow() })).toMatchObject({ ok: false });
    const [loc] = await handle.db.select({ link: locations.externalPaymentLink }).from(locations).where(eq(locations.id, a.locationId));
    await handle.db.update(locations).set({ externalPaymentLink: "https://pay.example.com/storage" }).where(eq(locations.id, a.locationId));
    try {
      expect(await sendPayLink(handle.db, { tenantId: a.tenantId, leaseId: a.leaseId, now: clockNow() })).toMatchObject({ ok: false, message: expect.stringMatching(/own payment site/) });
    } finally {
      await handle.db.update(locations).set({ externalPaymentLink: loc!.link }).where(eq(locations.id, a.locationId));
    }
  });
});

describe("housekeeping", () => {
  it("deletes links expired more than 90 days ago, and only those", async () => {
    const t = await tenantOwing();
    const now = clockNow();
    await sendLink(t, new Date(now.getTime() - KEEP_PAY_LINKS_MS - PAY_LINK_TTL_MS - 60_000));
    await sendLink(t, new Date(now.getTime() - KEEP_PAY_LINKS_MS - PAY_LINK_TTL_MS + 60_000));
    // (The billing run's reminder made a link of its own for the lease: decision 281.)
    const staffLinks = () => handle.db.select().from(payLinks).where(and(eq(payLinks.leaseId, t.leaseId), eq(payLinks.sentBy, "staff")));
    expect(await staffLinks()).toHaveLength(2);
    expect((await runHousekeeping(handle.db, now)).payLinksDeleted).toBeGreaterThanOrEqual(1);
    expect(await staffLinks()).toHaveLength(1);
  });
});

describe("/pay/:token", () => {
  it("shows only the location, the unit and the amount due; nothing else of the account", async () => {
    const t = await tenantOwing("Ermintrude", "Quackenbush");
    // A second unit of the same tenant, which the link must not show.
    const [lease] = await handle.db.select().from(leases).where(eq(leases.id, t.leaseId));
    const [other] = await handle.db.select().from(units).where(and(eq(units.locationId, t.locationId), eq(units.status, "available"))).limit(1);
    await handle.db.update(units).set({ status: "rented" }).where(eq(units.id, other!.id));
    await handle.db.insert(leases).values({ ...lease!, id: undefined, unitId: other!.id, createdAt: undefined, updatedAt: undefined });
    const token = await sendLink(t);
    const page = await open(token, await browser());
    expect(page.status).toBe(200);
    expect(page.headers.get("Cache-Control")).toMatch(/no-store/);
    expect(page.data).toMatchObject({ state: "valid", unitName: t.unitName, due: t.balance });
    const json = JSON.stringify(page.data);
    for (const secret of [t.email, "Ermintrude", "Quackenbush", other!.name, "9105550199", "100 Main Street", t.gateCode]) expect(json).not.toContain(secret);
    expect(Object.keys(page.data).sort()).toEqual(["csrfToken", "due", "enabled", "idempotencyKey", "locationName", "payment", "phone", "state", "today", "unitName"]);
  });

  it("pays once; the paying browser sees the receipt, any other opening says the link was used", async () => {
    const t = await tenantOwing();
    const token = await sendLink(t);
    const b = await browser();
    const page = await open(token, b);
    const r = await submit(token, b, page.data);
    expect(r.status).toBe(303);
    expect(r.headers.get("Location")).toBe(`/pay/${token}`);
    const paid = await paymentsOf(t.leaseId);
    expect(paid).toHaveLength(1);
    expect(paid[0]!.amount).toBe(t.balance);
    expect((await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!.balance).toBe(0);
    const [row] = await handle.db.select().from(payLinks).where(and(eq(payLinks.leaseId, t.leaseId), eq(payLinks.sentBy, "staff")));
    expect(row!.usedAt).not.toBeNull();
    expect(row!.paymentId).toBe(String(paid[0]!.id));

    const receipt = await open(token, b);
    expect(receipt.data).toMatchObject({ state: "paid", receipt: { unitName: t.unitName, amount: t.balance, receiptNumber: String(paid[0]!.id) } });
    expect(JSON.stringify(receipt.data)).not.toContain(t.email);
    const elsewhere = await open(token, await browser());
    expect(elsewhere.status).toBe(410);
    expect(elsewhere.data).toMatchObject({ state: "used", message: expect.stringMatching(/already been used.*sign in/i) });
    // The receipt e-mail went to the tenant, as from the portal.
    const mails = await handle.db.select().from(emailOutbox).where(and(eq(emailOutbox.to, t.email), sql`${emailOutbox.subject} like 'Payment receipt%'`));
    expect(mails).toHaveLength(1);
  });

  it("opened twice (two tabs), it pays once: the second form is told the link was used", async () => {
    const t = await tenantOwing();
    const token = await sendLink(t);
    const b = await browser();
    const first = await open(token, b);
    const second = await open(token, b);
    expect((await submit(token, b, first.data)).status).toBe(303);
    const again = await submit(token, b, second.data);
    expect(again.status).toBe(303); // back to the page, which now says it was used
    expect(await paymentsOf(t.leaseId)).toHaveLength(1);
  });

  it("a double submit of one form pays once, at the same moment too", async () => {
    const t = await tenantOwing();
    const token = await sendLink(t);
    const b = await browser();
    const page = await open(token, b);
    const results = await Promise.all([submit(token, b, page.data), submit(token, b, page.data), submit(token, b, page.data)]);
    expect(results.every((r) => r.status === 303 || r.status === 400)).toBe(true);
    expect(results.some((r) => r.status === 303)).toBe(true);
    expect(await paymentsOf(t.leaseId)).toHaveLength(1);
  });

  it("two tabs submitting at the same moment pay once", async () => {
    const t = await tenantOwing();
    const token = await sendLink(t);
    const b = await browser();
    const pages = await Promise.all([open(token, b), open(token, b)]);
    await Promise.all(pages.map((p) => submit(token, b, p.data)));
    expect(await paymentsOf(t.leaseId)).toHaveLength(1);
    if (isPostgres()) expect((await handle.db.select().from(payLinks).where(and(eq(payLinks.leaseId, t.leaseId), eq(payLinks.sentBy, "staff"))))[0]!.usedAt).not.toBeNull();
  });

  it("a declined card pays nothing and leaves the link usable", async () => {
    const t = await tenantOwing();
    const token = await sendLink(t);
    const b = await browser();
    const declined = await submit(token, b, (await open(token, b)).data, "4000000000000002", "198.51.100.21");
    expect(declined.status).toBe(400);
    expect(JSON.stringify(declined.data)).toMatch(/declined/);
    expect(await paymentsOf(t.leaseId)).toHaveLength(0);
    expect((await submit(token, b, (await open(token, b)).data, "4242424242424242", "198.51.100.21")).status).toBe(303);
    expect(await paymentsOf(t.leaseId)).toHaveLength(1);
  });

  it("an expired link says so, points to sign-in, and pays nothing", async () => {
    const t = await tenantOwing();
    const token = await sendLink(t, new Date(clockNow().getTime() - PAY_LINK_TTL_MS - 60_000));
    const b = await browser();
    const page = await open(token, b);
    expect(page.status).toBe(410);
    expect(page.data).toMatchObject({ state: "expired", message: expect.stringMatching(/expired.*sign in/i) });
    const { token: csrf } = await getCsrfToken(new Request("http://localhost/pay", { headers: { Cookie: b.cookies.join("; ") } }));
    const post = await submit(token, b, { state: "valid", csrfToken: csrf, idempotencyKey: "abcdefghijklmnopqrstuv", due: t.balance, locationName: "", unitName: "" });
    expect(post.status).toBe(303);
    expect(await paymentsOf(t.leaseId)).toHaveLength(0);
  });

  it("a tampered, made-up or unsigned link is not found", async () => {
    const t = await tenantOwing();
    const token = await sendLink(t);
    const [raw, mac] = token.split(".") as [string, string];
    const flip = (s: string) => (s[5] === "A" ? `${s.slice(0, 5)}B${s.slice(6)}` : `${s.slice(0, 5)}A${s.slice(6)}`);
    const b = await browser();
    const madeUp = crypto.randomBytes(32).toString("base64url");
    const signedUnknown = `${madeUp}.${crypto.createHmac("sha256", env().sessionSecrets[0]!).update(`pay-link:${madeUp}`).digest("base64url")}`;
    for (const bad of [`${raw}.${flip(mac)}`, `${flip(raw)}.${mac}`, raw, "x", signedUnknown]) {
      expect((await open(bad, b)).status).toBe(404);
    }
    // The tampered ones are refused without a lookup (lookUpPayLink answers "unknown" on the signature alone).
    expect(await lookUpPayLink(handle.db, `${raw}.${flip(mac)}`, clockNow())).toEqual({ status: "unknown" });
    const page = await open(token, b);
    if (page.data.state !== "valid") throw new Error("expected a valid link");
    const post = await submit(`${raw}.${flip(mac)}`, b, page.data);
    expect(post.status).toBe(404);
    expect(await paymentsOf(t.leaseId)).toHaveLength(0);
  });

  it("refuses a form without the CSRF token", async () => {
    const t = await tenantOwing();
    const token = await sendLink(t);
    const page = await open(token, await browser());
    const r = await submit(token, await browser(), page.data); // another browser's cookie
    expect(r.status).toBe(403);
    expect(await paymentsOf(t.leaseId)).toHaveLength(0);
  });
});

describe("the billing reminder", () => {
  it("carries a fresh pay link for the lease due, which pays it", async () => {
    const now = clockNow();
    const email = `paylink-reminder-${Date.now()}@example.com`;
    const t = await createTenantWithLease(handle.db, { email, password: "secret1", now, moveInDate: addMonthsIso(localDate(now, TZ), -1), withInsurance: false });
    await storage.enrolAutopay({
      tenantId: String(t.tenantId),
      leaseId: String(t.leaseId),
      method: { kind: "card", card: { number: "4000000000000341", expMonth: 12, expYear: 2031, cvv: "123", nameOnCard: "Pat", postalCode: "28358" }, saveCard: true },
      now,
    });
    await runBilling(handle.db, { runDate: localDate(now, TZ), now, force: true, tenantId: t.tenantId });
    const [mail] = await handle.db.select().from(emailOutbox).where(and(eq(emailOutbox.to, email), sql`${emailOutbox.subject} like '%declined%'`));
    expect(mail).toBeDefined();
    const { token } = await linkMailedTo(email);
    const [row] = await handle.db.select().from(payLinks).where(eq(payLinks.leaseId, t.leaseId));
    expect(row).toMatchObject({ sentBy: "billing_reminder", createdByStaffId: null });
    const due = (await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!.balance;
    const b = await browser();
    const page = await open(token, b);
    expect(page.data).toMatchObject({ state: "valid", due });
    expect((await submit(token, b, page.data)).status).toBe(303);
    expect((await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!.balance).toBe(0);
  });

  it("carries no pay link where the location takes payments on its own site", async () => {
    const now = clockNow();
    const email = `paylink-reminder-ext-${Date.now()}@example.com`;
    const t = await createTenantWithLease(handle.db, { email, password: "secret1", now, moveInDate: addMonthsIso(localDate(now, TZ), -1), withInsurance: false });
    await storage.enrolAutopay({
      tenantId: String(t.tenantId),
      leaseId: String(t.leaseId),
      method: { kind: "card", card: { number: "4000000000000341", expMonth: 12, expYear: 2031, cvv: "123", nameOnCard: "Pat", postalCode: "28358" }, saveCard: true },
      now,
    });
    const [loc] = await handle.db.select({ link: locations.externalPaymentLink }).from(locations).where(eq(locations.id, t.locationId));
    await handle.db.update(locations).set({ externalPaymentLink: "https://pay.example.com/storage" }).where(eq(locations.id, t.locationId));
    try {
      await runBilling(handle.db, { runDate: localDate(now, TZ), now, force: true, tenantId: t.tenantId });
    } finally {
      await handle.db.update(locations).set({ externalPaymentLink: loc!.link }).where(eq(locations.id, t.locationId));
    }
    const [mail] = await handle.db.select().from(emailOutbox).where(and(eq(emailOutbox.to, email), sql`${emailOutbox.subject} like '%declined%'`));
    expect(readOutboxMail(mail!).text).not.toContain("/pay/");
    expect(await handle.db.select().from(payLinks).where(eq(payLinks.leaseId, t.leaseId))).toHaveLength(0);
  });
});
