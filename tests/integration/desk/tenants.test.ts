/**
 * The back office's tenants (issue 23, decision 260), on a real database (PGlite, and PostgreSQL with
 * TEST_DATABASE_URL): a tenant made by a real online rental at Lumberton, another at Jacksonville;
 * staff of each role; the list, the CSV, the tenant's page and its actions through the route modules
 * with the signed-in member in the request context (what the console's layout middleware sets).
 */
import { and, count, desc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { auditEvents, emailOutbox, leases, ledgerEntries, locations, payLinks, payments, rateLimitHits } from "~/db/schema";
import type { StaffRole } from "~/domain/staff/roles";
import { signIn, signInAccountKey } from "~/services/portal/sign-in-limits.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { DESK_ACTIONS_PER_STAFF } from "~/services/desk/pages.server";
import { readOutboxMail } from "~/services/mail/outbox.server";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { getRental } from "~/services/rental/record.server";
import type { SignedInStaff } from "~/services/staff/context.server";
import { storageFor } from "~/storage-software/index.server";
import AdminTenants, { loader as listLoader } from "~/routes/desk/tenants";
import { loader as csvLoader } from "~/routes/desk/tenants[.]csv";
import AdminTenant, { action as tenantAction, loader as tenantLoader } from "~/routes/desk/tenant";
import AdminHome, { loader as homeLoader } from "~/routes/console/home";
import { addDaysIso, localDate } from "~/domain/shared/calendar";
import { createTestDatabase } from "../support/db";
import { card, ctxFor, lumbertonUnitType, NOW, signedRental, tenantDetails } from "../support/rental-fixtures";
import { answer, deskMember, staffContext, type Answer } from "../support/staff-fixtures";
import { renderPage } from "../support/render-page";

let handle: DatabaseHandle;
let accountId: number;
let lumberton: number;
let jacksonville: number;
const staff: Record<"owner" | "frontDesk" | "readOnly" | "manager" | "jacksonvilleDesk", SignedInStaff> = {} as never;
let tenantA: { id: number; email: string; leaseId: number; paymentId: number; unitName: string };
let tenantB: { id: number; email: string; leaseId: number };
/** Moved out of Lumberton (moved in January 2025), and locked out of the portal. */
let tenantC: { id: number; email: string; leaseId: number };
/** At Lumberton, rent past due. */
let tenantD: { id: number; email: string; leaseId: number };

const member = (email: string, role: StaffRole, locationIds: number[]) => deskMember(handle.db, { accountId, email, role, locationIds, ip: "198.51.100.7" });
const contextFor = (who: SignedInStaff) => staffContext(handle.db, who, "198.51.100.7");

const list = (who: SignedInStaff, query = "") =>
  answer(() => listLoader({ request: new Request(`http://localhost/admin/tenants${query}`), params: {}, context: contextFor(who) } as never));
const page = (who: SignedInStaff, tenantId: number | string) =>
  answer(() => tenantLoader({ request: new Request(`http://localhost/admin/tenants/${tenantId}`), params: { tenantId: String(tenantId) }, context: contextFor(who) } as never));

async function post(who: SignedInStaff, tenantId: number, fields: Record<string, string>, options: { csrf?: boolean } = {}) {
  const { token, setCookie } = await getCsrfToken(new Request("http://localhost/"));
  const body = new URLSearchParams({ ...fields, ...(options.csrf === false ? {} : { csrf: token }) });
  const request = new Request(`http://localhost/admin/tenants/${tenantId}`, {
    method: "POST",
    body,
    headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" },
  });
  return answer(() => tenantAction({ request, params: { tenantId: String(tenantId) }, context: contextFor(who) } as never));
}

async function failSignIns(email: string, times: number) {
  const storage = storageFor(handle.db, (await handle.db.query.locations.findFirst({ where: eq(locations.id, lumberton) }))!);
  for (let i = 0; i < times; i++) {
    await signIn(handle.db, storage, { accountId, email, password: "not-the-password", ip: `203.0.113.${10 + i}`, now: new Date() });
  }
}

const auditRows = (action: string) => handle.db.select().from(auditEvents).where(eq(auditEvents.action, action)).orderBy(desc(auditEvents.id));

beforeAll(async () => {
  handle = await createTestDatabase();
  const db = handle.db;
  const locs = await db.select().from(locations);
  lumberton = locs.find((l) => l.name === "Lumberton")!.id;
  jacksonville = locs.find((l) => l.name === "Jacksonville")!.id;
  accountId = locs[0]!.accountId;
  // Tenant A: a real online rental at Lumberton (details, protection, signature, card).
  const { unitTypeId } = await lumbertonUnitType(db);
  const details = tenantDetails({ first_name: "Grace", last_name: "Hopper" });
  const { id } = await signedRental(db, unitTypeId, { details });
  const ctx = await ctxFor(db, unitTypeId);
  const placed = await placeMoveIn(db, ctx, (await getRental(db, id, unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: "http://localhost" });
  expect(placed.status).toBe("completed");
  const leaseA = (await db.query.leases.findFirst({ where: eq(leases.id, Number((placed as { leaseId: string }).leaseId)), with: { unit: true } }))!;
  const [payA] = await db.select().from(payments).where(eq(payments.leaseId, leaseA.id));
  tenantA = { id: leaseA.tenantId, email: details.email, leaseId: leaseA.id, paymentId: payA!.id, unitName: (leaseA as unknown as { unit: { name: string } }).unit.name };
  // Tenant B: only at Jacksonville.
  const emailB = `brian.${Date.now()}@example.com`;
  const b = await createTenantWithLease(db, { email: emailB, password: "right-pass-9", firstName: "Brian", lastName: "Kernighan", now: NOW, locationId: jacksonville, withInsurance: false });
  tenantB = { id: b.tenantId, email: emailB, leaseId: b.leaseId };
  const emailC = `ada.${Date.now()}@example.com`;
  const c = await createTenantWithLease(db, { email: emailC, password: "right-pass-9", firstName: "Ada", lastName: "Lovelace", now: NOW, locationId: lumberton, withInsurance: false, moveInDate: "2025-01-15" });
  await db.update(leases).set({ status: "moved_out", moveOutDate: "2025-06-30" }).where(eq(leases.id, c.leaseId));
  tenantC = { id: c.tenantId, email: emailC, leaseId: c.leaseId };
  const emailD = `dennis.${Date.now()}@example.com`;
  const d = await createTenantWithLease(db, { email: emailD, password: "right-pass-9", firstName: "Dennis", lastName: "Ritchie", now: NOW, locationId: lumberton, withInsurance: false, moveInDate: "2024-03-02" });
  await db.update(leases).set({ paidThroughDate: "2024-04-01", nextDueDate: "2024-04-02" }).where(eq(leases.id, d.leaseId));
  tenantD = { id: d.tenantId, email: emailD, leaseId: d.leaseId };
  staff.owner = await member("owner@example.com", "owner", []);
  staff.frontDesk = await member("desk@example.com", "front_desk", [lumberton]);
  staff.readOnly = await member("reader@example.com", "read_only", [lumberton]);
  staff.manager = await member("manager@example.com", "manager", [lumberton]);
  staff.jacksonvilleDesk = await member("jax@example.com", "front_desk", [jacksonville]);
});
afterAll(() => handle?.close());

type ListData = { rows: Array<{ id: number; name: string; units: string }>; total: number; errors: Record<string, string>; canExport: boolean };

describe("the tenants list", () => {
  it("finds a tenant by name, e-mail, phone or unit, within the member's locations only", async () => {
    for (const q of ["hopper", tenantA.email.toUpperCase(), "555-0134", tenantA.unitName]) {
      const r = await list(staff.frontDesk, `?q=${encodeURIComponent(q)}`);
      expect(r.status).toBe(200);
      expect((r.data as ListData).rows.map((x) => x.id)).toContain(tenantA.id);
    }
    const desk = (await list(staff.frontDesk, "?q=kernighan")).data as ListData;
    expect(desk.rows).toHaveLength(0);
    const owner = (await list(staff.owner, "?q=kernighan")).data as ListData;
    expect(owner.rows.map((x) => x.id)).toEqual([tenantB.id]);
    const all = (await list(staff.frontDesk)).data as ListData;
    expect(all.rows.map((x) => x.id)).toContain(tenantA.id);
    expect(all.rows.map((x) => x.id)).not.toContain(tenantB.id);
    expect(all.rows.find((x) => x.id === tenantA.id)!.units).toContain("(Lumberton)");
    const html = await renderPage(AdminTenants as never, { pattern: "/admin/tenants", url: "/admin/tenants?q=hopper", loaderData: (await list(staff.manager, "?q=hopper")).data });
    expect(html).toContain(`href="/admin/tenants/${tenantA.id}"`);
    expect(html).toContain('href="/admin/tenants.csv?q=hopper"');
    expect(await renderPage(AdminTenants as never, { pattern: "/admin/tenants", url: "/admin/tenants", loaderData: all })).not.toContain("tenants.csv");
  });

  it("filters by location; a location outside the member's is refused beside the field, and the list still shows", async () => {
    const jax = (await list(staff.owner, `?location=${jacksonville}`)).data as ListData;
    expect(jax.rows.map((x) => x.id)).toContain(tenantB.id);
    expect(jax.rows.map((x) => x.id)).not.toContain(tenantA.id);
    const refused = await list(staff.frontDesk, `?location=${jacksonville}`);
    expect(refused.status).toBe(400);
    expect((refused.data as ListData).errors.location).toBe("Choose a location from the list.");
    expect((refused.data as ListData).rows.map((x) => x.id)).not.toContain(tenantB.id);
  });

  it("exports exactly what the filter shows, for roles that may export, with a fresh second factor", async () => {
    const csv = (who: SignedInStaff, query: string) =>
      answer(() => csvLoader({ request: new Request(`http://localhost/admin/tenants.csv${query}`), params: {}, context: contextFor(who) } as never));
    const ok = await csv(staff.manager, "?q=hopper");
    expect(ok.status).toBe(200);
    const text = await ((await csvLoader({ request: new Request("http://localhost/admin/tenants.csv?q=hopper"), params: {}, context: contextFor(staff.manager) } as never)) as Response).text();
    expect(text.split("\r\n")[0]).toBe("Tenant id,Name,E-mail,Phone,Units,Since,Moved in,Status");
    expect(text).toContain(tenantA.email);
    expect(text).not.toContain(tenantB.email);
    expect(ok.headers.get("Content-Type")).toContain("text/csv");
    expect((await csv(staff.frontDesk, "")).status).toBe(403);
    expect((await csv(staff.readOnly, "")).status).toBe(403);
    const stale = await csv({ ...staff.manager, factorAt: new Date(Date.now() - 60 * 60_000) }, "?q=hopper");
    expect(stale.status).toBe(303);
    expect(stale.headers.get("Location")).toBe(`/admin/reauth?next=${encodeURIComponent("/admin/tenants.csv?q=hopper")}`);
    expect((await auditRows("tenants.exported")).length).toBeGreaterThanOrEqual(2);
  });
});

describe("the tenants list's dates and statuses (decision 340)", () => {
  const ids = (r: Answer) => (r.data as ListData).rows.map((x) => x.id);

  it("filters by move-in dates, on the location's calendar", async () => {
    const jan = await list(staff.frontDesk, "?from=2025-01-01&to=2025-01-31");
    expect(jan.status).toBe(200);
    expect(ids(jan)).toEqual([tenantC.id]);
    expect(ids(await list(staff.frontDesk, "?from=2025-01-15&to=2025-01-15"))).toEqual([tenantC.id]);
    expect(ids(await list(staff.frontDesk, "?from=2025-01-16&to=2025-12-31"))).not.toContain(tenantC.id);
    expect(ids(await list(staff.frontDesk, "?to=2024-12-31"))).toEqual([tenantD.id]);
    // Jacksonville's desk does not see Lumberton's tenants, whatever the dates.
    expect(ids(await list(staff.jacksonvilleDesk, "?from=2024-01-01"))).not.toContain(tenantC.id);
    const row = (jan.data as { rows: Array<{ movedIn: string | null; statuses: string[] }> }).rows[0]!;
    expect(row.movedIn).toBe("2025-01-15");
  });

  it("filters by status: current, past due, moved out, locked out", async () => {
    const current = ids(await list(staff.frontDesk, "?status=current"));
    expect(current).toContain(tenantA.id);
    expect(current).toContain(tenantD.id);
    expect(current).not.toContain(tenantC.id);
    expect(ids(await list(staff.frontDesk, "?status=moved_out"))).toEqual([tenantC.id]);
    const pastDue = ids(await list(staff.owner, "?status=past_due"));
    expect(pastDue).toContain(tenantD.id);
    expect(pastDue).not.toContain(tenantC.id);
    expect(ids(await list(staff.frontDesk, "?status=locked_out"))).not.toContain(tenantC.id);
    await failSignIns(tenantC.email, 5);
    expect(ids(await list(staff.frontDesk, "?status=locked_out"))).toEqual([tenantC.id]);
    expect(ids(await list(staff.jacksonvilleDesk, "?status=locked_out"))).toEqual([]);
    // Status and dates together, and the location chosen.
    expect(ids(await list(staff.owner, `?status=moved_out&from=2025-01-01&location=${lumberton}`))).toEqual([tenantC.id]);
    expect(ids(await list(staff.owner, `?status=moved_out&location=${jacksonville}`))).toEqual([]);
    const html = await renderPage(AdminTenants as never, { pattern: "/admin/tenants", url: "/admin/tenants?status=moved_out", loaderData: (await list(staff.manager, "?status=moved_out")).data });
    expect(html).toContain("Moved out, Locked out of the portal");
    expect(html).toContain('href="/admin/tenants.csv?status=moved_out"');
  });

  it("answers bad filter input beside the field (400), never a 500, and keeps the rest of the filter", async () => {
    const bad = await list(staff.frontDesk, "?from=2025-13-45&status=moved_out");
    expect(bad.status).toBe(400);
    expect((bad.data as ListData).errors.from).toBe("Enter a real date.");
    expect(ids(bad)).toEqual([tenantC.id]);
    const backwards = await list(staff.frontDesk, "?from=2025-02-01&to=2025-01-01");
    expect(backwards.status).toBe(400);
    expect((backwards.data as ListData).errors.to).toBe("The end date must not be before the start date.");
    const status = await list(staff.frontDesk, "?status=everyone");
    expect(status.status).toBe(400);
    expect((status.data as ListData).errors.status).toBe("Choose a status from the list.");
    const html = await renderPage(AdminTenants as never, { pattern: "/admin/tenants", url: "/admin/tenants?status=everyone", loaderData: status.data });
    expect(html).toContain('id="filter-status-error"');
    expect(html).toContain("Choose a status from the list.");
    expect((await list(staff.frontDesk, "?page=2&status=moved_out")).data).toMatchObject({ total: 1, rows: [] });
  });

  it("exports exactly what the status and dates show, with a fresh second factor; a bad filter is refused", async () => {
    const csv = async (who: SignedInStaff, query: string) =>
      (await csvLoader({ request: new Request(`http://localhost/admin/tenants.csv${query}`), params: {}, context: contextFor(who) } as never)) as Response;
    const text = await (await csv(staff.manager, "?status=moved_out&from=2025-01-01&to=2025-01-31")).text();
    const lines = text.trim().split("\r\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(tenantC.email);
    expect(lines[1]).toContain("2025-01-15");
    expect(lines[1]).toContain("Moved out");
    const pastDue = await (await csv(staff.owner, "?status=past_due")).text();
    expect(pastDue).toContain(tenantD.email);
    expect(pastDue).not.toContain(tenantC.email);
    const refused = await answer(() => csv(staff.manager, "?status=everyone"));
    expect(refused.status).toBe(400);
    expect((refused.data as { message: string }).message).toContain("Choose a status from the list.");
    const stale = await answer(() => csv({ ...staff.manager, factorAt: new Date(Date.now() - 60 * 60_000) }, "?status=moved_out"));
    expect(stale.status).toBe(303);
    const [audit] = await auditRows("tenants.exported");
    expect(audit!.detail).toMatchObject({ filter: { status: "past_due" } });
  });
});

type PageData = {
  desk: {
    tenant: { id: number; email: string };
    leases: Array<{ leaseId: number; balance: number | null; ledger: unknown[] | null }>;
    payments: Array<{ id: number; amount: number }>;
    outbox: Array<{ subject: string; state: string }>;
    lockout: { attempts: number; locked: boolean };
  };
  canAct: boolean;
};

describe("a tenant's page", () => {
  it("shows leases with balance and ledger, payments, the outbox (never a secret) and the lockout", async () => {
    const r = await page(staff.frontDesk, tenantA.id);
    expect(r.status).toBe(200);
    const d = r.data as PageData;
    expect(d.desk.leases.map((l) => l.leaseId)).toEqual([tenantA.leaseId]);
    expect(d.desk.leases[0]!.balance).not.toBeNull();
    expect(d.desk.leases[0]!.ledger!.length).toBeGreaterThan(0);
    expect(d.desk.payments.map((p) => p.id)).toEqual([tenantA.paymentId]);
    expect(d.desk.outbox.some((m) => m.subject.startsWith("Your rental at"))).toBe(true);
    expect(JSON.stringify(d)).not.toMatch(/token=|gateCode|sealed/);
    expect(d.desk.lockout).toMatchObject({ attempts: 0, locked: false });
    expect(d.canAct).toBe(true);
    expect((await page(staff.readOnly, tenantA.id)).status).toBe(200);
  });

  it("is a 404 for a tenant outside the member's locations, a guessed id and a malformed one", async () => {
    expect((await page(staff.frontDesk, tenantB.id)).status).toBe(404);
    expect((await page(staff.jacksonvilleDesk, tenantA.id)).status).toBe(404);
    expect((await page(staff.jacksonvilleDesk, tenantB.id)).status).toBe(200);
    expect((await page(staff.frontDesk, 99_999_999)).status).toBe(404);
    expect((await page(staff.frontDesk, "12abc")).status).toBe(404);
    // An action on an out-of-scope tenant: 404 as well, nothing done.
    expect((await post(staff.frontDesk, tenantB.id, { intent: "resend-lease", leaseId: String(tenantB.leaseId) })).status).toBe(404);
    // A lease of another tenant through this tenant's page: 404.
    expect((await post(staff.owner, tenantA.id, { intent: "resend-lease", leaseId: String(tenantB.leaseId) })).status).toBe(404);
  });

  it("refuses actions to read-only (403), without a CSRF token (403), and bad input beside the button (400)", async () => {
    expect((await post(staff.readOnly, tenantA.id, { intent: "lift-lockout" })).status).toBe(403);
    expect((await post(staff.frontDesk, tenantA.id, { intent: "lift-lockout" }, { csrf: false })).status).toBe(403);
    const bad = await post(staff.frontDesk, tenantA.id, { intent: "resend-receipt", paymentId: "abc" });
    expect(bad.status).toBe(400);
    expect(bad.data).toMatchObject({ intent: "resend-receipt", message: "Choose one of this tenant's payments." });
    const reply = { intent: "resend-receipt", id: tenantA.paymentId, message: "The facility's system has no receipt for this payment. Nothing was sent." };
    const html = await renderPage(AdminTenant as never, { pattern: "/admin/tenants/:tenantId", url: `/admin/tenants/${tenantA.id}`, loaderData: (await page(staff.frontDesk, tenantA.id)).data, actionData: reply });
    expect(html).toMatch(/Resend the receipt<\/button><p id="resend-receipt-\d+-message" class="field__errors" role="alert">The facility&#x27;s system has no receipt/);
    const readOnlyHtml = await renderPage(AdminTenant as never, { pattern: "/admin/tenants/:tenantId", url: `/admin/tenants/${tenantA.id}`, loaderData: (await page(staff.readOnly, tenantA.id)).data });
    expect(readOnlyHtml).not.toContain("<form");
    const none = await post(staff.frontDesk, tenantA.id, { intent: "lift-lockout" });
    expect(none.status).toBe(400);
    expect((none.data as { message: string }).message).toMatch(/no failed sign-ins/);
  });

  it("lifts a lockout made by failed portal sign-ins, audited with before and after; the tenant signs in again", async () => {
    await failSignIns(tenantA.email, 6);
    const key = signInAccountKey(accountId, tenantA.email);
    const locked = (await page(staff.frontDesk, tenantA.id)).data as PageData;
    expect(locked.desk.lockout).toMatchObject({ locked: true });
    const lockedHtml = await renderPage(AdminTenant as never, { pattern: "/admin/tenants/:tenantId", url: `/admin/tenants/${tenantA.id}`, loaderData: locked });
    expect(lockedHtml).toContain("Locked out");
    expect(lockedHtml).toContain("Lift the lockout");
    expect(lockedHtml).toContain(tenantA.email);
    const storage = storageFor(handle.db, (await handle.db.query.locations.findFirst({ where: eq(locations.id, lumberton) }))!);
    expect((await signIn(handle.db, storage, { accountId, email: tenantA.email, password: "secret1", ip: "203.0.113.99", now: new Date() })).ok).toBe(false);
    await failSignIns(tenantA.email, 1);
    const r = await post(staff.frontDesk, tenantA.id, { intent: "lift-lockout" });
    expect(r.status).toBe(303);
    expect(r.headers.get("Location")).toBe(`/admin/tenants/${tenantA.id}?done=lockout`);
    expect(await handle.db.select().from(rateLimitHits).where(eq(rateLimitHits.key, key))).toHaveLength(0);
    const [audit] = await auditRows("tenant.lockout_lifted");
    expect(audit).toMatchObject({ staffId: staff.frontDesk.staffId, actor: "desk@example.com", ip: "198.51.100.7", entity: "tenant", entityId: String(tenantA.id), locationId: lumberton });
    expect(audit!.changes).toMatchObject({ failedSignIns: { before: 8, after: 0 } });
    expect((await signIn(handle.db, storage, { accountId, email: tenantA.email, password: "secret1", ip: "203.0.113.98", now: new Date() })).ok).toBe(true);
  });

  it("resends the lease e-mail (a fresh expiring link, sealed in the outbox) and a receipt, each audited", async () => {
    const before = (await handle.db.select({ n: count() }).from(emailOutbox))[0]!.n;
    const lease = await post(staff.frontDesk, tenantA.id, { intent: "resend-lease", leaseId: String(tenantA.leaseId) });
    expect(lease.status).toBe(303);
    const [mail] = await handle.db.select().from(emailOutbox).where(sql`lower(${emailOutbox.to}) = ${tenantA.email}`).orderBy(desc(emailOutbox.id)).limit(1);
    expect(mail!.subject).toMatch(/^Your lease at .*Lumberton$/);
    expect(readOutboxMail(mail!).text).toMatch(new RegExp(`/rent/lease/${tenantA.leaseId}\\?token=\\d+\\.`));
    expect(mail!.text).not.toContain("token=");
    const [leaseAudit] = await auditRows("lease.email_resent");
    expect(leaseAudit).toMatchObject({ entity: "lease", entityId: String(tenantA.leaseId), locationId: lumberton });
    expect(leaseAudit!.detail).toMatchObject({ outboxId: mail!.id });

    const receipt = await post(staff.frontDesk, tenantA.id, { intent: "resend-receipt", paymentId: String(tenantA.paymentId) });
    expect(receipt.status).toBe(303);
    const [rmail] = await handle.db.select().from(emailOutbox).orderBy(desc(emailOutbox.id)).limit(1);
    expect(rmail!.subject).toMatch(/^Payment receipt: \$/);
    expect(rmail!.text).toContain(`/customer-portal/receipts/${tenantA.paymentId}`);
    expect((await auditRows("payment.receipt_resent"))[0]).toMatchObject({ entity: "payment", entityId: String(tenantA.paymentId) });
    expect((await handle.db.select({ n: count() }).from(emailOutbox))[0]!.n).toBe(before + 2);
    const shown = (await page(staff.frontDesk, tenantA.id)).data as PageData;
    expect(shown.desk.outbox.filter((m) => m.state === "waiting").length).toBeGreaterThanOrEqual(2);
  });

  it("sends a pay link for a lease: the link, its e-mail (the link sealed) and the audit row (the link's id, never the link)", async () => {
    // Something is due (a link for $0.00 is refused: decision 507).
    await handle.db.insert(ledgerEntries).values({ leaseId: tenantA.leaseId, tenantId: tenantA.id, kind: "charge", description: "Late fee", amount: 2000, entryDate: localDate(NOW, "America/New_York") });
    // A mail server is set up (without one, nothing is sent: decision 507); it is down, so the mail waits.
    process.env.SMTP_URL = "smtp://127.0.0.1:9";
    let r;
    try {
      r = await post(staff.frontDesk, tenantA.id, { intent: "send-pay-link", leaseId: String(tenantA.leaseId) });
    } finally {
      delete process.env.SMTP_URL;
    }
    expect(r.status).toBe(303);
    expect(r.headers.get("Location")).toBe(`/admin/tenants/${tenantA.id}?done=paylinkqueued`);
    const [link] = await handle.db.select().from(payLinks).where(eq(payLinks.leaseId, tenantA.leaseId)).orderBy(desc(payLinks.id)).limit(1);
    expect(link).toMatchObject({ tenantId: tenantA.id, sentBy: "staff" });
    const [mail] = await handle.db.select().from(emailOutbox).orderBy(desc(emailOutbox.id)).limit(1);
    expect(mail!.subject).toMatch(/^Pay your storage bill: unit /);
    expect(readOutboxMail(mail!).text).toMatch(/\/pay\/\S+/);
    expect(mail!.text).not.toMatch(/\/pay\/[A-Za-z0-9]/);
    const [audit] = await auditRows("pay_link.sent");
    expect(audit).toMatchObject({ entity: "lease", entityId: String(tenantA.leaseId), locationId: lumberton, staffId: staff.frontDesk.staffId });
    expect(audit!.detail).toMatchObject({ payLinkId: link!.id, outboxId: mail!.id });
    expect(JSON.stringify(audit)).not.toContain("/pay/");
    expect((await post(staff.frontDesk, tenantB.id, { intent: "send-pay-link", leaseId: String(tenantB.leaseId) })).status).toBe(404);
    const html = await renderPage(AdminTenant as never, { pattern: "/admin/tenants/:tenantId", url: `/admin/tenants/${tenantA.id}`, loaderData: (await page(staff.frontDesk, tenantA.id)).data });
    // No mail server here: the page says so instead of offering "Send a pay link", and offers the link to copy.
    expect(html).toContain("No e-mail can be sent from this server");
    expect(html).toContain("Copy the link");
  });

  it("writes each action and its audit row in one transaction: when the audit row fails, nothing of the action remains", async () => {
    const db = handle.db;
    await failSignIns(tenantA.email, 3);
    const key = signInAccountKey(accountId, tenantA.email);
    const mails = (await db.select({ n: count() }).from(emailOutbox))[0]!.n;
    const audits = (await db.select({ n: count() }).from(auditEvents))[0]!.n;
    const links = (await db.select({ n: count() }).from(payLinks))[0]!.n;
    await db.execute(sql.raw(`create or replace function desk_test_refuse_audit() returns trigger language plpgsql as $$ begin raise exception 'audit refused (test)'; end $$`));
    await db.execute(sql.raw(`create trigger desk_test_refuse_audit after insert on audit_events for each row execute function desk_test_refuse_audit()`));
    try {
      await expect(post(staff.frontDesk, tenantA.id, { intent: "lift-lockout" })).rejects.toThrow();
      await expect(post(staff.frontDesk, tenantA.id, { intent: "resend-lease", leaseId: String(tenantA.leaseId) })).rejects.toThrow();
      await expect(post(staff.frontDesk, tenantA.id, { intent: "resend-receipt", paymentId: String(tenantA.paymentId) })).rejects.toThrow();
      process.env.SMTP_URL = "smtp://127.0.0.1:9";
      await expect(post(staff.frontDesk, tenantA.id, { intent: "send-pay-link", leaseId: String(tenantA.leaseId) })).rejects.toThrow();
    } finally {
      delete process.env.SMTP_URL;
      await db.execute(sql.raw(`drop trigger desk_test_refuse_audit on audit_events`));
    }
    const [hit] = await db.select().from(rateLimitHits).where(eq(rateLimitHits.key, key));
    expect(hit!.count).toBe(3);
    expect((await db.select({ n: count() }).from(emailOutbox))[0]!.n).toBe(mails);
    expect((await db.select({ n: count() }).from(auditEvents))[0]!.n).toBe(audits);
    expect((await db.select({ n: count() }).from(payLinks))[0]!.n).toBe(links);
  });

  it("counts desk actions per member: past the limit, a clear message and nothing done", async () => {
    const who = await member("busy@example.com", "front_desk", [lumberton]);
    const db = handle.db;
    await db.insert(rateLimitHits).values({ key: `desk-act:staff:${who.staffId}`, count: DESK_ACTIONS_PER_STAFF, resetAt: new Date(Date.now() + 5 * 60_000) });
    const mails = (await db.select({ n: count() }).from(emailOutbox))[0]!.n;
    const r = await post(who, tenantA.id, { intent: "resend-lease", leaseId: String(tenantA.leaseId) });
    expect(r.status).toBe(429);
    expect((r.data as { message: string }).message).toMatch(/Too many changes/);
    expect((await db.select({ n: count() }).from(emailOutbox))[0]!.n).toBe(mails);
    expect(await db.select().from(auditEvents).where(and(eq(auditEvents.staffId, who.staffId)))).toHaveLength(0);
  });
});

describe("move-outs (issue 39)", () => {
  const home = (who: SignedInStaff) => answer(() => homeLoader({ request: new Request("http://localhost/admin"), params: {}, context: contextFor(who) } as never));
  const ids = (r: Answer) => (r.data as ListData).rows.map((x) => x.id);

  it("a notice makes the tenant 'Moving out' (listed and filtered) and puts it on the home page's move-outs due", async () => {
    const db = handle.db;
    const email = `margaret.${Date.now()}@example.com`;
    const e = await createTenantWithLease(db, { email, password: "right-pass-9", firstName: "Margaret", lastName: "Hamilton", now: new Date(), locationId: lumberton, withInsurance: false, moveInDate: "2026-10-01" });
    const storage = storageFor(db, (await db.query.locations.findFirst({ where: eq(locations.id, lumberton) }))!);
    const today = localDate(new Date(), "America/New_York");
    const date = addDaysIso(today, 3);
    expect(ids(await list(staff.frontDesk, "?status=current"))).toContain(e.tenantId);
    await storage.giveMoveOutNotice({ tenantId: String(e.tenantId), leaseId: String(e.leaseId), moveOutDate: date, reason: null, now: new Date() });
    expect(ids(await list(staff.frontDesk, "?status=moving_out"))).toEqual([e.tenantId]);
    expect(ids(await list(staff.frontDesk, "?status=current"))).not.toContain(e.tenantId);
    expect(ids(await list(staff.jacksonvilleDesk, "?status=moving_out"))).toEqual([]);
    const html = await renderPage(AdminTenants as never, { pattern: "/admin/tenants", url: "/admin/tenants?status=moving_out", loaderData: (await list(staff.frontDesk, "?status=moving_out")).data });
    expect(html).toContain("Moving out");
    const due = (await home(staff.frontDesk)).data as { moveOuts: Array<{ tenantId: number; moveOutDate: string; overdue: boolean }> };
    expect(due.moveOuts).toContainEqual(expect.objectContaining({ tenantId: e.tenantId, moveOutDate: date, overdue: false }));
    expect(((await home(staff.jacksonvilleDesk)).data as { moveOuts: Array<{ tenantId: number }> }).moveOuts.map((m) => m.tenantId)).not.toContain(e.tenantId);
    const homeHtml = await renderPage(AdminHome as never, { pattern: "/admin", url: "/admin", loaderData: (await home(staff.frontDesk)).data });
    expect(homeHtml).toContain(`href="/admin/tenants/${e.tenantId}">Margaret Hamilton</a>`);

    // The desk records the move-out: bad input beside the form, nothing changed.
    const move = (who: SignedInStaff, fields: Record<string, string>) => post(who, e.tenantId, { intent: "record-move-out", leaseId: String(e.leaseId), ...fields });
    expect((await move(staff.readOnly, { moveOutDate: today, confirm: "yes" })).status).toBe(403);
    expect((await move(staff.jacksonvilleDesk, { moveOutDate: today, confirm: "yes" })).status).toBe(404);
    const unticked = await move(staff.frontDesk, { moveOutDate: today });
    expect(unticked).toMatchObject({ status: 400, data: { intent: "record-move-out", id: e.leaseId, message: "Tick the box to confirm the unit is empty and the tenant has moved out.", value: today } });
    const future = await move(staff.frontDesk, { moveOutDate: date, confirm: "yes" });
    expect(future).toMatchObject({ status: 400, data: { message: "A move-out is recorded once it has happened: choose today or an earlier day.", value: date } });
    const early = await move(staff.frontDesk, { moveOutDate: "2026-09-30", confirm: "yes" });
    expect(early).toMatchObject({ status: 400, data: { message: "The tenant moved in on 2026-10-01: choose that day or a later one." } });
    const form = await renderPage(AdminTenant as never, { pattern: "/admin/tenants/:tenantId", url: `/admin/tenants/${e.tenantId}`, loaderData: (await page(staff.frontDesk, e.tenantId)).data, actionData: future.data });
    expect(form).toContain(`value="${date}"`);
    expect(form).toMatch(/role="alert">A move-out is recorded once it has happened/);
    expect((await db.query.leases.findFirst({ where: eq(leases.id, e.leaseId) }))!.status).toBe("active");

    // Recorded: the lease ends, the unit is free, one audit row; a second submit changes nothing.
    const done = await move(staff.frontDesk, { moveOutDate: today, confirm: "yes" });
    expect(done.status).toBe(303);
    expect(done.headers.get("Location")).toBe(`/admin/tenants/${e.tenantId}?done=movedout`);
    const ended = (await db.query.leases.findFirst({ where: eq(leases.id, e.leaseId), with: { unit: true } }))!;
    expect(ended).toMatchObject({ status: "moved_out", moveOutDate: today, autopayEnabled: false });
    expect((ended as unknown as { unit: { status: string } }).unit.status).toBe("available");
    const audit = (await auditRows("lease.moved_out")).filter((a) => a.entityId === String(e.leaseId) || Number(a.entityId) === e.leaseId);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ staffId: staff.frontDesk.staffId, locationId: lumberton });
    expect((await move(staff.frontDesk, { moveOutDate: today, confirm: "yes" })).status).toBe(303);
    expect((await auditRows("lease.moved_out")).filter((a) => Number(a.entityId) === e.leaseId)).toHaveLength(1);
    expect(ids(await list(staff.frontDesk, "?status=moved_out"))).toContain(e.tenantId);
    expect(((await home(staff.frontDesk)).data as { moveOuts: Array<{ tenantId: number }> }).moveOuts.map((m) => m.tenantId)).not.toContain(e.tenantId);
  });
});
