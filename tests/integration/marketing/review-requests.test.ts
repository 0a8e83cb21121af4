/**
 * Review requests (issue 40, decision 501), run by housekeeping on a real database, with the mail
 * going over a real SMTP exchange: one request a set number of days after a move-in, at the
 * location's review link, only where the operator turned it on; never twice to one tenant (two runs at
 * once included); never to a tenant who owes money or has given notice.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { locations, tenants } from "~/db/schema";
import { addDaysIso, localDate } from "~/domain/shared/calendar";
import { runHousekeeping } from "~/services/jobs/housekeeping.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { sendReviewRequests } from "~/services/marketing/review-requests.server";
import { storageFor } from "~/storage-software/index.server";
import { createTestDatabase } from "../support/db";
import { type TestSmtpServer, useSmtpServer } from "../support/smtp-server";

const REVIEW_LINK = "https://g.page/r/gatehouse-lumberton/review";
const server = useSmtpServer();
let smtp: TestSmtpServer;
let handle: DatabaseHandle;
beforeEach(async () => {
  smtp = server.current();
  handle = await createTestDatabase();
});
afterEach(() => handle.close());

const byName = async (name: string) => (await handle.db.query.locations.findFirst({ where: eq(locations.name, name) }))!;
const mailsTo = (email: string) => smtp.received.filter((m) => m.to.some((rcpt) => rcpt.includes(`<${email}>`)));

async function tenantAt(locationName: string, daysAgo: number, tag: string) {
  const now = new Date();
  const location = await byName(locationName);
  const email = `${tag}.${Date.now()}@example.com`;
  const t = await createTenantWithLease(handle.db, { email, password: "right-pass-9", firstName: tag, lastName: "Tenant", now, locationId: location.id, withInsurance: false, moveInDate: addDaysIso(localDate(now, "America/New_York"), -daysAgo) });
  return { ...t, email, location };
}

describe("review requests", () => {
  it("sends one request per tenant, at the review link, where it is on, after the set days; never to a tenant who owes or gave notice", async () => {
    const { db } = handle;
    const lumberton = await byName("Lumberton");
    await db.update(locations).set({ googleReviewLink: REVIEW_LINK, globalSettings: { is_review_request_enabled: true, review_request_days_after_move_in: 14 } }).where(eq(locations.id, lumberton.id));
    const happy = await tenantAt("Lumberton", 20, "happy");
    const recent = await tenantAt("Lumberton", 5, "recent");
    const leaving = await tenantAt("Lumberton", 20, "leaving");
    const owing = await tenantAt("Lumberton", 45, "owing");
    const elsewhere = await tenantAt("Jacksonville", 20, "elsewhere");
    const storage = storageFor(db, lumberton);
    await storage.giveMoveOutNotice({ tenantId: String(leaving.tenantId), leaseId: String(leaving.leaseId), moveOutDate: addDaysIso(localDate(new Date(), "America/New_York"), 10), reason: null, now: new Date() });
    const due = (await storage.getTenantLease(String(owing.tenantId), String(owing.leaseId)))!.nextDueDate;
    await storage.billLeases({ runDate: due, now: new Date(), tenantId: String(owing.tenantId) });
    expect((await storage.getTenantLease(String(owing.tenantId), String(owing.leaseId)))!.balance).toBeGreaterThan(0);

    // Two runs at once (two processes): one request.
    const [a, b] = await Promise.all([sendReviewRequests(db, new Date()), sendReviewRequests(db, new Date())]);
    expect(a + b).toBe(1);
    expect(mailsTo(happy.email)).toHaveLength(1);
    const mail = mailsTo(happy.email)[0]!;
    expect(mail.data).toContain(REVIEW_LINK);
    expect(mail.data).toMatch(/Subject: How is your storage at .*Lumberton\?/);
    for (const t of [recent, leaving, owing, elsewhere]) expect(mailsTo(t.email), t.email).toHaveLength(0);
    expect((await db.query.tenants.findFirst({ where: eq(tenants.id, happy.tenantId) }))!.reviewRequestedAt).toBeInstanceOf(Date);

    // Housekeeping runs it again later: nothing twice.
    expect((await runHousekeeping(db, new Date())).reviewRequests).toBe(0);
    expect(mailsTo(happy.email)).toHaveLength(1);
  });

  it("sends nothing where it is off (the default) or the location has no review link", async () => {
    const { db } = handle;
    const t = await tenantAt("Lumberton", 30, "quiet");
    expect(await sendReviewRequests(db, new Date())).toBe(0);
    const lumberton = await byName("Lumberton");
    await db.update(locations).set({ googleReviewLink: null, globalSettings: { is_review_request_enabled: true } }).where(eq(locations.id, lumberton.id));
    expect(await sendReviewRequests(db, new Date())).toBe(0);
    expect(mailsTo(t.email)).toHaveLength(0);
  });
});
