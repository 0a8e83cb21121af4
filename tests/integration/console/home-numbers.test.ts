/**
 * The console home's numbers (issue 39, decision 514), over real HTTP: a known set of rentals,
 * reservations, leads, payments and move-outs at two locations; the home page read as the owner and
 * as a manager scoped to location A. Each number is a link, and following it opens a list showing
 * exactly that many rows; the known numbers are what was seeded; the scoped manager's numbers leave
 * location B out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq, ne, sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, contactMessages, emailOutbox, leases, locations, paymentDifferences, payments, rentals, reservations, sitelinkWrites, unitTypes, units } from "~/db/schema";
import { submitContactMessage } from "~/services/site/contact.server";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { accountStorage, portalLocations, type PortalContext } from "~/services/portal/context.server";
import { payLease } from "~/services/portal/payments.server";
import { getRental } from "~/services/rental/record.server";
import { reserveUnit } from "~/services/rental/reservation.server";
import { storageFor } from "~/storage-software/index.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { card, ctxFor, lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

const DECLINED_CARD = "4000000000009995";
/** Two hours after the rentals were started (noon in Lumberton): the unpaid ones are abandoned. */
const LATER = new Date(NOW.getTime() + 2 * 60 * 60 * 1000);
const TODAY = "2026-11-22";

let handle: DatabaseHandle;
let app: AppServer;
let locA: number;
let locB: number;
let nameB: string;
let owner: TestStaffMember;
let managerA: TestStaffMember;

beforeAll(async () => {
  process.env.FAKE_NOW = LATER.toISOString();
  handle = await createTestDatabase();
  const { db } = handle;
  await db.update(accounts).set({ globalSettings: sql`${accounts.globalSettings} || '{"is_reservations_enabled": true}'::jsonb` });
  const a = await lumbertonUnitType(db);
  locA = a.locationId;
  const accountId = (await db.query.locations.findFirst({ where: eq(locations.id, locA) }))!.accountId;
  const [b] = await db
    .select({ id: locations.id, name: locations.name })
    .from(locations)
    .innerJoin(unitTypes, eq(unitTypes.locationId, locations.id))
    .innerJoin(units, eq(units.unitTypeId, unitTypes.id))
    .where(and(ne(locations.id, locA), eq(units.status, "available"), ne(unitTypes.category, "parking")))
    .orderBy(asc(locations.id))
    .limit(1);
  locB = b!.id;
  nameB = b!.name;
  // Both in Lumberton's zone, so the owner also gets the all-locations numbers.
  await db.update(locations).set({ timeZone: sql`'{"timeZoneId": "America/New_York"}'::jsonb` }).where(eq(locations.accountId, accountId));

  // At A: a rental paid online (a new rental, an approved payment) and one declined (a declined
  // payment; unpaid two hours on, an abandoned rental).
  const paid = await signedRental(db, a.unitTypeId);
  await placeMoveIn(db, await ctxFor(db, a.unitTypeId), (await getRental(db, paid.id, a.unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: "http://x" });
  const declined = await signedRental(db, a.unitTypeId);
  const refused = await placeMoveIn(db, await ctxFor(db, a.unitTypeId), (await getRental(db, declined.id, a.unitTypeId))!, { payment: { kind: "card", card: card(DECLINED_CARD) }, autopay: false, now: NOW, origin: "http://x" });
  expect(refused.status).toBe("declined");
  // At A: a reservation made today for a move-in tomorrow (a new reservation, a move-in due).
  await reserveUnit(db, await ctxFor(db, a.unitTypeId), {
    form: { first_name: "Grace", last_name: "Hopper", email: `grace.${Date.now()}@example.com`, phone: "(910) 555-0199", desired_move_in_date: "2026-11-23" },
    idempotencyKey: "home-res-1",
    now: NOW,
    origin: "http://x",
  });
  // Leads: a contact message at A, a "notify me" at B, one for no location (the owner's only).
  await submitContactMessage(db, { accountId, kind: "contact", locationId: locA, locationName: "A", name: "Carl Contact", email: "carl@example.com", phone: "9105550111", message: "Do you have 10x10s?", officeEmail: null });
  await submitContactMessage(db, { accountId, kind: "notify", locationId: locB, locationName: "B", name: "Nora Notify", email: "nora@example.com", phone: "9105550122", message: "", officeEmail: null });
  await submitContactMessage(db, { accountId, kind: "contact", locationId: null, locationName: null, name: "Una Nowhere", email: "una@example.com", phone: "9105550133", message: "Hello", officeEmail: null });
  // Tenants: at A one moving out in three days and one in a month; at B one moving out in two days.
  // Portal payments: one declined at A, one approved at B.
  const locs = await portalLocations(db, accountId);
  const ctx = { db, now: NOW, locations: locs, siteName: "Gatehouse", accountId } as PortalContext;
  const tA = await createTenantWithLease(db, { email: `ta.${Date.now()}@example.com`, password: "secret1", now: NOW, moveInDate: "2026-10-01", locationId: locA });
  const tA2 = await createTenantWithLease(db, { email: `ta2.${Date.now()}@example.com`, password: "secret1", now: NOW, moveInDate: "2026-10-01", locationId: locA });
  const tB = await createTenantWithLease(db, { email: `tb.${Date.now()}@example.com`, password: "secret1", now: NOW, moveInDate: "2026-10-01", locationId: locB });
  await db.update(leases).set({ moveOutDate: "2026-11-25" }).where(eq(leases.id, tA.leaseId));
  await db.update(leases).set({ moveOutDate: "2026-12-22" }).where(eq(leases.id, tA2.leaseId));
  await db.update(leases).set({ moveOutDate: "2026-11-24" }).where(eq(leases.id, tB.leaseId));
  const base = { origin: "http://localhost", phone: "9105550134", ip: "203.0.113.50", prepayMonths: 3 };
  const cardOf = (number: string) => ({ number, expMonth: 12, expYear: 2030, cvv: "987", nameOnCard: "Pat Tenant", postalCode: "28358" });
  const storageA = accountStorage(db, locs).storage;
  expect((await payLease(ctx, storageA, { ...base, tenantId: String(tA.tenantId), leaseId: String(tA.leaseId), amount: 999, method: { kind: "card", card: cardOf(DECLINED_CARD), saveCard: false }, idempotencyKey: "home-pay-no-abcdefghij" })).ok).toBe(false);
  expect(
    (await payLease(ctx, storageFor(db, locs.find((l) => l.id === locB)!), { ...base, tenantId: String(tB.tenantId), leaseId: String(tB.leaseId), amount: 4321, method: { kind: "card", card: cardOf("4242424242424242"), saveCard: false }, idempotencyKey: "home-pay-b-abcdefghij" })).ok,
  ).toBe(true);
  // Everything above happened this morning (rows the database stamped itself get the test's time).
  await db.update(rentals).set({ createdAt: NOW });
  await db.update(reservations).set({ createdAt: NOW });
  await db.update(contactMessages).set({ createdAt: NOW });
  await db.update(payments).set({ createdAt: NOW });
  await db.execute(sql`update leases set created_at = ${NOW.toISOString()}::timestamptz where created_at > ${LATER.toISOString()}::timestamptz`);

  // Needs attention: SiteLink writes with no answer, two at A and one at B; a payment difference at
  // each location.
  await db.insert(sitelinkWrites).values(
    [locA, locA, locB].map((locationId, i) => ({
      idempotencyKey: `home:${i}`,
      locationId,
      operation: "PaymentSimpleCheckWithSource",
      state: "unknown" as const,
      externalIds: { ledgerId: "77", amount: "2500" },
      startedAt: NOW,
      finishedAt: NOW,
      lastError: "no answer",
    })),
  );
  await db.insert(paymentDifferences).values([locA, locB].map((locationId, i) => ({ accountId, locationId, day: "2026-11-21", kind: "not_recorded" as const, reference: `ch_home_${i}`, processorAmount: 2500, detail: "Taken by the processor, not recorded here." })));
  // Mail that could not be sent (decision 645): given up or refused, two at A and one at B, one about
  // no location (an owner's only); mail sent, or still waiting its first try, is not counted.
  await db.delete(emailOutbox);
  await db.insert(emailOutbox).values([
    { to: "a1@example.com", subject: "Your storage bill is due", text: "x", locationId: locA, failedAt: NOW, attempts: 9, error: "550 mailbox unavailable" },
    { to: "a2@example.com", subject: "Pay your storage bill", text: "x", locationId: locA, attempts: 2, error: "421 try again later" },
    { to: "a3@example.com", subject: "Sent fine", text: "x", locationId: locA, attempts: 1, sentAt: NOW },
    { to: "a4@example.com", subject: "Waiting", text: "x", locationId: locA, attempts: 0 },
    { to: "b1@example.com", subject: "Your rental", text: "x", locationId: locB, failedAt: NOW, attempts: 9, error: "550 no such user" },
    { to: "staff@example.com", subject: "Reset your password", text: "x", locationId: null, failedAt: NOW, attempts: 9, error: "550 no such user" },
  ]);
  owner = await signedInStaffMember(db, { accountId, role: "owner", name: "Olive Owner" });
  managerA = await signedInStaffMember(db, { accountId, role: "manager", locationIds: [locA], name: "Manny Manager" });
  app = await startAppServer(db);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await handle?.close();
  delete process.env.FAKE_NOW;
});

async function page(path: string, member: TestStaffMember): Promise<string> {
  const res = await fetch(app.origin + path, { redirect: "manual", headers: { Cookie: member.cookie } });
  expect(res.status, path).toBe(200);
  return res.text();
}

const unescape = (s: string) => s.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#x27;/g, "'");

interface Shown {
  section: string;
  key: string;
  href: string;
  count: number;
}

/** The home's numbers, per section (its heading) and key, with their links. */
function numbersOf(html: string): Shown[] {
  const out: Shown[] = [];
  const sections = html.split(/<section aria-labelledby="home-numbers-/).slice(1);
  for (const s of sections) {
    const id = /^([^"]+)"/.exec(s)![1]!;
    for (const m of s.matchAll(/<a href="([^"]+)" data-number="([^"]+)"><span class="home-number__count">(\d+)<\/span>/g)) {
      out.push({ section: id, key: m[2]!, href: unescape(m[1]!), count: Number(m[3]) });
    }
  }
  return out;
}

/** The row count a list page states ("3 results"). */
function listCount(html: string): number {
  const m = /class="desk-list__count"[^>]*>(\d+) results?/.exec(html);
  expect(m, "the list states its count").not.toBeNull();
  return Number(m![1]);
}

/** The open payment differences the home counts, and the rows of its list on the same page. */
function differencesOf(html: string) {
  const count = Number(/data-number="differences"><strong>(\d+)<\/strong>/.exec(html)?.[1] ?? "0");
  const list = /<section aria-labelledby="home-differences"[\s\S]*?<\/section>/.exec(html)?.[0] ?? "";
  return { count, rows: (list.match(/<li>/g) ?? []).length };
}

const byKey = (shown: Shown[], section: string) => Object.fromEntries(shown.filter((s) => s.section === section).map((s) => [s.key, s.count]));

describe("the console home's numbers", () => {
  it("for the owner: every location, each number a link to a list of exactly that many rows", async () => {
    const html = await page("/admin", owner);
    expect(html).toContain("<h2 id=\"home-today\">Today</h2>");
    const shown = numbersOf(html);
    const every = (await handle.db.select({ id: locations.id }).from(locations).where(eq(locations.accountId, owner.signedIn.accountId))).map((l) => String(l.id));
    expect(new Set(shown.map((s) => s.section))).toEqual(new Set(["all", ...every]));
    for (const n of shown) {
      expect(n.href, n.key).toMatch(/^\/admin\//);
      expect(listCount(await page(n.href, owner)), `${n.section} ${n.key} → ${n.href}`).toBe(n.count);
    }
    const a = byKey(shown, String(locA));
    // Rentals: the one paid online and the two tenants' (made through the rental's records); payments:
    // the move-in's and the two declines (the move-in's and the portal's); leads: the message and the
    // abandoned rental.
    expect(a).toEqual({ rentals: 3, reservations: 1, leads: 2, abandoned: 1, "move-ins": 1, "move-outs": 1, payments: 3, declines: 2, journal: 2, "unsent-mail": 2 });
    const b = byKey(shown, String(locB));
    expect(b).toEqual({ rentals: 1, reservations: 0, leads: 1, abandoned: 0, "move-ins": 0, "move-outs": 1, payments: 1, declines: 0, journal: 1, "unsent-mail": 1 });
    // All together: A and B, and the message for no location.
    const all = byKey(shown, "all");
    expect(all).toEqual({ rentals: 4, reservations: 1, leads: 4, abandoned: 1, "move-ins": 1, "move-outs": 2, payments: 4, declines: 2, journal: 3, "unsent-mail": 4 });
    // Needs attention: the SiteLink writes per location and together; the differences, listed here.
    expect(shown.filter((n) => n.key === "journal").map((n) => [n.section, n.count])).toEqual(
      expect.arrayContaining([
        ["all", 3],
        [String(locA), 2],
        [String(locB), 1],
      ]),
    );
    expect(differencesOf(html)).toEqual({ count: 2, rows: 2 });
    // Mail that could not be sent, per location, each linked to its list (decision 645).
    expect(shown.find((s) => s.section === String(locA) && s.key === "unsent-mail")!.href).toBe(`/admin/unsent-mail?location=${locA}`);
    const unsentA = await page(`/admin/unsent-mail?location=${locA}`, owner);
    expect(unsentA).toContain("a1@example.com");
    expect(unsentA).toContain("a2@example.com");
    expect(unsentA).not.toContain("a3@example.com");
    expect(unsentA).not.toContain("a4@example.com");
    // Abandoned-rental recovery over the last 7 days (issue 40, decision 519): each section's line
    // links to the leads list whose own summary states the same two numbers.
    const recovery = [...html.replaceAll("<!-- -->", "").matchAll(/<a href="([^"]+)" data-recovery="">Abandoned-rental reminders in the last 7 days: (\d+) sent, (\d+) came back and rented\.<\/a>/g)];
    expect(recovery.length).toBe(new Set(shown.map((s) => s.section)).size);
    for (const [, href, sent, recovered] of recovery) {
      const list = (await page(unescape(href!), owner)).replaceAll("<!-- -->", "");
      expect(list).toContain(`Abandoned rentals sent a reminder: ${sent}. Came back and rented: ${recovered}.`);
    }
    // Dated in the location's calendar, and links filtered to it.
    expect(shown.find((s) => s.section === String(locA) && s.key === "rentals")!.href).toBe(`/admin/rentals?location=${locA}&from=${TODAY}&to=${TODAY}`);
    expect(shown.find((s) => s.section === String(locA) && s.key === "move-outs")!.href).toBe(`/admin/tenants?location=${locA}&due_to=2026-11-29`);
    // Payments show their net beside the count; occupancy is read from the storage software.
    expect(html).toContain("net $43.21");
    expect(html).toMatch(/Occupancy: \d+% \(\d+ of \d+ units rented, reserved or out of service; \d+ available to rent\), live\./);
  });

  it("for a manager of A: only A's numbers, every one equal to its list", async () => {
    const html = await page("/admin", managerA);
    const shown = numbersOf(html);
    expect(new Set(shown.map((s) => s.section))).toEqual(new Set([String(locA)]));
    expect(html).not.toContain(nameB);
    for (const n of shown) expect(listCount(await page(n.href, managerA)), `${n.key} → ${n.href}`).toBe(n.count);
    expect(byKey(shown, String(locA))).toEqual({ rentals: 3, reservations: 1, leads: 2, abandoned: 1, "move-ins": 1, "move-outs": 1, payments: 3, declines: 2, journal: 2, "unsent-mail": 2 });
    expect(differencesOf(html)).toEqual({ count: 1, rows: 1 });
    // Nor the mail of B or about no location.
    const unsent = await page("/admin/unsent-mail", managerA);
    expect(listCount(unsent)).toBe(2);
    expect(unsent).not.toContain("staff@example.com");
    expect((await fetch(`${app.origin}/admin/unsent-mail?location=${locB}`, { headers: { Cookie: managerA.cookie } })).status).toBe(400);
    // B's rows are not in the manager's lists either, even asked for by hand.
    expect(listCount(await page(`/admin/tenants?due_to=2026-11-29`, managerA))).toBe(1);
    expect(listCount(await page(`/admin/leads?from=${TODAY}&to=${TODAY}`, managerA))).toBe(2);
  });

  it("the new filters refuse a bad value beside the field and keep the rest", async () => {
    const res = await fetch(`${app.origin}/admin/leads?kind=nonsense&from=${TODAY}&to=${TODAY}`, { headers: { Cookie: owner.cookie } });
    const html = await res.text();
    expect(html).toContain("Choose a kind from the list.");
    const res2 = await fetch(`${app.origin}/admin/reservations?due_from=2026-11-30&due_to=2026-11-01`, { headers: { Cookie: owner.cookie } });
    expect(await res2.text()).toContain("The end date must not be before the start date.");
  });
  it("when the locations' dates differ, no combined today: each location's numbers on its own date", async () => {
    // B on Kiritimati time (UTC+14): already tomorrow there.
    await handle.db.update(locations).set({ timeZone: sql`'{"timeZoneId": "Pacific/Kiritimati"}'::jsonb` }).where(eq(locations.id, locB));
    const html = await page("/admin", owner);
    const shown = numbersOf(html);
    expect(shown.some((n) => n.section === "all")).toBe(false);
    expect(shown.find((n) => n.section === String(locB) && n.key === "rentals")!.href).toBe(`/admin/rentals?location=${locB}&from=2026-11-23&to=2026-11-23`);
    for (const n of shown.filter((x) => x.section === String(locA) || x.section === String(locB))) {
      expect(listCount(await page(n.href, owner)), `${n.section} ${n.key} → ${n.href}`).toBe(n.count);
    }
    // The "notify me" at B came in at 15:00 UTC: 05:00 on the 23rd in B's calendar, so still today there.
    expect(byKey(shown, String(locB)).leads).toBe(1);
    expect(byKey(shown, String(locA)).leads).toBe(2);
  });
});
