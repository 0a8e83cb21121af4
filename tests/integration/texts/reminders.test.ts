/**
 * The reminder texts (issue 40, decision 512) against the BUILT server and the Twilio fake over the
 * wire: the billing run's due and declined-autopay reminders go by text with a working pay link only
 * to a tenant who agreed (the portal's opt-in, posted over HTTP), only inside 8 am–9 pm at the location
 * (the clock: the run's `now` and FAKE_NOW): a run at midnight sends nothing and its reminders go at
 * the first run after 8 am; a STOP sent by text stops them; and the move-out confirmation is texted
 * when a tenant who opted in gives notice in the portal.
 */
// First: it gives this process and the built app one session secret.
import { startBuiltServer, type BuiltServer } from "../support/built-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq, isNull, notInArray } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { emailOutbox, leases, locations, plannedTexts, savedCards, tenants, textMessages } from "~/db/schema";
import { addMonthsIso, addDaysIso, localDate } from "~/domain/shared/calendar";
import { sendReviewRequests } from "~/services/marketing/review-requests.server";
import { runBilling } from "~/services/payments/billing-run.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { sendPlannedTexts } from "~/services/texts/planned.server";
import { createTenantSession } from "~/services/web/session.server";
import { startTwilioFake, type RunningTwilioFake } from "../../../twilio-fake";
import { createTestDatabase } from "../support/db";

const TZ = "America/New_York";
// 10:00 in New York.
const DAY = new Date("2026-11-28T15:00:00Z");
// 00:10 in New York: the billing job's hour, outside the texting hours.
const NIGHT = new Date("2026-11-28T05:10:00Z");
// 8:05 in New York, the same day: the first run inside the hours.
const MORNING = new Date("2026-11-28T13:05:00Z");
const LOCATION_NUMBER = "+19105550178";

let handle: DatabaseHandle;
let server: BuiltServer;
let fake: RunningTwilioFake;
let phones = 0;

const tokenOf = (html: string) => /<input[^>]*name="csrf"[^>]*value="([^"]+)"/.exec(html)?.[1] ?? null;
const cookiesOf = (headers: Headers) => headers.getSetCookie().map((c) => c.split(";")[0]!);

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

/** A tenant who moved in a month before `DAY` (the run on DAY's date posts their second month), with a phone of their own. */
async function tenantDue(options: { optIn: boolean }) {
  const email = `texted-${++phones}-${Date.now()}@example.com`;
  const t = await createTenantWithLease(handle.db, { email, password: "secret-texts-2", firstName: "Tess", lastName: "Texted", now: DAY, moveInDate: addMonthsIso(localDate(DAY, TZ), -1), withInsurance: false });
  const phone = `91055501${String(10 + phones).padStart(2, "0")}`;
  await handle.db.update(tenants).set({ cellPhone: phone }).where(eq(tenants.id, t.tenantId));
  const cookie = (await createTenantSession(handle.db, { tenantId: String(t.tenantId), now: DAY })).split(";")[0]!;
  if (options.optIn) {
    // The portal's opt-in, as the tenant posts it (decision 490).
    const r = await postForm("/customer-portal/profile", cookie, { intent: "texts", texts_opt_in: "on" });
    expect(r.status).toBe(303);
  }
  return { ...t, email, phone: `+1${phone}`, cookie };
}

const textsTo = (phone: string) => fake.control.messages().filter((m) => m.to === phone && m.direction === "outbound-api");
const planned = (leaseId: number) => handle.db.select().from(plannedTexts).where(eq(plannedTexts.leaseId, leaseId));
const bill = (tenantId: number, now: Date) => runBilling(handle.db, { runDate: localDate(now, TZ), now, force: true, tenantId });

beforeAll(async () => {
  process.env.FAKE_NOW = DAY.toISOString();
  fake = await startTwilioFake({ port: 0 });
  process.env.TWILIO_ACCOUNT_SID = fake.accountSid;
  process.env.TWILIO_AUTH_TOKEN = fake.authToken;
  process.env.TWILIO_API_BASE = fake.url;
  handle = await createTestDatabase({ seeded: true });
  const lumberton = await handle.db.query.locations.findFirst({ where: eq(locations.status, "Live") });
  expect(lumberton!.timeZone.timeZoneId).toBe(TZ);
  await handle.db.update(locations).set({ sms: "(910) 555-0178" }).where(eq(locations.id, lumberton!.id));
  server = await startBuiltServer(handle);
  process.env.PUBLIC_URL = server.origin;
  fake.control.addNumber(LOCATION_NUMBER, `${server.origin}/webhooks/twilio/inbound`);
});

afterAll(async () => {
  for (const k of ["FAKE_NOW", "TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_API_BASE", "PUBLIC_URL"]) delete process.env[k];
  await server?.close();
  await fake?.close();
  await handle?.close();
});

describe("reminder texts", () => {
  it("no text without recorded consent: the due reminder goes by e-mail only, and its planned text is settled as not sent, saying why", async () => {
    const t = await tenantDue({ optIn: false });
    const run = await bill(t.tenantId, DAY);
    expect(run.chargesPosted).toBeGreaterThan(0);
    expect(textsTo(t.phone)).toEqual([]);
    const [row] = await planned(t.leaseId);
    expect(row).toMatchObject({ kind: "bill_due", outcome: expect.stringContaining("has not agreed to receive texts"), textMessageId: null });
    expect(row!.settledAt).not.toBeNull();
  });

  it("the due reminder by text, with a pay link that opens its pay page, from the location's number, logged with its consent and delivered", async () => {
    const t = await tenantDue({ optIn: true });
    await bill(t.tenantId, DAY);
    const [sent] = textsTo(t.phone);
    expect(sent).toMatchObject({ from: LOCATION_NUMBER });
    expect(sent!.body).toMatch(/^Lumberton: your bill for unit \S+ is due on .+: \$\d+\.\d\d\. Pay by card here \(works once, until .+\): http:\/\/localhost:\d+\/pay\/\S+ Reply STOP to stop texts\.$/);
    const url = /(http:\/\/localhost:\d+\/pay\/\S+)/.exec(sent!.body)![1]!;
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/Pay/);
    await fake.control.settled();
    const [row] = await planned(t.leaseId);
    expect(row).toMatchObject({ outcome: "sent" });
    const [logged] = await handle.db.select().from(textMessages).where(eq(textMessages.id, row!.textMessageId!));
    expect(logged).toMatchObject({ purpose: "bill_due", status: "delivered", tenantId: t.tenantId, providerSid: sent!.sid });
    expect(logged!.consentId).not.toBeNull();
    // A second run of the same date plans and sends nothing more.
    await bill(t.tenantId, DAY);
    expect(textsTo(t.phone)).toHaveLength(1);
    expect(await planned(t.leaseId)).toHaveLength(1);
  });

  it("no text outside 8 am–9 pm: the midnight run texts nothing; the first run after 8 am sends it", async () => {
    const t = await tenantDue({ optIn: true });
    await bill(t.tenantId, NIGHT);
    expect(textsTo(t.phone)).toEqual([]);
    const [waiting] = await planned(t.leaseId);
    expect(waiting).toMatchObject({ kind: "bill_due", settledAt: null });
    // A later run still inside the night: still nothing.
    await sendPlannedTexts(handle.db, { now: new Date(NIGHT.getTime() + 6 * 60 * 60 * 1000) });
    expect(textsTo(t.phone)).toEqual([]);
    await sendPlannedTexts(handle.db, { now: MORNING });
    expect(textsTo(t.phone)).toHaveLength(1);
    expect((await planned(t.leaseId))[0]).toMatchObject({ outcome: "sent" });
    await fake.control.settled();
  });

  it("a planned text not sent within a day is given up, never sent late", async () => {
    const t = await tenantDue({ optIn: true });
    await bill(t.tenantId, NIGHT);
    await sendPlannedTexts(handle.db, { now: new Date(NIGHT.getTime() + 25 * 60 * 60 * 1000) });
    expect(textsTo(t.phone)).toEqual([]);
    expect((await planned(t.leaseId))[0]!.outcome).toMatch(/^not sent: not within the texting hours/);
  });

  it("STOP stops the reminder texts: the tenant replies STOP, the next reminder is not texted", async () => {
    const t = await tenantDue({ optIn: true });
    const stop = await fake.control.inbound({ from: t.phone, to: LOCATION_NUMBER, body: "STOP" });
    expect(stop.reply?.body).toMatch(/no more texts/);
    await bill(t.tenantId, DAY);
    expect(textsTo(t.phone)).toEqual([]);
    expect((await planned(t.leaseId))[0]!.outcome).toMatch(/asked for no more texts \(replied STOP/);
  });

  it("a declined autopay charge: the tenant who opted in gets a text with a pay link", async () => {
    const t = await tenantDue({ optIn: true });
    // A card the test gateway saved but declines every charge of (4000 0000 0000 0341).
    const [card] = await handle.db
      .insert(savedCards)
      .values({ tenantId: t.tenantId, brand: "visa", last4: "0341", expMonth: 12, expYear: 2030, nameOnCard: "Tess Texted", gatewayToken: "tok_visa_0341_decline_122030_abcdef012345" })
      .returning({ id: savedCards.id });
    await handle.db.update(leases).set({ autopayEnabled: true, autopayCardId: card!.id }).where(eq(leases.id, t.leaseId));
    const run = await bill(t.tenantId, DAY);
    expect(run.autopayDeclined).toBe(1);
    const [sent] = textsTo(t.phone);
    expect(sent!.body).toMatch(/^Lumberton: your autopay card was declined\. \$\d+\.\d\d is due for unit \S+\. Pay with another card here \(works once, until .+\): http:\/\/localhost:\d+\/pay\/\S+ Reply STOP to stop texts\.$/);
    expect((await planned(t.leaseId)).map((p) => [p.kind, p.outcome])).toEqual([["autopay_declined", "sent"]]);
    await fake.control.settled();
  });

  it("the move-out confirmation by text when a tenant who opted in gives notice in the portal; none for one who did not", async () => {
    const texted = await tenantDue({ optIn: true });
    const silent = await tenantDue({ optIn: false });
    const date = addDaysIso(localDate(DAY, TZ), 20);
    for (const t of [texted, silent]) {
      const r = await postForm(`/customer-portal/units/${t.leaseId}/move-out`, t.cookie, { move_out_date: date, reason: "" });
      expect(r.status, r.body.slice(0, 300)).toBe(303);
    }
    const [sent] = textsTo(texted.phone);
    expect(sent!.body).toMatch(/^Lumberton: we have your move-out notice for unit \S+: moving out on .+\. The details are in your e-mail\..* Reply STOP to stop texts\.$/);
    expect(textsTo(silent.phone)).toEqual([]);
    const rows = await handle.db.select().from(plannedTexts).where(and(eq(plannedTexts.kind, "move_out"), eq(plannedTexts.key, date)));
    expect(rows.find((r) => r.leaseId === texted.leaseId)).toMatchObject({ outcome: "sent" });
    expect(rows.find((r) => r.leaseId === silent.leaseId)!.outcome).toMatch(/^not sent: This person has not agreed/);
    await fake.control.settled();
  });
});

describe("the review request (decision 501)", () => {
  it("goes by text to a tenant who agreed to texts, by e-mail to one who did not; once each", async () => {
    const REVIEW = "https://g.page/r/gatehouse-lumberton/review";
    const lumberton = (await handle.db.query.locations.findFirst({ where: eq(locations.name, "Lumberton") }))!;
    await handle.db
      .update(locations)
      .set({ googleReviewLink: REVIEW, globalSettings: { ...(lumberton.globalSettings ?? {}), is_review_request_enabled: true, review_request_days_after_move_in: 14 } })
      .where(eq(locations.id, lumberton.id));
    const texted = await tenantDue({ optIn: true });
    const mailed = await tenantDue({ optIn: false });
    // The earlier tests' tenants were asked already: only these two count here.
    await handle.db.update(tenants).set({ reviewRequestedAt: DAY }).where(and(notInArray(tenants.id, [texted.tenantId, mailed.tenantId]), isNull(tenants.reviewRequestedAt)));
    const mailsTo = (email: string) => handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));

    expect(await sendReviewRequests(handle.db, DAY)).toBe(2);
    const sent = textsTo(texted.phone);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ from: LOCATION_NUMBER });
    expect(sent[0]!.body).toBe(`Lumberton: how is your storage? If we have looked after you well, would you tell others in a short review? ${REVIEW} We will not ask again. Reply STOP to stop texts.`);
    expect((await planned(texted.leaseId)).map((p) => [p.kind, p.outcome])).toContainEqual(["review_request", "sent"]);
    expect(await mailsTo(texted.email)).toEqual([]);
    expect(textsTo(mailed.phone)).toEqual([]);
    const mails = await mailsTo(mailed.email);
    expect(mails.map((m) => m.subject)).toEqual([expect.stringMatching(/^How is your storage at .*Lumberton\?$/)]);

    // Never twice.
    expect(await sendReviewRequests(handle.db, DAY)).toBe(0);
    expect(textsTo(texted.phone)).toHaveLength(1);
    await fake.control.settled();
  });
});
