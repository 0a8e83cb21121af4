/**
 * Three BUILT server processes through PgBouncer in transaction mode (issue 41, decisions 560–563):
 * Debian's pgbouncer runs the checked-in deploy/pgbouncer.ini (support/pgbouncer.ts) in front of a
 * private PostgreSQL (support/pg-cluster.ts; the machine's shared server is never touched). Every
 * process has DATABASE_URL on PgBouncer and DATABASE_DIRECT_URL on PostgreSQL (its LISTEN connection).
 *
 *  - pages, a whole rental, a publish through the console: each seen by every process within seconds (decision 700);
 *  - deploy/nginx.conf WITH its cache in front of the three (support/nginx.ts; every process purges it,
 *    CACHE_PURGE=nginx): the publish is what nginx serves to an anonymous visitor within seconds too;
 *  - the periodic jobs, run by all three processes' timers at once, each run once: the billing day
 *    (each lease billed once), the scheduled publish (one version), the mail retry job (each message
 *    sent once), the housekeeping sweep (one process per period, `job_runs`);
 *  - PostgreSQL restarts: while it is down answers are 200 from the cache or 503, never 500; after it,
 *    every process serves pages, takes a rental and sees a change within seconds again.
 *
 * (The SiteLink sync's lease is one statement too; tests/integration/storage-software/sitelink-sync-leader.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "~/db/client.server";
import { addDaysIso, localDate } from "~/domain/shared/calendar";
import { readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { scheduleChangeset } from "~/services/content/publish.server";
import { queueEmail } from "~/services/mail/outbox.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { CSRF_FIELD } from "~/services/web/csrf.server";
import { SEEN_WITHIN_MS } from "./support/seen";
import { signedInStaffMember, type TestStaffMember } from "../integration/support/staff-fixtures";
import { LOCATION, prepareDatabase, UNIT_TYPE_PAGE } from "./support/database";
import { clusterSkipReason, createCluster, type PgCluster } from "./support/pg-cluster";
import { sharedCacheSkipReason, startNginx } from "./support/nginx";
import { pgbouncerSkipReason, startPgBouncer, type PgBouncer } from "./support/pgbouncer";
import { freePort, sleep } from "./support/ports";
import { rentOnce } from "./support/rental";
import { productionEnv, startServer, type ServerHandle } from "./support/server";
import { startSmtpServer, type SmtpServer } from "./support/smtp";

const skip = clusterSkipReason() ?? pgbouncerSkipReason() ?? sharedCacheSkipReason();
if (skip) console.warn(`[fault] pooler skipped: ${skip}`);
// The staff session cookie and the sealed outbox rows this test writes use the servers' secret.
process.env.SESSION_SECRET = productionEnv({}).SESSION_SECRET;

const BILLED_TENANTS = 3;
const QUEUED_MAILS = 12;
const QUEUED_SUBJECT = "Queued before the processes started";
const PAGE = `/locations/${LOCATION}`;

let cluster: PgCluster | undefined;
let bouncer: PgBouncer | undefined;
let smtp: SmtpServer | undefined;
let handle: DatabaseHandle | undefined;
let servers: ServerHandle[] = [];
let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
let owner: TestStaffMember;
let unitTypeId = 0;
let locationId = 0;
let scheduledId = 0;

const sql = (text: string, params: unknown[] = []) => cluster!.query(text, params);

/** The console's paths on its own origin (decision 450), the public site's on its own. */
const get = (server: ServerHandle, path: string, cookie?: string) =>
  fetch(`${path.startsWith("/admin") ? server.consoleUrl : server.baseUrl}${path}`, {
    headers: { "Accept-Encoding": "gzip", ...(cookie ? { Cookie: cookie } : {}) },
    redirect: "manual",
    signal: AbortSignal.timeout(10_000),
  });

/** Requests `path` until it comes from the process's page cache. */
async function untilCached(server: ServerHandle, path: string): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    const r = await get(server, path);
    expect(r.status).toBe(200);
    await r.arrayBuffer();
    if (r.headers.get("x-page-cache") === "hit") return true;
    await sleep(50);
  }
  return false;
}

/** How long until `path` on `server` contains `text` (ms), or -1 past `limitMs`. */
async function showsWithin(server: ServerHandle, path: string, text: string, limitMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < limitMs) {
    if ((await (await get(server, path)).text()).includes(text)) return Date.now() - start;
    await sleep(25);
  }
  return -1;
}

const viaNginx = (path: string) => fetch(`${nginx!.url}${path}`, { headers: { "Accept-Encoding": "gzip" }, redirect: "manual", signal: AbortSignal.timeout(10_000) });

/** Asks nginx for `path` until its cache answers (the first answer is stored on its way through). */
async function nginxHit(path: string): Promise<boolean> {
  for (let i = 0; i < 40; i++) {
    const r = await viaNginx(path);
    await r.arrayBuffer();
    if (r.headers.get("x-cache-status") === "HIT") return true;
    await sleep(50);
  }
  return false;
}

/** How long until nginx serves `path` containing `text` (ms), or -1 past `limitMs`. */
async function viaNginxShowsWithin(path: string, text: string, limitMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < limitMs) {
    if ((await (await viaNginx(path)).text()).includes(text)) return Date.now() - start;
    await sleep(25);
  }
  return -1;
}

async function draftEdit(values: Record<string, string>) {
  const before = await readEffectiveRecord(handle!.db, owner.signedIn, "location", locationId);
  const base = Object.fromEntries(Object.keys(values).map((k) => [k, before!.values[k]]));
  const r = await saveDraftEdit(handle!.db, owner.signedIn, { op: "update", entity: "location", recordId: locationId, values, base });
  if (!r.ok) throw new Error(`draft edit refused: ${JSON.stringify(r)}`);
  return r.changesetId;
}

/** Leaves exactly one unit of the rented type free. */
const oneUnitFree = () =>
  sql(
    `update units set status = 'unavailable' where unit_type_id = $1 and status = 'available'
        and id <> (select min(id) from units where unit_type_id = $1 and status = 'available')`,
    [unitTypeId],
  );

describe.skipIf(Boolean(skip))("three processes through PgBouncer in transaction mode, behind nginx with its cache", () => {
  beforeAll(async () => {
    cluster = await createCluster();
    unitTypeId = await prepareDatabase(cluster.url, { extraUnits: 1 });
    [bouncer, smtp] = await Promise.all([startPgBouncer(cluster.port), startSmtpServer()]);
    handle = openDatabase({ url: cluster.url, poolSize: 2 });
    const now = new Date();
    // Leases that moved in 70 days ago with only the first month paid: two months to post for each.
    const moveInDate = addDaysIso(localDate(now, "America/New_York"), -70);
    for (let i = 0; i < BILLED_TENANTS; i++) {
      await createTenantWithLease(handle.db, { email: `billed.${i}@example.com`, password: "Billed-Once-2048", now, moveInDate });
    }
    // Mail that waits for the retry job (as after an SMTP outage).
    for (let i = 0; i < QUEUED_MAILS; i++) await queueEmail(handle.db, { to: `queued.${i}@example.com`, subject: `${QUEUED_SUBJECT} ${i}`, text: `Message ${i}` });
    // A changeset scheduled for a moment that has passed when the processes start.
    const loc = await sql("select id, account_id from locations where url_slug = $1", [LOCATION]);
    locationId = Number(loc.rows[0].id);
    owner = await signedInStaffMember(handle.db, { accountId: Number(loc.rows[0].account_id), role: "owner" });
    scheduledId = await draftEdit({ metaDescription: "Published by one scheduler of three." });
    expect((await scheduleChangeset(handle.db, owner.signedIn, { changesetId: scheduledId, date: "2099-01-01", time: "00:00", timeZone: "America/New_York" })).ok).toBe(true);
    await sql("update changesets set scheduled_for = now() - interval '1 minute' where id = $1", [scheduledId]);
    await oneUnitFree();

    // Every periodic job on, in every process, with short periods.
    const purgePort = await freePort();
    const env = {
      DATABASE_URL: bouncer.url,
      DATABASE_DIRECT_URL: cluster.url,
      BILLING_SCHEDULE: "on",
      PUBLISH_SCHEDULE: "on",
      PUBLISH_SCHEDULE_FIRST_MS: "1000",
      HOUSEKEEPING: "on",
      HOUSEKEEPING_EVERY_MS: "1000",
      SITELINK_SYNC: "off",
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      EMAIL_RETRY_EVERY_MS: "300",
      EMAIL_RETRY_FIRST_MS: "300",
      CACHE_PURGE: "nginx",
      CACHE_PURGE_NGINX_URL: `http://127.0.0.1:${purgePort}`,
    };
    servers = await Promise.all([0, 1, 2].map(() => startServer({ env })));
    // The cache in front of the three (what the setup queued before it listened is purged on a retry).
    nginx = await startNginx(await freePort(), servers.map((s) => s.port), { sharedCache: { purgePort } });
  }, 180_000);

  afterAll(async () => {
    if (process.env.FAULT_VERBOSE === "1") {
      servers.forEach((s, i) => console.log(`---- process ${i} (last lines)\n${s.output().split("\n").slice(-60).join("\n")}`));
      console.log(`---- pgbouncer\n${bouncer?.log().split("\n").filter((l) => !l.includes("(server_login_retry)")).slice(-60).join("\n")}`);
    }
    await nginx?.stop();
    await Promise.all(servers.map((s) => s.stop(5_000)));
    await handle?.close();
    await bouncer?.stop();
    await smtp?.stop();
    cluster?.destroy();
  });

  it("the app's pool goes through PgBouncer; only the LISTEN connections go to PostgreSQL directly", async () => {
    for (const s of servers) expect((await get(s, "/readyz")).status).toBe(200);
    // One listening connection per process on PostgreSQL (DATABASE_DIRECT_URL). (Through PgBouncer a
    // LISTEN would land on a pooled server connection that serves others next and whose notifications
    // PgBouncer drops: the cross-process tests below would fail.)
    const listening = await sql(
      "select count(*)::int as n from pg_stat_activity where datname = 'gatehouse' and query ilike 'LISTEN gatehouse_changed%'",
    );
    expect(listening.rows[0].n).toBe(servers.length);
    // Far fewer server connections than the processes' 3 × 10 pool slots.
    const total = await sql("select count(*)::int as n from pg_stat_activity where datname = 'gatehouse' and backend_type = 'client backend'");
    expect(total.rows[0].n).toBeLessThanOrEqual(20 + 5 + servers.length + 2);
  });

  it("a rental through one process shows on the others' cached pages within seconds, not its lifetime", async () => {
    const [a, ...others] = servers;
    for (const s of others) {
      expect(await untilCached(s, UNIT_TYPE_PAGE)).toBe(true);
      expect(await (await get(s, UNIT_TYPE_PAGE)).text()).not.toContain("This size is sold out");
    }
    const result = await rentOnce(a!.baseUrl, "pooler", { unitTypeId, unitTypePage: UNIT_TYPE_PAGE });
    expect(result.failure).toBeNull();
    expect(result.confirmed).toBe(true);
    const seen = await Promise.all(others.map((s) => showsWithin(s, UNIT_TYPE_PAGE, "This size is sold out", SEEN_WITHIN_MS)));
    for (const ms of seen) expect(ms).toBeGreaterThanOrEqual(0);
  }, 90_000);

  it("a publish through one process's console shows on every process's cached page, and through nginx's cache, within seconds, not its lifetime", async () => {
    const [a] = servers;
    for (const s of servers) expect(await untilCached(s, PAGE)).toBe(true);
    expect(await nginxHit(PAGE)).toBe(true);
    const changesetId = await draftEdit({ metaDescription: "Published through PgBouncer, seen by all three." });
    const page = await get(a!, "/admin/changes", owner.cookie);
    expect(page.status).toBe(200);
    const token = new RegExp(`name="${CSRF_FIELD}" value="([^"]+)"`).exec(await page.text())?.[1];
    expect(token).toBeTruthy();
    const posted = await fetch(`${a!.consoleUrl}/admin/changes`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: owner.cookie, Origin: a!.consoleUrl, Referer: `${a!.consoleUrl}/admin/changes` },
      body: new URLSearchParams({ [CSRF_FIELD]: token!, changesetId: String(changesetId), intent: "publish" }),
    });
    expect(posted.status).toBe(303);
    const seen = await Promise.all([
      ...servers.map((s) => showsWithin(s, PAGE, "Published through PgBouncer, seen by all three.", SEEN_WITHIN_MS)),
      // An anonymous visitor through nginx: the page it had stored was purged, the new one is served.
      viaNginxShowsWithin(PAGE, "Published through PgBouncer, seen by all three.", SEEN_WITHIN_MS),
    ]);
    for (const ms of seen) expect(ms).toBeGreaterThanOrEqual(0);
    expect(await nginxHit(PAGE)).toBe(true);
    expect((await (await viaNginx(PAGE)).text()).includes("Published through PgBouncer, seen by all three.")).toBe(true);
  }, 60_000);

  it("PostgreSQL restarts: 200 from the cache or 503 meanwhile, never 500; then every process serves, rents and sees changes again", async () => {
    for (const s of servers) expect(await untilCached(s, "/about")).toBe(true);
    await cluster!.stopFastNow();
    const during: number[] = [];
    try {
      for (const s of servers) {
        during.push((await get(s, "/about")).status);
        // Never stored: must read the database.
        during.push((await get(s, "/locations/jacksonville-nc-28546")).status);
      }
    } finally {
      await cluster!.start();
    }
    const backAt = Date.now();
    expect(during.every((status) => status === 200 || status === 503)).toBe(true);
    expect(during).toContain(503);

    // Back within seconds: PgBouncer logs in again (server_login_retry 1 s), the pools reconnect.
    const deadline = Date.now() + 15_000;
    for (const s of servers) {
      while (Date.now() < deadline && (await get(s, "/locations/jacksonville-nc-28546")).status !== 200) await sleep(200);
      expect((await get(s, "/locations/jacksonville-nc-28546")).status).toBe(200);
    }
    console.log(`[fault] pooler: every process served a page that reads the database ${Date.now() - backAt} ms after PostgreSQL was back`);
    await sleep(1_500); // the listening connections reconnect with a short backoff
    const tagline = `After the restart ${Date.now()}`;
    await sql("update accounts set tagline = $1", [tagline]);
    const seen = await Promise.all(servers.map((s) => showsWithin(s, "/about", tagline, SEEN_WITHIN_MS)));
    for (const ms of seen) expect(ms).toBeGreaterThanOrEqual(0);
    // A rental after the restart, through another process.
    await sql("update units set status = 'available' where unit_type_id = $1 and name = 'FAULT-1'", [unitTypeId]);
    const result = await rentOnce(servers[2]!.baseUrl, "after-restart", { unitTypeId, unitTypePage: UNIT_TYPE_PAGE });
    expect(result.failure).toBeNull();
    expect(result.confirmed).toBe(true);
  }, 90_000);

  it("every periodic job ran once per period across the three processes", async () => {
    // Billing (first check 5 s after start; a run the restart cut off is tried again 15 s later): the
    // day claimed once, each lease billed once.
    let runs: { finished_at: Date | null }[] = [];
    for (const deadline = Date.now() + 40_000; Date.now() < deadline; await sleep(250)) {
      runs = (await sql("select finished_at from billing_runs")).rows;
      if (runs.length && runs.every((r) => r.finished_at)) break;
    }
    expect(runs).toHaveLength(1);
    const twice = await sql(`select lease_id, period_start, count(*)::int as n from ledger_entries where kind = 'charge' group by lease_id, period_start, description having count(*) > 1`);
    expect(twice.rows).toEqual([]);
    const billed = await sql(
      `select count(distinct e.period_start)::int as periods from leases l join tenants t on t.id = l.tenant_id
         join ledger_entries e on e.lease_id = l.id and e.kind = 'charge' where t.email like 'billed.%' group by l.id`,
    );
    expect(billed.rows.map((r) => r.periods)).toEqual(Array(BILLED_TENANTS).fill(3));
    expect(servers.filter((s) => /\[billing\] \d{4}-\d{2}-\d{2}: \d+ lease/.test(s.output()))).toHaveLength(1);

    // The scheduled changeset: published once, by one scheduler.
    expect((await sql("select status from changesets where id = $1", [scheduledId])).rows[0].status).toBe("published");
    const published = await sql("select count(*)::int as n from audit_events where action = 'content.published' and (detail->>'changesetId')::int = $1", [scheduledId]);
    expect(published.rows[0].n).toBe(1);
    expect(servers.filter((s) => s.output().includes("scheduled changeset published"))).toHaveLength(1);

    // The mail retry job (every 300 ms in each process): every queued message sent, each once.
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(200)) {
      if (smtp!.received.filter((m) => m.data.includes(QUEUED_SUBJECT)).length >= QUEUED_MAILS) break;
    }
    await sleep(1_000); // a second sending, had one slipped past the claim, would have arrived by now
    for (let i = 0; i < QUEUED_MAILS; i++) expect(smtp!.to(`queued.${i}@example.com`)).toHaveLength(1);
    const unsent = await sql("select count(*)::int as n from email_outbox where subject like $1 and sent_at is null", [`${QUEUED_SUBJECT}%`]);
    expect(unsent.rows[0].n).toBe(0);

    // Housekeeping (a one-second period, each process ticking every second): each period run by one
    // process only. The processes' own logs say which periods each ran; no period is in two logs.
    const ranBy = new Map<string, number[]>();
    servers.forEach((s, i) => {
      for (const m of s.output().matchAll(/"period":"([^"]+)"[^\n]*\[housekeeping\] sweep run by this process/g)) ranBy.set(m[1]!, [...(ranBy.get(m[1]!) ?? []), i]);
    });
    expect(ranBy.size).toBeGreaterThanOrEqual(5);
    expect([...ranBy.values()].filter((who) => who.length > 1)).toEqual([]);
    const rows = await sql("select period_start, holder from job_runs where job = 'housekeeping' and finished_at is not null");
    const claimed = new Set(rows.rows.map((r) => (r.period_start as Date).toISOString()));
    for (const period of ranBy.keys()) expect(claimed.has(period)).toBe(true);
    // The hourly reconciliation: one run for this hour, whichever process got there.
    const reconciled = await sql("select count(*)::int as n from job_runs where job = 'reconciliation'");
    expect(reconciled.rows[0].n).toBeGreaterThanOrEqual(1);
    expect(servers.map((s) => (s.output().match(/\[housekeeping\] reconciliation run by this process/g) ?? []).length).reduce((x, y) => x + y)).toBe(reconciled.rows[0].n);

    // Nothing answered 500 or crashed along the way.
    for (const s of servers) expect(s.exits).toEqual([]);
  }, 90_000);
});
