/**
 * Issue 23's role × route matrix, over real HTTP (tests/integration/app-server.ts): every console
 * route of app/routes.ts and every action on it, tried by each role — owner, manager, front desk and
 * read-only (the last three at location A) — and by nobody signed in:
 * - allowed: 200 (an action: its redirect, or its own form answer), never a 500;
 * - not permitted: the 403 page, naming no record;
 * - a record at location B: 404 as if it did not exist, for everyone but the owner;
 * - not signed in: a redirect to /admin/sign-in before any page runs;
 * - the navigation shows exactly the pages the role may open, and each of its links opens;
 * - pages and actions that need a fresh second factor send a permitted member with a stale one to
 *   /admin/reauth.
 * A console route added to app/routes.ts without a line in EXPECTED fails here: add it to the matrix.
 * Forms carry a valid CSRF token, so a refusal is the role's, not the token's.
 * Decision 275.
 */
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { getWebsite } from "~/db/queries/site.server";
import { locations, sitelinkWrites } from "~/db/schema";
import type { StaffRole } from "~/domain/staff-roles";
import { submitContactMessage } from "~/services/contact.server";
import { createTenantWithLease } from "~/services/portal-demo.server";
import { CSRF_FIELD, getCsrfToken } from "~/services/csrf.server";
import { FORBIDDEN_MESSAGE } from "~/services/staff-context.server";
import { storageFor } from "~/storage-software/index.server";
import { startAppServer, type AppServer } from "./app-server";
import { card } from "./rental-fixtures";
import { createTestDatabase } from "./db";
import { signedInStaffMember, STALE_FACTOR_MS, type TestStaffMember } from "./staff-fixtures";

const ROLES = ["owner", "managerA", "deskA", "readOnlyA"] as const;
type Who = (typeof ROLES)[number];
const ROLE_OF: Record<Who, StaffRole> = { owner: "owner", managerA: "manager", deskA: "front_desk", readOnlyA: "read_only" };

/** Expected answers per role: a status, or "reauth" (303 to /admin/reauth) / a Location prefix for a redirect. */
type Outcome = number | { redirect: string };
type PerRole = Record<Who, Outcome>;
const all = (o: Outcome): PerRole => ({ owner: o, managerA: o, deskA: o, readOnlyA: o });
const ownerOnly = (o: Outcome): PerRole => ({ owner: o, managerA: 403, deskA: 403, readOnlyA: 403 });
const exporters = (o: Outcome): PerRole => ({ owner: o, managerA: o, deskA: 403, readOnlyA: 403 });
const actors = (o: Outcome): PerRole => ({ owner: o, managerA: o, deskA: o, readOnlyA: 403 });

interface Fixture {
  leadA: string;
  leadB: string;
  leadNameB: string;
  tenantA: { tenantId: number; leaseId: number; paymentId: number };
  tenantB: { tenantId: number; leaseId: number; paymentId: number };
  tenantEmailB: string;
  /** SiteLink journal rows needing attention, one per role and location (resolving one settles it). */
  journalKey: (loc: "A" | "B", who: Who | "nobody") => string;
  target: TestStaffMember;
}

interface ActionCase {
  name: string;
  /** The form's path (default: the route's GET path). */
  path?: (f: Fixture) => string;
  form: (f: Fixture, who: Who | "nobody") => Record<string, string>;
  expect: PerRole;
}

interface RouteCase {
  /** The path to GET (records: the one at location A). */
  path: (f: Fixture) => string;
  get: PerRole;
  /** In the navigation for the roles whose GET is 200. */
  nav?: boolean;
  /** Needs a second factor given within the last ten minutes (decision 250). */
  fresh?: boolean;
  /** A record route: the same record kind at location B, and what each role gets for it. */
  outOfScope?: { path: (f: Fixture) => string; get: PerRole; secret: (f: Fixture) => string };
  actions?: ActionCase[];
  /** Actions on the record at location B. */
  outOfScopeActions?: ActionCase[];
}

const B_RECORD: PerRole = { owner: 200, managerA: 404, deskA: 404, readOnlyA: 404 };
const journalActors = (o: Outcome): PerRole => ({ owner: o, managerA: o, deskA: 403, readOnlyA: 403 });

/** Every route under the console's signed-in layout (routes/admin.layout.tsx), by route id. */
const EXPECTED: Record<string, RouteCase> = {
  "routes/admin._index": { path: () => "/admin", get: all(200), nav: true },
  "routes/admin.reauth": {
    path: () => "/admin/reauth?next=%2Fadmin%2Fstaff",
    get: all(200),
    // Anyone signed in may confirm a factor: an empty code is answered beside the field.
    actions: [{ name: "confirm with no code", form: () => ({ code: "", next: "/admin" }), expect: all(400) }],
  },
  "routes/admin.staff": {
    path: () => "/admin/staff",
    get: ownerOnly(200),
    nav: true,
    fresh: true,
    actions: [
      { name: "end a member's sessions", form: (f) => ({ intent: "sessions", staffId: String(f.target.staffId) }), expect: ownerOnly({ redirect: "/admin/staff?done=sessions" }) },
      { name: "change a member's role", form: (f) => ({ intent: "access", staffId: String(f.target.staffId), role: "front_desk", locations: String(f.target.locationIds[0]) }), expect: ownerOnly({ redirect: "/admin/staff?done=access" }) },
      { name: "invite", form: () => ({ intent: "invite", email: `invited-${Date.now()}@office.example`, role: "owner" }), expect: ownerOnly(200) },
    ],
  },
  // Every member's own sign-in page (passkeys): open to all roles, with a fresh second factor.
  "routes/admin.security": {
    path: () => "/admin/security",
    get: all(200),
    nav: true,
    fresh: true,
    actions: [{ name: "remove a passkey that is not theirs", form: () => ({ intent: "remove", passkeyId: "999999" }), expect: all(404) }],
  },
  "routes/admin.audit": { path: () => "/admin/audit", get: ownerOnly(200), nav: true, fresh: true },
  "routes/admin.audit[.]csv": { path: () => "/admin/audit.csv", get: ownerOnly(200), fresh: true },
  "routes/admin.rentals": { path: () => "/admin/rentals", get: all(200), nav: true },
  "routes/admin.rentals[.]csv": { path: () => "/admin/rentals.csv", get: exporters(200), fresh: true },
  "routes/admin.reservations": { path: () => "/admin/reservations", get: all(200), nav: true },
  "routes/admin.reservations[.]csv": { path: () => "/admin/reservations.csv", get: exporters(200), fresh: true },
  "routes/admin.leads": { path: () => "/admin/leads", get: all(200), nav: true },
  "routes/admin.leads[.]csv": { path: () => "/admin/leads.csv", get: exporters(200), fresh: true },
  "routes/admin.lead": {
    path: (f) => `/admin/leads/${f.leadA}`,
    get: all(200),
    outOfScope: { path: (f) => `/admin/leads/${f.leadB}`, get: B_RECORD, secret: (f) => f.leadNameB },
    actions: [{ name: "mark contacted", form: () => ({ note: "Called back, will visit Saturday." }), expect: actors({ redirect: "/admin/leads/" }) }],
    outOfScopeActions: [
      {
        name: "mark contacted (location B)",
        path: (f) => `/admin/leads/${f.leadB}`,
        form: () => ({ note: "Called back." }),
        expect: { owner: { redirect: "/admin/leads/" }, managerA: 404, deskA: 404, readOnlyA: 403 },
      },
    ],
  },
  "routes/admin.payments": { path: () => "/admin/payments", get: all(200), nav: true },
  "routes/admin.payments[.]csv": { path: () => "/admin/payments.csv", get: exporters(200), fresh: true },
  "routes/admin.tenants": { path: () => "/admin/tenants", get: all(200), nav: true },
  "routes/admin.tenants[.]csv": { path: () => "/admin/tenants.csv", get: exporters(200), fresh: true },
  "routes/admin.tenant": {
    path: (f) => `/admin/tenants/${f.tenantA.tenantId}`,
    get: all(200),
    outOfScope: { path: (f) => `/admin/tenants/${f.tenantB.tenantId}`, get: B_RECORD, secret: (f) => f.tenantEmailB },
    actions: [
      { name: "resend the lease e-mail", form: (f) => ({ intent: "resend-lease", leaseId: String(f.tenantA.leaseId) }), expect: actors({ redirect: "/admin/tenants/" }) },
      { name: "send a pay link", form: (f) => ({ intent: "send-pay-link", leaseId: String(f.tenantA.leaseId) }), expect: actors({ redirect: "/admin/tenants/" }) },
      // Refunds: managers and owners (decision 280); the second to try finds it refunded already.
      { name: "refund a payment", form: (f) => ({ intent: "refund-payment", paymentId: String(f.tenantA.paymentId), confirm: "yes" }), expect: exporters({ redirect: "/admin/tenants/" }) },
    ],
    outOfScopeActions: [
      {
        name: "resend the lease e-mail (location B)",
        path: (f) => `/admin/tenants/${f.tenantB.tenantId}`,
        form: (f) => ({ intent: "resend-lease", leaseId: String(f.tenantB.leaseId) }),
        expect: { owner: { redirect: "/admin/tenants/" }, managerA: 404, deskA: 404, readOnlyA: 403 },
      },
      {
        name: "send a pay link (location B)",
        path: (f) => `/admin/tenants/${f.tenantB.tenantId}`,
        form: (f) => ({ intent: "send-pay-link", leaseId: String(f.tenantB.leaseId) }),
        expect: { owner: { redirect: "/admin/tenants/" }, managerA: 404, deskA: 404, readOnlyA: 403 },
      },
      {
        name: "refund a payment (location B)",
        path: (f) => `/admin/tenants/${f.tenantB.tenantId}`,
        form: (f) => ({ intent: "refund-payment", paymentId: String(f.tenantB.paymentId), confirm: "yes" }),
        expect: { owner: { redirect: "/admin/tenants/" }, managerA: 404, deskA: 403, readOnlyA: 403 },
      },
    ],
  },
  "routes/admin.sitelink-journal": {
    path: () => "/admin/sitelink-journal",
    get: all(200),
    nav: true,
    actions: [
      // A payment's row cannot be reconciled from here: the answer says so (200), beside the button.
      { name: "retry", form: (f, who) => ({ intent: "retry", key: f.journalKey("A", who) }), expect: journalActors(200) },
      { name: "mark resolved", form: (f, who) => ({ intent: "resolve", key: f.journalKey("A", who), note: "Checked in SiteLink: posted." }), expect: journalActors({ redirect: "/admin/sitelink-journal?" }) },
    ],
    outOfScopeActions: [
      { name: "retry (location B)", path: () => "/admin/sitelink-journal", form: (f, who) => ({ intent: "retry", key: f.journalKey("B", who) }), expect: { owner: 200, managerA: 404, deskA: 403, readOnlyA: 403 } },
      {
        name: "mark resolved (location B)",
        path: () => "/admin/sitelink-journal",
        form: (f, who) => ({ intent: "resolve", key: f.journalKey("B", who), note: "Checked in SiteLink: posted." }),
        expect: { owner: { redirect: "/admin/sitelink-journal?" }, managerA: 404, deskA: 403, readOnlyA: 403 },
      },
    ],
  },
  "routes/admin.not-found": { path: () => "/admin/no-such-page", get: all(404) },
};

/** The console's pages outside the signed-in layout (signing in, invitations): open to anyone. */
const PUBLIC_CONSOLE_ROUTES: Record<string, { path: string; anonymous: Outcome }> = {
  "routes/admin.sign-in": { path: "/admin/sign-in", anonymous: 200 },
  "routes/admin.sign-in.code": { path: "/admin/sign-in/code", anonymous: { redirect: "/admin/sign-in" } },
  "routes/admin.sign-out": { path: "/admin/sign-out", anonymous: { redirect: "/admin" } },
  "routes/admin.invite": { path: "/admin/invite/not-a-real-token-0123456789abcdef0123456789", anonymous: 410 },
};

const LAYOUT = "routes/admin.layout";
const SHELL = "routes/admin.shell";

let handle: DatabaseHandle;
let app: AppServer;
let accountId: number;
let locA: number;
let locB: number;
let csrf: { cookie: string; token: string };
const members = {} as Record<Who, TestStaffMember>;
const fixture = {} as Fixture;

beforeAll(async () => {
  handle = await createTestDatabase();
  const { db } = handle;
  accountId = (await getWebsite(db))!.accountId;
  [locA, locB] = (await db.select({ id: locations.id }).from(locations).where(eq(locations.accountId, accountId)).orderBy(asc(locations.id)).limit(2)).map((r) => r.id) as [number, number];
  for (const who of ROLES) members[who] = await signedInStaffMember(db, { accountId, role: ROLE_OF[who], locationIds: who === "owner" ? [] : [locA], name: who });
  fixture.target = await signedInStaffMember(db, { accountId, role: "front_desk", locationIds: [locA], name: "target" });
  const a = await submitContactMessage(db, { accountId, kind: "contact", locationId: locA, locationName: "A", name: "Alma Atlocation", email: "alma@example.com", phone: "9105550101", message: "A 10x10?", officeEmail: null });
  fixture.leadNameB = "Boris Beyondscope";
  const b = await submitContactMessage(db, { accountId, kind: "contact", locationId: locB, locationName: "B", name: fixture.leadNameB, email: "boris@example.com", phone: "9105550102", message: "A 5x5?", officeEmail: null });
  const tenant = async (locationId: number, email: string) => {
    const t = await createTenantWithLease(db, { email, password: "Secret-Pass-1", firstName: "Tess", lastName: "Tenant", now: new Date(), locationId });
    // A card payment through the (in-process) test gateway, for the refund lines.
    const loc = (await db.query.locations.findFirst({ where: eq(locations.id, locationId) }))!;
    const paid = await storageFor(db, loc).makePayment({
      tenantId: String(t.tenantId),
      leaseId: String(t.leaseId),
      amount: 2500,
      method: { kind: "card", card: card(), saveCard: false },
      idempotencyKey: `matrix-pay-${locationId}-${process.pid}`,
      now: new Date(),
    });
    return { tenantId: t.tenantId, leaseId: t.leaseId, paymentId: Number(paid.id) };
  };
  fixture.tenantEmailB = `tenant-b.${process.pid}@example.com`;
  fixture.tenantA = await tenant(locA, `tenant-a.${process.pid}@example.com`);
  fixture.tenantB = await tenant(locB, fixture.tenantEmailB);
  fixture.journalKey = (loc, who) => `matrix:${loc}:${who}`;
  const started = new Date(Date.now() - 3_600_000);
  await db.insert(sitelinkWrites).values(
    (["A", "B"] as const).flatMap((loc) =>
      [...ROLES, "nobody"].map((who) => ({
        idempotencyKey: fixture.journalKey(loc, who as Who | "nobody"),
        locationId: loc === "A" ? locA : locB,
        operation: "PaymentSimpleCheckWithSource",
        state: "unknown" as const,
        externalIds: { ledgerId: "77", amount: "2500" },
        startedAt: started,
        finishedAt: started,
        lastError: "no answer",
      })),
    ),
  );
  fixture.leadA = `contact-${idOf(a)}`;
  fixture.leadB = `contact-${idOf(b)}`;
  // The anonymous double-submit CSRF cookie and a token for it (staff forms use it: decision 077).
  const minted = await getCsrfToken(new Request("http://localhost/admin"));
  csrf = { cookie: minted.setCookie!.split(";")[0]!, token: minted.token };
  app = await startAppServer(db);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await handle?.close();
});

function idOf(row: unknown): number {
  const r = row as { id?: number; message?: { id: number } } | undefined;
  const id = r?.id ?? r?.message?.id;
  if (typeof id !== "number") throw new Error(`submitContactMessage returned no id: ${JSON.stringify(row)}`);
  return id;
}

async function get(path: string, member?: TestStaffMember) {
  const res = await fetch(app.origin + path, { redirect: "manual", headers: member ? { Cookie: member.cookie } : {} });
  return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
}

async function post(path: string, fields: Record<string, string>, member?: TestStaffMember) {
  // A member's form carries the token of their own staff session (decision 283); nobody's, the anonymous one.
  const token = member ? (await getCsrfToken(new Request(app.origin + path, { headers: { Cookie: member.cookie } }))).token : csrf.token;
  const body = new URLSearchParams({ [CSRF_FIELD]: token, ...fields });
  const res = await fetch(app.origin + path, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: [csrf.cookie, member?.cookie].filter(Boolean).join("; "), Referer: app.origin + path },
    body,
  });
  return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
}

/** A redirect: 303 after a form (POST); a page's own GET redirect may be 302 or 303. */
function expectOutcome(got: { status: number; location: string | null; body: string }, want: Outcome, what: string) {
  expect(got.status, `${what}: a 500 (${got.body.slice(0, 300)})`).not.toBe(500);
  if (typeof want === "number") {
    expect({ what, status: got.status }).toEqual({ what, status: want });
    // The 403 page (a resource route's: its message) says the role may not, and nothing else.
    if (want === 403) expect(got.body, what).toContain(FORBIDDEN_MESSAGE);
  } else {
    const redirects = what.includes(" POST ") ? [303] : [302, 303];
    expect(redirects, `${what}: ${got.status} is not a redirect`).toContain(got.status);
    expect(got.location, what).toMatch(new RegExp(`^${want.redirect.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  }
}

const consoleRoutes = () => app.routes.filter((r) => r.parents.includes(LAYOUT));

describe("the matrix covers every console route", () => {
  it("every route under the console's layout has its line in EXPECTED (a new one: add it to the matrix)", () => {
    const ids = consoleRoutes().map((r) => r.id);
    expect(ids.length).toBeGreaterThan(5);
    const missing = ids.filter((id) => !(id in EXPECTED));
    expect(missing, `console routes without a line in the access matrix: add them to EXPECTED in ${import.meta.filename}`).toEqual([]);
    expect(Object.keys(EXPECTED).filter((id) => !ids.includes(id)), "lines for routes that no longer exist").toEqual([]);
  });

  it("every route with an action has its actions in the matrix", async () => {
    for (const r of consoleRoutes()) {
      const module = (await import(/* @vite-ignore */ `${import.meta.dirname}/../../app/${r.file}`)) as { action?: unknown };
      if (typeof module.action === "function") expect(EXPECTED[r.id]!.actions?.length ?? 0, `${r.id} has an action: add its forms to the matrix`).toBeGreaterThan(0);
    }
  });

  it("the console's other pages (sign-in, invitations) are the known ones, open without a session", async () => {
    const shellOnly = app.routes.filter((r) => r.parents.includes(SHELL) && !r.parents.includes(LAYOUT) && r.id !== LAYOUT);
    expect(shellOnly.map((r) => r.id).sort()).toEqual(Object.keys(PUBLIC_CONSOLE_ROUTES).sort());
    for (const [id, c] of Object.entries(PUBLIC_CONSOLE_ROUTES)) expectOutcome(await get(c.path), c.anonymous, `${id} GET not signed in`);
  });
});

describe("not signed in", () => {
  it("every console page and action redirects to sign-in before it runs", async () => {
    for (const [id, c] of Object.entries(EXPECTED)) {
      const path = c.path(fixture);
      const r = await get(path);
      expect({ id, status: r.status }).toEqual({ id, status: 303 });
      // Back to the page after signing in (the home, and the confirm page, need no "next").
      expect([`/admin/sign-in?next=${encodeURIComponent(path)}`, "/admin/sign-in"], id).toContain(r.location);
      if (!["/admin", EXPECTED["routes/admin.reauth"]!.path(fixture)].includes(path)) expect(r.location, id).toBe(`/admin/sign-in?next=${encodeURIComponent(path)}`);
      for (const a of [...(c.actions ?? []), ...(c.outOfScopeActions ?? [])]) {
        const p = await post((a.path ?? c.path)(fixture), a.form(fixture, "nobody"));
        expect({ id, action: a.name, status: p.status, location: p.location }).toEqual({ id, action: a.name, status: 303, location: "/admin/sign-in" });
      }
    }
  });
});

describe.each(ROLES)("%s", (who) => {
  it("opens each console page it may, and gets 403 (naming no record) or 404 for the others", async () => {
    for (const [id, c] of Object.entries(EXPECTED)) {
      const r = await get(c.path(fixture), members[who]);
      expectOutcome(r, c.get[who], `${who} GET ${id}`);
      if (c.outOfScope) {
        const out = await get(c.outOfScope.path(fixture), members[who]);
        expectOutcome(out, c.outOfScope.get[who], `${who} GET ${id} at location B`);
        if (out.status !== 200) expect(out.body, `${who}: the refusal names the record`).not.toContain(c.outOfScope.secret(fixture));
      }
    }
  });

  it("takes each action it may, and is refused the others", async () => {
    for (const [id, c] of Object.entries(EXPECTED)) {
      for (const a of c.actions ?? []) {
        const r = await post((a.path ?? c.path)(fixture), a.form(fixture, who), members[who]);
        expectOutcome(r, a.expect[who], `${who} POST ${id}: ${a.name}`);
      }
      for (const a of c.outOfScopeActions ?? []) {
        const r = await post(a.path!(fixture), a.form(fixture, who), members[who]);
        expectOutcome(r, a.expect[who], `${who} POST ${id}: ${a.name}`);
        if ((r.status === 403 || r.status === 404) && c.outOfScope) expect(r.body, `${who}: the refusal names the record`).not.toContain(c.outOfScope.secret(fixture));
      }
    }
  });

  it("sees in the navigation exactly the pages it may open, and each link opens", async () => {
    const home = await get("/admin", members[who]);
    expect(home.status).toBe(200);
    const nav = /<nav aria-label="Back office"[^>]*>([\s\S]*?)<\/nav>/.exec(home.body)?.[1] ?? "";
    const links = [...nav.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]!).filter((h) => h.startsWith("/admin"));
    const expected = Object.values(EXPECTED)
      .filter((c) => c.nav && c.get[who] === 200)
      .map((c) => c.path(fixture));
    expect(links.sort()).toEqual(expected.sort());
    for (const href of links) expect({ href, status: (await get(href, members[who])).status }).toEqual({ href, status: 200 });
  });

  it("with a stale second factor: sent to confirm it on the pages and actions that need a fresh one (if permitted)", async () => {
    const stale = await signedInStaffMember(handle.db, { accountId, role: ROLE_OF[who], locationIds: who === "owner" ? [] : [locA], factorAgeMs: STALE_FACTOR_MS, name: `${who}-stale` });
    const fresh = Object.entries(EXPECTED).filter(([, c]) => c.fresh);
    expect(fresh.length).toBeGreaterThan(0);
    for (const [id, c] of fresh) {
      const path = c.path(fixture);
      const want = c.get[who] === 200 ? { redirect: `/admin/reauth?next=${encodeURIComponent(path)}` } : c.get[who];
      expectOutcome(await get(path, stale), want, `${who} (stale factor) GET ${id}`);
      for (const a of c.actions ?? []) {
        const permitted = a.expect[who] !== 403;
        expectOutcome(await post(path, a.form(fixture, who), stale), permitted ? { redirect: `/admin/reauth?next=${encodeURIComponent(path)}` } : 403, `${who} (stale factor) POST ${id}: ${a.name}`);
      }
    }
    // Pages that do not need a fresh factor still open.
    for (const [id, c] of Object.entries(EXPECTED).filter(([, x]) => !x.fresh && x.get[who] === 200)) {
      expect({ id, status: (await get(c.path(fixture), stale)).status }).toEqual({ id, status: 200 });
    }
  });
});
