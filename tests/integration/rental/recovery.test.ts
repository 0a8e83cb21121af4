/**
 * Abandoned-rental recovery (issue 40, decisions 517–519), over HTTP (the app's routes in this process)
 * on a real database, with a pinned clock: a renter who gave details and chose protection, then
 * stopped, gets exactly one reminder after the location's delay (none before; one even with two runs
 * at once; none again), by e-mail and, as they opted in, by text inside the texting hours (through the
 * Twilio fake). The link restores the step in another browser, holds a unit again and the rental
 * completes; it then counts as recovered (the count function and the leads list). The unsubscribe link
 * works in one GET and stops every later reminder to the address; a unit type sold out meanwhile says so.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { emailOutbox, locations, rentals, textMessages, units } from "~/db/schema";
import { pinClockForTests } from "~/platform/clock.server";
import { runHousekeeping } from "~/services/jobs/housekeeping.server";
import { readOutboxMail } from "~/services/mail/outbox.server";
import { countRentalRecovery, sendRentalRecoveryReminders } from "~/services/rental/recovery.server";
import { listDeskLeads } from "~/services/desk/leads.server";
import { startTwilioFake, type RunningTwilioFake } from "../../../twilio-fake";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { detailsFormFields, leaveAvailable, lumbertonUnitType, NOW } from "../support/rental-fixtures";
import { visitor as cookieVisitor } from "../support/visitor";

const MIN = 60_000;
let handle: DatabaseHandle;
let server: AppServer;
let fake: RunningTwilioFake;
let unitTypeId: string;
let locationId: number;
let rentPath: string;
let n = 0;


const browser = () => cookieVisitor(() => server.origin);

/** A renter gives details (opting in to texts) and chooses protection at `at`, then stops. */
async function renterStops(at: Date, email = `recover.${process.pid}.${++n}@example.com`) {
  pinClockForTests(at);
  const b = browser();
  const details = await b.post(`${rentPath}?step=details`, { ...detailsFormFields(email), website_url: "", text_opt_in: "on" });
  expect(details.status, details.body.slice(0, 400)).toBe(303);
  const protection = await b.get(`${rentPath}?step=protection`);
  const plan = /name="insurance_plan" value="([^"]+)"/.exec(protection.body)?.[1];
  const chosen = await b.post(`${rentPath}?step=protection`, { intent: "protection", insurance_plan: plan ?? "none" });
  expect(chosen.status, chosen.body.slice(0, 400)).toBe(303);
  const mine = (await handle.db.select().from(rentals)).find((r) => (r.tenantDetails as { email?: string } | null)?.email?.toLowerCase() === email.toLowerCase());
  expect(mine).toBeTruthy();
  return { email, rental: mine!, browser: b };
}

async function mailsTo(email: string) {
  const rows = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
  return rows.map((r) => ({ subject: r.subject, ...readOutboxMail(r) }));
}

const pathOf = (text: string, kind: "back" | "unsubscribe") => {
  const url = new RegExp(`https?://[^\\s]+/rent/${kind}/[A-Za-z0-9_-]+`).exec(text)?.[0];
  expect(url, text).toBeTruthy();
  return new URL(url!).pathname;
};

beforeAll(async () => {
  fake = await startTwilioFake({ port: 0, numbers: [{ number: "+19105550179", smsUrl: null }] });
  process.env.TWILIO_ACCOUNT_SID = fake.accountSid;
  process.env.TWILIO_AUTH_TOKEN = fake.authToken;
  process.env.TWILIO_API_BASE = fake.url;
  handle = await createTestDatabase();
  const t = await lumbertonUnitType(handle.db);
  unitTypeId = t.unitTypeId;
  locationId = t.locationId;
  rentPath = `/rent/${unitTypeId}`;
  await handle.db.update(locations).set({ sms: "(910) 555-0179" }).where(eq(locations.id, locationId));
  server = await startAppServer(handle.db);
});

afterAll(async () => {
  pinClockForTests(null);
  for (const k of ["TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_API_BASE"]) delete process.env[k];
  await server?.close();
  await fake?.close();
  await handle?.close();
});

beforeEach(async () => {
  await handle.db.update(locations).set({ globalSettings: {} }).where(eq(locations.id, locationId));
});

describe("abandoned-rental recovery", () => {
  it("one reminder after the delay (none before, none twice with two runs at once), a text inside the hours; the link restores the step and the hold; renting counts as recovered", async () => {
    const { db } = handle;
    const start = NOW; // 10:00 in Lumberton
    const { email, rental } = await renterStops(start);

    // Before the delay (60 minutes by default): nothing.
    expect((await runHousekeeping(db, new Date(start.getTime() + 59 * MIN))).recoveryEmails).toBe(0);
    expect(await mailsTo(email)).toHaveLength(0);

    // After it: two runs at once (two processes) send one reminder.
    const at = new Date(start.getTime() + 61 * MIN);
    const [a, b] = await Promise.all([sendRentalRecoveryReminders(db, at), sendRentalRecoveryReminders(db, at)]);
    expect(a.emails + b.emails).toBe(1);
    expect(a.texts + b.texts).toBe(1);
    // Later runs: never a second one.
    expect(await runHousekeeping(db, new Date(start.getTime() + 3 * 60 * MIN))).toMatchObject({ recoveryEmails: 0, recoveryTexts: 0 });
    const mails = await mailsTo(email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/pick up where you left off/);
    expect(mails[0]!.text).toContain('got as far as the "Sign lease" step');
    const texts = fake.control.messages().filter((m) => m.to === "+19105550134" && m.direction === "outbound-api" && m.body.includes("/rent/back/"));
    expect(texts).toHaveLength(1);
    const [logged] = await db.select().from(textMessages).where(eq(textMessages.purpose, "rental_recovery"));
    expect(logged).toMatchObject({ consentId: expect.any(Number), leadKey: expect.stringMatching(/^rental-[0-9a-f]{20}$/) });

    // The hold ran out long ago; the link (another browser) holds a unit again and opens the step reached.
    const back = new Date(start.getTime() + 2 * 60 * MIN);
    pinClockForTests(back);
    const other = browser();
    const followed = await other.get(pathOf(mails[0]!.text, "back"));
    expect(followed.status, followed.body.slice(0, 300)).toBe(303);
    expect(followed.location).toBe(`${rentPath}?step=sign`);
    const restored = (await db.query.rentals.findFirst({ where: eq(rentals.id, rental.id) }))!;
    expect(restored).toMatchObject({ status: "open", resumedAt: back });
    expect(restored.expiresAt.getTime()).toBeGreaterThan(back.getTime());
    const held = await db.select().from(units).where(and(eq(units.holdToken, rental.id)));
    expect(held).toHaveLength(1);
    expect(held[0]!.heldUntil!.getTime()).toBeGreaterThan(back.getTime());
    const page = await other.get(followed.location!);
    expect(page.status).toBe(200);
    expect(page.body).toContain("Sign lease");

    // The renter signs and pays: the rental completes, counted as recovered.
    const signed = await other.post(`${rentPath}?step=sign`, { intent: "sign", signed_name: "Ada Lovelace", consent: "on" });
    expect(signed.status, signed.body.slice(0, 300)).toBe(303);
    const paid = await other.post(`${rentPath}?step=pay`, {
      intent: "pay",
      card_number: "4242424242424242",
      exp_month: "12",
      exp_year: "2030",
      cvv: "123",
      name_on_card: "Ada Lovelace",
      billing_postal_code: "28358",
    });
    expect(paid.status, paid.body.slice(0, 500)).toBe(303);
    expect(paid.location).toContain("/confirmation");
    expect((await db.query.rentals.findFirst({ where: eq(rentals.id, rental.id) }))!.status).toBe("completed");

    const lumberton = (await db.query.locations.findFirst({ where: eq(locations.id, locationId) }))!;
    expect(await countRentalRecovery(db, { accountId: lumberton.accountId, from: start, to: new Date(start.getTime() + 24 * 60 * MIN) })).toEqual({ remindersSent: 1, recovered: 1 });
    expect(await countRentalRecovery(db, { accountId: lumberton.accountId, locationIds: [], from: start, to: new Date(start.getTime() + 24 * 60 * MIN) })).toEqual({ remindersSent: 0, recovered: 0 });
    const leads = await listDeskLeads(db, { accountId: lumberton.accountId, scope: { all: true } }, { filter: { page: 1 }, locationIds: [locationId] }, back);
    expect(leads.find((l) => l.email === email)).toMatchObject({ kind: "abandoned_rental", recovered: true, reminderSentAt: at.toISOString(), stepReached: "Came back after the reminder and rented" });

    // The link after the rental: it says so.
    const again = await browser().get(pathOf(mails[0]!.text, "back"));
    expect(again.status).toBe(200);
    expect(again.body).toContain("This rental is complete");
  });

  it("the text waits for the texting hours; none outside them", async () => {
    const { db } = handle;
    // 21:30 in Lumberton: the reminder is due at 22:31, outside the hours.
    const start = new Date("2026-11-23T02:30:00Z");
    const { email } = await renterStops(start);
    const late = await sendRentalRecoveryReminders(db, new Date(start.getTime() + 61 * MIN));
    expect(late).toEqual({ emails: 1, texts: 0 });
    expect(await mailsTo(email)).toHaveLength(1);
    // 8:05 the next morning: the text goes.
    expect(await sendRentalRecoveryReminders(db, new Date("2026-11-23T13:05:00Z"))).toEqual({ emails: 0, texts: 1 });
    expect(await sendRentalRecoveryReminders(db, new Date("2026-11-23T13:10:00Z"))).toEqual({ emails: 0, texts: 0 });
  });

  it("the delay is the operator's; off sends nothing", async () => {
    const { db } = handle;
    await db.update(locations).set({ globalSettings: { rental_recovery_delay_minutes: 180 } }).where(eq(locations.id, locationId));
    const start = new Date("2026-11-24T15:00:00Z");
    const { email } = await renterStops(start);
    expect((await sendRentalRecoveryReminders(db, new Date(start.getTime() + 179 * MIN))).emails).toBe(0);
    expect((await sendRentalRecoveryReminders(db, new Date(start.getTime() + 181 * MIN))).emails).toBe(1);
    expect(await mailsTo(email)).toHaveLength(1);

    await db.update(locations).set({ globalSettings: { is_rental_recovery_enabled: false } }).where(eq(locations.id, locationId));
    const quiet = await renterStops(new Date("2026-11-25T15:00:00Z"));
    expect((await sendRentalRecoveryReminders(db, new Date("2026-11-25T18:00:00Z"))).emails).toBe(0);
    expect(await mailsTo(quiet.email)).toHaveLength(0);
  });

  it("the unsubscribe link works in one GET (no JavaScript, no form): no reminder to that address again", async () => {
    const { db } = handle;
    const start = new Date("2026-11-26T15:00:00Z");
    const { email } = await renterStops(start);
    await sendRentalRecoveryReminders(db, new Date(start.getTime() + 61 * MIN));
    const [mail] = await mailsTo(email);
    const out = await browser().get(pathOf(mail!.text, "unsubscribe"));
    expect(out.status).toBe(200);
    expect(out.body).toContain("You are unsubscribed");
    // Again: the same page, nothing more.
    expect((await browser().get(pathOf(mail!.text, "unsubscribe"))).status).toBe(200);
    expect((await browser().get("/rent/unsubscribe/not-a-token")).status).toBe(404);

    // The same address (in capitals) stops at another rental: no reminder.
    const second = await renterStops(new Date("2026-11-27T15:00:00Z"), email.toUpperCase());
    expect((await sendRentalRecoveryReminders(db, new Date("2026-11-27T17:00:00Z"))).emails).toBe(0);
    expect(await mailsTo(second.email)).toHaveLength(0);
    expect(await mailsTo(email)).toHaveLength(1);
  });

  it("no unit of the type free any more: the link says the size is sold out", async () => {
    const { db } = handle;
    const start = new Date("2026-11-28T15:00:00Z");
    const { email, rental } = await renterStops(start);
    await sendRentalRecoveryReminders(db, new Date(start.getTime() + 61 * MIN));
    const [mail] = await mailsTo(email);
    pinClockForTests(new Date(start.getTime() + 90 * MIN));
    await leaveAvailable(db, unitTypeId, 0);
    const followed = await browser().get(pathOf(mail!.text, "back"));
    expect(followed.status).toBe(200);
    expect(followed.body).toContain("That unit size is sold out");
    expect(followed.body.replace(/<!-- -->/g, "")).toMatch(/every [^<]* unit at Lumberton has been rented since you started/);
    expect((await db.query.rentals.findFirst({ where: eq(rentals.id, rental.id) }))!.resumedAt).toBeNull();
    expect((await browser().get("/rent/back/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).status).toBe(404);
  });
});
