/**
 * A SiteLink tenant's records in the portal (issue 11, decisions 168-169), against the SiteLink
 * simulator over real SOAP/HTTP:
 *  - contact and phone changes go to SiteLink as a read-modify-write TenantUpdate_v3 (every other field
 *    sent back as read), journalled, SiteLink first then ours; down, refused or unconfirmed -> the form
 *    says to try again and neither copy changes; a timed-out write is reconciled by reading back;
 *  - the portal ledger is SiteLink's: its charges (move-in, monthly rent posted by its billing, tax)
 *    and payments (including the office's), to the cent, dated in the site's time zone.
 */
import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sitelinkWrites, tenantSoftwareLinks, tenants } from "~/db/schema";
import { getCsrfToken } from "~/services/web/csrf.server";
import { accountStorage, portalLocations, type PortalContext } from "~/services/portal/context.server";
import { changeContact, changePhone, CONTACT_NOT_SAVED_MESSAGE } from "~/services/portal/profile.server";
import { createTenantSession } from "~/services/web/session.server";
import { hashPassword } from "~/platform/password.server";
import { storageFor } from "~/storage-software/index.server";
import type { ContactUpdate, StorageSoftware } from "~/storage-software/port";
import { action as profileAction, loader as profileLoader } from "~/routes/portal/profile";
import { soapCall } from "../../../sitelink-simulator/test-client";
import { callRoute } from "../support/route-helpers";
import { startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

const NOW = new Date("2026-06-15T14:00:00Z");
let bed: SiteLinkTestbed;
let lumberton: StorageSoftware;
let ctx: PortalContext;
let n = 0;

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  bed = await startSyncedSiteLinkTestbed(NOW);
  lumberton = storageFor(bed.handle.db, bed.lumberton);
  const [loc] = await bed.handle.db.query.locations.findMany({ where: (l, { eq }) => eq(l.id, bed.lumberton.id) });
  const locs = await portalLocations(bed.handle.db, loc!.accountId);
  ctx = { db: bed.handle.db, now: NOW, locations: locs, siteName: "Gatehouse", accountId: loc!.accountId, phone: "(910) 555-0134", storage: accountStorage(bed.handle.db, locs).storage } as PortalContext;
});
afterAll(async () => {
  delete process.env.FAKE_NOW;
  await bed?.close();
});
beforeEach(() => bed.sim.control.clearFaults());

const site = (code = "L001") => bed.sim.control.inspectSite(code);
const simTenant = (id: number, code = "L001") => site(code).tenants.find((t) => t.TenantID === id)!;
const updates = () => bed.sim.control.calls({ operation: "TenantUpdate_v3" }).length;

/** A tenant rented at the office (a free Lumberton unit), with extra fields set at the office, then given a portal sign-in. */
async function officeTenant() {
  const email = `office-${++n}-${Date.now()}@example.com`;
  const unit = site().units.find((u) => !u.rented && u.rentable && !u.waitingListReserved && !u.deleted && !u.excludeFromWebsite)!;
  const office = bed.sim.control.addOfficeTenant("L001", { firstName: "Olive", lastName: "Office", email, webPassword: "pass1234", unitId: unit.UnitID });
  // What the office typed that the portal form does not own: business contact, licence, title, phone.
  const info = (await soapCall(bed.sim.url, "TenantInfoByTenantID", { iTenantID: office.TenantID })).tables.Table![0]!;
  const r = await soapCall(bed.sim.url, "TenantUpdate_v3", {
    iTenantID: office.TenantID,
    sGateCode: info.sAccessCode!,
    sWebPassword: "pass1234",
    sMrMrs: "Ms",
    sFName: "Olive",
    sLName: "Office",
    sEmail: email,
    sAddr1: "9 Elm Street",
    sCity: "Lumberton",
    sRegion: "NC",
    sPostalCode: "28358",
    sMobile: "9105550100",
    sPhone: "9105550100",
    sCompanyBus: "Olive's Bakery",
    sPhoneBus: "9105550111",
    sLicense: "NC-D-123456",
    sLicRegion: "NC",
    dDOB: "1980-04-02T00:00:00",
    // The v3 extras (TenantNewDetailed_v3's, sent back as read by TenantUpdate_v3: issue 20).
    sTaxID: "56-1234567",
    bSMSOptIn: true,
    sCountryCode: "1",
  });
  expect(r.rt?.Ret_Code).toBe(office.TenantID);
  const claim = await lumberton.claimOfficeTenant({ email, webPassword: "pass1234", passwordHash: await hashPassword("portal-pass-1"), now: NOW });
  expect(claim.kind).toBe("claimed");
  const tenantId = (claim as { tenantId: string }).tenantId;
  return { email, tenantId, siteLinkTenantId: office.TenantID, ledgerId: office.LedgerID!, gate: info.sAccessCode! };
}

async function contactOf(tenantId: string): Promise<ContactUpdate> {
  const t = (await lumberton.getTenant(tenantId))!;
  const { id: _id, cellPhone: _cell, ...contact } = t;
  return contact;
}

const journal = (siteLinkTenantId: number) =>
  bed.handle.db.select().from(sitelinkWrites).where(like(sitelinkWrites.idempotencyKey, `contact:${siteLinkTenantId}:%`));

describe("contact changes at a SiteLink location", () => {
  it("go to SiteLink as a read-modify-write: the form's fields change, everything else stays as the office left it", async () => {
    const t = await officeTenant();
    const before = simTenant(t.siteLinkTenantId);
    const contact = { ...(await contactOf(t.tenantId)), lastName: "Oakley", addr1: "12 Birch Road", addr2: "Unit 4", city: "Pembroke", postalCode: "28372", altContactFirstName: "Sam", altContactLastName: "Oakley", altContactPhone: "9105550122", isCommercial: true };
    const calls = updates();
    expect(await changeContact(ctx, { tenantId: t.tenantId, contact, currentPassword: undefined, ip: "10.9.0.1" })).toEqual({ ok: true });
    expect(updates()).toBe(calls + 1);
    const after = simTenant(t.siteLinkTenantId);
    expect(after.fields).toMatchObject({ sFName: "Olive", sLName: "Oakley", sAddr1: "12 Birch Road", sAddr2: "Unit 4", sCity: "Pembroke", sPostalCode: "28372", sFNameAlt: "Sam", sLNameAlt: "Oakley", sPhoneAlt: "9105550122", bCommercial: true, sEmail: t.email });
    // Not the form's: sent back exactly as read (TenantUpdate_v3 would have blanked them).
    expect(after.accessCode).toBe(t.gate);
    expect(after.webPassword).toBe("pass1234");
    for (const f of ["sMrMrs", "sCompanyBus", "sPhoneBus", "sLicense", "sLicRegion", "sMobile", "sPhone", "dDOB", "sTaxID", "bSMSOptIn", "sCountryCode"]) expect(after.fields[f], f).toEqual(before.fields[f]);
    expect(after.fields).toMatchObject({ sTaxID: "56-1234567", bSMSOptIn: true, sCountryCode: "1" });
    expect(site().ledgers.find((l) => l.LedgerID === t.ledgerId)!.accessCode).toBe(t.gate);
    expect(await lumberton.getTenant(t.tenantId)).toMatchObject({ lastName: "Oakley", city: "Pembroke", isCommercial: true });
    expect((await journal(t.siteLinkTenantId)).map((j) => j.state)).toEqual(["done"]);

    // The phone: sMobile (and sPhone, which held the same number); nothing else moves.
    expect(await changePhone(ctx, { tenantId: t.tenantId, cellPhone: "9105550199" })).toEqual({ ok: true });
    expect(simTenant(t.siteLinkTenantId).fields).toMatchObject({ sMobile: "9105550199", sPhone: "9105550199", sLName: "Oakley", sCompanyBus: "Olive's Bakery" });
    expect((await lumberton.getTenant(t.tenantId))!.cellPhone).toBe("9105550199");
    // Saving the same details again sends nothing.
    const calls2 = updates();
    expect(await changeContact(ctx, { tenantId: t.tenantId, contact, currentPassword: undefined, ip: "10.9.0.1" })).toEqual({ ok: true });
    expect(updates()).toBe(calls2);
  });

  it("SiteLink down or refusing: the form keeps what was typed and says to try again; neither copy changes", async () => {
    const t = await officeTenant();
    const session = (await createTenantSession(bed.handle.db, { tenantId: t.tenantId, now: NOW })).split(";")[0]!;
    const c = await contactOf(t.tenantId);
    const fields = { intent: "contact", first_name: c.firstName, last_name: c.lastName, email: c.email, addr_1: "1 Typed Lane", city: "Typed City", region: c.region, postal_code: c.postalCode, current_password: "" };
    const { token, setCookie } = await getCsrfToken(new Request("http://localhost/customer-portal/profile", { headers: { Cookie: session } }));
    const cookie = [setCookie ? setCookie.split(";")[0]! : "", session].filter(Boolean).join("; ");
    const post = () => ({ method: "POST", body: new URLSearchParams({ csrf: token, ...fields }), headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } });

    bed.sim.control.addFault({ operation: "TenantInfoByTenantID", kind: "http_503", times: 4 });
    const down = await callRoute<{ result: { error: Record<string, string[]>; initialValue: Record<string, string> } }>(profileAction, bed.handle.db, "/customer-portal/profile", { init: post() });
    expect(down.status).toBe(503);
    expect(down.headers.get("Retry-After")).toBe("30");
    expect(down.data.result.error[""]).toEqual([CONTACT_NOT_SAVED_MESSAGE]);
    expect(down.data.result.initialValue).toMatchObject({ addr_1: "1 Typed Lane", city: "Typed City" });
    bed.sim.control.clearFaults();

    bed.sim.control.addFault({ operation: "TenantUpdate_v3", kind: "rt_error", retCode: -2, retMsg: "Failed to save tenant", times: 1 });
    const refused = await callRoute<{ result: { error: Record<string, string[]> } }>(profileAction, bed.handle.db, "/customer-portal/profile", { init: post() });
    expect(refused.status).toBe(503);
    expect(refused.data.result.error[""]).toEqual([CONTACT_NOT_SAVED_MESSAGE]);
    expect((await lumberton.getTenant(t.tenantId))!.addr1).toBe("9 Elm Street");
    expect(simTenant(t.siteLinkTenantId).fields.sAddr1).toBe("9 Elm Street");
    expect((await journal(t.siteLinkTenantId)).map((j) => j.state)).toEqual(["failed"]);

    // SiteLink back: the same form goes through, both copies agree.
    const ok = await callRoute(profileAction, bed.handle.db, "/customer-portal/profile", { init: post() });
    expect(ok.status).toBe(303);
    expect((await lumberton.getTenant(t.tenantId))!.addr1).toBe("1 Typed Lane");
    expect(simTenant(t.siteLinkTenantId).fields.sAddr1).toBe("1 Typed Lane");
  });

  it("a write that times out is reconciled by reading the record back, never sent twice", async () => {
    const t = await officeTenant();
    const contact = await contactOf(t.tenantId);
    // SiteLink applies it and never answers: the read-back shows it, so it is saved (one call).
    bed.sim.control.addFault({ operation: "TenantUpdate_v3", kind: "commit_then_hang", times: 1 });
    let calls = updates();
    expect(await changeContact(ctx, { tenantId: t.tenantId, contact: { ...contact, city: "Red Springs" }, currentPassword: undefined, ip: "10.9.0.2" })).toEqual({ ok: true });
    expect(updates()).toBe(calls + 1);
    expect(simTenant(t.siteLinkTenantId).fields.sCity).toBe("Red Springs");
    expect((await lumberton.getTenant(t.tenantId))!.city).toBe("Red Springs");
    expect((await journal(t.siteLinkTenantId)).map((j) => j.state)).toEqual(["done"]);

    // No answer and the record does not show it: unknown, nothing of ours saved, "try again".
    bed.sim.control.addFault({ operation: "TenantUpdate_v3", kind: "drop_before", times: 1 });
    calls = updates();
    const lost = await changeContact(ctx, { tenantId: t.tenantId, contact: { ...contact, city: "Maxton" }, currentPassword: undefined, ip: "10.9.0.2" });
    expect(lost).toEqual({ ok: false, fieldErrors: {}, formErrors: [CONTACT_NOT_SAVED_MESSAGE], unavailable: true });
    expect((await lumberton.getTenant(t.tenantId))!.city).toBe("Red Springs");
    expect((await journal(t.siteLinkTenantId)).map((j) => j.state).sort()).toEqual(["done", "unknown"]);
    // Other values while that write may still land: refused, nothing sent.
    const other = await changeContact(ctx, { tenantId: t.tenantId, contact: { ...contact, city: "Rowland" }, currentPassword: undefined, ip: "10.9.0.2" });
    expect(other).toMatchObject({ ok: false, formErrors: [CONTACT_NOT_SAVED_MESSAGE] });
    expect(updates()).toBe(calls + 1);
    // The same values again are harmless: sent, confirmed, and the unknown entry is settled with it.
    expect(await changeContact(ctx, { tenantId: t.tenantId, contact: { ...contact, city: "Maxton" }, currentPassword: undefined, ip: "10.9.0.2" })).toEqual({ ok: true });
    expect(updates()).toBe(calls + 2);
    expect(simTenant(t.siteLinkTenantId).fields.sCity).toBe("Maxton");
    expect((await lumberton.getTenant(t.tenantId))!.city).toBe("Maxton");
    expect((await journal(t.siteLinkTenantId)).every((j) => j.state === "done")).toBe(true);
  });

  it("a tenant at two SiteLink locations: when the second refuses, the first is put back", async () => {
    const t = await officeTenant();
    // The same person rented at Jacksonville too (the office's record there).
    const jax = bed.sim.control.addOfficeTenant("L002", { firstName: "Olive", lastName: "Office", email: t.email, webPassword: "pass1234" });
    await bed.handle.db.insert(tenantSoftwareLinks).values({ tenantId: Number(t.tenantId), locationId: bed.jacksonville.id, externalTenantId: String(jax.TenantID) });
    const contact = await contactOf(t.tenantId);
    bed.sim.control.addFault({ operation: "TenantUpdate_v3", kind: "rt_error", retCode: -2, retMsg: "Failed to save tenant", nth: 2, times: 1 });
    const r = await changeContact(ctx, { tenantId: t.tenantId, contact: { ...contact, lastName: "Changed" }, currentPassword: undefined, ip: "10.9.0.3" });
    expect(r).toEqual({ ok: false, fieldErrors: {}, formErrors: [CONTACT_NOT_SAVED_MESSAGE], unavailable: true });
    expect(simTenant(t.siteLinkTenantId, "L001").fields.sLName).toBe("Office");
    expect(simTenant(jax.TenantID, "L002").fields.sLName).toBe("Office");
    expect((await lumberton.getTenant(t.tenantId))!.lastName).toBe("Office");
    expect(await changeContact(ctx, { tenantId: t.tenantId, contact: { ...contact, lastName: "Changed" }, currentPassword: undefined, ip: "10.9.0.3" })).toEqual({ ok: true });
    expect(simTenant(t.siteLinkTenantId, "L001").fields.sLName).toBe("Changed");
    expect(simTenant(jax.TenantID, "L002").fields.sLName).toBe("Changed");
  });

  it("an email another tenant uses is refused before anything is sent", async () => {
    const a = await officeTenant();
    const b = await officeTenant();
    const calls = updates();
    const r = await changeContact(ctx, { tenantId: a.tenantId, contact: { ...(await contactOf(a.tenantId)), email: b.email }, currentPassword: "portal-pass-1", ip: "10.9.0.4" });
    expect(r).toMatchObject({ ok: false, fieldErrors: { email: [expect.any(String)] } });
    expect(updates()).toBe(calls);
    expect(simTenant(a.siteLinkTenantId).fields.sEmail).toBe(a.email);
    const [row] = await bed.handle.db.select({ email: tenants.email }).from(tenants).where(and(eq(tenants.id, Number(a.tenantId))));
    expect(row!.email).toBe(a.email);
  });

  it("the tenant read lacks sWebPassword: nothing is sent, the office is asked in the journal, ours is saved and the tenant is told the office makes it (issue 37)", async () => {
    const t = await officeTenant();
    const session = (await createTenantSession(bed.handle.db, { tenantId: t.tenantId, now: NOW })).split(";")[0]!;
    const c = await contactOf(t.tenantId);
    const fields = { intent: "contact", first_name: c.firstName, last_name: c.lastName, email: c.email, addr_1: "5 Office Lane", city: "Maxton", region: c.region, postal_code: c.postalCode, current_password: "" };
    const { token, setCookie } = await getCsrfToken(new Request("http://localhost/customer-portal/profile", { headers: { Cookie: session } }));
    const cookie = [setCookie ? setCookie.split(";")[0]! : "", session].filter(Boolean).join("; ");
    // SiteLink's read answers without the column (and its schema does not declare it).
    bed.sim.reshapeAnswers({ operation: "TenantInfoByTenantID", dropColumn: { table: "Table", column: "sWebPassword" } });
    try {
      const calls = updates();
      const done = await callRoute(profileAction, bed.handle.db, "/customer-portal/profile", {
        init: { method: "POST", body: new URLSearchParams({ csrf: token, ...fields }), headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } },
      });
      expect(done.status).toBe(303);
      expect(done.headers.get("Location")).toBe("/customer-portal/profile?done=contact-office");
      // Nothing sent: the web password and the address in SiteLink are as they were.
      expect(updates()).toBe(calls);
      expect(simTenant(t.siteLinkTenantId).webPassword).toBe("pass1234");
      expect(simTenant(t.siteLinkTenantId).fields.sAddr1).toBe("9 Elm Street");
      // The journal asks the office; ours has the new details the office copies.
      const rows = await journal(t.siteLinkTenantId);
      expect(rows.map((j) => [j.operation, j.state])).toEqual([["TenantUpdate_v3", "failed"]]);
      expect(rows[0]!.externalIds.attention).toMatch(/^Contact change from the portal not sent to SiteLink \(TenantInfoByTenantID did not return sWebPassword/);
      expect(rows[0]!.lastError).toContain("not sent");
      expect((await lumberton.getTenant(t.tenantId))!.addr1).toBe("5 Office Lane");
      // The page the tenant lands on says so.
      const page = await callRoute<{ done: string | null }>(profileLoader, bed.handle.db, "/customer-portal/profile?done=contact-office", { init: { headers: { Cookie: cookie } } });
      expect(page.data.done).toMatch(/The office will make the change in the facility's own records/);
    } finally {
      bed.sim.clearReshapes();
    }
    // With the column read again, a change goes through as before.
    expect(await changeContact(ctx, { tenantId: t.tenantId, contact: { ...(await contactOf(t.tenantId)), city: "Pembroke" }, currentPassword: undefined, ip: "10.9.0.3" })).toEqual({ ok: true });
    expect(simTenant(t.siteLinkTenantId).webPassword).toBe("pass1234");
    expect(simTenant(t.siteLinkTenantId).fields.sCity).toBe("Pembroke");
  });
});

describe("the portal ledger at a SiteLink location", () => {
  it("is SiteLink's: its charges and payments (the office's too), to the cent, dated in the site's time zone", async () => {
    const t = await officeTenant();
    const lease = (await lumberton.listTenantLeases(t.tenantId))[0]!;
    const sum = (rows: Array<Record<string, string | undefined>>, ...cols: string[]) =>
      rows.reduce((s, r) => s + cols.reduce((c, col) => c + Math.round(Number(r[col] ?? "0") * 100), 0), 0);

    // SiteLink's billing posts the next period's rent; the office takes cash late in the evening (New York).
    const due = lease.nextDueDate;
    bed.sim.control.setClock({ to: `${due}T15:00:00Z` });
    bed.sim.control.runBilling({ location: "L001" });
    bed.sim.control.setClock({ to: `${due}T23:30:00-04:00` }); // 03:30 UTC the next day
    const cash = await soapCall(bed.sim.url, "PaymentSimpleCashWithSource", { iTenantID: t.siteLinkTenantId, iUnitID: site().ledgers.find((l) => l.LedgerID === t.ledgerId)!.UnitID, dcPaymentAmount: "12.34", iSource: 1 });
    expect(Number(cash.rt?.Ret_Code)).toBeGreaterThan(0);
    bed.sim.control.setClock({ to: NOW.toISOString() });

    const ledger = (await lumberton.getLedger(t.tenantId, lease.leaseId))!;
    const charges = (await soapCall(bed.sim.url, "ChargesAllByLedgerID", { ledgerId: String(t.ledgerId) })).tables.Table!;
    const paid = (await soapCall(bed.sim.url, "PaymentsByLedgerID", { sLedgerID: String(t.ledgerId) })).tables.PmtHistory!;
    expect(ledger.filter((e) => e.kind === "charge")).toHaveLength(charges.length);
    expect(ledger.filter((e) => e.kind === "payment")).toHaveLength(paid.length);
    expect(ledger.filter((e) => e.kind === "charge").reduce((s, e) => s + e.amount + e.tax, 0)).toBe(sum(charges, "dcAmt", "dcTax1", "dcTax2"));
    const rent = ledger.filter((e) => e.kind === "charge" && e.entryDate === due);
    expect(rent.length).toBeGreaterThan(0);
    expect(rent.some((e) => e.description === charges.find((c) => c.dChgStrt!.startsWith(due))!.sChgDesc)).toBe(true);
    const office = ledger.find((e) => e.kind === "payment" && e.amount === 1234)!;
    // The site's calendar day (New York), not UTC's; no receipt page for a payment taken at the office.
    expect(office.entryDate).toBe(due);
    expect(office.paymentId).toBeNull();
    expect(ledger.at(-1)!.runningBalance).toBe((await lumberton.getTenantLease(t.tenantId, lease.leaseId))!.balance);
    // Our own lines (none were written for an office rental) are not what is shown.
    expect(ledger.length).toBeGreaterThan(0);
  });
});
