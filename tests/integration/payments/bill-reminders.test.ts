/**
 * The billing run's bill-due reminder with a pay link (issue 23, decision 281), on a real database
 * (PGlite, and PostgreSQL with TEST_DATABASE_URL) and a real SMTP server: a lease not on autopay that
 * the run bills gets one e-mail per billing date with the amount and a fresh pay link that works.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { billReminders, payLinks } from "~/db/schema";
import { addMonthsIso, localDate } from "~/domain/shared/calendar";
import { formatCents } from "~/domain/shared/money";
import { now as clockNow } from "~/platform/clock.server";
import { runBilling } from "~/services/payments/billing-run.server";
import { lookUpPayLink } from "~/services/payments/pay-links.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { accountStorage, portalLocations } from "~/services/portal/context.server";
import type { StorageSoftware } from "~/storage-software/port";
import { createTestDatabase } from "../support/db";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp-server";

let handle: DatabaseHandle;
let smtp: TestSmtpServer;
let storage: StorageSoftware;
const TZ = "America/New_York";
let n = 0;

beforeAll(async () => {
  smtp = await startSmtpServer();
  // Read once by env() on first use in this test file (each file has its own module registry).
  process.env.SMTP_URL = `smtp://127.0.0.1:${smtp.port}`;
  handle = await createTestDatabase();
  const [account] = await handle.db.query.accounts.findMany({ limit: 1 });
  storage = accountStorage(handle.db, await portalLocations(handle.db, account!.id)).storage;
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  await handle?.close();
  await smtp?.close();
});

/** A tenant who moved in a month ago: the run on today's date posts their second month. */
async function tenantDueToday() {
  const now = clockNow();
  const email = `reminder-${++n}-${Date.now()}@example.com`;
  const t = await createTenantWithLease(handle.db, { email, password: "secret1", firstName: "Rita", lastName: "Reminded", now, moveInDate: addMonthsIso(localDate(now, TZ), -1), withInsurance: false });
  return { ...t, email, now, runDate: localDate(now, TZ) };
}

const mailsTo = (email: string) => smtp.received.filter((m) => m.to.some((to) => to.includes(email)));
/** The message body as sent (quoted-printable soft breaks undone). */
const bodyOf = (data: string) => data.replace(/=\r?\n/g, "").replace(/=3D/g, "=");

describe("the bill-due reminder", () => {
  it("e-mails a tenant not on autopay the amount due and a fresh pay link, once per billing date", async () => {
    const t = await tenantDueToday();
    const first = await runBilling(handle.db, { runDate: t.runDate, now: t.now, force: true, tenantId: t.tenantId });
    expect(first.chargesPosted).toBeGreaterThan(0);
    const lease = (await storage.getTenantLease(String(t.tenantId), String(t.leaseId)))!;
    expect(lease.balance).toBeGreaterThan(0);

    const mails = mailsTo(t.email);
    expect(mails).toHaveLength(1);
    const body = bodyOf(mails[0]!.data);
    expect(body).toContain("Subject: Your storage bill is due");
    expect(body).toContain(formatCents(lease.balance));
    const token = /\/pay\/([A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43})/.exec(body)?.[1];
    expect(token).toBeDefined();
    const found = await lookUpPayLink(handle.db, token!, clockNow());
    expect(found.status).toBe("valid");
    expect(found).toMatchObject({ link: { leaseId: t.leaseId, sentBy: "billing_reminder" } });
    const [row] = await handle.db.select().from(billReminders).where(and(eq(billReminders.leaseId, t.leaseId), eq(billReminders.billDate, t.runDate)));
    expect(row).toMatchObject({ payLinkId: (found as { link: { id: number } }).link.id });

    // Run again the same date, twice at once and once more: nothing more is sent, no other link made.
    await Promise.all([
      runBilling(handle.db, { runDate: t.runDate, now: t.now, force: true, tenantId: t.tenantId }),
      runBilling(handle.db, { runDate: t.runDate, now: t.now, force: true, tenantId: t.tenantId }),
    ]);
    await runBilling(handle.db, { runDate: t.runDate, now: t.now, force: true, tenantId: t.tenantId });
    expect(mailsTo(t.email)).toHaveLength(1);
    expect(await handle.db.select().from(payLinks).where(eq(payLinks.leaseId, t.leaseId))).toHaveLength(1);
  });

  it("sends none to a tenant on autopay whose card paid the bill", async () => {
    const t = await tenantDueToday();
    await storage.enrolAutopay({
      tenantId: String(t.tenantId),
      leaseId: String(t.leaseId),
      method: { kind: "card", card: { number: "4242424242424242", expMonth: 12, expYear: 2031, cvv: "123", nameOnCard: "Pat", postalCode: "28358" }, saveCard: true },
      now: t.now,
    });
    const r = await runBilling(handle.db, { runDate: t.runDate, now: t.now, force: true, tenantId: t.tenantId });
    expect(r.autopayCharged).toBe(1);
    expect(mailsTo(t.email).filter((m) => m.data.includes("Subject: Your storage bill is due"))).toHaveLength(0);
    expect(await handle.db.select().from(billReminders).where(eq(billReminders.leaseId, t.leaseId))).toHaveLength(0);
  });
});
