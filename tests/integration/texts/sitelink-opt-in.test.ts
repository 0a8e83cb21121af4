/**
 * A SiteLink tenant's texting opt-in changed after the move-in reaches SiteLink's `bSMSOptIn` (issue 40,
 * decision 614), against the SiteLink simulator over SOAP and the Twilio fake over HTTP: the portal's
 * box (a form post with the tenant's session and CSRF token) and STOP/START texted to the location's
 * number (the fake posts them, signed, to /webhooks/twilio/inbound). Each is a read-modify-write
 * TenantUpdate_v3 (the office's other fields kept); a write that times out is reconciled by reading
 * the record back and never sent twice; one that was lost is journalled `unknown`, and our consent
 * (what we text by) holds.
 */
import { and, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { locations, sitelinkWrites, textConsents } from "~/db/schema";
import { hashPassword } from "~/platform/password.server";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { createTenantSession } from "~/services/web/session.server";
import { storageFor } from "~/storage-software/index.server";
import type { StorageSoftware } from "~/storage-software/port";
import { soapCall } from "../../../sitelink-simulator/test-client";
import { startTwilioFake, type RunningTwilioFake } from "../../../twilio-fake";
import { startAppServer, type AppServer } from "../support/app-server";
import { startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

const NOW = new Date("2026-06-15T14:00:00Z"); // 10 am in Lumberton
const LOCATION_NUMBER = "+19105550179";
const PHONE = "9105550100";
let bed: SiteLinkTestbed;
let lumberton: StorageSoftware;
let fake: RunningTwilioFake;
let server: AppServer;

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  fake = await startTwilioFake({ port: 0 });
  process.env.TWILIO_ACCOUNT_SID = fake.accountSid;
  process.env.TWILIO_AUTH_TOKEN = fake.authToken;
  process.env.TWILIO_API_BASE = fake.url;
  bed = await startSyncedSiteLinkTestbed(NOW);
  await bed.handle.db.update(locations).set({ sms: "(910) 555-0179" }).where(eq(locations.id, bed.lumberton.id));
  lumberton = storageFor(bed.handle.db, bed.lumberton);
  server = await startAppServer(bed.handle.db);
  process.env.PUBLIC_URL = server.origin;
  fake.control.addNumber(LOCATION_NUMBER, `${server.origin}/webhooks/twilio/inbound`);
});

afterAll(async () => {
  for (const k of ["FAKE_NOW", "TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_API_BASE", "PUBLIC_URL"]) delete process.env[k];
  await server?.close();
  await fake?.close();
  await bed?.close();
});

const site = () => bed.sim.control.inspectSite("L001");
const updates = () => bed.sim.control.calls({ operation: "TenantUpdate_v3" }).length;

/** A tenant rented at the office (texts off there), with a licence and business phone the office typed, then given a portal sign-in. */
async function officeTenant() {
  const email = `sms-${Date.now()}@example.com`;
  const unit = site().units.find((u) => !u.rented && u.rentable && !u.waitingListReserved && !u.deleted && !u.excludeFromWebsite)!;
  const office = bed.sim.control.addOfficeTenant("L001", { firstName: "Olive", lastName: "Office", email, webPassword: "pass1234", unitId: unit.UnitID });
  const info = (await soapCall(bed.sim.url, "TenantInfoByTenantID", { iTenantID: office.TenantID })).tables.Table![0]!;
  const r = await soapCall(bed.sim.url, "TenantUpdate_v3", {
    iTenantID: office.TenantID,
    sGateCode: info.sAccessCode!,
    sWebPassword: "pass1234",
    sFName: "Olive",
    sLName: "Office",
    sEmail: email,
    sAddr1: "9 Elm Street",
    sCity: "Lumberton",
    sRegion: "NC",
    sPostalCode: "28358",
    sMobile: PHONE,
    sPhone: PHONE,
    sPhoneBus: "9105550111",
    sLicense: "NC-D-123456",
    bSMSOptIn: false,
  });
  expect(r.rt?.Ret_Code).toBe(office.TenantID);
  const claim = await lumberton.claimOfficeTenant({ email, webPassword: "pass1234", passwordHash: await hashPassword("portal-pass-1"), now: NOW });
  expect(claim.kind).toBe("claimed");
  return { tenantId: (claim as { tenantId: string }).tenantId, siteLinkTenantId: office.TenantID, gate: info.sAccessCode! };
}

const simTenant = (id: number) => site().tenants.find((t) => t.TenantID === id)!;
const journal = (siteLinkTenantId: number) => bed.handle.db.select().from(sitelinkWrites).where(like(sitelinkWrites.idempotencyKey, `contact:${siteLinkTenantId}:%`));

/** The portal's texting box, posted as a browser without JavaScript does (the tenant's session, its CSRF token). */
async function portalTexts(tenantId: string, optIn: boolean) {
  const cookie = (await createTenantSession(bed.handle.db, { tenantId, now: NOW })).split(";")[0]!;
  const { token } = await getCsrfToken(new Request(`${server.origin}/customer-portal/profile`, { headers: { Cookie: cookie } }));
  const res = await fetch(`${server.origin}/customer-portal/profile`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ [CSRF_FIELD]: token, intent: "texts", ...(optIn ? { texts_opt_in: "on" } : {}) }),
  });
  expect(res.status, await res.clone().text().then((t) => t.slice(0, 300))).toBe(303);
}

const latestConsent = async () => (await bed.handle.db.select().from(textConsents).where(eq(textConsents.phone, `+1${PHONE}`))).sort((a, b) => b.id - a.id)[0];

describe("the texting opt-in at a SiteLink location after the move-in", () => {
  it("the portal's box, STOP and START reach bSMSOptIn by read-modify-write; a timed-out write is read back, never resent; a lost one is journalled and ours holds", async () => {
    const t = await officeTenant();
    expect(simTenant(t.siteLinkTenantId).fields.bSMSOptIn).toBe(false);

    // The portal's box ticked: one TenantUpdate_v3, bSMSOptIn true, the office's fields kept.
    let calls = updates();
    await portalTexts(t.tenantId, true);
    expect(await latestConsent()).toMatchObject({ optedIn: true, source: "portal_profile" });
    expect(updates()).toBe(calls + 1);
    const after = simTenant(t.siteLinkTenantId);
    expect(after.fields).toMatchObject({ bSMSOptIn: true, sLicense: "NC-D-123456", sPhoneBus: "9105550111", sCity: "Lumberton", sMobile: PHONE });
    expect(after.accessCode).toBe(t.gate);
    expect(after.webPassword).toBe("pass1234");
    // Saved again as it is: SiteLink already shows it, nothing sent.
    calls = updates();
    await portalTexts(t.tenantId, true);
    expect(updates()).toBe(calls);

    // STOP texted to the location's number: recorded, answered, and bSMSOptIn false at SiteLink.
    await fake.control.inbound({ from: `+1${PHONE}`, to: LOCATION_NUMBER, body: "STOP" });
    await fake.control.settled();
    expect(await latestConsent()).toMatchObject({ optedIn: false, source: "inbound_keyword" });
    expect(simTenant(t.siteLinkTenantId).fields.bSMSOptIn).toBe(false);

    // START, and SiteLink applies it but never answers: read back, done, sent once.
    bed.sim.control.addFault({ operation: "TenantUpdate_v3", kind: "commit_then_hang", times: 1 });
    calls = updates();
    await fake.control.inbound({ from: `+1${PHONE}`, to: LOCATION_NUMBER, body: "START" });
    await fake.control.settled();
    expect(updates()).toBe(calls + 1);
    expect(simTenant(t.siteLinkTenantId).fields.bSMSOptIn).toBe(true);
    expect((await journal(t.siteLinkTenantId)).every((j) => j.state === "done")).toBe(true);

    // The box unticked, and the write is lost (no answer, not applied): journalled unknown, not resent;
    // our consent says no (we text by it), SiteLink's record still says yes until the office or a
    // later change settles it.
    bed.sim.control.addFault({ operation: "TenantUpdate_v3", kind: "drop_before", times: 1 });
    calls = updates();
    await portalTexts(t.tenantId, false);
    expect(updates()).toBe(calls + 1);
    expect(await latestConsent()).toMatchObject({ optedIn: false, source: "portal_profile" });
    expect(simTenant(t.siteLinkTenantId).fields.bSMSOptIn).toBe(true);
    const open = (await journal(t.siteLinkTenantId)).filter((j) => j.state !== "done");
    expect(open.map((j) => j.state)).toEqual(["unknown"]);
    expect(JSON.parse(open[0]!.externalIds!.fields!)).toEqual({ bSMSOptIn: false });
    // STOP later sends the same value: the unknown entry is settled by the confirmed one.
    await fake.control.inbound({ from: `+1${PHONE}`, to: LOCATION_NUMBER, body: "STOP" });
    await fake.control.settled();
    expect(simTenant(t.siteLinkTenantId).fields.bSMSOptIn).toBe(false);
    expect((await journal(t.siteLinkTenantId)).every((j) => j.state === "done")).toBe(true);
    expect(await bed.handle.db.select().from(sitelinkWrites).where(and(like(sitelinkWrites.idempotencyKey, "contact:%"), eq(sitelinkWrites.state, "pending")))).toEqual([]);
  });
});
