/**
 * Issue 11: a tenant who rented at the office creates their portal sign-in, proving who they are with
 * the email and web password of SiteLink's tenant record (the simulator, real SOAP over HTTP).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { leases, locations, sitelinkWrites, tenantSoftwareLinks } from "~/db/schema";
import { runSiteLinkSync, storageFor } from "~/storage-software/index.server";
import { createOfficeSignIn, OFFICE_HAS_ACCOUNT_MESSAGE, OFFICE_NO_MATCH_MESSAGE } from "~/services/office-sign-in.server";
import { signIn } from "~/services/auth.server";
import { CONTRACT_NOW } from "./storage-software-contract";
import { startSiteLinkTestbed, type SiteLinkTestbed } from "./sitelink-testbed";

let bed: SiteLinkTestbed;
let accountId: number;
const now = CONTRACT_NOW;

beforeAll(async () => {
  bed = await startSiteLinkTestbed();
  bed.sim.control.setClock({ to: now.toISOString() });
  const results = await runSiteLinkSync(bed.handle.db);
  expect(results.every((r) => r.ok)).toBe(true);
  const [loc] = await bed.handle.db.select({ accountId: locations.accountId }).from(locations).where(eq(locations.id, bed.lumberton.id));
  accountId = loc!.accountId;
}, 120_000);
afterAll(() => bed?.close());

const claim = (email: string, officePassword: string, ip = "203.0.113.7") =>
  createOfficeSignIn(bed.handle.db, [bed.lumberton, bed.jacksonville], { accountId, email, officePassword, password: "new-secret-42", ip, now });

describe("office tenants create their portal sign-in (SiteLink)", () => {
  it("refuses a wrong web password and an unknown email with the same answer, and creates nothing", async () => {
    expect(await claim("pat.office@example.com", "wrong")).toMatchObject({
      ok: false,
      limited: false,
      field: "office_password",
      message: OFFICE_NO_MATCH_MESSAGE,
    });
    expect(await claim("nobody.here@example.com", "gate1234")).toMatchObject({ ok: false, message: OFFICE_NO_MATCH_MESSAGE });
    expect(await storageFor(bed.handle.db, bed.lumberton).findTenantByEmail("pat.office@example.com")).toBeNull();
  });

  it("proves the office record, creates our tenant linked to SiteLink with the office lease, and signs in with the new password", async () => {
    const r = await claim("Pat.Office@example.com", "gate1234");
    expect(r.ok).toBe(true);
    const tenantId = (r as { tenantId: string }).tenantId;
    const links = await bed.handle.db
      .select()
      .from(tenantSoftwareLinks)
      .where(eq(tenantSoftwareLinks.tenantId, Number(tenantId)));
    expect(links.map((l) => l.locationId)).toEqual([bed.lumberton.id]);
    const own = await bed.handle.db
      .select()
      .from(leases)
      .where(eq(leases.tenantId, Number(tenantId)));
    expect(own).toHaveLength(1);
    const portalLeases = await storageFor(bed.handle.db, bed.lumberton).listTenantLeases(tenantId);
    expect(portalLeases).toHaveLength(1);
    expect(portalLeases[0]!.gateCode).not.toBe("");
    const signedIn = await signIn(bed.handle.db, storageFor(bed.handle.db, bed.lumberton), {
      accountId,
      email: "pat.office@example.com",
      password: "new-secret-42",
      ip: "203.0.113.8",
      now,
    });
    expect(signedIn).toEqual({ ok: true, tenantId });
    // The web password is not our password.
    expect(await storageFor(bed.handle.db, bed.lumberton).authenticateTenant({ email: "pat.office@example.com", password: "gate1234" })).toBeNull();
  });

  it("takes the tenant record with an active ledger among TenantLogin's rows (an old record first), and keeps no raw answer", async () => {
    const unitId = bed.sim.control.createUnitType("L001", { typeName: "Indoor", width: 5, length: 5, stdRate: 3000, statuses: ["available"] }).units[0]!.UnitID;
    const old = bed.sim.control.addOfficeTenant("L001", { firstName: "Olive", lastName: "Office", email: "olive.twice@example.com", webPassword: "olive123" });
    const current = bed.sim.control.addOfficeTenant("L001", { firstName: "Olive", lastName: "Office", email: "olive.twice@example.com", webPassword: "olive123", unitId });
    expect((await runSiteLinkSync(bed.handle.db)).every((r) => r.ok)).toBe(true);
    const result = await storageFor(bed.handle.db, bed.lumberton).claimOfficeTenant({ email: "olive.twice@example.com", webPassword: "olive123", passwordHash: "x", now });
    expect(result.kind).toBe("claimed");
    const tenantId = Number((result as { tenantId: string }).tenantId);
    const [link] = await bed.handle.db.select().from(tenantSoftwareLinks).where(eq(tenantSoftwareLinks.tenantId, tenantId));
    expect(link!.externalTenantId).toBe(String(current.TenantID));
    expect(link!.externalTenantId).not.toBe(String(old.TenantID));
    expect((await bed.handle.db.select().from(leases).where(eq(leases.tenantId, tenantId))).map((l) => l.externalId)).toEqual([String(current.LedgerID)]);
    // The answer (with sWebPassword in clear) is kept nowhere: no journal row mentions the login or the password.
    const rows = await bed.handle.db.select().from(sitelinkWrites);
    expect(rows.filter((w) => w.operation === "TenantLogin" || JSON.stringify(w).includes("olive123"))).toEqual([]);
  });

  it("says a sign-in exists only to someone who proved the office record", async () => {
    expect(await claim("pat.office@example.com", "gate1234")).toMatchObject({ ok: false, field: "email", message: OFFICE_HAS_ACCOUNT_MESSAGE });
    expect(await claim("pat.office@example.com", "nope")).toMatchObject({ ok: false, message: OFFICE_NO_MATCH_MESSAGE });
  });

  it("finds a tenant of another location (Jacksonville) and one the office just added", async () => {
    expect((await claim("jordan.office@example.com", "gate5678")).ok).toBe(true);
    bed.sim.control.addOfficeTenant("L001", { firstName: "Sam", lastName: "Walkin", email: "sam.walkin@example.com", webPassword: "s4mpass" });
    expect((await claim("sam.walkin@example.com", "s4mpass")).ok).toBe(true);
  });

  it("limits failed attempts per email", async () => {
    for (let i = 0; i < 5; i++) await claim("limit.me@example.com", `x${i}`, `198.51.100.${i}`);
    expect(await claim("limit.me@example.com", "x9", "198.51.100.99")).toMatchObject({ ok: false, limited: true });
  });
});
