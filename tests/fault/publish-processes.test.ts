/**
 * Publishing with two BUILT server processes on one PostgreSQL (issue 24, decisions 310–314):
 *  - a changeset published THROUGH process A (the console's Publish button, over HTTP) shows on
 *    process B's cached page within seconds, not its lifetime (the live tables' `gatehouse_changed` notification);
 *  - a changeset scheduled for a moment already past when both processes start is published by their
 *    schedulers once: one version, one audit entry, whichever process got there first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "~/db/client.server";
import { CSRF_FIELD } from "~/services/web/csrf.server";
import { readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { scheduleChangeset } from "~/services/content/publish.server";
import { SEEN_WITHIN_MS } from "./support/seen";
import { LOCATION, prepareDatabase } from "./support/database";
import { clusterSkipReason, createCluster, type PgCluster } from "./support/pg-cluster";
import { productionEnv, startServer, type ServerHandle } from "./support/server";
import { sleep } from "./support/ports";
import { signedInStaffMember, type TestStaffMember } from "../integration/support/staff-fixtures";

const skip = clusterSkipReason();
if (skip) console.warn(`[fault] publish-processes skipped: ${skip}`);
// The staff session cookie this test makes is signed with the servers' secret.
process.env.SESSION_SECRET = productionEnv({}).SESSION_SECRET;

const PAGE = `/locations/${LOCATION}`;
let cluster: PgCluster | undefined;
let handle: DatabaseHandle | undefined;
let a: ServerHandle | undefined;
let b: ServerHandle | undefined;
let owner: TestStaffMember;
let locationId = 0;
let scheduledId = 0;

const sql = (text: string, params: unknown[] = []) => cluster!.query(text, params);

/** The console's paths on its own origin (decision 450), the public site's on its own. */
const get = (server: ServerHandle, path: string, cookie?: string) =>
  fetch(`${path.startsWith("/admin") ? server.consoleUrl : server.baseUrl}${path}`, { headers: { "Accept-Encoding": "gzip", ...(cookie ? { Cookie: cookie } : {}) }, redirect: "manual", signal: AbortSignal.timeout(10_000) });

async function draftEdit(values: Record<string, string>) {
  const before = await readEffectiveRecord(handle!.db, owner.signedIn, "location", locationId);
  const base = Object.fromEntries(Object.keys(values).map((k) => [k, before!.values[k]]));
  const r = await saveDraftEdit(handle!.db, owner.signedIn, { op: "update", entity: "location", recordId: locationId, values, base });
  if (!r.ok) throw new Error(`draft edit refused: ${JSON.stringify(r)}`);
  return r.changesetId;
}

describe.skipIf(Boolean(skip))("publishing with two server processes on one PostgreSQL", () => {
  beforeAll(async () => {
    cluster = await createCluster();
    await prepareDatabase(cluster.url, { extraUnits: 0 });
    handle = openDatabase({ url: cluster.url, poolSize: 2 });
    const loc = await sql("select id, account_id from locations where url_slug = $1", [LOCATION]);
    locationId = Number(loc.rows[0].id);
    owner = await signedInStaffMember(handle.db, { accountId: Number(loc.rows[0].account_id), role: "owner" });
    // A changeset scheduled for a moment that has passed by the time both processes start.
    scheduledId = await draftEdit({ metaDescription: "Published by the scheduler of one process only." });
    const scheduled = await scheduleChangeset(handle.db, owner.signedIn, { changesetId: scheduledId, date: "2099-01-01", time: "00:00", timeZone: "America/New_York" });
    expect(scheduled.ok).toBe(true);
    await sql("update changesets set scheduled_for = now() - interval '1 minute' where id = $1", [scheduledId]);
    const env = { DATABASE_URL: cluster.url, PUBLISH_SCHEDULE: "on", PUBLISH_SCHEDULE_FIRST_MS: "1000" };
    [a, b] = await Promise.all([startServer({ env }), startServer({ env })]);
  }, 150_000);

  afterAll(async () => {
    await Promise.all([a?.stop(5_000), b?.stop(5_000)]);
    await handle?.close();
    cluster?.destroy();
  });

  it("both schedulers run at once: the due changeset is published once", async () => {
    const deadline = Date.now() + 30_000;
    let status = "";
    while (Date.now() < deadline && status !== "published") {
      status = (await sql("select status from changesets where id = $1", [scheduledId])).rows[0].status;
      if (status !== "published") await sleep(100);
    }
    expect(status).toBe("published");
    await sleep(1_500); // a second publish, had one slipped past the claim, would be recorded by now
    const versions = await sql("select version, restores_version from changesets where status = 'published' order by version");
    expect(versions.rows.map((r) => r.version)).toEqual([0, 1]);
    const audits = await sql("select actor, detail from audit_events where action = 'content.published'");
    expect(audits.rows).toHaveLength(1);
    expect(audits.rows[0].detail.changesetId).toBe(scheduledId);
    const logs = [a!, b!].filter((s) => s.output().includes("scheduled changeset published"));
    expect(logs).toHaveLength(1);
    for (const s of [a!, b!]) expect(await (await get(s, PAGE)).text()).toContain("Published by the scheduler of one process only.");
    const flags = await sql("select has_new_changes, has_redeploy_started from websites");
    expect(flags.rows[0]).toEqual({ has_new_changes: false, has_redeploy_started: false });
  }, 60_000);

  it("a publish through A (the console's button) shows on B's cached page within seconds, not its lifetime", async () => {
    // B has the location page in its cache.
    let cached = false;
    for (let i = 0; i < 40 && !cached; i++) {
      const r = await get(b!, PAGE);
      expect(r.status).toBe(200);
      cached = r.headers.get("x-page-cache") === "hit";
      if (!cached) await sleep(50);
    }
    expect(cached).toBe(true);

    const changesetId = await draftEdit({ metaDescription: "Published through process A, seen on process B." });
    expect(await (await get(b!, PAGE)).text()).not.toContain("Published through process A");

    // The console's page on A: its CSRF token and cookie, then the Publish form.
    // (The first answer sets the CSRF cookie; the second, sent with it, has forms signed for it.)
    // (The console's token is derived from the staff session: no CSRF cookie is needed, decision 283.)
    const csrfCookie = "";
    const page = await get(a!, "/admin/changes", owner.cookie);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Published through process A, seen on process B.");
    const token = new RegExp(`name="${CSRF_FIELD}" value="([^"]+)"`).exec(html)?.[1];
    expect(token).toBeTruthy();
    const posted = await fetch(`${a!.consoleUrl}/admin/changes`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: [owner.cookie, csrfCookie].filter(Boolean).join("; "), Origin: a!.consoleUrl, Referer: `${a!.consoleUrl}/admin/changes` },
      body: new URLSearchParams({ [CSRF_FIELD]: token!, changesetId: String(changesetId), intent: "publish" }),
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toBe("/admin/changes?done=published&version=2");

    const start = Date.now();
    let seen = false;
    while (!seen && Date.now() - start < SEEN_WITHIN_MS) {
      seen = (await (await get(b!, PAGE)).text()).includes("Published through process A, seen on process B.");
      if (!seen) await sleep(25);
    }
    expect(seen).toBe(true);
    expect([...a!.errorLines(), ...b!.errorLines()]).toEqual([]);
  }, 60_000);
});
