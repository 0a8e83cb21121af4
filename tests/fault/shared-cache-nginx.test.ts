/**
 * The cache in front (issue 41, decisions 570–572): the checked-in deploy/nginx.conf WITH its
 * proxy_cache and purge listener (a test copy: ports and paths substituted, TLS left out) in front of
 * two BUILT server processes on one PostgreSQL, both with CACHE_PURGE=nginx:
 * - a public page is stored by nginx (X-Cache-Status HIT), per encoding;
 * - a publish through the console purges it, and the new content is what nginx serves within one
 *   second, in every encoding; the purge is sent once per change (one PURGE per page and encoding,
 *   and the same again SETTLE_MS later, decision 578), not once per process;
 * - an answer that sets a cookie is never stored, a request with a visitor's own cookie or a query
 *   string never answered from the cache, and the tags never reach the visitor.
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
if (skip) console.warn(`[fault] shared-cache-nginx skipped: ${skip}`);
// The staff session cookie this test makes is signed with the servers' secret.
process.env.SESSION_SECRET = productionEnv({}).SESSION_SECRET;

const PAGE = `/locations/${LOCATION}`;
let cluster: PgCluster | undefined;
let handle: DatabaseHandle | undefined;
let a: ServerHandle | undefined;
let b: ServerHandle | undefined;
let nginx: Awaited<ReturnType<typeof startNginx>> | undefined;
let owner: TestStaffMember;
let locationId = 0;

const ENCODINGS = ["br", "gzip", ""] as const;

async function viaNginx(path: string, encoding: string, cookie?: string) {
  const r = await fetch(`${nginx!.url}${path}`, {
    headers: { "Accept-Encoding": encoding || "identity", ...(cookie ? { Cookie: cookie } : {}) },
    redirect: "manual",
    signal: AbortSignal.timeout(10_000),
  });
  return { status: r.status, headers: r.headers, text: await r.text() };
}

/** Asks until nginx answers from its cache (the first answer is stored on its way through). */
async function untilHit(path: string, encoding: string) {
  for (let i = 0; i < 20; i++) {
    const r = await viaNginx(path, encoding);
    if (r.headers.get("x-cache-status") === "HIT") return r;
    await sleep(25);
  }
  throw new Error(`${path} (${encoding || "identity"}) was never a HIT`);
}

describe.skipIf(Boolean(skip))("deploy/nginx.conf's cache in front of two processes, purged on publish", () => {
  beforeAll(async () => {
    cluster = await createCluster();
    await prepareDatabase(cluster.url, { extraUnits: 0 });
    handle = openDatabase({ url: cluster.url, poolSize: 2 });
    const loc = await cluster.query("select id, account_id from locations where url_slug = $1", [LOCATION]);
    locationId = Number(loc.rows[0].id);
    owner = await signedInStaffMember(handle.db, { accountId: Number(loc.rows[0].account_id), role: "owner" });
    const [port, purgePort] = [await freePort(), await freePort()];
    const env = { DATABASE_URL: cluster.url, PUBLIC_URL: `http://127.0.0.1:${port}`, CACHE_PURGE: "nginx", CACHE_PURGE_NGINX_URL: `http://127.0.0.1:${purgePort}` };
    [a, b] = await Promise.all([startServer({ env }), startServer({ env })]);
    nginx = await startNginx(port, [a.port, b.port], { sharedCache: { purgePort } });
    await purgeQueueSettled(cluster);
  }, 150_000);

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all([a?.stop(5_000), b?.stop(5_000)]);
    await handle?.close();
    cluster?.destroy();
  });

  it("stores a public page per encoding, and a publish through the console is what it serves within seconds, not its lifetime", async () => {
    for (const encoding of ENCODINGS) {
      const hit = await untilHit(PAGE, encoding);
      expect(hit.status).toBe(200);
      expect(hit.headers.get("content-encoding")).toBe(encoding || null);
      // The tags are for the purge: never sent on to the visitor.
      expect(hit.headers.get("cache-tag")).toBeNull();
    }

    const before = await readEffectiveRecord(handle!.db, owner.signedIn, "location", locationId);
    const draft = await saveDraftEdit(handle!.db, owner.signedIn, {
      op: "update",
      entity: "location",
      recordId: locationId,
      values: { metaDescription: "Published through the console, purged from nginx." },
      base: { metaDescription: before!.values.metaDescription },
    });
    if (!draft.ok) throw new Error(`draft edit refused: ${JSON.stringify(draft)}`);
    // A draft changes nothing live: nginx still answers from its cache.
    expect((await viaNginx(PAGE, "gzip")).headers.get("x-cache-status")).toBe("HIT");
    const purgesBefore = nginx!.purgeLog().length;

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

    for (const encoding of ENCODINGS) {
      let seen = false;
      while (!seen && Date.now() - start < SEEN_WITHIN_MS) {
        seen = (await viaNginx(PAGE, encoding)).text.includes("Published through the console, purged from nginx.");
        if (!seen) await sleep(25);
      }
      expect(seen, encoding || "identity").toBe(true);
    }
    // …and it is stored again.
    expect((await untilHit(PAGE, "gzip")).text).toContain("Published through the console, purged from nginx.");

    // Once per change, not once per process: each page the change touches purged once per encoding,
    // and once more when the other process has surely dropped its page (decision 578).
    await sleep(SETTLE_MS + 600);
    const purged = nginx!.purgeLog().slice(purgesBefore).filter((line) => line.includes(`"PURGE ${PAGE} `));
    expect(purged).toHaveLength(2 * ENCODINGS.length);
    expect([...a!.errorLines(), ...b!.errorLines()]).toEqual([]);
  }, 60_000);

  it("never stores an answer that sets a cookie, nor answers a visitor's own cookie or a query string from the cache", async () => {
    // /contact has a form: it sets the CSRF cookie and says private, no-store.
    for (let i = 0; i < 3; i++) {
      const contact = await viaNginx("/contact", "gzip");
      expect(contact.status).toBe(200);
      expect(contact.headers.get("set-cookie")).not.toBeNull();
      expect(contact.headers.get("cache-control")).toBe("private, no-store");
      expect(contact.headers.get("x-cache-status")).toBe("MISS");
    }
    await untilHit(PAGE, "gzip");
    const signedIn = await viaNginx(PAGE, "gzip", "__Host-gh_portal=someone");
    expect(signedIn.headers.get("x-cache-status")).toBe("BYPASS");
    expect(signedIn.headers.get("cache-control")).toBe("private, no-store");
    for (let i = 0; i < 2; i++) expect((await viaNginx(`${PAGE}?size=10x10`, "gzip")).headers.get("x-cache-status")).toBe("BYPASS");
  });
});
