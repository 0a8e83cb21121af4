/**
 * The checked-in deploy/nginx.conf in front of two BUILT server processes on one PostgreSQL
 * (docs/deploy.md), TLS left out: requests are spread over both processes (each fills its own page
 * cache), a whole rental and a portal session work through it whichever process answers each
 * step, nginx serves the build's assets itself, and when one process stops the other takes its
 * requests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { openDatabase } from "~/db/client.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { prepareDatabase, UNIT_TYPE_PAGE } from "./support/database";
import { clusterSkipReason, createCluster, type PgCluster } from "./support/pg-cluster";
import { REPO_ROOT, startServer, type ServerHandle } from "./support/server";
import { inputValue, Recorder, Visitor } from "./support/http";
import { rentOnce } from "./support/rental";
import { freePort } from "./support/ports";
import { nginxSkipReason, startNginx } from "./support/nginx";

const skip = clusterSkipReason() ?? nginxSkipReason();
if (skip) console.warn(`[fault] behind-nginx skipped: ${skip}`);

let cluster: PgCluster | undefined;
let a: ServerHandle | undefined;
let b: ServerHandle | undefined;
let nginx: { url: string; stop(): Promise<void> } | undefined;
let unitTypeId = 0;
const TENANT = { email: "behind.nginx@example.com", password: "Proxy-Pass-2048" };

describe.skipIf(Boolean(skip))("deploy/nginx.conf in front of two processes", () => {
  beforeAll(async () => {
    cluster = await createCluster();
    unitTypeId = await prepareDatabase(cluster.url, { extraUnits: 2 });
    const handle = openDatabase({ url: cluster.url, poolSize: 2 });
    try {
      await createTenantWithLease(handle.db, { email: TENANT.email, password: TENANT.password, firstName: "Nadia", lastName: "Upstream", now: new Date() });
    } finally {
      await handle.close();
    }
    const port = await freePort();
    // One public origin for both processes: nginx's.
    const env = { DATABASE_URL: cluster.url, PUBLIC_URL: `http://127.0.0.1:${port}` };
    [a, b] = await Promise.all([startServer({ env }), startServer({ env })]);
    nginx = await startNginx(port, [a.port, b.port]);
  }, 120_000);

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all([a?.stop(5_000), b?.stop(5_000)]);
    cluster?.destroy();
  });

  it("spreads requests over both processes, each with its own page cache", async () => {
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await fetch(`${nginx!.url}/faqs`, { headers: { "Accept-Encoding": "gzip" } });
      expect(r.status).toBe(200);
      expect(r.headers.get("content-encoding")).toBe("gzip");
      await r.arrayBuffer();
      seen.push(r.headers.get("x-page-cache") ?? "none");
    }
    // Round robin: each process renders the page once (two misses), then both answer from their cache.
    expect(seen).toEqual(["miss", "miss", "hit", "hit"]);
  });

  it("a whole rental and a portal session work through it, whichever process answers each step", async () => {
    const result = await rentOnce(nginx!.url, "nginx", { unitTypeId, unitTypePage: UNIT_TYPE_PAGE });
    expect(result.failure).toBeNull();
    expect(result.confirmed).toBe(true);

    const tenant = new Visitor("tenant", nginx!.url, new Recorder());
    const form = await tenant.request("GET", "/customer-portal/login");
    const signedIn = await tenant.request("POST", "/customer-portal/login", { csrf: inputValue(form.text, "csrf")!, email: TENANT.email, password: TENANT.password, redirectTo: "/customer-portal" });
    expect(signedIn.status).toBe(303);
    for (let i = 0; i < 4; i++) {
      const dashboard = await tenant.request("GET", "/customer-portal");
      expect(dashboard.status).toBe(200);
      expect(dashboard.text).toContain("Nadia");
    }
  }, 60_000);

  it("serves the build's assets itself, cached for a year", async () => {
    const css = fs.readdirSync(path.join(REPO_ROOT, process.env.BUILD_DIR ?? "build", "client", "assets")).find((f) => f.endsWith(".css"))!;
    const r = await fetch(`${nginx!.url}/assets/${css}`);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    expect(r.headers.get("server")).toMatch(/^nginx/);
  });

  it("readiness answers only on the one spelling nginx restricts (issue 19)", async () => {
    // deploy/nginx.conf keeps `location = /readyz` for the monitor; any other spelling reaches the app
    // through `location /`, where it is an unknown page, never the readiness check.
    for (const spelling of ["/READYZ", "/readyz/", "/Readyz?x=1", "/readyz%2F"]) {
      const r = await fetch(`${nginx!.url}${spelling}`);
      expect(r.status, spelling).toBe(404);
      expect(await r.text(), spelling).not.toMatch(/^(?:not )?ready/);
      expect(r.headers.get("x-powered-by"), spelling).toBeNull();
    }
  });

  it("when one process stops, the other answers every request", async () => {
    await a!.stop(5_000);
    for (const p of ["/", "/about", "/units", "/contact", "/faqs", "/view-locations"]) {
      const r = await fetch(`${nginx!.url}${p}`, { signal: AbortSignal.timeout(10_000) });
      expect(r.status, p).toBe(200);
      await r.arrayBuffer();
    }
  }, 30_000);
});
