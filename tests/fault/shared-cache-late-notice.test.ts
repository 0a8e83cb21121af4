/**
 * A process that hears of a publish late, behind deploy/nginx.conf's cache (issue 41, decision 710): two
 * BUILT processes on one PostgreSQL, both with CACHE_PURGE=nginx. Process B hears of every change a
 * minute late (the test-only CHANGE_NOTICE_DELAY_MS: its notification queued behind other work, as on a
 * loaded machine, or lost with its listening connection); process A hears at once, takes the publish
 * through its console and purges nginx. nginx asks B for every page (A is its backup), so each miss
 * after a purge reaches the process that has not heard: B's own page cache still holds the old page.
 *
 * Without the guard B would answer nginx's miss from that cache and nginx would keep the old page for
 * its whole lifetime (300 s), through both purges (decision 578). With it, B reads the change counter
 * for nginx's request (`X-Shared-Cache`), finds itself behind, drops its caches and renders the new page:
 * the published change is what nginx serves after the purge, and what it stores.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "~/db/client.server";
import { CSRF_FIELD } from "~/services/web/csrf.server";
import { readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { SETTLE_MS } from "~/services/web/shared-cache.server";
import { SEEN_WITHIN_MS } from "./support/seen";
import { LOCATION, prepareDatabase } from "./support/database";
import { clusterSkipReason, createCluster, type PgCluster } from "./support/pg-cluster";
import { productionEnv, startServer, type ServerHandle } from "./support/server";
import { freePort, sleep } from "./support/ports";
import { purgeQueueSettled } from "./support/purge-queue";
import { sharedCacheSkipReason, startNginx } from "./support/nginx";
import { signedInStaffMember, type TestStaffMember } from "../integration/support/staff-fixtures";

const skip = clusterSkipReason() ?? sharedCacheSkipReason();
if (skip) console.warn(`[fault] shared-cache-late-notice skipped: ${skip}`);
// The staff session cookie this test makes is signed with the servers' secret.
process.env.SESSION_SECRET = productionEnv({}).SESSION_SECRET;

const PAGE = `/locations/${LOCATION}`;
const PUBLISHED = "Published while one process had not heard of it.";
let cluster: PgCluster | undefined;
let handle: DatabaseHandle | undefined;
let a: ServerHandle | undefined;
let b: ServerHandle | undefined;
let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
let owner: TestStaffMember;
let locationId = 0;

async function fetchText(url: string, encoding = "gzip") {
  const r = await fetch(url, { headers: { "Accept-Encoding": encoding }, redirect: "manual", signal: AbortSignal.timeout(10_000) });
  return { status: r.status, headers: r.headers, text: await r.text() };
}

/** Asks nginx until it answers from its cache. */
async function untilHit(encoding: string) {
  for (let i = 0; i < 20; i++) {
    const r = await fetchText(`${nginx!.url}${PAGE}`, encoding);
    if (r.headers.get("x-cache-status") === "HIT") return r;
    await sleep(25);
  }
  throw new Error(`${PAGE} (${encoding}) was never a HIT`);
}

describe.skipIf(Boolean(skip))("a process that hears of a publish late never hands nginx the old page", () => {
  beforeAll(async () => {
    cluster = await createCluster();
    await prepareDatabase(cluster.url, { extraUnits: 0 });
    handle = openDatabase({ url: cluster.url, poolSize: 2 });
    const loc = await cluster.query("select id, account_id from locations where url_slug = $1", [LOCATION]);
    locationId = Number(loc.rows[0].id);
    owner = await signedInStaffMember(handle.db, { accountId: Number(loc.rows[0].account_id), role: "owner" });
    const [port, purgePort] = [await freePort(), await freePort()];
    const env = { DATABASE_URL: cluster.url, PUBLIC_URL: `http://127.0.0.1:${port}`, CACHE_PURGE: "nginx", CACHE_PURGE_NGINX_URL: `http://127.0.0.1:${purgePort}` };
    [a, b] = await Promise.all([startServer({ env }), startServer({ env: { ...env, CHANGE_NOTICE_DELAY_MS: "60000", GATEHOUSE_TEST_RUNNER: "1" } })]);
    nginx = await startNginx(port, [b.port], { sharedCache: { purgePort }, backupPorts: [a.port] });
    await purgeQueueSettled(cluster);
  }, 150_000);

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all([a?.stop(5_000), b?.stop(5_000)]);
    await handle?.close();
    cluster?.destroy();
  });

  it("the published change is what nginx serves and stores after the purge, in every encoding", async () => {
    const encodings = ["br", "gzip", "identity"];
    // nginx has the page (from B), and so has B's own page cache.
    for (const encoding of encodings) expect((await untilHit(encoding)).text).not.toContain(PUBLISHED);
    let own = await fetchText(`${b!.baseUrl}${PAGE}`);
    for (let i = 0; i < 20 && own.headers.get("x-page-cache") !== "hit"; i++) own = await fetchText(`${b!.baseUrl}${PAGE}`);
    expect(own.headers.get("x-page-cache")).toBe("hit");

    const before = await readEffectiveRecord(handle!.db, owner.signedIn, "location", locationId);
    const draft = await saveDraftEdit(handle!.db, owner.signedIn, {
      op: "update",
      entity: "location",
      recordId: locationId,
      values: { metaDescription: PUBLISHED },
      base: { metaDescription: before!.values.metaDescription },
    });
    if (!draft.ok) throw new Error(`draft edit refused: ${JSON.stringify(draft)}`);
    // The console's Publish button on process A (its own origin).
    const page = await fetch(`${a!.consoleUrl}/admin/changes`, { headers: { Cookie: owner.cookie } });
    const token = new RegExp(`name="${CSRF_FIELD}" value="([^"]+)"`).exec(await page.text())?.[1];
    expect(token).toBeTruthy();
    const posted = await fetch(`${a!.consoleUrl}/admin/changes`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: owner.cookie, Origin: a!.consoleUrl },
      body: new URLSearchParams({ [CSRF_FIELD]: token!, changesetId: String(draft.changesetId), intent: "publish" }),
    });
    expect(posted.status).toBe(303);
    const start = Date.now();
    // B has not heard: its own visitors still get the old page from its page cache.
    own = await fetchText(`${b!.baseUrl}${PAGE}`);
    expect(own.headers.get("x-page-cache")).toBe("hit");
    expect(own.text).not.toContain(PUBLISHED);

    // A purges nginx; each miss after it goes to B.
    for (const encoding of encodings) {
      let seen = false;
      while (!seen && Date.now() - start < SEEN_WITHIN_MS) {
        seen = (await fetchText(`${nginx!.url}${PAGE}`, encoding)).text.includes(PUBLISHED);
        if (!seen) await sleep(25);
      }
      expect(seen, encoding).toBe(true);
    }
    // After the second purge too (decision 578): nginx stores the new page, and keeps serving it.
    await sleep(SETTLE_MS + 600);
    for (const encoding of encodings) expect((await untilHit(encoding)).text, encoding).toContain(PUBLISHED);
    // Every answer nginx stored came from B, which still has not been notified (a minute late).
    expect(nginx!.purgeLog().some((line) => line.includes(`"PURGE ${PAGE} `))).toBe(true);
    expect([...a!.errorLines(), ...b!.errorLines()]).toEqual([]);
  }, 60_000);
});
