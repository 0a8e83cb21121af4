/**
 * Issue 11: a tenant who rented at the office creates their portal sign-in, proving who they are with
 * the email and web password of SiteLink's tenant record (the simulator, real SOAP over HTTP).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { leases, locations, sitelinkSites, sitelinkWrites, tenantSoftwareLinks } from "~/db/schema";
import { forgetStorageChoices, runSiteLinkSync, storageFor } from "~/storage-software/index.server";
import { isSoftwareUnreachable } from "~/storage-software/errors";
import { createOfficeSignIn, OFFICE_HAS_ACCOUNT_MESSAGE, OFFICE_NO_MATCH_MESSAGE } from "~/services/portal/office-sign-in.server";
import { signIn } from "~/services/portal/sign-in-limits.server";
import { CONTRACT_NOW } from "./contract";
import { PASSWORD_ENV, startSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

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

/**
 * Issue 19 (decision 195): while one location cannot be asked, a guess answered by another location
 * stays counted, so the limits still apply. Lumberton (asked first) holds the records; Jacksonville is
 * broken, each way a location can be.
 */
const BAD_SECRET = { passwordEncrypted: "v1.AAAA.BBBB.CCCC" };
describe("one broken location never switches the office sign-in limits off", () => {
  const breakJacksonville = async (change: Partial<typeof sitelinkSites.$inferInsert>) => {
    const [before] = await bed.handle.db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, bed.jacksonville.id));
    await bed.handle.db.update(sitelinkSites).set(change).where(eq(sitelinkSites.locationId, bed.jacksonville.id));
    forgetStorageChoices(bed.handle.db);
    return async () => {
      await bed.handle.db.update(sitelinkSites).set(before!).where(eq(sitelinkSites.locationId, bed.jacksonville.id));
      forgetStorageChoices(bed.handle.db);
    };
  };
  /** A wrong guess: an outage answer (Jacksonville could not be asked) or the limit, never a success. */
  const wrongGuess = async (email: string, ip: string) => {
    try {
      const r = await claim(email, "not-it", ip);
      expect(r.ok).toBe(false);
      return r;
    } catch (error) {
      expect(isSoftwareUnreachable(error)).toBe(true);
      return null;
    }
  };

  it.each([
    ["unreachable", { endpoint: "http://127.0.0.1:9/CallCenterWs.asmx" }, "guess.unreachable@example.com", 10],
    ["with a secret that does not decrypt", BAD_SECRET, "guess.secret@example.com", 40],
  ] as const)("per email: Jacksonville %s, ten wrong guesses, then the right office password is refused", async (_how, change, email, ipBase) => {
    bed.sim.control.addOfficeTenant("L001", { firstName: "Gus", lastName: "Guess", email, webPassword: "gate1234" });
    const restore = await breakJacksonville(change);
    try {
      for (let i = 0; i < 10; i++) await wrongGuess(email, `192.0.2.${i + ipBase}`);
      expect(await claim(email, "gate1234", "192.0.2.99")).toMatchObject({ ok: false, limited: true });
    } finally {
      await restore();
    }
    // Once Jacksonville is back, the limit still holds until its window ends.
    expect(await claim(email, "gate1234", "192.0.2.98")).toMatchObject({ ok: false, limited: true });
  });

  it("per address: Jacksonville's secret broken, twenty guesses at other e-mails, then the right one is refused", async () => {
    bed.sim.control.addOfficeTenant("L001", { firstName: "Ida", lastName: "Address", email: "ida.address@example.com", webPassword: "gate1234" });
    const restore = await breakJacksonville(BAD_SECRET);
    try {
      for (let i = 0; i < 20; i++) await wrongGuess(`someone${i}@example.com`, "198.18.0.1");
      expect(await claim("ida.address@example.com", "gate1234", "198.18.0.1")).toMatchObject({ ok: false, limited: true });
      // A tenant at the working location signs in meanwhile from another address.
      expect((await claim("ida.address@example.com", "gate1234", "198.18.0.2")).ok).toBe(true);
    } finally {
      await restore();
    }
  });

  it("gives the attempt back only when no location answered", async () => {
    const restoreJ = await breakJacksonville(BAD_SECRET);
    // Lumberton's password comes from an environment variable: point it at one that is not set.
    await bed.handle.db.update(sitelinkSites).set({ passwordEnv: "SITELINK_TEST_NOT_SET" }).where(eq(sitelinkSites.locationId, bed.lumberton.id));
    forgetStorageChoices(bed.handle.db);
    try {
      for (let i = 0; i < 7; i++) await expect(claim("nobody.answered@example.com", "x", "198.18.1.1")).rejects.toSatisfy(isSoftwareUnreachable);
    } finally {
      await bed.handle.db.update(sitelinkSites).set({ passwordEnv: PASSWORD_ENV }).where(eq(sitelinkSites.locationId, bed.lumberton.id));
      await restoreJ();
    }
    // Nothing was checked, so nothing was counted: the e-mail is not limited.
    expect(await claim("nobody.answered@example.com", "x", "198.18.1.1")).toMatchObject({ ok: false, limited: false });
  });
});
