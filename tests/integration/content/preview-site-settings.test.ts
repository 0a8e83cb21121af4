/**
 * Preview behaves as the site will after publishing (issue 24, decision 351), over real HTTP against
 * the BUILT server (tests/integration/support/built-server.ts: server/app.ts with its page cache and site
 * cache, on this test's database), on both drivers. One draft changes:
 * - the redirects: "/faq" now goes elsewhere with another status, "/terms" is removed, "/preview-only"
 *   is added;
 * - the old domains: "previewonly.example" is added, "lumbertonselfstorage.example" is removed;
 * - the website's analytics id (a Tag Manager container, live: none) and its custom header and body code.
 * In preview each takes effect as drafted (the redirects followed, the CSP allows the drafted provider,
 * the code is in the page), except on a page with card fields (never any operator code); a visitor
 * meanwhile gets the live answers, before and after any preview, from the page cache and the site
 * cache too, and no preview answer (redirects included) may be stored by anyone.
 */
// First: it gives this process and the built app one session secret.
import { startBuiltServer, type BuiltServer } from "../support/built-server";
import http from "node:http";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { locations, oldDomains, redirects, websites } from "~/db/schema";
import { PREVIEW_BANNER_TEXT } from "~/domain/content/preview";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { saveDraftEdit } from "~/services/content/changesets.server";
import { publicOrigin } from "~/services/site/origin.server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

const DRAFT_GTM = "GTM-PREV123";
const DRAFT_HEAD = '<meta name="gh-preview-check" content="drafted header code">';
const DRAFT_BODY = '<div id="gh-preview-body-code">drafted body code</div>';
const TAG_MANAGER = "googletagmanager.com";

let handle: DatabaseHandle;
let server: BuiltServer;
let owner: TestStaffMember;
let staff: string;
let jacksonville: string;
/** The configured origin every absolute redirect goes to. */
let origin: string;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A GET over a raw HTTP request, so the Host header is ours to choose (an old domain). */
function get(path: string, options: { cookie?: string; host?: string } = {}): Promise<Answer> {
  const { port } = new URL(server.origin);
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: "127.0.0.1", port, path, headers: { Host: options.host ?? `localhost:${port}`, ...(options.cookie ? { Cookie: options.cookie } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
  });
}

/**
 * Turns preview on for the owner's session: the console (its own origin) hands a grant to the public
 * site's /preview/start (decision 450). Returns the `gh_preview=…` pair.
 */
async function previewOn(member: TestStaffMember): Promise<string> {
  const token = await getCsrfToken(new Request(`${server.consoleOrigin}/admin/preview`, { headers: { Cookie: member.cookie } }));
  const csrfCookie = token.setCookie ? `; ${token.setCookie.split(";")[0]}` : "";
  const r = await fetch(`${server.consoleOrigin}/admin/preview`, {
    method: "POST",
    headers: { Cookie: `${member.cookie}${csrfCookie}`, "Content-Type": "application/x-www-form-urlencoded", Origin: server.consoleOrigin },
    body: new URLSearchParams({ [CSRF_FIELD]: token.token, intent: "on", returnTo: "/" }).toString(),
    redirect: "manual",
  });
  expect(r.status).toBe(303);
  const start = new URL(r.headers.get("location")!);
  expect(start.pathname).toBe("/preview/start");
  const taken = await fetch(`${server.origin}${start.pathname}${start.search}`, { redirect: "manual" });
  const cookie = taken.headers.getSetCookie().find((c) => c.startsWith("gh_preview="));
  expect(cookie).toBeDefined();
  return cookie!.split(";")[0]!;
}

/** Drops the built server's page cache and site cache (as any write's notification does) and waits until it has. */
async function dropCaches() {
  const generation = server.pageCache.generation;
  await handle.db.execute(sql`select pg_notify('gatehouse_changed', 'test')`);
  for (let i = 0; i < 400 && server.pageCache.generation === generation; i++) await new Promise((r) => setTimeout(r, 10));
  expect(server.pageCache.generation).toBeGreaterThan(generation);
}

/** Requests `path` anonymously until the page cache serves it. */
async function untilCached(path: string): Promise<Answer> {
  for (let i = 0; i < 40; i++) {
    const r = await get(path);
    if (r.headers["x-page-cache"] === "hit") return r;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${path} was never served from the page cache`);
}

const csp = (a: Answer) => String(a.headers["content-security-policy"] ?? "");
const notStored = (a: Answer) => {
  expect(a.headers["cache-control"]).toBe("no-store, private");
  expect(a.headers["x-robots-tag"]).toBe("noindex");
  expect(a.headers["x-page-cache"]).toBeUndefined();
};

/** What a visitor gets: the live redirects, old domains, CSP and code, whatever was previewed before. */
async function expectLiveForVisitors(origin: string) {
  const faq = await get("/faq");
  expect([faq.status, faq.headers.location]).toEqual([301, "/faqs"]);
  const terms = await get("/terms");
  expect([terms.status, terms.headers.location]).toEqual([301, "/privacy-policy"]);
  expect((await get("/preview-only")).status).toBe(404);
  const old = await get("/", { host: "lumbertonselfstorage.example" });
  expect([old.status, old.headers.location]).toEqual([301, `${origin}/locations/lumberton-nc-28358`]);
  const added = await get("/", { host: "previewonly.example" });
  expect(added.status).toBe(301);
  expect(added.headers.location).toBe(`${origin}/`);
  const about = await untilCached("/about");
  expect(about.body).not.toContain(DRAFT_HEAD);
  expect(about.body).not.toContain(DRAFT_BODY);
  expect(about.body).not.toContain(DRAFT_GTM);
  expect(about.body).not.toContain(PREVIEW_BANNER_TEXT);
  expect(csp(about)).not.toContain(TAG_MANAGER);
  // A preview cookie we did not sign is a visitor (the signed one alone is the preview: the public site
  // never sees the staff cookie, decision 450).
  const madeUp = await get("/faq", { cookie: "gh_preview=on" });
  expect([madeUp.status, madeUp.headers.location]).toEqual([301, "/faqs"]);
}

beforeAll(async () => {
  handle = await createTestDatabase({ seeded: true });
  const db = handle.db;
  const [website] = await db.select().from(websites).limit(1);
  expect(website!.analyticsId ?? null).toBeNull();
  owner = await signedInStaffMember(db, { accountId: website!.accountId, role: "owner" });
  origin = publicOrigin(website!);
  const rule = async (fromPath: string) => (await db.select().from(redirects).where(and(eq(redirects.websiteId, website!.id), eq(redirects.fromPath, fromPath))))[0]!;
  const faq = await rule("/faq");
  const terms = await rule("/terms");
  const [jax] = await db.select().from(locations).where(eq(locations.urlSlug, "jacksonville-nc-28546"));
  jacksonville = `/locations/${jax!.urlSlug}`;
  const [lumbertonOld] = await db.select().from(oldDomains).where(eq(oldDomains.hostname, "lumbertonselfstorage.example"));
  const edits = [
    { op: "update", entity: "redirect", recordId: faq.id, values: { toPath: "/about", statusCode: 302 }, base: { toPath: faq.toPath, statusCode: faq.statusCode } },
    { op: "delete", entity: "redirect", recordId: terms.id },
    { op: "create", entity: "redirect", values: { websiteId: website!.id, fromPath: "/preview-only", toPath: "/about", statusCode: 301, isForced: true } },
    { op: "create", entity: "oldDomain", values: { websiteId: website!.id, hostname: "previewonly.example", locationId: jax!.id } },
    { op: "delete", entity: "oldDomain", recordId: lumbertonOld!.id },
    {
      op: "update",
      entity: "website",
      recordId: website!.id,
      values: { analyticsId: DRAFT_GTM, customHeaderCode: DRAFT_HEAD, customBodyCode: DRAFT_BODY },
      base: { analyticsId: website!.analyticsId, customHeaderCode: website!.customHeaderCode, customBodyCode: website!.customBodyCode },
    },
  ] as const;
  for (const edit of edits) expect(await saveDraftEdit(db, owner.signedIn, edit as Parameters<typeof saveDraftEdit>[2]), JSON.stringify(edit)).toMatchObject({ ok: true });
  server = await startBuiltServer(handle);
  staff = `${owner.cookie}; ${await previewOn(owner)}`;
}, 600_000);

afterAll(async () => {
  await server?.close();
  await handle?.close();
});

describe("preview follows the draft's redirects, old domains, analytics and custom code (decision 351)", () => {
  it("a visitor first: the live answers, stored in the caches; a preview then gets the draft's, never from them", async () => {
    await dropCaches();
    await expectLiveForVisitors(origin);

    // The redirects as drafted: changed (target and status), removed, added.
    const faq = await get("/faq", { cookie: staff });
    expect([faq.status, faq.headers.location]).toEqual([302, "/about"]);
    notStored(faq);
    const terms = await get("/terms", { cookie: staff });
    expect(terms.status).toBe(404);
    expect(terms.body).toContain(PREVIEW_BANNER_TEXT);
    notStored(terms);
    const added = await get("/preview-only?utm=x", { cookie: staff });
    expect([added.status, added.headers.location]).toEqual([301, "/about?utm=x"]);
    notStored(added);

    // The old domains as drafted: the added one goes to its location page, the removed one is just another host.
    const newOld = await get("/", { host: "previewonly.example", cookie: staff });
    expect([newOld.status, newOld.headers.location]).toEqual([301, `${origin}${jacksonville}`]);
    notStored(newOld);
    const removed = await get("/", { host: "lumbertonselfstorage.example", cookie: staff });
    expect([removed.status, removed.headers.location]).toEqual([301, `${origin}/`]);

    // The analytics id and the custom code as drafted, with a CSP that lets the drafted provider load.
    const about = await get("/about", { cookie: staff });
    expect(about.status).toBe(200);
    expect(about.body).toContain(PREVIEW_BANNER_TEXT);
    expect(about.body).toContain(DRAFT_HEAD);
    expect(about.body).toContain(DRAFT_BODY);
    expect(about.body).toContain(DRAFT_GTM);
    expect(csp(about)).toContain(TAG_MANAGER);
    expect(csp(about)).toContain("frame-src https://www.googletagmanager.com");
    notStored(about);
    // The CSP nonce of the page is the one its scripts carry (the drafted tag runs).
    const nonce = /'nonce-([^']+)'/.exec(csp(about))?.[1];
    expect(nonce).toBeDefined();
    expect(about.body).toMatch(new RegExp(`<script nonce="${nonce!.replace(/[+/=]/g, (c) => `\\${c}`)}"[^>]*>[^<]*${DRAFT_GTM}`));

    // A page with card fields never gets operator code, nor the provider in its CSP, in preview either.
    const pay = await get("/pay/not-a-pay-link", { cookie: staff });
    expect(pay.body).not.toContain(DRAFT_HEAD);
    expect(pay.body).not.toContain(DRAFT_BODY);
    expect(pay.body).not.toContain(DRAFT_GTM);
    expect(pay.body).not.toContain(PREVIEW_BANNER_TEXT);
    expect(csp(pay)).not.toContain(TAG_MANAGER);

    // The visitors' answers are unchanged, still from the caches.
    await expectLiveForVisitors(origin);
  });

  it("a preview first, on empty caches: nothing of it reaches the page cache or the site cache", async () => {
    await dropCaches();
    for (let i = 0; i < 2; i++) {
      expect((await get("/faq", { cookie: staff })).headers.location).toBe("/about");
      expect((await get("/terms", { cookie: staff })).status).toBe(404);
      expect((await get("/preview-only", { cookie: staff })).status).toBe(301);
      expect((await get("/", { host: "previewonly.example", cookie: staff })).headers.location).toBe(`${origin}${jacksonville}`);
      expect((await get("/about", { cookie: staff })).body).toContain(DRAFT_HEAD);
    }
    await expectLiveForVisitors(origin);
  });

  it("a draft that no longer fits the live site: our own 409 page in preview, for an old domain too; visitors unaffected", async () => {
    // The live site takes the drafted old domain's hostname meanwhile: the draft cannot be applied.
    const [jax] = await handle.db.select().from(locations).where(eq(locations.urlSlug, "jacksonville-nc-28546"));
    const [website] = await handle.db.select().from(websites).limit(1);
    const [clash] = await handle.db.insert(oldDomains).values({ websiteId: website!.id, hostname: "previewonly.example", locationId: jax!.id }).returning();
    try {
      for (const answer of [await get("/about", { cookie: staff }), await get("/", { host: "previewonly.example", cookie: staff })]) {
        expect(answer.status).toBe(409);
        expect(answer.body).toContain("This draft cannot be previewed");
        notStored(answer);
      }
      const visitor = await get("/about");
      expect(visitor.status).toBe(200);
      expect(visitor.body).not.toContain(DRAFT_HEAD);
    } finally {
      await handle.db.delete(oldDomains).where(eq(oldDomains.id, clash!.id));
    }
  });
});
