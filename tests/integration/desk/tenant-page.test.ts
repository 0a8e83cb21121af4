/**
 * The desk's tenant page, part 3 (issue 39, decisions 640–644), over real HTTP against the app's
 * routes: contact details changed (validation beside the fields, the change audited), notes as an
 * add-only history, the gate code shown on request (a POST, audited, never to read-only), leads'
 * notes as a history, times in the location's zone with the zone named; and "Confirm it's you"
 * completing the refund it interrupted, with what was chosen, once (decision 643).
 */
import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { auditEvents, contactMessages, emailOutbox, leases, locations, payments, staffHeldActions, staffMembers, staffRecoveryCodes, tenantNotes, tenants } from "~/db/schema";
import { createTestGateway, setPaymentGatewayForTests } from "~/platform/payments/gateway.server";
import { hashPassword } from "~/platform/password.server";
import { CSRF_FIELD } from "~/services/web/csrf.server";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { card, ctxFor, lumbertonUnitType, NOW, signedRental, tenantDetails } from "../support/rental-fixtures";
import { signedInStaffMember, STALE_FACTOR_MS, type TestStaffMember } from "../support/staff-fixtures";
import { staffBrowser } from "../support/staff-browser";
import { getPage, postForm, textOf } from "./over-http";

let handle: DatabaseHandle;
let app: AppServer;
let accountId: number;
let lumberton: number;
let jacksonville: number;
let manager: TestStaffMember;
let frontDesk: TestStaffMember;
let readOnly: TestStaffMember;
let jacksonvilleDesk: TestStaffMember;
let n = 0;

beforeAll(async () => {
  handle = await createTestDatabase();
  setPaymentGatewayForTests(createTestGateway());
  const locs = await handle.db.select().from(locations);
  lumberton = locs.find((l) => l.name === "Lumberton")!.id;
  jacksonville = locs.find((l) => l.name === "Jacksonville")!.id;
  accountId = locs[0]!.accountId;
  manager = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [lumberton], name: "Mona Manager" });
  frontDesk = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [lumberton], name: "Fred Desk" });
  readOnly = await signedInStaffMember(handle.db, { accountId, role: "read_only", locationIds: [lumberton] });
  jacksonvilleDesk = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [jacksonville] });
  app = await startAppServer(handle.db);
}, 120_000);

afterAll(async () => {
  setPaymentGatewayForTests(null);
  await app?.close();
  await handle?.close();
});

/** A fresh online rental at Lumberton paid by card: its tenant, lease and move-in payment. */
async function rentAndPay(first = "Ada") {
  const db = handle.db;
  const { unitTypeId } = await lumbertonUnitType(db);
  const details = tenantDetails({ first_name: first, last_name: "Deskpage", email: `${first.toLowerCase()}.${++n}.${Date.now()}@example.com` });
  const { id } = await signedRental(db, unitTypeId, { details });
  const ctx = await ctxFor(db, unitTypeId);
  const placed = await placeMoveIn(db, ctx, (await getRental(db, id, unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: "http://localhost" });
  expect(placed.status).toBe("completed");
  const lease = (await db.query.leases.findFirst({ where: eq(leases.id, Number((placed as { leaseId: string }).leaseId)) }))!;
  const [payment] = await db.select().from(payments).where(eq(payments.leaseId, lease.id));
  return { tenantId: lease.tenantId, lease, payment: payment! };
}

const audits = (action: string, entityId: number | string) =>
  handle.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.action, action), eq(auditEvents.entityId, String(entityId))))
    .orderBy(desc(auditEvents.id));

const browserOf = (member: TestStaffMember) => staffBrowser(app.origin, member);

describe("Confirm it's you completes the refund it interrupted (decision 643)", () => {
  it("holds the refund with the amount chosen, completes it after the code (a 307 the browser posts again), and only once", async () => {
    const { tenantId, payment } = await rentAndPay("Hilda");
    const stale = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [lumberton], factorAgeMs: STALE_FACTOR_MS });
    await handle.db.insert(staffRecoveryCodes).values({ staffId: stale.staffId, codeHash: await hashPassword("abcde12345") });
    const browser = await browserOf(stale);
    const path = `/admin/tenants/${tenantId}`;
    const asked = await browser.send(path, new URLSearchParams({ [CSRF_FIELD]: browser.token, intent: "refund-payment", paymentId: String(payment.id), amount: "7.25", refunded: "0", confirm: "yes" }));
    expect(asked.status).toBe(303);
    const reauthUrl = new URL(asked.location!, app.origin);
    expect(reauthUrl.pathname).toBe("/admin/reauth");
    const held = reauthUrl.searchParams.get("heldAction")!;
    expect(held).toBeTruthy();
    // Nothing refunded yet; the held fields are what was chosen, without the CSRF token.
    expect((await handle.db.query.payments.findFirst({ where: eq(payments.id, payment.id) }))!.refundedAmount).toBe(0);
    const [row] = await handle.db.select().from(staffHeldActions).where(eq(staffHeldActions.staffId, stale.staffId));
    expect(row!.fields).toEqual(expect.arrayContaining([["amount", "7.25"], ["paymentId", String(payment.id)], ["confirm", "yes"]]));
    expect(JSON.stringify(row!.fields)).not.toContain(browser.token);
    expect(row!.tokenHash).not.toBe(held);

    // The page says the action is done after the code, and carries it in the form.
    const page = await browser.send(`${reauthUrl.pathname}${reauthUrl.search}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`name="heldAction" value="${held}"`);
    expect(textOf(page.body)).toContain("it is done straight after");

    const body = new URLSearchParams({ [CSRF_FIELD]: browser.token, next: path, heldAction: held, code: "abcde-12345" });
    const confirmed = await browser.send("/admin/reauth", body);
    expect(confirmed.status).toBe(307);
    expect(confirmed.location).toBe(path);
    // The browser posts the same body again to the held page: the refund is made, as chosen.
    const done = await browser.send(path, body);
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${path}?done=refundpart`);
    expect((await handle.db.query.payments.findFirst({ where: eq(payments.id, payment.id) }))!.refundedAmount).toBe(725);
    expect(await audits("payment.refunded_in_part", payment.id)).toHaveLength(1);

    // The same post again (back button, a replay): the held action is spent; nothing more refunded.
    const again = await browser.send(path, body);
    expect(again.status).toBe(400);
    expect(textOf(again.body)).toContain("was not kept");
    expect((await handle.db.query.payments.findFirst({ where: eq(payments.id, payment.id) }))!.refundedAmount).toBe(725);
  });

  it("a held action is good only for the session that held it", async () => {
    const { tenantId, payment } = await rentAndPay("Ivo");
    const stale = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [lumberton], factorAgeMs: STALE_FACTOR_MS });
    const browser = await browserOf(stale);
    const path = `/admin/tenants/${tenantId}`;
    const asked = await browser.send(path, new URLSearchParams({ [CSRF_FIELD]: browser.token, intent: "refund-payment", paymentId: String(payment.id), amount: "3.00", refunded: "0", confirm: "yes" }));
    const held = new URL(asked.location!, app.origin).searchParams.get("heldAction")!;
    // Another member (fresh) posting that token does nothing.
    const other = await browserOf(manager);
    const stolen = await other.send(path, new URLSearchParams({ [CSRF_FIELD]: other.token, heldAction: held }));
    expect(stolen.status).toBe(400);
    expect((await handle.db.query.payments.findFirst({ where: eq(payments.id, payment.id) }))!.refundedAmount).toBe(0);
  });
});

describe("a held refund is authorised again when it is completed (decision 660)", () => {
  it("a manager made front desk before the code: nothing is refunded, and the page says why", async () => {
    const { tenantId, payment } = await rentAndPay("Jules");
    const stale = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [lumberton], factorAgeMs: STALE_FACTOR_MS });
    await handle.db.insert(staffRecoveryCodes).values({ staffId: stale.staffId, codeHash: await hashPassword("abcde12345") });
    const browser = await browserOf(stale);
    const path = `/admin/tenants/${tenantId}`;
    const asked = await browser.send(path, new URLSearchParams({ [CSRF_FIELD]: browser.token, intent: "refund-payment", paymentId: String(payment.id), amount: "4.00", refunded: "0", confirm: "yes" }));
    const held = new URL(asked.location!, app.origin).searchParams.get("heldAction")!;
    const body = new URLSearchParams({ [CSRF_FIELD]: browser.token, next: path, heldAction: held, code: "abcde-12345" });
    expect((await browser.send("/admin/reauth", body)).status).toBe(307);
    await handle.db.update(staffMembers).set({ role: "front_desk" }).where(eq(staffMembers.id, stale.staffId));
    const refused = await browser.send(path, body);
    expect(refused.status).toBe(403);
    expect(textOf(refused.body)).toContain("your role no longer allows it");
    expect((await handle.db.query.payments.findFirst({ where: eq(payments.id, payment.id) }))!.refundedAmount).toBe(0);
  });
});

describe("the tenant's contact details (decision 641)", () => {
  it("are changed by the desk, audited field by field; bad input is answered beside each field with the values kept", async () => {
    const { tenantId } = await rentAndPay("Carla");
    const path = `/admin/tenants/${tenantId}`;
    const bad = await postForm(app, path, frontDesk, { intent: "change-contact", email: "not-an-email", cell_phone: "555", addr_1: "1 Main St", addr_2: "", city: "Lumberton", region: "NC", postal_code: "123" });
    expect(bad.status).toBe(400);
    const text = textOf(bad.body);
    expect(text).toContain("Enter a valid email address");
    expect(text).toContain("Enter a 10-digit cell phone number");
    expect(text).toContain("Enter a 5-digit ZIP code");
    expect(bad.body).toContain('value="not-an-email"');
    expect(bad.body).toMatch(/id="contact-email"[^>]*aria-invalid="true"[^>]*aria-describedby="contact-email-error"|aria-describedby="contact-email-error"[^>]*id="contact-email"/);
    const before = (await handle.db.query.tenants.findFirst({ where: eq(tenants.id, tenantId) }))!;

    const ok = await postForm(app, path, frontDesk, { intent: "change-contact", email: `Carla.New${n}@Example.com`, cell_phone: "(910) 555-0142", addr_1: "22 Elm Street", addr_2: "", city: "Pembroke", region: "NC", postal_code: "28372" });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe(`${path}?done=contact`);
    const after = (await handle.db.query.tenants.findFirst({ where: eq(tenants.id, tenantId) }))!;
    expect(after).toMatchObject({ email: `carla.new${n}@example.com`, cellPhone: "9105550142", addr1: "22 Elm Street", city: "Pembroke", postalCode: "28372" });
    const [audit] = await audits("tenant.contact_changed", tenantId);
    expect(audit).toMatchObject({ staffId: frontDesk.staffId, locationId: lumberton });
    expect(audit!.changes).toMatchObject({ email: { before: before.email, after: after.email }, cellPhone: { before: before.cellPhone, after: "9105550142" }, city: { before: before.city, after: "Pembroke" } });
    const shown = textOf((await getPage(app, ok.location!, frontDesk)).body);
    expect(shown).toContain("The contact details are changed");
    expect(shown).toContain("22 Elm Street");
  });

  it("an e-mail another tenant uses is refused beside the field; read-only cannot change anything; another location's desk gets a 404", async () => {
    const a = await rentAndPay("Dora");
    const b = await rentAndPay("Edna");
    const other = (await handle.db.query.tenants.findFirst({ where: eq(tenants.id, b.tenantId) }))!;
    const fields = { intent: "change-contact", email: other.email, cell_phone: "(910) 555-0143", addr_1: "1 Main St", addr_2: "", city: "Lumberton", region: "NC", postal_code: "28358" };
    const taken = await postForm(app, `/admin/tenants/${a.tenantId}`, frontDesk, fields);
    expect(taken.status).toBe(400);
    expect(taken.body).toContain('id="contact-email-error"');
    expect((await handle.db.query.tenants.findFirst({ where: eq(tenants.id, a.tenantId) }))!.email).not.toBe(other.email);
    expect((await postForm(app, `/admin/tenants/${a.tenantId}`, readOnly, { ...fields, email: "ro@example.com" })).status).toBe(403);
    expect((await postForm(app, `/admin/tenants/${a.tenantId}`, jacksonvilleDesk, { ...fields, email: "jax@example.com" })).status).toBe(404);
    expect(await audits("tenant.contact_changed", a.tenantId)).toHaveLength(0);
  });
});

describe("notes on a tenant (decision 640)", () => {
  it("are a history: each kept with who and when (the location's zone, named), newest first; an empty note is refused", async () => {
    const { tenantId } = await rentAndPay("Flora");
    const path = `/admin/tenants/${tenantId}`;
    const empty = await postForm(app, path, frontDesk, { intent: "add-note", note: "   " });
    expect(empty.status).toBe(400);
    expect(textOf(empty.body)).toContain("Write the note first.");
    expect((await postForm(app, path, frontDesk, { intent: "add-note", note: "Called about the gate: fixed." })).status).toBe(303);
    expect((await postForm(app, path, manager, { intent: "add-note", note: "Asked for a bigger unit next month." })).status).toBe(303);
    const rows = await handle.db.select().from(tenantNotes).where(eq(tenantNotes.tenantId, tenantId));
    expect(rows.map((r) => r.body).sort()).toEqual(["Asked for a bigger unit next month.", "Called about the gate: fixed."]);
    expect(await audits("tenant.note_added", tenantId)).toHaveLength(2);
    const page = textOf((await getPage(app, path, readOnly)).body);
    const first = page.indexOf("Asked for a bigger unit next month.");
    const second = page.indexOf("Called about the gate: fixed.");
    expect(first).toBeGreaterThan(-1);
    expect(second).toBeGreaterThan(first);
    expect(page).toMatch(/(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d{4}, \d{1,2}:\d{2} (AM|PM) E[SD]T , Mona Manager/);
    // Read-only sees the history but cannot add to it.
    expect((await postForm(app, path, readOnly, { intent: "add-note", note: "x" })).status).toBe(403);
  });
});

describe("the gate code (decision 640)", () => {
  it("is hidden until asked for; shown by a POST to the desk, audited without the code; read-only is refused", async () => {
    const { tenantId, lease } = await rentAndPay("Gina");
    const path = `/admin/tenants/${tenantId}`;
    const page = await getPage(app, path, frontDesk);
    expect(textOf(page.body)).toContain("Show gate code");
    expect(page.body).not.toContain(lease.gateCode);
    expect((await postForm(app, path, readOnly, { intent: "show-gate-code", leaseId: String(lease.id) })).status).toBe(403);
    expect((await postForm(app, path, jacksonvilleDesk, { intent: "show-gate-code", leaseId: String(lease.id) })).status).toBe(404);
    const shown = await postForm(app, path, frontDesk, { intent: "show-gate-code", leaseId: String(lease.id) });
    expect(shown.status).toBe(200);
    expect(textOf(shown.body)).toContain(lease.gateCode);
    const [audit] = await audits("lease.gate_code_shown", lease.id);
    expect(audit).toMatchObject({ staffId: frontDesk.staffId, locationId: lumberton });
    expect(JSON.stringify(audit)).not.toContain(lease.gateCode);
  });
});

describe("mail carries its location (decision 645)", () => {
  it("the welcome e-mail of a rental and the desk's resent lease e-mail are the location's", async () => {
    const { tenantId, lease } = await rentAndPay("Hugo");
    const email = (await handle.db.query.tenants.findFirst({ where: eq(tenants.id, tenantId) }))!.email;
    expect((await postForm(app, `/admin/tenants/${tenantId}`, frontDesk, { intent: "resend-lease", leaseId: String(lease.id) })).status).toBe(303);
    const mails = await handle.db.select({ subject: emailOutbox.subject, locationId: emailOutbox.locationId }).from(emailOutbox).where(eq(emailOutbox.to, email));
    expect(mails.length).toBeGreaterThanOrEqual(2);
    expect(mails.every((m) => m.locationId === lumberton)).toBe(true);
  });
});

describe("a lead's notes (decision 642)", () => {
  it("are a history: a second note is added, the first kept, each with who and when", async () => {
    const [msg] = await handle.db.insert(contactMessages).values({ accountId, locationId: lumberton, kind: "contact", name: "Lee Lead", email: "lee.lead@example.com", phone: "9105550100", message: "Do you have 10x10s?" }).returning();
    const path = `/admin/leads/contact-${msg!.id}`;
    expect((await postForm(app, path, frontDesk, { note: "Left a voicemail." })).status).toBe(303);
    expect((await postForm(app, path, manager, { note: "Spoke with Lee: coming Saturday." })).status).toBe(303);
    const page = await getPage(app, path, frontDesk);
    const text = textOf(page.body);
    expect(text).toContain("Left a voicemail.");
    expect(text).toContain("Spoke with Lee: coming Saturday.");
    expect(text.indexOf("Spoke with Lee")).toBeLessThan(text.indexOf("Left a voicemail."));
    expect(text).toContain("Mona Manager");
    expect(text).not.toMatch(/GMT|UTC/);
  });
});

describe("one way to show time, and the operator's words (decision 644)", () => {
  it("the audit trail says what was done as sentences, records by name, times in the zone named", async () => {
    const { tenantId } = await rentAndPay("Iris");
    const tenant = (await handle.db.query.tenants.findFirst({ where: eq(tenants.id, tenantId) }))!;
    expect((await postForm(app, `/admin/tenants/${tenantId}`, frontDesk, { intent: "change-contact", email: tenant.email, cell_phone: "(910) 555-0150", addr_1: tenant.addr1, addr_2: "", city: "Maxton", region: "NC", postal_code: tenant.postalCode })).status).toBe(303);
    // A staff member's access changed from every location to one (as the staff page records it).
    await handle.db.insert(auditEvents).values({ accountId, staffId: manager.staffId, actor: manager.email, action: "staff.access_changed", entity: "staff_member", entityId: String(frontDesk.staffId), changes: { locations: { before: null, after: [lumberton] } } });
    const owner = await signedInStaffMember(handle.db, { accountId, role: "owner", name: "Olga Owner" });
    const page = await getPage(app, "/admin/audit", owner);
    expect(page.status).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain("Changed a tenant's contact details");
    expect(text).toContain(`Iris Deskpage`);
    expect(text).toContain(`City changed from “${tenant.city}” to “Maxton”.`);
    expect(text).toContain("Changed a staff member's access");
    expect(text).toContain("Fred Desk (");
    expect(text).toContain("Locations changed from every location to Lumberton.");
    // No developer words: no action codes, no "staff_member 1", no JSON, no UTC.
    expect(text).not.toContain("tenant.contact_changed");
    expect(text).not.toMatch(/staff_member \d|null →|\[\d+\]|"[a-zA-Z]+":/);
    expect(text).not.toMatch(/\bUTC\b|\bGMT\b/);
    expect(text).toMatch(/(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d{4}, \d{1,2}:\d{2} (AM|PM) E[SD]T/);
  });
});
