/**
 * The desk changes a SiteLink tenant's contact details (issue 39, decision 641), over real HTTP to
 * the app's routes and real SOAP to the SiteLink simulator: SiteLink is told (a read-modify-write
 * TenantUpdate_v3, everything else as read), then ours; a write that times out is reconciled by
 * reading the record back; one that is lost changes nothing and the desk is told to try again.
 */
import { and, desc, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, sitelinkWrites, tenants } from "~/db/schema";
import { hashPassword } from "~/platform/password.server";
import { storageFor } from "~/storage-software/index.server";
import type { StorageSoftware } from "~/storage-software/port";
import { startAppServer, type AppServer } from "../support/app-server";
import { startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";
import { postForm, textOf } from "./over-http";

const NOW = new Date("2026-06-15T14:00:00Z");
let bed: SiteLinkTestbed;
let app: AppServer;
let desk: TestStaffMember;
let lumberton: StorageSoftware;
let n = 0;

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  bed = await startSyncedSiteLinkTestbed(NOW);
  lumberton = storageFor(bed.handle.db, bed.lumberton);
  const [loc] = await bed.handle.db.query.locations.findMany({ where: (l, { eq: is }) => is(l.id, bed.lumberton.id) });
  desk = await signedInStaffMember(bed.handle.db, { accountId: loc!.accountId, role: "front_desk", locationIds: [bed.lumberton.id] });
  app = await startAppServer(bed.handle.db);
}, 120_000);
afterAll(async () => {
  delete process.env.FAKE_NOW;
  await app?.close();
  await bed?.close();
});
beforeEach(() => bed.sim.control.clearFaults());

const site = () => bed.sim.control.inspectSite("L001");
const simTenant = (id: number) => site().tenants.find((t) => t.TenantID === id)!;
const updates = () => bed.sim.control.calls({ operation: "TenantUpdate_v3" }).length;
const journal = (siteLinkTenantId: number) => bed.handle.db.select().from(sitelinkWrites).where(like(sitelinkWrites.idempotencyKey, `contact:${siteLinkTenantId}:%`));

/** A tenant who rented at the office at Lumberton and claimed a portal sign-in (so ours has the tenant and the lease). */
async function officeTenant() {
  const email = `desk-office-${++n}-${Date.now()}@example.com`;
  const unit = site().units.find((u) => !u.rented && u.rentable && !u.waitingListReserved && !u.deleted && !u.excludeFromWebsite)!;
  const office = bed.sim.control.addOfficeTenant("L001", { firstName: "Olive", lastName: "Office", email, webPassword: "pass1234", unitId: unit.UnitID });
  const claim = await lumberton.claimOfficeTenant({ email, webPassword: "pass1234", passwordHash: await hashPassword("portal-pass-1"), now: NOW });
  expect(claim.kind).toBe("claimed");
  return { email, tenantId: Number((claim as { tenantId: string }).tenantId), siteLinkTenantId: office.TenantID };
}

const change = (tenantId: number, fields: Record<string, string>) =>
  postForm(app, `/admin/tenants/${tenantId}`, desk, { intent: "change-contact", addr_2: "", region: "NC", ...fields });

describe("the desk's contact change at a SiteLink location", () => {
  it("tells SiteLink (every other field as read), then saves ours, audited", async () => {
    const t = await officeTenant();
    const before = simTenant(t.siteLinkTenantId);
    const r = await change(t.tenantId, { email: t.email, cell_phone: "(910) 555-0177", addr_1: "5 Pine Lane", city: "Pembroke", postal_code: "28372" });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`/admin/tenants/${t.tenantId}?done=contact`);
    const after = simTenant(t.siteLinkTenantId);
    expect(after.fields).toMatchObject({ sAddr1: "5 Pine Lane", sCity: "Pembroke", sPostalCode: "28372", sMobile: "9105550177", sFName: "Olive", sEmail: t.email });
    expect(after.webPassword).toBe(before.webPassword);
    expect(after.accessCode).toBe(before.accessCode);
    expect(await bed.handle.db.query.tenants.findFirst({ where: eq(tenants.id, t.tenantId) })).toMatchObject({ addr1: "5 Pine Lane", city: "Pembroke" });
    expect((await journal(t.siteLinkTenantId)).every((j) => j.state === "done")).toBe(true);
    const [audit] = await bed.handle.db.select().from(auditEvents).where(and(eq(auditEvents.action, "tenant.contact_changed"), eq(auditEvents.entityId, String(t.tenantId)))).orderBy(desc(auditEvents.id));
    expect(audit!.changes).toMatchObject({ city: { after: "Pembroke" }, addr1: { after: "5 Pine Lane" } });
  });

  it("a write SiteLink applied without answering is reconciled by reading it back; a lost one changes nothing and says so", async () => {
    const t = await officeTenant();
    const base = { email: t.email, cell_phone: "(910) 555-0100", addr_1: "1 Oak St", postal_code: "28358" };
    bed.sim.control.addFault({ operation: "TenantUpdate_v3", kind: "commit_then_hang", times: 1 });
    let calls = updates();
    const hung = await change(t.tenantId, { ...base, city: "Red Springs" });
    expect(hung.status).toBe(303);
    expect(updates()).toBe(calls + 1);
    expect(simTenant(t.siteLinkTenantId).fields.sCity).toBe("Red Springs");
    expect((await bed.handle.db.query.tenants.findFirst({ where: eq(tenants.id, t.tenantId) }))!.city).toBe("Red Springs");

    bed.sim.control.addFault({ operation: "TenantUpdate_v3", kind: "drop_before", times: 1 });
    calls = updates();
    const lost = await change(t.tenantId, { ...base, city: "Maxton" });
    expect(lost.status).toBe(400);
    expect(textOf(lost.body)).toContain("nothing was changed");
    expect(lost.body).toContain('value="Maxton"');
    expect((await bed.handle.db.query.tenants.findFirst({ where: eq(tenants.id, t.tenantId) }))!.city).toBe("Red Springs");
    expect((await journal(t.siteLinkTenantId)).map((j) => j.state).sort()).toEqual(["done", "unknown"]);
    expect(updates()).toBe(calls + 1);
  });
});
