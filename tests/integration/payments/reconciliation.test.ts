/**
 * Reconciliation (issue 35, decision 440), over real HTTP against the BUILT server on the Stripe
 * gateway (the Stripe fake, read through its list endpoints `GET /v1/charges` and `/v1/refunds`):
 * - after a normal day (a portal payment through Stripe) the page shows the processor's totals equal
 *   to ours and no difference, and the console's home shows none;
 * - a charge made at the fake directly (the `stripe` package, no payment of ours) shows as money at
 *   the processor with no payment here, with what to do, on the page and on the home page;
 * - a manager scoped to another location sees it neither on the page nor on the home page, and cannot
 *   resolve it (404);
 * - resolving needs a note (400, the message beside the field, JavaScript-off form post), then is
 *   audited, and the home page no longer shows it.
 */
// First: it gives this process and the built app one session secret.
import { startBuiltServer, type BuiltServer } from "../support/built-server";
import { and, eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { auditEvents, leases, locations, paymentDifferences, payments } from "~/db/schema";
import { addMonthsIso, localDate } from "~/domain/shared/calendar";
import { now as clockNow } from "~/platform/clock.server";
import { stripeClientOptions } from "~/platform/payments/stripe.server";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { createTenantSession } from "~/services/web/session.server";
import { startStripeFake, type RunningStripeFake } from "../../../stripe-fake";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

let handle: DatabaseHandle;
let server: BuiltServer;
let fake: RunningStripeFake;
let owner: TestStaffMember;
let here: TestStaffMember;
let elsewhere: TestStaffMember;
let locationId: number;
let tenant: { leaseId: number; session: string };
let csrf: { cookie: string };
const saved: Record<string, string | undefined> = {};

async function get(path: string, cookie: string) {
  const r = await fetch(server.urlFor(path), { headers: { Cookie: cookie }, redirect: "manual" });
  return { status: r.status, headers: r.headers, body: await r.text() };
}

async function post(path: string, cookie: string, form: Record<string, string>) {
  const both = `${cookie}; ${csrf.cookie}`;
  const token = (await getCsrfToken(new Request(server.urlFor(path), { headers: { Cookie: both } }))).token;
  const r = await fetch(server.urlFor(path), {
    method: "POST",
    headers: { Cookie: both, "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(server.urlFor(path)).origin },
    body: new URLSearchParams({ [CSRF_FIELD]: token, ...form }).toString(),
    redirect: "manual",
  });
  return { status: r.status, headers: r.headers, body: await r.text() };
}

beforeAll(async () => {
  handle = await createTestDatabase({ seeded: true });
  const db = handle.db;
  fake = await startStripeFake({ port: 0 });
  // The tenant moved in a month ago (through the test gateway, as if before Stripe); from now on Stripe.
  const now = clockNow();
  const [first] = await db.select().from(locations).limit(1);
  const t = await createTenantWithLease(db, { email: `rec-${Date.now()}@example.com`, password: "secret1", now, withInsurance: false, moveInDate: addMonthsIso(localDate(now, first!.timeZone.timeZoneId), -1) });
  const [lease] = await db.select().from(leases).where(eq(leases.id, Number(t.leaseId)));
  locationId = lease!.locationId;
  const session = (await createTenantSession(db, { tenantId: String(t.tenantId), now })).split(";")[0]!;
  tenant = { leaseId: Number(t.leaseId), session };
  const [loc] = await db.select().from(locations).where(eq(locations.id, locationId));
  const other = (await db.select({ id: locations.id }).from(locations)).find((l) => l.id !== locationId)!.id;
  owner = await signedInStaffMember(db, { accountId: loc!.accountId, role: "owner" });
  here = await signedInStaffMember(db, { accountId: loc!.accountId, role: "manager", locationIds: [locationId] });
  elsewhere = await signedInStaffMember(db, { accountId: loc!.accountId, role: "manager", locationIds: [other] });
  const token = await getCsrfToken(new Request("http://localhost/"));
  csrf = { cookie: token.setCookie!.split(";")[0]! };
  for (const k of ["PAYMENT_GATEWAY", "STRIPE_SECRET_KEY", "STRIPE_API_BASE", "STRIPE_PUBLISHABLE_KEY"]) saved[k] = process.env[k];
  process.env.PAYMENT_GATEWAY = "stripe";
  process.env.STRIPE_SECRET_KEY = fake.secretKey;
  process.env.STRIPE_API_BASE = fake.url;
  server = await startBuiltServer(handle);
}, 600_000);

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await server?.close();
  await fake?.close();
  await handle?.close();
});

const page = (cookie: string) => get(`/admin/reconciliation?location=${locationId}`, cookie);

describe("reconciliation with the card processor (issue 35)", () => {
  it("after a normal day's payment through Stripe: the processor's totals equal ours, no difference, nothing on the home page", async () => {
    const portalCsrf = await getCsrfToken(new Request("http://localhost/", { headers: { Cookie: tenant.session } }));
    const key = `rec-pay-${Date.now()}`;
    const r = await fetch(`${server.origin}/customer-portal/units/${tenant.leaseId}/pay`, {
      method: "POST",
      headers: { Cookie: tenant.session, "Content-Type": "application/x-www-form-urlencoded", Origin: server.origin },
      body: new URLSearchParams({ [CSRF_FIELD]: portalCsrf.token, idempotency_key: key, amount_choice: "other", other_amount: "12.34", payment_method: "new", hosted_fields: "1", payment_token: "pm_card_visa" }).toString(),
      redirect: "manual",
    });
    expect(r.status, await r.text()).toBe(303);
    const [paid] = await handle.db.select().from(payments).where(eq(payments.idempotencyKey, key));
    expect(paid).toMatchObject({ status: "approved", amount: 1234 });
    expect(paid!.authReference).toMatch(/^pi_/);

    const shown = await page(owner.cookie);
    expect(shown.status).toBe(200);
    expect(shown.body).toContain("No differences: the card processor and our records agree for this day.");
    // Both rows: $12.34 charged, one payment.
    expect(shown.body.match(/\$12\.34<!-- --> \(<!-- -->1<!-- -->\)/g)?.length ?? shown.body.match(/\$12\.34 \(1\)/g)?.length).toBe(2);
    const home = await get("/admin", owner.cookie);
    expect(home.status).toBe(200);
    expect(home.body).not.toContain("Payments that do not match the card processor");
    expect(await handle.db.select().from(paymentDifferences)).toEqual([]);
  });

  it("a charge made at the processor directly shows as money with no payment here, with what to do; only to whom it may concern; resolving needs a note and is audited", async () => {
    const stripe = new Stripe(fake.secretKey, stripeClientOptions({ apiBase: fake.url }));
    const pi = await stripe.paymentIntents.create({ amount: 777, currency: "usd", payment_method: "pm_card_visa", confirm: true, automatic_payment_methods: { enabled: true, allow_redirects: "never" } });
    expect(pi.status).toBe("succeeded");

    const shown = await page(owner.cookie);
    expect(shown.status).toBe(200);
    expect(shown.body).toContain("Money at the processor, no payment here");
    expect(shown.body).toContain(pi.id);
    expect(shown.body).toContain("Look the payment up in the card processor");
    expect(shown.body).not.toContain("No differences");
    const [diff] = await handle.db.select().from(paymentDifferences);
    expect(diff).toMatchObject({ kind: "not_recorded", reference: pi.id, processorAmount: 777, locationId: null, resolvedAt: null });

    const home = await get("/admin", owner.cookie);
    expect(home.body).toContain("Payments that do not match the card processor");
    expect(home.body).toContain("$7.77");

    // A manager of another location: not on their home, not on the page (their own location is shown), cannot resolve it.
    const theirHome = await get("/admin", elsewhere.cookie);
    expect(theirHome.status).toBe(200);
    expect(theirHome.body).not.toContain("$7.77");
    const theirs = await page(elsewhere.cookie);
    expect(theirs.body).toContain("Choose one of your locations from the list.");
    expect(theirs.body).not.toContain(pi.id);
    expect((await post("/admin/reconciliation", elsewhere.cookie, { id: String(diff!.id), note: "Not mine, but resolved" })).status).toBe(404);
    // Money tied to no location is for owners (every location): the location's own manager does not see it either.
    expect((await page(here.cookie)).body).not.toContain(pi.id);

    // No note: refused beside the field, nothing resolved, nothing audited.
    const noNote = await post(`/admin/reconciliation?location=${locationId}`, owner.cookie, { id: String(diff!.id), note: " " });
    expect(noNote.status).toBe(400);
    expect(noNote.body).toContain("Say what was done, so the next person knows.");
    expect((await handle.db.select().from(paymentDifferences).where(eq(paymentDifferences.id, diff!.id)))[0]!.resolvedAt).toBeNull();
    expect(await handle.db.select().from(auditEvents).where(eq(auditEvents.action, "payment_difference.resolved"))).toEqual([]);

    const done = await post(`/admin/reconciliation?location=${locationId}`, owner.cookie, { id: String(diff!.id), note: "Card payment taken by phone in the dashboard; posted to the tenant's ledger." });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toContain("done=resolved");
    const [resolved] = await handle.db.select().from(paymentDifferences).where(eq(paymentDifferences.id, diff!.id));
    expect(resolved!.resolvedBy).toBe(owner.staffId);
    expect(resolved!.resolutionNote).toContain("posted to the tenant's ledger");
    const audit = await handle.db.select().from(auditEvents).where(and(eq(auditEvents.action, "payment_difference.resolved"), eq(auditEvents.entityId, String(diff!.id))));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.staffId).toBe(owner.staffId);

    expect((await get("/admin", owner.cookie)).body).not.toContain("Payments that do not match the card processor");
    const after = await page(owner.cookie);
    expect(after.body).toContain("posted to the tenant&#x27;s ledger");
  });
});
