/**
 * Four of the desk's lists (issue 23): online rentals, reservations, leads and payments, on data made
 * through the real services (a rental through the move-in, a declined move-in, a reservation, contact
 * and "notify me" messages, portal payments approved and declined), read by staff of different
 * roles and locations: scope, filters, CSV = the filtered rows, the day's totals = the ledger's, and
 * "mark contacted" writing the follow-up and the audit trail in one transaction.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq, inArray, ne, sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, auditEvents, leadFollowUps, ledgerEntries, leases, locations, payments, rentals, unitTypes, units } from "~/db/schema";
import type { StaffRole } from "~/domain/staff/roles";
import { getCsrfToken } from "~/services/web/csrf.server";
import { submitContactMessage } from "~/services/site/contact.server";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { accountStorage, portalLocations, type PortalContext } from "~/services/portal/context.server";
import { payLease } from "~/services/portal/payments.server";
import { getRental } from "~/services/rental/record.server";
import { reserveUnit } from "~/services/rental/reservation.server";
import { signedInStaffContext, type SignedInStaff } from "~/services/staff/context.server";
import { readDeskQuery } from "~/services/desk/scope.server";
import { listDeskRentals, DESK_RENTAL_CSV } from "~/services/desk/rentals.server";
import { listDeskReservations } from "~/services/desk/reservations.server";
import { DESK_LEAD_CSV, getDeskLead, listDeskLeads, markLeadContacted } from "~/services/desk/leads.server";
import { DESK_PAYMENT_CSV, deskPaymentTotals, listDeskPayments } from "~/services/desk/payments.server";
import { toCsv } from "~/services/web/csv.server";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import AdminRentals, { loader as rentalsLoader } from "~/routes/desk/rentals";
import AdminPayments, { loader as paymentsLoader } from "~/routes/desk/payments";
import { loader as rentalsCsvLoader } from "~/routes/desk/rentals[.]csv";
import { loader as leadsLoader } from "~/routes/desk/leads";
import { loader as paymentsCsvLoader } from "~/routes/desk/payments[.]csv";
import { loader as leadsCsvLoader } from "~/routes/desk/leads[.]csv";
import AdminLead, { loader as leadLoader, action as leadAction } from "~/routes/desk/lead";
import { storageFor } from "~/storage-software/index.server";
import { createTestDatabase } from "../support/db";
import { card, ctxFor, lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";
import { loadContext } from "../support/route-helpers";
import { signedInStaffMember } from "../support/staff-fixtures";

const DECLINED_CARD = "4000000000009995"; // the test gateway declines it (insufficient funds)
/** Two hours after the rentals were started: the unpaid ones are abandoned. */
const LATER = new Date(NOW.getTime() + 2 * 60 * 60 * 1000);

let handle: DatabaseHandle;
let accountId: number;
let locA: number;
let locB: number;
const staff: Record<string, SignedInStaff> = {};
let completedLeaseId: number;
let portalLeaseId: number;
let declinedRentalId: string;
let paidRentalId: string;
const reference = (rentalId: string) => createHash("sha256").update(rentalId).digest("hex").slice(0, 20);

/** A signed-in member (tests/integration/support/staff-fixtures.ts), as the console's middleware gives them to the routes. */
async function member(name: string, role: StaffRole, locationIds: number[]): Promise<SignedInStaff> {
  const m = await signedInStaffMember(handle.db, { accountId, role, locationIds, name });
  return { ...m.signedIn, ip: "198.51.100.7" };
}

const viewer = (s: SignedInStaff) => ({ accountId: s.accountId, scope: s.scope });
async function query(s: SignedInStaff, qs = "", statuses?: readonly string[]) {
  return readDeskQuery(handle.db, viewer(s), new URL(`http://x/admin/list${qs}`), statuses);
}

function contextFor(s: SignedInStaff) {
  const context = loadContext(handle.db, "198.51.100.7");
  context.set(signedInStaffContext, s);
  return context;
}

/** Calls a console loader or action as React Router would, after the layout set the member; returns what it answered or threw. */
async function call(fn: (args: never) => unknown, s: SignedInStaff, url: string, init?: RequestInit & { params?: Record<string, string> }) {
  const args = { request: new Request(new URL(url, "http://localhost"), init), params: init?.params ?? {}, context: contextFor(s) };
  try {
    return await fn(args as never);
  } catch (thrown) {
    return thrown;
  }
}
const statusOf = (r: unknown) => (r instanceof Response ? r.status : ((r as { init?: { status?: number } })?.init?.status ?? 200));

beforeAll(async () => {
  process.env.FAKE_NOW = LATER.toISOString();
  handle = await createTestDatabase();
  const { db } = handle;
  await db.update(accounts).set({ globalSettings: sql`${accounts.globalSettings} || '{"is_reservations_enabled": true}'::jsonb` });
  const a = await lumbertonUnitType(db);
  locA = a.locationId;
  accountId = (await db.query.locations.findFirst({ where: eq(locations.id, locA) }))!.accountId;
  // Location B: another of the account's locations with units to rent.
  const [b] = await db
    .select({ id: locations.id })
    .from(locations)
    .innerJoin(unitTypes, eq(unitTypes.locationId, locations.id))
    .innerJoin(units, eq(units.unitTypeId, unitTypes.id))
    .where(and(ne(locations.id, locA), eq(units.status, "available"), ne(unitTypes.category, "parking")))
    .orderBy(asc(locations.id))
    .limit(1);
  locB = b!.id;

  // A rental paid online at A (the move-in: lease, ledger, approved payment).
  const paid = await signedRental(db, a.unitTypeId);
  const done = await placeMoveIn(db, await ctxFor(db, a.unitTypeId), (await getRental(db, paid.id, a.unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: "http://x" });
  completedLeaseId = Number((done as { leaseId: string }).leaseId);
  paidRentalId = paid.id;
  // A rental whose card was declined at A: a declined payment without a lease, and (unpaid) a lead.
  const declined = await signedRental(db, a.unitTypeId, { details: undefined });
  const refused = await placeMoveIn(db, await ctxFor(db, a.unitTypeId), (await getRental(db, declined.id, a.unitTypeId))!, { payment: { kind: "card", card: card(DECLINED_CARD) }, autopay: false, now: NOW, origin: "http://x" });
  expect(refused.status).toBe("declined");
  declinedRentalId = declined.id;
  // A reservation at A.
  await reserveUnit(db, await ctxFor(db, a.unitTypeId), {
    form: { first_name: "Grace", last_name: "Hopper", email: `grace.${Date.now()}@example.com`, phone: "(910) 555-0199", desired_move_in_date: "2026-11-23" },
    idempotencyKey: "desk-res-1",
    now: NOW,
    origin: "http://x",
  });
  // Messages: a contact message at A, a "notify me" at B, and one for no location.
  await submitContactMessage(db, { accountId, kind: "contact", locationId: locA, locationName: "A", name: "Carl Contact", email: "carl@example.com", phone: "9105550111", message: "Do you have 10x10s?", officeEmail: null });
  await submitContactMessage(db, { accountId, kind: "notify", locationId: locB, locationName: "B", name: "Nora Notify", email: "nora@example.com", phone: "9105550122", message: "", officeEmail: null });
  await submitContactMessage(db, { accountId, kind: "contact", locationId: null, locationName: null, name: "Una Nowhere", email: "una@example.com", phone: "9105550133", message: "Hello", officeEmail: null });
  // Portal payments at A: one approved, one declined; and one approved at B.
  const locs = await portalLocations(db, accountId);
  const storage = accountStorage(db, locs).storage;
  const ctx = { db, now: NOW, locations: locs, siteName: "Gatehouse", accountId } as PortalContext;
  const t = await createTenantWithLease(db, { email: `pay.${Date.now()}@example.com`, password: "secret1", now: NOW, moveInDate: "2026-11-22", locationId: locA });
  portalLeaseId = t.leaseId;
  const base = { tenantId: String(t.tenantId), leaseId: String(t.leaseId), origin: "http://localhost", phone: "9105550134", ip: "203.0.113.50", prepayMonths: 3 };
  const cardOf = (number: string) => ({ number, expMonth: 12, expYear: 2030, cvv: "987", nameOnCard: "Pat Tenant", postalCode: "28358" });
  expect((await payLease(ctx, storage, { ...base, amount: 1234, method: { kind: "card", card: cardOf("4242424242424242"), saveCard: false }, idempotencyKey: "desk-pay-ok-abcdefghij" })).ok).toBe(true);
  expect((await payLease(ctx, storage, { ...base, amount: 999, method: { kind: "card", card: cardOf(DECLINED_CARD), saveCard: false }, idempotencyKey: "desk-pay-no-abcdefghij" })).ok).toBe(false);
  const tb = await createTenantWithLease(db, { email: `payb.${Date.now()}@example.com`, password: "secret1", now: NOW, moveInDate: "2026-11-22", locationId: locB });
  expect(
    (await payLease(ctx, storageFor(db, locs.find((l) => l.id === locB)!), { ...base, tenantId: String(tb.tenantId), leaseId: String(tb.leaseId), amount: 4321, method: { kind: "card", card: cardOf("4242424242424242"), saveCard: false }, idempotencyKey: "desk-pay-b-abcdefghij" })).ok,
  ).toBe(true);

  staff.owner = await member("owner", "owner", []);
  staff.deskA = await member("desk-a", "front_desk", [locA]);
  staff.deskB = await member("desk-b", "front_desk", [locB]);
  staff.readOnlyA = await member("read-a", "read_only", [locA]);
  staff.managerA = await member("manager-a", "manager", [locA]);
}, 120_000);

afterAll(async () => {
  delete process.env.FAKE_NOW;
  await handle?.close();
});

describe("online rentals", () => {
  it("shows the rental paid online as confirmed, with its unit, renter and amount, to staff of its location only", async () => {
    const rows = await listDeskRentals(handle.db, viewer(staff.owner!), await query(staff.owner!), LATER);
    const lease = (await handle.db.query.leases.findFirst({ where: eq(leases.id, completedLeaseId) }))!;
    const pay = (await handle.db.query.payments.findFirst({ where: and(eq(payments.leaseId, completedLeaseId), eq(payments.source, "move_in")) }))!;
    const unit = (await handle.db.query.units.findFirst({ where: eq(units.id, lease.unitId) }))!;
    const row = rows.find((r) => r.leaseId === completedLeaseId)!;
    expect(row).toMatchObject({ status: "confirmed", locationId: locA, unit: unit.name, renter: "Ada Lovelace", amount: pay.amount });
    // The declined (still open) rental is not an online rental.
    expect(rows.map((r) => r.reference)).not.toContain(reference(declinedRentalId));
    const deskA = await listDeskRentals(handle.db, viewer(staff.deskA!), await query(staff.deskA!), LATER);
    const deskB = await listDeskRentals(handle.db, viewer(staff.deskB!), await query(staff.deskB!), LATER);
    expect(deskA.map((r) => r.leaseId)).toContain(completedLeaseId);
    expect(deskA.every((r) => r.locationId === locA)).toBe(true);
    expect(deskB.every((r) => r.locationId === locB)).toBe(true);
    expect(deskB.map((r) => r.leaseId)).not.toContain(completedLeaseId);
    expect(deskA.length + deskB.length).toBeLessThanOrEqual(rows.length);
  });

  it("maps a rental left confirming to being confirmed, then needs attention", async () => {
    const [c] = await handle.db.insert(rentals).values({ id: `desk-confirming-${Date.now()}`, locationId: locA, unitTypeId: Number((await lumbertonUnitType(handle.db)).unitTypeId), status: "confirming", tenantDetails: { first_name: "Cy", last_name: "Confirm", email: "cy@example.com" }, idempotencyKey: `desk-ck-${Date.now()}`, expiresAt: LATER, updatedAt: new Date(LATER.getTime() - 60_000) }).returning();
    const f = (status: string, now = LATER) => query(staff.owner!, `?status=${status}`, ["confirmed", "being_confirmed", "needs_attention"]).then((q) => listDeskRentals(handle.db, viewer(staff.owner!), q, now));
    expect((await f("being_confirmed")).map((r) => r.renter)).toEqual(["Cy Confirm"]);
    expect(await f("needs_attention")).toHaveLength(0);
    expect((await f("needs_attention", new Date(LATER.getTime() + 31 * 60_000))).map((r) => r.renter)).toEqual(["Cy Confirm"]);
    await handle.db.delete(rentals).where(eq(rentals.id, c!.id));
  });

  it("refuses a location outside the member's scope beside the field, and shows nothing of it", async () => {
    const q = await query(staff.deskA!, `?location=${locB}`);
    expect(q.errors.location).toMatch(/your locations/);
    expect(q.locationIds).toEqual([locA]);
    expect(q.locations.map((l) => l.id)).toEqual([locA]);
    const page = (await call(rentalsLoader, staff.deskA!, `/admin/rentals?location=${locB}`)) as { data: { errors: Record<string, string>; locations: { id: number }[] } };
    expect(page.data.errors.location).toBeTruthy();
    expect(page.data.locations.map((l) => l.id)).toEqual([locA]);
  });

  it("the CSV is exactly the filtered rows; front desk may not export (403)", async () => {
    const res = (await call(rentalsCsvLoader, staff.managerA!, "/admin/rentals.csv?status=confirmed")) as Response;
    expect(res.headers.get("Content-Type")).toMatch(/text\/csv/);
    const rows = await listDeskRentals(handle.db, viewer(staff.managerA!), await query(staff.managerA!, "?status=confirmed", ["confirmed", "being_confirmed", "needs_attention"]), LATER);
    expect(await res.text()).toBe(toCsv(DESK_RENTAL_CSV, rows));
    expect(statusOf(await call(rentalsCsvLoader, staff.deskA!, "/admin/rentals.csv"))).toBe(403);
    expect(statusOf(await call(rentalsCsvLoader, staff.managerA!, `/admin/rentals.csv?location=${locB}`))).toBe(400);
  });
});

describe("reservations", () => {
  it("lists the reservation as active, then expired once its time has passed; scoped", async () => {
    const active = await listDeskReservations(handle.db, viewer(staff.deskA!), await query(staff.deskA!, "?status=active"), LATER);
    expect(active.map((r) => r.name)).toEqual(["Grace Hopper"]);
    expect(await listDeskReservations(handle.db, viewer(staff.deskA!), await query(staff.deskA!, "?status=cancelled"), LATER)).toHaveLength(0);
    const muchLater = new Date(LATER.getTime() + 60 * 86_400_000);
    expect((await listDeskReservations(handle.db, viewer(staff.deskA!), await query(staff.deskA!, "?status=expired"), muchLater)).map((r) => r.name)).toEqual(["Grace Hopper"]);
    expect(await listDeskReservations(handle.db, viewer(staff.deskB!), await query(staff.deskB!), LATER)).toHaveLength(0);
  });
});

describe("leads", () => {
  it("lists contact messages, notify-me requests and rentals abandoned after 60 minutes, scoped by location", async () => {
    const all = await listDeskLeads(handle.db, viewer(staff.owner!), await query(staff.owner!), LATER);
    expect(all.map((l) => `${l.kind}:${l.name}`).sort()).toEqual(["abandoned_rental:Ada Lovelace", "contact:Carl Contact", "contact:Una Nowhere", "notify:Nora Notify"]);
    const abandoned = all.find((l) => l.kind === "abandoned_rental")!;
    expect(abandoned).toMatchObject({ locationId: locA, stepReached: expect.stringMatching(/Signed/), status: "new" });
    expect(abandoned.unitType).toBeTruthy();
    expect(abandoned.key).toMatch(/^rental-[0-9a-f]{20}$/);
    // Not yet 60 minutes after the details: not a lead.
    const soon = await listDeskLeads(handle.db, viewer(staff.owner!), await query(staff.owner!), new Date(NOW.getTime() + 59 * 60_000));
    expect(soon.some((l) => l.kind === "abandoned_rental")).toBe(false);
    const deskA = await listDeskLeads(handle.db, viewer(staff.deskA!), await query(staff.deskA!), LATER);
    expect(deskA.map((l) => l.name).sort()).toEqual(["Ada Lovelace", "Carl Contact"]);
    const deskB = await listDeskLeads(handle.db, viewer(staff.deskB!), await query(staff.deskB!), LATER);
    expect(deskB.map((l) => l.name)).toEqual(["Nora Notify"]);
  });

  it("a lead of another location is a 404 for front desk A", async () => {
    const nora = (await listDeskLeads(handle.db, viewer(staff.owner!), await query(staff.owner!), LATER)).find((l) => l.kind === "notify")!;
    expect(await getDeskLead(handle.db, viewer(staff.deskA!), nora.key, LATER)).toBeNull();
    expect(statusOf(await call(leadLoader, staff.deskA!, `/admin/leads/${nora.key}`, { params: { leadKey: nora.key } }))).toBe(404);
    expect(statusOf(await call(leadLoader, staff.deskB!, `/admin/leads/${nora.key}`, { params: { leadKey: nora.key } }))).toBe(200);
    const r = await markLeadContacted(handle.db, viewer(staff.deskA!), { accountId, staffId: staff.deskA!.staffId, actor: "desk-a", ip: null }, { key: nora.key, note: "called", now: LATER });
    expect(r).toMatchObject({ ok: false, notFound: true });
    expect(await handle.db.select().from(leadFollowUps).where(eq(leadFollowUps.leadId, nora.leadId))).toHaveLength(0);
  });

  it("marking a lead contacted writes the follow-up and the audit entry together (a failed audit writes neither)", async () => {
    const lead = (await listDeskLeads(handle.db, viewer(staff.deskA!), await query(staff.deskA!), LATER)).find((l) => l.kind === "abandoned_rental")!;
    const actor = { accountId, staffId: staff.deskA!.staffId, actor: staff.deskA!.email, ip: "198.51.100.7" };
    // An audit entry that cannot be written (no such account) rolls the follow-up back.
    await expect(markLeadContacted(handle.db, viewer(staff.deskA!), { ...actor, accountId: 987654 }, { key: lead.key, note: "Left a voicemail", now: LATER })).rejects.toThrow();
    expect(await handle.db.select().from(leadFollowUps).where(eq(leadFollowUps.leadId, lead.leadId))).toHaveLength(0);

    const ok = await markLeadContacted(handle.db, viewer(staff.deskA!), actor, { key: lead.key, note: "Left a voicemail", now: LATER });
    expect(ok).toMatchObject({ ok: true, lead: { status: "contacted", note: "Left a voicemail", contactedBy: staff.deskA!.email } });
    const [fu] = await handle.db.select().from(leadFollowUps).where(eq(leadFollowUps.leadId, lead.leadId));
    expect(fu).toMatchObject({ kind: "abandoned_rental", contactedByStaffId: staff.deskA!.staffId, note: "Left a voicemail" });
    const [audit] = await handle.db.select().from(auditEvents).where(and(eq(auditEvents.action, "lead.contacted"), eq(auditEvents.entityId, lead.key)));
    expect(audit).toMatchObject({ staffId: staff.deskA!.staffId, locationId: locA, entity: "lead", ip: "198.51.100.7" });
    expect(audit!.changes).toMatchObject({ note: { before: null, after: "Left a voicemail" } });
    // The status filter sees it.
    const contacted = await listDeskLeads(handle.db, viewer(staff.deskA!), await query(staff.deskA!, "?status=contacted"), LATER);
    expect(contacted.map((l) => l.key)).toEqual([lead.key]);
  });

  it("the form: CSRF, the note's message beside the field, 403 for read-only, a redirect when saved", async () => {
    const carl = (await listDeskLeads(handle.db, viewer(staff.deskA!), await query(staff.deskA!), LATER)).find((l) => l.name === "Carl Contact")!;
    const { token, setCookie } = await getCsrfToken(new Request("http://localhost/admin/leads"));
    const cookie = setCookie!.split(";")[0]!;
    const post = (s: SignedInStaff, body: Record<string, string>, withCookie = true) =>
      call(leadAction, s, `/admin/leads/${carl.key}`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", ...(withCookie ? { Cookie: cookie } : {}) },
        body: new URLSearchParams(body).toString(),
        params: { leadKey: carl.key },
      });
    expect(statusOf(await post(staff.deskA!, { csrf: token, note: "x" }, false))).toBe(403);
    expect(statusOf(await post(staff.readOnlyA!, { csrf: token, note: "x" }))).toBe(403);
    const empty = (await post(staff.deskA!, { csrf: token, note: "   " })) as { data: { fieldErrors: Record<string, string>; note: string; result: unknown }; init: { status: number } };
    expect(empty.init.status).toBe(400);
    expect(empty.data.fieldErrors.note).toBe("Write what was said or agreed (a short note is enough).");
    // Conform's reply (the same schema checks the form in the browser), and the typed note kept.
    expect(empty.data.result).toMatchObject({ status: "error", error: { note: ["Write what was said or agreed (a short note is enough)."] } });
    expect(empty.data.note).toBe("   ");
    const long = (await post(staff.deskA!, { csrf: token, note: "y".repeat(2001) })) as { data: { fieldErrors: Record<string, string> }; init: { status: number } };
    expect(long.init.status).toBe(400);
    expect(long.data.fieldErrors.note).toBe("Keep the note under 2000 characters.");
    expect(await handle.db.select().from(leadFollowUps).where(and(eq(leadFollowUps.kind, "contact"), eq(leadFollowUps.leadId, carl.leadId)))).toHaveLength(0);
    const saved = (await post(staff.deskA!, { csrf: token, note: "Sent prices" })) as Response;
    expect(saved.status).toBe(303);
    expect(saved.headers.get("Location")).toBe(`/admin/leads/${carl.key}?saved=1`);
    expect(await handle.db.select().from(leadFollowUps).where(and(eq(leadFollowUps.kind, "contact"), eq(leadFollowUps.leadId, carl.leadId)))).toHaveLength(1);
  });

  it("the CSV is exactly the filtered leads", async () => {
    const res = (await call(leadsCsvLoader, staff.managerA!, "/admin/leads.csv?status=contacted")) as Response;
    const text = await res.text();
    const rows = await listDeskLeads(handle.db, viewer(staff.managerA!), await query(staff.managerA!, "?status=contacted"), LATER);
    expect(rows.length).toBeGreaterThan(0);
    expect(text).toBe(toCsv(DESK_LEAD_CSV, rows));
    expect(text.trim().split("\r\n")).toHaveLength(rows.length + 1);
    expect(text).not.toMatch(/Not contacted/);
    expect(text).toMatch(/Sent prices/);
  });

  it("abandoned-rental recovery (decision 519): each lead says whether its reminder went; a rental rented after it stays on the list as recovered, with the filter's totals", async () => {
    const { db } = handle;
    const sentAt = new Date(NOW.getTime() + 61 * 60_000);
    await db.update(rentals).set({ recoverySentAt: sentAt }).where(inArray(rentals.id, [declinedRentalId, paidRentalId]));
    try {
      const page = (await call(leadsLoader, staff.managerA!, "/admin/leads")) as { data: { rows: Array<{ kind: string; key: string; reminder: string; stepReached: string }>; recovery: unknown } };
      const byKey = new Map(page.data.rows.map((r) => [r.key, r]));
      expect(byKey.get(`rental-${reference(declinedRentalId)}`)).toMatchObject({ reminder: "Sent", stepReached: expect.stringMatching(/Signed/) });
      expect(byKey.get(`rental-${reference(paidRentalId)}`)).toMatchObject({ reminder: "Sent · recovered", stepReached: "Came back after the reminder and rented" });
      expect(page.data.rows.filter((r) => r.kind === "contact").every((r) => r.reminder === "")).toBe(true);
      expect(page.data.recovery).toEqual({ remindersSent: 2, recovered: 1 });
    } finally {
      await db.update(rentals).set({ recoverySentAt: null }).where(inArray(rentals.id, [declinedRentalId, paidRentalId]));
    }
    const after = (await call(leadsLoader, staff.managerA!, "/admin/leads")) as { data: { rows: Array<{ key: string; reminder: string }>; recovery: unknown } };
    expect(after.data.rows.find((r) => r.key === `rental-${reference(declinedRentalId)}`)?.reminder).toBe("Not sent");
    expect(after.data.rows.some((r) => r.key === `rental-${reference(paidRentalId)}`)).toBe(false);
    expect(after.data.recovery).toEqual({ remindersSent: 0, recovered: 0 });
  });
});

describe("payments", () => {
  it("lists approved and declined payments by location, including a declined move-in", async () => {
    const rows = await listDeskPayments(handle.db, viewer(staff.deskA!), await query(staff.deskA!));
    expect(rows.every((r) => r.locationId === locA)).toBe(true);
    const declined = rows.filter((r) => r.status === "declined");
    expect(declined.map((r) => r.source).sort()).toEqual(["Online rental", "Portal"]);
    expect(declined.find((r) => r.source === "Portal")).toMatchObject({ amount: 999, card: "visa 9995" });
    expect(rows.filter((r) => r.status === "approved").map((r) => r.amount)).toContain(1234);
    const b = await listDeskPayments(handle.db, viewer(staff.deskB!), await query(staff.deskB!));
    expect(b.map((r) => r.amount)).toContain(4321);
    expect(b.every((r) => r.locationId === locB)).toBe(true);
    expect(rows.map((r) => r.amount)).not.toContain(4321);
    const onlyDeclined = await listDeskPayments(handle.db, viewer(staff.deskA!), await query(staff.deskA!, "?status=declined"));
    expect(onlyDeclined.map((r) => r.id).sort()).toEqual(declined.map((r) => r.id).sort());
    expect(await listDeskPayments(handle.db, viewer(staff.deskA!), await query(staff.deskA!, "?status=refunded"))).toHaveLength(0);
  });

  it("each location's day total of approved payments equals the ledger's payments that day", async () => {
    const q = await query(staff.owner!);
    const rows = await listDeskPayments(handle.db, viewer(staff.owner!), q);
    const totals = await deskPaymentTotals(handle.db, viewer(staff.owner!), q, rows);
    expect(totals.length).toBeGreaterThanOrEqual(2);
    for (const t of totals) {
      const [ledger] = await handle.db
        .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)` })
        .from(ledgerEntries)
        .innerJoin(leases, eq(leases.id, ledgerEntries.leaseId))
        .where(and(eq(leases.locationId, t.locationId), eq(ledgerEntries.kind, "payment"), sql`${ledgerEntries.entryDate} = ${t.day}`));
      expect(t.approved).toBe(Number(ledger!.sum));
      expect(t.ledger).toBe(t.approved);
    }
    const a = totals.find((t) => t.locationId === locA && t.declinedCount > 0)!;
    expect(a.declined).toBeGreaterThanOrEqual(999);
    expect(portalLeaseId).toBeGreaterThan(0);
  });

  it("the date filter uses the payment's day; the CSV is exactly the filtered rows", async () => {
    const rows = await listDeskPayments(handle.db, viewer(staff.managerA!), await query(staff.managerA!, "?from=2026-11-22&to=2026-11-22&status=approved"));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.day === "2026-11-22" && r.status === "approved")).toBe(true);
    const res = (await call(paymentsCsvLoader, staff.managerA!, "/admin/payments.csv?from=2026-11-22&to=2026-11-22&status=approved")) as Response;
    const text = await res.text();
    expect(text).toBe(toCsv(DESK_PAYMENT_CSV, rows));
    const lines = text.trim().split("\r\n").slice(1);
    expect(lines).toHaveLength(rows.length);
    expect(lines.every((l) => l.startsWith("2026-11-22,"))).toBe(true);
    expect(statusOf(await call(paymentsCsvLoader, staff.readOnlyA!, "/admin/payments.csv"))).toBe(403);
  });
});

describe("the pages render", () => {
  it("payments with the day's totals, and a lead with its form (only for roles that may act)", async () => {
    const page = (await call(paymentsLoader, staff.owner!, "/admin/payments")) as { data: Parameters<typeof AdminPayments>[0]["loaderData"] };
    const html = renderToString(createElement(AdminPayments, { loaderData: page.data } as never));
    expect(html).toContain("Totals by location and day");
    expect(html).toContain('href="/admin/payments.csv"');
    expect(html).not.toContain("does not match");
    expect(html).toMatch(/href="\/admin\/tenants\/\d+"/);
    const carl = (await listDeskLeads(handle.db, viewer(staff.deskA!), await query(staff.deskA!), LATER)).find((l) => l.name === "Carl Contact")!;
    const asDesk = (await call(leadLoader, staff.deskA!, `/admin/leads/${carl.key}`, { params: { leadKey: carl.key } })) as { data: Parameters<typeof AdminLead>[0]["loaderData"] };
    expect(renderToString(createElement(AdminLead, { loaderData: asDesk.data, actionData: undefined } as never))).toContain('name="note"');
    const asReader = (await call(leadLoader, staff.readOnlyA!, `/admin/leads/${carl.key}`, { params: { leadKey: carl.key } })) as { data: Parameters<typeof AdminLead>[0]["loaderData"] };
    expect(renderToString(createElement(AdminLead, { loaderData: asReader.data, actionData: undefined } as never))).not.toContain('name="note"');
    // Front desk may not export: no CSV link.
    const rentalsPage = (await call(rentalsLoader, staff.deskA!, "/admin/rentals")) as { data: Parameters<typeof AdminRentals>[0]["loaderData"] };
    expect(renderToString(createElement(AdminRentals, { loaderData: rentalsPage.data } as never))).not.toContain(".csv");
  });
});
