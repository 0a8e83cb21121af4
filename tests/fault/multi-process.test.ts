/**
 * More than one process (issue 10, docs/deploy.md): two BUILT server processes on one PostgreSQL,
 * as behind deploy/nginx.conf, where any request may reach either. What tests/fault/processes.test.ts
 * does not already cover:
 *  - a change made THROUGH one process (a renter's move-in on A takes the last unit) shows on the
 *    other process's cached page within seconds, not its lifetime;
 *  - the daily billing run, started by both processes at once (their schedules), bills each lease once;
 *  - rate limits are shared: after 5 failed sign-ins through A, the 6th through B is refused;
 *  - a session created on A works on B, and signing out on B ends it on A.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "~/db/client.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { addDaysIso, localDate } from "~/domain/shared/calendar";
import { SIGNIN_LIMIT_PER_ACCOUNT } from "~/services/portal/sign-in-limits.server";
import { SEEN_WITHIN_MS } from "./support/seen";
import { LOCATION, prepareDatabase, UNIT_TYPE_PAGE } from "./support/database";
import { clusterSkipReason, createCluster, type PgCluster } from "./support/pg-cluster";
import { startServer, type ServerHandle } from "./support/server";
import { inputValue, Recorder, Visitor } from "./support/http";
import { rentOnce } from "./support/rental";
import { sleep } from "./support/ports";

const skip = clusterSkipReason();
if (skip) console.warn(`[fault] multi-process skipped: ${skip}`);

let cluster: PgCluster | undefined;
let a: ServerHandle | undefined;
let b: ServerHandle | undefined;
let unitTypeId = 0;
const TENANT = { email: "multi.process@example.com", password: "Shared-Desk-2048" };
const BILLED_TENANTS = 3;

const sql = (text: string, params: unknown[] = []) => cluster!.query(text, params);

const get = (server: ServerHandle, path: string) =>
  fetch(`${server.baseUrl}${path}`, { headers: { "Accept-Encoding": "gzip" }, signal: AbortSignal.timeout(10_000) });

describe.skipIf(Boolean(skip))("two server processes on one PostgreSQL: caches, billing, rate limits, sessions", () => {
  beforeAll(async () => {
    cluster = await createCluster();
    unitTypeId = await prepareDatabase(cluster.url, { extraUnits: 0 });
    // Leases that moved in 70 days ago with only the first month paid: the billing run has two
    // months to post for each. And a tenant to sign in as.
    const handle = openDatabase({ url: cluster.url, poolSize: 2 });
    try {
      const now = new Date();
      const moveInDate = addDaysIso(localDate(now, "America/New_York"), -70);
      for (let i = 0; i < BILLED_TENANTS; i++) {
        await createTenantWithLease(handle.db, { email: `billed.${i}@example.com`, password: "Billed-Once-2048", now, moveInDate });
      }
      await createTenantWithLease(handle.db, { email: TENANT.email, password: TENANT.password, firstName: "Morgan", lastName: "Twoprocess", now });
    } finally {
      await handle.close();
    }
    // The rented unit type has exactly one unit free: the move-in through A sells it out.
    await sql(
      `update units set status = 'unavailable' where unit_type_id = $1 and status = 'available'
          and id <> (select min(id) from units where unit_type_id = $1 and status = 'available')`,
      [unitTypeId],
    );
    // Both processes run the daily billing schedule (its first check is 5 s after start), like two
    // systemd instances started together.
    const env = { DATABASE_URL: cluster.url, BILLING_SCHEDULE: "on" };
    [a, b] = await Promise.all([startServer({ env }), startServer({ env })]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(5_000), b?.stop(5_000)]);
    cluster?.destroy();
  });

  it("a move-in through A shows on B's cached page within seconds, not its lifetime", async () => {
    // B has the unit type page in its cache, offering the size.
    let cached = false;
    for (let i = 0; i < 40 && !cached; i++) {
      const r = await get(b!, UNIT_TYPE_PAGE);
      expect(r.status).toBe(200);
      const html = await r.text();
      expect(html).not.toContain("This size is sold out");
      cached = r.headers.get("x-page-cache") === "hit";
      if (!cached) await sleep(50);
    }
    expect(cached).toBe(true);

    const result = await rentOnce(a!.baseUrl, "multi", { unitTypeId, unitTypePage: UNIT_TYPE_PAGE });
    expect(result.failure).toBeNull();
    expect(result.confirmed).toBe(true);

    const start = Date.now();
    let soldOut = false;
    while (!soldOut && Date.now() - start < SEEN_WITHIN_MS) {
      soldOut = (await (await get(b!, UNIT_TYPE_PAGE)).text()).includes("This size is sold out");
      if (!soldOut) await sleep(25);
    }
    expect(soldOut).toBe(true);
    // And on the location page of B too (it lists the size).
    expect(await (await get(b!, `/locations/${LOCATION}`)).text()).toContain("This size is sold out");
  }, 60_000);

  it("the billing run started by both processes at once bills each lease once", async () => {
    // Both schedules check 5 s after start; wait for the run to be recorded as finished.
    const deadline = Date.now() + 30_000;
    let runs: { run_date: string; finished_at: Date | null }[] = [];
    while (Date.now() < deadline) {
      runs = (await sql("select run_date::text, finished_at from billing_runs")).rows;
      if (runs.length && runs.every((r) => r.finished_at)) break;
      await sleep(250);
    }
    expect(runs).toHaveLength(1);
    expect(runs[0]!.finished_at).not.toBeNull();
    await sleep(500); // a second run, if one had slipped past the claim, would be posting now

    const billed = await sql(
      `select l.id, count(*)::int as charges, count(distinct e.period_start)::int as periods
         from leases l join tenants t on t.id = l.tenant_id join ledger_entries e on e.lease_id = l.id and e.kind = 'charge'
        where t.email like 'billed.%' group by l.id order by l.id`,
    );
    expect(billed.rows).toHaveLength(BILLED_TENANTS);
    // Moved in 70 days ago: the first month (paid at move-in) and two more, each posted once.
    for (const row of billed.rows) expect(row.periods).toBe(3);
    const twice = await sql(
      `select lease_id, period_start, description, count(*)::int as n from ledger_entries
        where kind = 'charge' group by lease_id, period_start, description having count(*) > 1`,
    );
    expect(twice.rows).toEqual([]);
    // The processes' logs: exactly one of them ran it.
    const ran = [a!, b!].filter((s) => /\[billing\] \d{4}-\d{2}-\d{2}: \d+ lease/.test(s.output()));
    expect(ran).toHaveLength(1);
  }, 60_000);

  it("rate limits are shared: after 5 failed sign-ins through A, the 6th through B is refused", async () => {
    const v = new Visitor("guesser", a!.baseUrl, new Recorder());
    const attempt = async (server: ServerHandle) => {
      const form = await v.request("GET", `${server.baseUrl}/customer-portal/login`);
      expect(form.status).toBe(200);
      const csrf = inputValue(form.text, "csrf");
      expect(csrf).toBeTruthy();
      return v.request("POST", `${server.baseUrl}/customer-portal/login`, { csrf: csrf!, email: TENANT.email, password: "not-the-password", redirectTo: "/customer-portal" });
    };
    for (let i = 0; i < SIGNIN_LIMIT_PER_ACCOUNT; i++) expect((await attempt(a!)).status).toBe(400);
    const refused = await attempt(b!);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain("Too many sign-in attempts");
    // Even the right password is refused now, on either process.
    await sql("delete from rate_limit_hits where key like 'signin:ip:%'");
    const form = await v.request("GET", `${b!.baseUrl}/customer-portal/login`);
    const right = await v.request("POST", `${b!.baseUrl}/customer-portal/login`, { csrf: inputValue(form.text, "csrf")!, email: TENANT.email, password: TENANT.password, redirectTo: "/customer-portal" });
    expect(right.status).toBe(429);
    await sql("delete from rate_limit_hits");
  }, 60_000);

  it("a session created on A works on B, and signing out on B ends it on A", async () => {
    const v = new Visitor("tenant", a!.baseUrl, new Recorder());
    const form = await v.request("GET", `${a!.baseUrl}/customer-portal/login`);
    const signedIn = await v.request("POST", `${a!.baseUrl}/customer-portal/login`, { csrf: inputValue(form.text, "csrf")!, email: TENANT.email, password: TENANT.password, redirectTo: "/customer-portal" });
    expect(signedIn.status).toBe(303);
    for (const server of [a!, b!]) {
      const dashboard = await v.request("GET", `${server.baseUrl}/customer-portal`);
      expect(dashboard.status).toBe(200);
      expect(dashboard.text).toContain("Morgan");
    }
    // Sign out through B (its form's CSRF token, derived from the session, is accepted there).
    const page = await v.request("GET", `${b!.baseUrl}/customer-portal`);
    const cookie = v.cookieHeader();
    const out = await v.request("POST", `${b!.baseUrl}/customer-portal/logout`, { csrf: inputValue(page.text, "csrf")! });
    expect(out.status).toBe(303);
    // The old cookie, replayed on A, no longer opens the portal.
    const stale = await fetch(`${a!.baseUrl}/customer-portal`, { headers: { Cookie: cookie }, redirect: "manual", signal: AbortSignal.timeout(10_000) });
    expect(stale.status).toBe(303);
    expect(stale.headers.get("location")).toContain("/customer-portal/login");
  }, 60_000);
});
