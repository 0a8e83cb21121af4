/**
 * Fuzz test of every form action (issue 8; docs/fuzzing.md). fast-check generates submissions from
 * a valid form by replacing, dropping, repeating or corrupting fields (control and direction
 * characters, NUL, lone surrogates, SQL and HTML, very long text) and calls each route action
 * in-process, the way React Router does. Every answer must be below 500 (nothing thrown), and the
 * database must still keep its rules: no unit held without an open rental, no stored text with
 * control characters.
 *
 * FUZZ_RUNS submissions per action (default 200, each action capped at FUZZ_TIME_LIMIT_MS in the
 * suite); `npm run fuzz` runs 10,000 per action with no time cap and prints the answers' statuses.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, rentals, contactMessages, locations, tenants, units } from "~/db/schema";
import { storageFor } from "~/storage-software/index.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { createTenantSession } from "~/services/web/session.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { sweepExpiredReservations } from "~/services/rental/reservation.server";
import { action as rentAction } from "~/routes/rental/rent";
import { action as reserveAction } from "~/routes/rental/reserve";
import { action as contactAction } from "~/routes/site/contact";
import { action as locationAction } from "~/routes/site/location";
import { action as loginAction } from "~/routes/portal/login";
import { action as forgotAction } from "~/routes/portal/forgot-password";
import { action as resetAction } from "~/routes/portal/reset-password";
import { action as createSignInAction } from "~/routes/portal/create-sign-in";
import { action as payAction } from "~/routes/portal/pay";
import { action as prepayAction } from "~/routes/portal/prepay";
import { action as autopayAction } from "~/routes/portal/autopay";
import { action as moveOutAction } from "~/routes/portal/move-out";
import { action as profileAction } from "~/routes/portal/profile";
import { CONTROL_CHARS, LINE_CONTROL_CHARS } from "~/domain/shared/text-rules";
import { createTestDatabase } from "../support/db";
import { callRoute } from "../support/route-helpers";
import { lumbertonUnitType, NOW } from "../support/rental-fixtures";

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
/**
 * A safety net, not the usual stop: in the suite each action stops at RUNS submissions (200, about
 * 2–5 s each with bcrypt at the test cost; the seed is new each run, so runs add up) or this many milliseconds, whichever comes first, so a
 * badly overloaded machine cannot stretch the file past a few minutes; `npm run fuzz` sets no limit.
 */
const TIME_LIMIT_MS = process.env.FUZZ_TIME_LIMIT_MS === "0" ? undefined : Number(process.env.FUZZ_TIME_LIMIT_MS ?? 15_000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

let handle: DatabaseHandle;
let csrf: { token: string; cookie: string };
/**
 * One signed-in tenant per portal form, so one form's declined cards (the card-attempt lock) or
 * changes (a new e-mail) do not decide what the next form answers. Its CSRF token is bound to its
 * session (decision 077), not the anonymous cookie's.
 */
interface PortalTenant {
  email: string;
  tenantId: string;
  leaseId: string;
  session: string;
  csrf: string;
}
const PORTAL_FORMS = ["pay", "prepay", "autopay", "move-out", "profile"] as const;
type PortalForm = (typeof PORTAL_FORMS)[number];
const portal = {} as Record<PortalForm, PortalTenant>;
/** The total of paying one month ahead (the prepay form sends the total it showed). */
let prepayTotal = 0;
let unitTypeId = "";

beforeAll(async () => {
  // bcrypt at cost 4 (test-only, app/platform/password.server.ts): the rental step and the portal's
  // sign-in hash or compare a password on most valid submissions, ~70 ms each at the production cost.
  vi.stubEnv("BCRYPT_ROUNDS", "4");
  handle = await createTestDatabase();
  const { token, setCookie } = await getCsrfToken(new Request("http://localhost/"));
  csrf = { token, cookie: setCookie!.split(";")[0]! };
  await handle.db.update(accounts).set({ globalSettings: sql`${accounts.globalSettings} || '{"is_reservations_enabled": true}'::jsonb` });
  await createTenantWithLease(handle.db, { email: "fuzz.tenant@example.com", password: "secret1", now: NOW, moveInDate: "2026-11-01", withInsurance: false });
  for (const form of PORTAL_FORMS) {
    const email = `fuzz.${form}@example.com`;
    const t = await createTenantWithLease(handle.db, { email, password: "secret1", now: NOW, moveInDate: "2026-11-01", withInsurance: false });
    portal[form] = { email, tenantId: String(t.tenantId), leaseId: String(t.leaseId), session: "", csrf: "" };
  }
  await refreshPrepayTotal();
  unitTypeId = (await lumbertonUnitType(handle.db)).unitTypeId;
}, 120_000);
afterAll(async () => {
  vi.unstubAllEnvs();
  await handle?.close();
});

/** Characters and strings that have broken form handlers somewhere. */
const NASTY = [
  "\u0000", "\u0001", "\u0007", "\b", "\t", "\n", "\r", "\u000B", "\u001B", "\u007F", "\u0085", "\u009F",
  "\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067", "\u2068", "\u2069", "\u200B", "\u200F", "\uFEFF", "\u2028",
  "\uD800", "\uDFFF", "💥", "é", "%00", "%", "\\", "/", "../", "'", "\"", "<script>alert(1)</script>", "'; drop table tenants; --",
  "${7*7}", "{{7*7}}", "NaN", "-1", "1e309", "0x10", " ", "",
];

/** A value for one field: the valid one, corrupted, replaced by junk, empty, long, repeated or missing. */
function fieldValue(valid: string): fc.Arbitrary<string | string[] | undefined> {
  const nasty = fc.constantFrom(...NASTY);
  const inject = fc.tuple(nasty, fc.nat()).map(([n, at]) => {
    const i = valid.length ? at % (valid.length + 1) : 0;
    return valid.slice(0, i) + n + valid.slice(i);
  });
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(valid) },
    { weight: 3, arbitrary: inject },
    { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
    { weight: 1, arbitrary: nasty },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 6000 }).map((n) => valid.padEnd(n, "x")) },
    { weight: 1, arbitrary: fc.tuple(fc.constant(valid), fc.string({ maxLength: 10 })).map(([a, b]) => [a, b]) },
  );
}

/**
 * A submission built from a valid form: usually one to three fields fuzzed and the rest valid (so
 * deep paths such as charging a card are reached), sometimes every field; now and then an extra
 * unknown field.
 */
function submission(valid: Record<string, string>): fc.Arbitrary<Array<[string, string]>> {
  const keys = Object.keys(valid);
  const fuzzed = fc.oneof(
    { weight: 3, arbitrary: fc.subarray(keys, { minLength: 1, maxLength: Math.min(3, keys.length) }) },
    { weight: 1, arbitrary: fc.constant(keys) },
  );
  return fuzzed
    .chain((chosen) =>
      fc.tuple(
        fc.record(Object.fromEntries(chosen.map((k) => [k, fieldValue(valid[k]!)]))) as fc.Arbitrary<Record<string, string | string[] | undefined>>,
        fc.option(fc.tuple(fc.string({ maxLength: 12 }), fc.string({ unit: "binary", maxLength: 20 })), { freq: 8 }),
      ),
    )
    .map(([changed, extra]) => {
      const pairs: Array<[string, string]> = [];
      for (const k of keys) {
        const v = k in changed ? changed[k] : valid[k];
        if (v === undefined) continue;
        for (const one of Array.isArray(v) ? v : [v]) pairs.push([k, one]);
      }
      if (extra) pairs.push(extra);
      return pairs;
    });
}

interface Target {
  name: string;
  action: (args: never) => unknown;
  path: () => string;
  params?: () => Record<string, string>;
  /** The portal form whose tenant is signed in. */
  signedIn?: PortalForm;
  /** A submission that succeeds as it is (the fuzz corrupts fields of it); its password must not be a common one. */
  valid: () => Record<string, string>;
  /** Before and after this action's run (e.g. a settings flag it needs). */
  setUp?: () => Promise<void>;
  tearDown?: () => Promise<void>;
  /** After a successful submission: put back what it used up (so later runs do not all hit "sold out"). */
  afterSuccess?: () => Promise<void>;
}

/** Abandons the open rentals and lets go of their holds, the way a visitor's cancel does. */
async function releaseOpenRentals() {
  const open = (await handle.db.select({ id: rentals.id }).from(rentals).where(eq(rentals.status, "open"))).map((c) => c.id);
  if (open.length === 0) return;
  await handle.db.update(units).set({ holdToken: null, heldUntil: null }).where(inArray(units.holdToken, open));
  await handle.db.update(rentals).set({ status: "abandoned", unitId: null, webPwHash: null }).where(inArray(rentals.id, open));
}

const card = { payment_method: "new", card_number: "4242 4242 4242 4242", exp_month: "12", exp_year: "2030", cvv: "123", name_on_card: "Pat Tenant", billing_postal_code: "28358" };
let k = 0;

async function refreshPrepayTotal() {
  const t = await handle.db.query.tenants.findFirst({ where: eq(tenants.email, portal.prepay.email) });
  const location = await handle.db.query.locations.findFirst({ where: eq(locations.status, "Live") });
  const offer = await storageFor(handle.db, location!).quotePrepay(String(t!.id), portal.prepay.leaseId, 1);
  prepayTotal = offer?.total ?? 0;
}
const key = () => `fuzzkey${String(++k).padStart(12, "0")}`;

const TARGETS: Target[] = [
  {
    name: "rental details step (and the later steps)",
    action: rentAction,
    path: () => `/rent/${unitTypeId}`,
    params: () => ({ unitTypeId }),
    valid: () => ({
      intent: "details", first_name: "Ada", last_name: "Lovelace", email: `ada${++k}@example.com`, cell_phone: "(910) 555-0134",
      web_pw: "Tidy-Unit-42", confirm_web_pw: "Tidy-Unit-42", addr_1: "1 Main St", addr_2: "Apt 2", city: "Lumberton", region: "NC", postal_code: "28358",
      is_military: "on", alt_contact_first_name: "Bo", alt_contact_last_name: "Lee", alt_contact_phone: "9105550199",
    }),
    afterSuccess: releaseOpenRentals,
  },
  {
    name: "reservation",
    action: reserveAction,
    path: () => `/reserve/${unitTypeId}`,
    params: () => ({ unitTypeId }),
    valid: () => ({ idempotency_key: key(), first_name: "Ada", last_name: "Lovelace", email: "ada@example.com", phone: "910-555-0134", desired_move_in_date: new Date().toISOString().slice(0, 10) }),
    // Expire the reservations made so far (as the sweep does after reservation_days_valid), freeing their units.
    afterSuccess: async () => void (await sweepExpiredReservations(handle.db, new Date("2100-01-01T00:00:00Z"))),
  },
  {
    // Reservation short form flag off: the account-creation form, which creates a tenant (decision 135).
    name: "reservation (full form)",
    action: reserveAction,
    path: () => `/reserve/${unitTypeId}`,
    params: () => ({ unitTypeId }),
    valid: () => ({
      idempotency_key: key(), first_name: "Ada", last_name: "Lovelace", email: `ada.res${++k}@example.com`, cell_phone: "(910) 555-0134",
      web_pw: "Tidy-Unit-42", confirm_web_pw: "Tidy-Unit-42", addr_1: "1 Main St", addr_2: "Apt 2", city: "Lumberton", region: "NC", postal_code: "28358",
      is_company: "on", alt_contact_first_name: "Bo", alt_contact_last_name: "Lee", alt_contact_phone: "9105550199",
      desired_move_in_date: new Date().toISOString().slice(0, 10),
    }),
    setUp: () => setShortForm(false),
    tearDown: () => setShortForm(true),
    afterSuccess: async () => void (await sweepExpiredReservations(handle.db, new Date("2100-01-01T00:00:00Z"))),
  },
  { name: "contact", action: contactAction, path: () => "/contact", valid: () => ({ name: "Ann Lee", email: "ann@example.com", phone: "910 555 0199", location: "lumberton-nc-28358", message: "Do you have a 10x10?\nThanks" }) },
  {
    name: "notify (coming soon)",
    action: locationAction,
    path: () => "/locations/kinston-nc-28501",
    params: () => ({ slug: "kinston-nc-28501" }),
    valid: () => ({ name: "Bo", email: "bo@example.com", location: "kinston-nc-28501", message: "Tell me" }),
  },
  { name: "sign-in", action: loginAction, path: () => "/customer-portal/login", valid: () => ({ email: "fuzz.tenant@example.com", password: "wrong-password", redirectTo: "/customer-portal/profile" }) },
  { name: "forgot password", action: forgotAction, path: () => "/customer-portal/forgot-password", valid: () => ({ email: "nobody@example.com" }) },
  {
    name: "create sign-in (office tenant)",
    action: createSignInAction,
    path: () => "/customer-portal/create-sign-in",
    valid: () => ({ email: "nobody.office@example.com", office_password: "wrong1", new_password: "secret2", confirm_password: "secret2" }),
  },
  { name: "reset password", action: resetAction, path: () => "/customer-portal/reset-password", valid: () => ({ token: "x".repeat(43), new_password: "secret2", confirm_password: "secret2" }) },
  { name: "portal pay", action: payAction, path: () => `/customer-portal/units/${portal.pay.leaseId}/pay`, params: () => ({ leaseId: portal.pay.leaseId }), signedIn: "pay", valid: () => ({ idempotency_key: key(), amount_choice: "other", other_amount: "1.00", ...card, save_card: "on" }) },
  {
    name: "portal prepay",
    action: prepayAction,
    path: () => `/customer-portal/units/${portal.prepay.leaseId}/prepay`,
    params: () => ({ leaseId: portal.prepay.leaseId }),
    signedIn: "prepay",
    // With the total the page showed, so a valid submission reaches the charge.
    valid: () => ({ idempotency_key: key(), months: "1", expected_total_1: String(prepayTotal), ...card }),
    afterSuccess: refreshPrepayTotal,
  },
  { name: "portal autopay", action: autopayAction, path: () => `/customer-portal/units/${portal.autopay.leaseId}/autopay`, params: () => ({ leaseId: portal.autopay.leaseId }), signedIn: "autopay", valid: () => ({ intent: "enrol", agree_terms: "on", ...card }) },
  { name: "portal move-out", action: moveOutAction, path: () => `/customer-portal/units/${portal["move-out"].leaseId}/move-out`, params: () => ({ leaseId: portal["move-out"].leaseId }), signedIn: "move-out", valid: () => ({ move_out_date: "2027-06-30", reason: "Moving away" }) },
  {
    name: "portal profile",
    action: profileAction,
    path: () => "/customer-portal/profile",
    signedIn: "profile",
    valid: () => ({ intent: "contact", first_name: "Pat", last_name: "Tenant", email: "fuzz.profile@example.com", addr_1: "1 Main St", city: "Lumberton", region: "NC", postal_code: "28358", cell_phone: "9105550134" }),
  },
];

/**
 * Signs the form's tenant in just before its run: a session idles out after an hour (decision 052),
 * and the long `npm run fuzz` reaches the last portal forms more than an hour after it starts.
 */
async function signIn(form: PortalForm) {
  const session = (await createTenantSession(handle.db, { tenantId: portal[form].tenantId, now: new Date() })).split(";")[0]!;
  portal[form].session = session;
  portal[form].csrf = (await getCsrfToken(new Request("http://localhost/", { headers: { Cookie: session } }))).token;
}

async function setShortForm(on: boolean) {
  await handle.db.update(accounts).set({ globalSettings: sql`${accounts.globalSettings} || ${JSON.stringify({ is_reservation_short_form_enabled: on })}::jsonb` });
}

let submissions = 0;
async function submit(target: Target, pairs: Array<[string, string]>): Promise<number> {
  const body = new URLSearchParams(pairs);
  // Usually the right CSRF token; sometimes none or a fuzzed one.
  const signedIn = target.signedIn ? portal[target.signedIn] : null;
  if (!pairs.some(([n]) => n === "csrf")) body.set("csrf", signedIn ? signedIn.csrf : csrf.token);
  const cookie = signedIn ? signedIn.session : csrf.cookie;
  // Each submission from its own address, so the per-IP limits of anonymous forms (which answer 429
  // before the form is read) do not turn most of the run into a test of the limiter.
  const n = ++submissions;
  const r = await callRoute(target.action, handle.db, target.path(), {
    params: target.params?.(),
    clientIp: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
    init: { method: "POST", body, headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } },
  });
  return r.status;
}

/** The rules the stored rows must keep whatever was submitted. */
async function checkStoredRows() {
  const orphanHolds = await handle.db
    .select({ id: units.id, token: units.holdToken })
    .from(units)
    .leftJoin(rentals, and(eq(rentals.id, units.holdToken), eq(rentals.status, "open")))
    .where(and(isNotNull(units.holdToken), sql`${rentals.id} is null`, sql`${units.holdToken} not like 'res:%'`));
  expect(orphanHolds, "units held without an open rental").toEqual([]);
  const tenantRows = await handle.db.select().from(tenants);
  for (const t of tenantRows) {
    // Every account made by a form can sign in: a bcrypt hash, never the password itself.
    expect(t.webPwHash ?? "", `tenant ${t.id}'s password hash`).toMatch(/^\$2[aby]\$\d\d\$.{53}$/);
    for (const v of [t.firstName, t.lastName, t.email, t.cellPhone, t.city, t.region, t.postalCode, t.altContactFirstName, t.altContactLastName]) {
      expect(LINE_CONTROL_CHARS.test(v ?? ""), `tenant ${t.id}: ${JSON.stringify(v)}`).toBe(false);
    }
  }
  const openRentals = await handle.db.select({ details: rentals.tenantDetails }).from(rentals);
  for (const c of openRentals) expect(CONTROL_CHARS.test(JSON.stringify(c.details ?? {}).replace(/\\[nrt]/g, "")), "rental details").toBe(false);
  const messages = await handle.db.select({ name: contactMessages.name, message: contactMessages.message }).from(contactMessages);
  for (const m of messages) {
    expect(LINE_CONTROL_CHARS.test(m.name), `contact name ${JSON.stringify(m.name)}`).toBe(false);
    expect(CONTROL_CHARS.test(m.message ?? ""), "contact message").toBe(false);
  }
}

/**
 * In `npm test` the file runs once: on PostgreSQL (the production database) when the PostgreSQL
 * project runs too, else on PGlite. The RUNS submissions per action are the same either way, and
 * running them twice cost about three minutes of the 15-minute budget. FUZZ_RUNS set (`npm run fuzz`)
 * runs wherever it is asked to.
 */
const runsElsewhere = process.env.TEST_DRIVER === "pglite" && Boolean(process.env.TEST_DATABASE_URL) && !process.env.FUZZ_RUNS;

describe.skipIf(runsElsewhere)(`fuzzing every form action (${RUNS} submissions each)`, () => {
  for (const target of TARGETS) {
    it(`${target.name}: never 5xx, never a broken row`, async () => {
      const statuses = new Map<number, number>();
      let runs = 0;
      const started = Date.now();
      const deadline = TIME_LIMIT_MS ? Date.now() + TIME_LIMIT_MS : null;
      const numRuns = RUNS;
      if (target.signedIn) await signIn(target.signedIn);
      await target.setUp?.();
      await fc.assert(
        fc.asyncProperty(fc.constant(null).chain(() => submission(target.valid())), async (pairs) => {
          // The time budget is checked before a submission starts, never during one (fast-check's
          // interruptAfterTimeLimit would abandon a submission half-way and leave it running).
          if (deadline !== null && Date.now() > deadline) return;
          runs++;
          const status = await submit(target, pairs);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          expect(status, JSON.stringify(pairs)).toBeLessThan(500);
          if (status === 303 && target.afterSuccess) {
            await checkStoredRows();
            await target.afterSuccess();
          }
        }),
        { numRuns, seed: SEED, endOnFailure: true },
      ).finally(() => target.tearDown?.());
      await checkStoredRows();
      // The submissions reached the action: not all refused at the CSRF check.
      expect(statuses.get(403) ?? 0, "every submission refused (403)").toBeLessThan(runs);
      // A time-limited run must still have tried a fair number of submissions.
      expect(runs).toBeGreaterThanOrEqual(Math.min(numRuns, 5));
      if (process.env.FUZZ_REPORT) console.log(`FUZZ ${target.name}: ${runs} runs in ${((Date.now() - started) / 1000).toFixed(1)} s, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);
    }, Math.max(600_000, RUNS * 200));
  }
});
