/**
 * Pay links at the desk (issue 39, decision 507), over real HTTP against the app's routes: no link
 * for a lease that owes nothing; the truth when no e-mail can go (no mail server set up, or the mail
 * server down); "Copy the link" shows a fresh link from the configured origin, audited without the
 * link, and the link pays.
 */
import fs from "node:fs";
import path from "node:path";
import { and, count, desc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { auditEvents, emailOutbox, locations, payLinks, payments, websites } from "~/db/schema";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { runBilling } from "~/services/payments/billing-run.server";
import { publicOrigin } from "~/services/site/origin.server";
import { now as clockNow } from "~/platform/clock.server";
import { addMonthsIso, localDate } from "~/domain/shared/calendar";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";
import { getPage, postForm, textOf } from "./over-http";

const TZ = "America/New_York";
let handle: DatabaseHandle;
let app: AppServer;
let smtp: TestSmtpServer;
let desk: TestStaffMember;
let origin: string;
let n = 0;

beforeAll(async () => {
  // The mail server is set up before anything reads the environment (the transport is made once).
  smtp = await startSmtpServer();
  process.env.SMTP_URL = `smtp://127.0.0.1:${smtp.port}`;
  handle = await createTestDatabase();
  const [lumberton] = await handle.db.select().from(locations).where(eq(locations.name, "Lumberton"));
  desk = await signedInStaffMember(handle.db, { accountId: lumberton!.accountId, role: "front_desk", locationIds: [lumberton!.id] });
  const [site] = await handle.db.select().from(websites).where(eq(websites.accountId, lumberton!.accountId));
  origin = publicOrigin(site!);
  app = await startAppServer(handle.db);
}, 120_000);

afterAll(async () => {
  delete process.env.SMTP_URL;
  await app?.close();
  await smtp?.close();
  await handle?.close();
});

/** A tenant at Lumberton: owing a month's rent (billed), or owing nothing (just moved in, paid). */
async function tenant(owing: boolean) {
  const now = clockNow();
  const [lumberton] = await handle.db.select().from(locations).where(eq(locations.name, "Lumberton"));
  const email = `desk-paylink-${++n}-${Date.now()}@example.com`;
  const t = await createTenantWithLease(handle.db, {
    email,
    password: "secret1",
    firstName: "Payton",
    lastName: `Linker${n}`,
    now,
    locationId: lumberton!.id,
    ...(owing ? { moveInDate: addMonthsIso(localDate(now, TZ), -1) } : {}),
    withInsurance: false,
  });
  if (owing) await runBilling(handle.db, { runDate: localDate(now, TZ), now, force: true, tenantId: t.tenantId });
  return { ...t, email };
}

/** The links the desk made (the billing run's reminder has its own). */
const linksOf = (leaseId: number) =>
  handle.db
    .select()
    .from(payLinks)
    .where(and(eq(payLinks.leaseId, leaseId), eq(payLinks.sentBy, "staff")))
    .orderBy(desc(payLinks.id));
const auditsOf = (action: string, leaseId: number) =>
  handle.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), eq(auditEvents.entityId, String(leaseId))))
    .orderBy(desc(auditEvents.id));
const mailsTo = async (to: string) => (await handle.db.select({ n: count() }).from(emailOutbox).where(eq(emailOutbox.to, to)))[0]!.n;

describe("pay links at the desk", () => {
  it("makes no link for a lease that owes nothing: the page says so, and sending, texting or copying one is refused", async () => {
    const t = await tenant(false);
    const page = await getPage(app, `/admin/tenants/${t.tenantId}`, desk);
    expect(page.status).toBe(200);
    expect(textOf(page.body)).toContain("Nothing is due on this lease: there is no pay link to send.");
    expect(page.body).not.toContain("Send a pay link");
    for (const intent of ["send-pay-link", "copy-pay-link"]) {
      const r = await postForm(app, `/admin/tenants/${t.tenantId}`, desk, { intent, leaseId: String(t.leaseId) });
      expect(r.status, intent).toBe(400);
      expect(textOf(r.body), intent).toContain("Nothing is due on this lease (the balance is $0.00): there is nothing to pay through a link.");
    }
    expect(await linksOf(t.leaseId)).toHaveLength(0);
  });

  it("says the link is on its way only when the mail server took it; with the mail server down it says the e-mail waits", async () => {
    const t = await tenant(true);
    await smtp.down();
    try {
      const r = await postForm(app, `/admin/tenants/${t.tenantId}`, desk, { intent: "send-pay-link", leaseId: String(t.leaseId) });
      expect(r.status).toBe(303);
      expect(r.location).toBe(`/admin/tenants/${t.tenantId}?done=paylinkqueued`);
      const shown = textOf((await getPage(app, r.location!, desk)).body);
      expect(shown).toContain("The pay link could not be e-mailed just now");
      expect(shown).not.toContain("on its way");
    } finally {
      await smtp.up();
    }
    const before = smtp.received.length;
    const r = await postForm(app, `/admin/tenants/${t.tenantId}`, desk, { intent: "send-pay-link", leaseId: String(t.leaseId) });
    expect(r.location).toBe(`/admin/tenants/${t.tenantId}?done=paylink`);
    expect(textOf((await getPage(app, r.location!, desk)).body)).toContain("The pay link is on its way.");
    expect(smtp.received.length).toBe(before + 1);
    expect(smtp.received.at(-1)!.to.join(",")).toContain(t.email);
    expect(await linksOf(t.leaseId)).toHaveLength(2);
  });

  it("with no mail server set up, tells the desk no e-mail can be sent and makes nothing; the link can be copied instead", async () => {
    const t = await tenant(true);
    const saved = process.env.SMTP_URL;
    delete process.env.SMTP_URL;
    try {
      const page = await getPage(app, `/admin/tenants/${t.tenantId}`, desk);
      expect(textOf(page.body)).toContain("No e-mail can be sent from this server (no mail server is set up): copy the link to send it another way.");
      expect(page.body).not.toContain("Send a pay link");
      expect(page.body).toContain("Copy the link");
      const refused = await postForm(app, `/admin/tenants/${t.tenantId}`, desk, { intent: "send-pay-link", leaseId: String(t.leaseId) });
      expect(refused.status).toBe(400);
      expect(textOf(refused.body)).toContain("No e-mail can be sent from this server (no mail server is set up), so the pay link was not sent.");
      expect(textOf(refused.body)).not.toContain("on its way");
      expect(await linksOf(t.leaseId)).toHaveLength(0);
      const mails = await mailsTo(t.email);
      expect(await auditsOf("pay_link.sent", t.leaseId)).toHaveLength(0);

      // "Copy the link": a fresh link from the configured origin, in a field to select (no script needed).
      const copied = await postForm(app, `/admin/tenants/${t.tenantId}`, desk, { intent: "copy-pay-link", leaseId: String(t.leaseId) });
      expect(copied.status).toBe(200);
      const m = new RegExp(`value="(${origin.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/pay/[A-Za-z0-9_-]{43}\\.[A-Za-z0-9_-]{43})"`).exec(copied.body);
      expect(m, "the link in a read-only field").not.toBeNull();
      expect(copied.body).toMatch(/<input[^>]*readOnly|<input[^>]*readonly/);
      expect(textOf(copied.body)).toMatch(/The pay link for unit \S+ is below\. It works once, until /);
      expect(await mailsTo(t.email)).toBe(mails);
      const [link] = await linksOf(t.leaseId);
      expect(link).toMatchObject({ tenantId: t.tenantId, sentBy: "staff", createdByStaffId: desk.staffId, usedAt: null });
      const [audit] = await auditsOf("pay_link.copied", t.leaseId);
      expect(audit).toMatchObject({ staffId: desk.staffId, entity: "lease" });
      expect(audit!.detail).toMatchObject({ tenantId: t.tenantId, payLinkId: link!.id });
      expect(JSON.stringify(audit)).not.toContain("/pay/");

      // The link works: its page offers the balance due.
      const path = new URL(m![1]!).pathname;
      const pay = await fetch(app.origin + path);
      expect(pay.status).toBe(200);
      expect(textOf(await pay.text())).toMatch(/\$\d+\.\d{2}/);
    } finally {
      process.env.SMTP_URL = saved;
    }
  });

  it("a read-only member can neither send nor copy a link", async () => {
    const t = await tenant(true);
    const [lumberton] = await handle.db.select().from(locations).where(eq(locations.name, "Lumberton"));
    const reader = await signedInStaffMember(handle.db, { accountId: lumberton!.accountId, role: "read_only", locationIds: [lumberton!.id] });
    const r = await postForm(app, `/admin/tenants/${t.tenantId}`, reader, { intent: "copy-pay-link", leaseId: String(t.leaseId) });
    expect(r.status).toBe(403);
    expect(await linksOf(t.leaseId)).toHaveLength(0);
  });
});

/** Pays a link as the tenant's browser does (its page, its CSRF cookie, the card form). */
async function payThrough(path: string) {
  const page = await fetch(app.origin + path);
  const html = await page.text();
  const cookie = page.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const field = (name: string) => new RegExp(`name="${name}"[^>]*value="([^"]*)"|value="([^"]*)"[^>]*name="${name}"`).exec(html);
  const value = (name: string) => {
    const m = field(name);
    expect(m, name).not.toBeNull();
    return (m![1] ?? m![2])!;
  };
  const body = new URLSearchParams({
    csrf: value("csrf"),
    idempotency_key: value("idempotency_key"),
    expected_amount: value("expected_amount"),
    payment_method: "new",
    card_number: "4242424242424242",
    exp_month: "12",
    exp_year: String(new Date().getUTCFullYear() + 3),
    cvv: "123",
    name_on_card: "Card Holder",
    billing_postal_code: "28358",
  });
  const r = await fetch(app.origin + path, { method: "POST", redirect: "manual", body, headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded", Referer: app.origin + path } });
  expect([200, 303]).toContain(r.status);
}

describe("each payment's true source", () => {
  it("a payment through a pay link is \"Pay link\" in the payments list and its CSV, not \"Portal\"", async () => {
    const t = await tenant(true);
    const copied = await postForm(app, `/admin/tenants/${t.tenantId}`, desk, { intent: "copy-pay-link", leaseId: String(t.leaseId) });
    const url = /value="(https?:\/\/[^"]+\/pay\/[^"]+)"/.exec(copied.body)![1]!;
    await payThrough(new URL(url).pathname);
    const [paid] = await handle.db.select().from(payments).where(and(eq(payments.leaseId, t.leaseId), eq(payments.status, "approved"))).orderBy(desc(payments.id)).limit(1);
    expect(paid).toMatchObject({ source: "pay_link" });
    const [owner] = [await signedInStaffMember(handle.db, { accountId: (await handle.db.select().from(locations).limit(1))[0]!.accountId, role: "owner" })];
    const list = await getPage(app, `/admin/payments?q=${encodeURIComponent(t.email)}`, owner);
    expect(list.status).toBe(200);
    const row = textOf(list.body);
    expect(row).toContain("Pay link");
    expect(row).not.toMatch(/Portal/);
    const csv = await getPage(app, `/admin/payments.csv?q=${encodeURIComponent(t.email)}`, owner);
    expect(csv.status).toBe(200);
    const lines = csv.body.trim().split(/\r?\n/);
    const header = lines[0]!.split(",");
    const source = header.indexOf("Source");
    expect(source).toBeGreaterThanOrEqual(0);
    const sources = lines.slice(1).map((l) => l.split(",")[source]);
    expect(sources).toContain("Pay link");
    expect(sources).not.toContain("Portal");
  });

  it("the migration labels the payments made through links before it as \"Pay link\"", async () => {
    const t = await tenant(true);
    const [made] = await handle.db
      .insert(payments)
      .values({ tenantId: t.tenantId, leaseId: t.leaseId, amount: 1500, status: "approved", source: "portal", cardBrand: "visa", cardLast4: "4242", idempotencyKey: `old-link-${Date.now()}` })
      .returning();
    const [other] = await handle.db
      .insert(payments)
      .values({ tenantId: t.tenantId, leaseId: t.leaseId, amount: 1600, status: "approved", source: "portal", cardBrand: "visa", cardLast4: "4242", idempotencyKey: `old-portal-${Date.now()}` })
      .returning();
    const now = clockNow();
    await handle.db.insert(payLinks).values({ tokenHash: `old-${Date.now()}`, tenantId: t.tenantId, leaseId: t.leaseId, sentBy: "staff", expiresAt: now, usedAt: now, paymentId: String(made!.id), createdAt: now, updatedAt: now });
    const file = path.resolve(import.meta.dirname, "../../../drizzle/0023_pay_link_source.sql");
    await handle.db.execute(sql.raw(fs.readFileSync(file, "utf8")));
    expect((await handle.db.query.payments.findFirst({ where: eq(payments.id, made!.id) }))!.source).toBe("pay_link");
    expect((await handle.db.query.payments.findFirst({ where: eq(payments.id, other!.id) }))!.source).toBe("portal");
  });
});
