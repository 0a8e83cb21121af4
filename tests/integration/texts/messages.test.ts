/**
 * Texts through the wire both ways (issue 40, decisions 490–494), against the BUILT server: the app
 * sends through the real `twilio` package to the Twilio fake over HTTP; the fake posts signed status
 * callbacks and inbound texts to the server's /webhooks/twilio/*. Consent first (the portal's opt-in,
 * STOP/START/HELP by text), the texting hours in the location's time zone (the clock: FAKE_NOW), and
 * a forged signature refused.
 */
// First: it gives this process and the built app one session secret.
import { startBuiltServer, type BuiltServer } from "../support/built-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, desc, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { contactMessages, ledgerEntries, locations, tenants, textConsents, textMessages } from "~/db/schema";
import { localDate } from "~/domain/shared/calendar";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { createTenantSession } from "~/services/web/session.server";
import { QUIET_HOURS_MESSAGE } from "~/domain/texts/rules";
import { startTwilioFake, twilioSignature, type RunningTwilioFake } from "../../../twilio-fake";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember } from "../support/staff-fixtures";

// 20:45 in New York: within the texting hours.
const DAYTIME = "2026-11-28T01:45:00Z";
// 21:00 in New York, a quarter of an hour later: not (the staff and portal sessions are still fresh).
const EVENING = "2026-11-28T02:00:00Z";
const LOCATION_NUMBER = "+19105550177";
const TENANT_PHONE = "9105550166";

let handle: DatabaseHandle;
let server: BuiltServer;
let fake: RunningTwilioFake;
let tenantId: number;
let leaseId: number;
let locationId: number;
let staffCookie: string;
let portalCookie: string;

const tokenOf = (html: string) => /<input[^>]*name="csrf"[^>]*value="([^"]+)"/.exec(html)?.[1] ?? null;
const cookiesOf = (headers: Headers) => headers.getSetCookie().map((c) => c.split(";")[0]!);

/** A form post on the built server as a browser sends it: the page first (its CSRF token and cookie), then the form. */
async function postForm(path: string, cookie: string, fields: Record<string, string>) {
  const page = await fetch(server.urlFor(path), { headers: { Cookie: cookie }, redirect: "manual" });
  const html = await page.text();
  expect(page.status, html.slice(0, 300)).toBe(200);
  const both = [cookie, ...cookiesOf(page.headers)].join("; ");
  const r = await fetch(server.urlFor(path), {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: both, "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(server.urlFor(path)).origin },
    body: new URLSearchParams({ csrf: tokenOf(html)!, ...fields }).toString(),
  });
  return { status: r.status, location: r.headers.get("location"), body: await r.text() };
}

const textPayLink = () => postForm(`/admin/tenants/${tenantId}`, staffCookie, { intent: "text-pay-link", leaseId: String(leaseId) });
const outboundToTenant = () => fake.control.messages().filter((m) => m.to === `+1${TENANT_PHONE}` && m.direction === "outbound-api");
const latestConsent = async () =>
  (await handle.db.select().from(textConsents).where(eq(textConsents.phone, `+1${TENANT_PHONE}`)).orderBy(desc(textConsents.id)).limit(1))[0];

beforeAll(async () => {
  process.env.FAKE_NOW = DAYTIME;
  fake = await startTwilioFake({ port: 0 });
  process.env.TWILIO_ACCOUNT_SID = fake.accountSid;
  process.env.TWILIO_AUTH_TOKEN = fake.authToken;
  process.env.TWILIO_API_BASE = fake.url;
  handle = await createTestDatabase({ seeded: true });
  const now = new Date(DAYTIME);
  const t = await createTenantWithLease(handle.db, { email: `texts-${Date.now()}@example.com`, password: "secret-texts-1", now, withInsurance: false });
  tenantId = t.tenantId;
  leaseId = t.leaseId;
  // Something is due (no pay link is made for $0.00: decision 507).
  await handle.db.insert(ledgerEntries).values({ leaseId, tenantId, kind: "charge", description: "Late fee", amount: 2000, entryDate: localDate(now, "America/New_York") });
  await handle.db.update(tenants).set({ cellPhone: TENANT_PHONE }).where(eq(tenants.id, tenantId));
  const lease = await handle.db.query.leases.findFirst({ where: (l, { eq: is }) => is(l.id, leaseId) });
  locationId = lease!.locationId;
  await handle.db.update(locations).set({ sms: "(910) 555-0177" }).where(eq(locations.id, locationId));
  const location = await handle.db.query.locations.findFirst({ where: eq(locations.id, locationId) });
  expect(location!.timeZone.timeZoneId).toBe("America/New_York");
  server = await startBuiltServer(handle);
  // The configured public origin: the address Twilio is given, and the one signatures are checked against.
  process.env.PUBLIC_URL = server.origin;
  fake.control.addNumber(LOCATION_NUMBER, `${server.origin}/webhooks/twilio/inbound`);
  staffCookie = (await signedInStaffMember(handle.db, { accountId: location!.accountId, role: "manager", locationIds: [locationId] })).cookie;
  portalCookie = (await createTenantSession(handle.db, { tenantId: String(tenantId), now })).split(";")[0]!;
});

afterAll(async () => {
  for (const k of ["FAKE_NOW", "TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_API_BASE", "PUBLIC_URL"]) delete process.env[k];
  await server?.close();
  await fake?.close();
  await handle?.close();
});

describe("texts through the Twilio fake", () => {
  it("sends no pay link by text before the tenant agreed to texts", async () => {
    const r = await textPayLink();
    expect(r.status).toBe(400);
    expect(r.body).toContain("has not agreed to receive texts");
    expect(outboundToTenant()).toEqual([]);
  });

  it("the tenant opts in on the profile page; the desk's pay link goes by text from the location's number, and its delivery is recorded from the signed callbacks", async () => {
    const profile = await fetch(`${server.origin}/customer-portal/profile`, { headers: { Cookie: portalCookie } });
    expect(await profile.text()).toContain("Reply STOP to stop");
    const optIn = await postForm("/customer-portal/profile", portalCookie, { intent: "texts", texts_opt_in: "on" });
    expect(optIn.status).toBe(303);
    const consent = await latestConsent();
    expect(consent).toMatchObject({ optedIn: true, source: "portal_profile", tenantId });
    expect(consent!.givenAt.toISOString()).toBe(new Date(DAYTIME).toISOString());

    const r = await textPayLink();
    expect(r.status).toBe(303);
    expect(r.location).toContain("done=paylinktext");
    const [sent] = outboundToTenant();
    expect(sent).toMatchObject({ from: LOCATION_NUMBER, to: `+1${TENANT_PHONE}` });
    const url = /(http:\/\/localhost:\d+\/pay\/\S+)/.exec(sent!.body)?.[1];
    expect(url, sent!.body).toBeTruthy();
    await fake.control.settled();
    const [logged] = await handle.db.select().from(textMessages).where(eq(textMessages.providerSid, sent!.sid));
    expect(logged).toMatchObject({ direction: "outbound", purpose: "pay_link", status: "delivered", consentId: consent!.id, tenantId });
    expect(fake.control.deliveries().filter((d) => d.messageSid === sent!.sid).map((d) => d.status)).toEqual([200, 200]);
    // The link in the text is a working pay link.
    const pay = await fetch(url!);
    expect(pay.status).toBe(200);
    expect(await pay.text()).toMatch(/Pay/);
  });

  it("refuses a webhook whose signature is forged, or made for another address than the configured origin", async () => {
    const [logged] = await handle.db.select().from(textMessages).where(and(eq(textMessages.purpose, "pay_link"), eq(textMessages.direction, "outbound")));
    const params = { AccountSid: fake.accountSid, MessageSid: logged!.providerSid!, MessageStatus: "failed", ErrorCode: "30008" };
    const post = (signature: string, body: Record<string, string> = params) =>
      fetch(`${server.origin}/webhooks/twilio/status`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": signature }, body: new URLSearchParams(body).toString() });
    expect((await post(twilioSignature("not-the-auth-token", `${server.origin}/webhooks/twilio/status`, params))).status).toBe(403);
    expect((await post(twilioSignature(fake.authToken, "https://attacker.example/webhooks/twilio/status", params))).status).toBe(403);
    expect((await post("")).status).toBe(403);
    const inbound = { From: `+1${TENANT_PHONE}`, To: LOCATION_NUMBER, Body: "STOP", MessageSid: "SMforged" };
    const forgedStop = await fetch(`${server.origin}/webhooks/twilio/inbound`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": twilioSignature("wrong-token-000000", `${server.origin}/webhooks/twilio/inbound`, inbound) },
      body: new URLSearchParams(inbound).toString(),
    });
    expect(forgedStop.status).toBe(403);
    expect((await handle.db.select().from(textMessages).where(eq(textMessages.id, logged!.id)))[0]!.status).toBe("delivered");
    expect((await latestConsent())!.optedIn).toBe(true);
    // The same callback signed with the account's token for the configured origin is taken.
    const read = { ...params, MessageStatus: "read" };
    expect((await post(twilioSignature(fake.authToken, `${server.origin}/webhooks/twilio/status`, read), read)).status).toBe(200);
    expect((await handle.db.select().from(textMessages).where(eq(textMessages.id, logged!.id)))[0]!.status).toBe("read");
  });

  it("no text outside 8 am–9 pm in the location's time zone: the desk is told why and nothing is sent", async () => {
    const before = outboundToTenant().length;
    process.env.FAKE_NOW = EVENING;
    try {
      const r = await textPayLink();
      expect(r.status).toBe(400);
      expect(r.body).toContain(QUIET_HOURS_MESSAGE.replace(/'/g, "&#x27;"));
    } finally {
      process.env.FAKE_NOW = DAYTIME;
    }
    expect(outboundToTenant().length).toBe(before);
  });

  it("HELP is answered; STOP is answered and honoured at once (the next send is refused); START undoes it", async () => {
    const help = await fake.control.inbound({ from: `+1${TENANT_PHONE}`, to: LOCATION_NUMBER, body: "help" });
    expect(help.status).toBe(200);
    expect(help.reply?.body).toMatch(/Reply STOP to stop/);

    const stop = await fake.control.inbound({ from: `+1${TENANT_PHONE}`, to: LOCATION_NUMBER, body: "Stop" });
    expect(stop.status).toBe(200);
    expect(stop.reply?.body).toMatch(/no more texts/);
    expect(await latestConsent()).toMatchObject({ optedIn: false, source: "inbound_keyword", wording: "Stop" });
    const before = outboundToTenant().length;
    const refused = await textPayLink();
    expect(refused.status).toBe(400);
    expect(refused.body).toContain("asked for no more texts");
    expect(outboundToTenant().length).toBe(before);

    const start = await fake.control.inbound({ from: `+1${TENANT_PHONE}`, to: LOCATION_NUMBER, body: "START" });
    expect(start.reply?.body).toMatch(/receive texts from this number again/);
    expect((await latestConsent())!.optedIn).toBe(true);
    expect((await textPayLink()).status).toBe(303);
    expect(outboundToTenant().length).toBe(before + 1);
    await fake.control.settled();
  });

  it("an answer from the tenant is logged against the tenant the location last texted", async () => {
    const r = await fake.control.inbound({ from: `+1${TENANT_PHONE}`, to: LOCATION_NUMBER, body: "Paid, thanks!" });
    expect(r.status).toBe(200);
    expect(r.reply).toBeNull();
    const [row] = await handle.db.select().from(textMessages).where(eq(textMessages.providerSid, r.message.sid));
    expect(row).toMatchObject({ direction: "inbound", purpose: "inbound", tenantId, body: "Paid, thanks!", status: "received" });
  });

  it("a reply to a lead from the lead's page goes by text once the desk confirms consent, and the lead's answer appears on the page", async () => {
    const location = await handle.db.query.locations.findFirst({ where: eq(locations.id, locationId) });
    const [message] = await handle.db
      .insert(contactMessages)
      .values({ accountId: location!.accountId, locationId, kind: "contact", name: "Lee Lead", email: `lead-${Date.now()}@example.com`, phone: "9105550155", message: "Is a 10x10 free?" })
      .returning({ id: contactMessages.id });
    const page = `/admin/leads/contact-${message!.id}`;
    const unconfirmed = await postForm(page, staffCookie, { intent: "text", text_body: "Hello Lee, yes: a 10x10 is free." });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.body).toContain("Tick the box once they have agreed");
    expect(fake.control.messages().filter((m) => m.to === "+19105550155")).toEqual([]);

    const sent = await postForm(page, staffCookie, { intent: "text", text_body: "Hello Lee, yes: a 10x10 is free.", text_consent: "on" });
    expect(sent.status).toBe(303);
    const [out] = fake.control.messages().filter((m) => m.to === "+19105550155");
    expect(out).toMatchObject({ from: LOCATION_NUMBER, body: "Hello Lee, yes: a 10x10 is free." });
    const [consent] = await handle.db.select().from(textConsents).where(eq(textConsents.phone, "+19105550155"));
    expect(consent).toMatchObject({ optedIn: true, source: "desk" });

    await fake.control.inbound({ from: "+19105550155", to: LOCATION_NUMBER, body: "Great, I'll come by at 5" });
    await fake.control.settled();
    const html = await (await fetch(server.urlFor(page), { headers: { Cookie: staffCookie } })).text();
    expect(html).toContain("Hello Lee, yes: a 10x10 is free.");
    expect(html).toContain("Great, I&#x27;ll come by at 5");
    expect(html).toMatch(/We wrote<\/strong> (<!-- -->)?\([^)]*, delivered\)/);
  });
});
