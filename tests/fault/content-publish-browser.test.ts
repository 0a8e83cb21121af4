/**
 * Issue 24's browser test, with JavaScript on and off, against TWO built server processes on one
 * PostgreSQL (the fault harness: a private cluster, `node server.js` twice):
 * - in the console on process A, change Lumberton's Saturday office hours and give a description to the
 *   10×10 drive-up unit type: both go into one draft changeset;
 * - the preview shows both to the staff member; the live site (A and B, anonymous) shows neither;
 * - the diff lists the affected URLs (the location page and the unit type page);
 * - after "Publish now", both live pages show both changes within seconds, not its lifetime, on A and on B;
 * - restoring the version that was live before gives pages byte-identical to before (apart from the
 *   per-response CSP nonce), on A and on B.
 *
 * Chromium is driven through Playwright's library (the browser Debian ships, as in tests/e2e); the
 * staff member's session is made through the session service (the sign-in itself, with its second
 * factor, is the subject of tests/e2e/staff/sign-in.spec.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "@playwright/test";
import { openDatabase, type DatabaseHandle } from "~/db/client.server";
import { SEEN_WITHIN_MS } from "./support/seen";
import { LOCATION, UNIT_TYPE_PAGE, prepareDatabase } from "./support/database";
import { clusterSkipReason, createCluster, type PgCluster } from "./support/pg-cluster";
import { productionEnv, startServer, type ServerHandle } from "./support/server";
import { sleep } from "./support/ports";
import { signedInStaffMember, type TestStaffMember } from "../integration/support/staff-fixtures";

const skip = clusterSkipReason();
if (skip) console.warn(`[fault] content-publish-browser skipped: ${skip}`);
// The staff session cookie this test makes is signed with the servers' secret.
process.env.SESSION_SECRET = productionEnv({}).SESSION_SECRET;

const LOCATION_PAGE = `/locations/${LOCATION}`;
const PAGES = [LOCATION_PAGE, UNIT_TYPE_PAGE];

let cluster: PgCluster | undefined;
let handle: DatabaseHandle | undefined;
let a: ServerHandle | undefined;
let b: ServerHandle | undefined;
let browser: Browser | undefined;
let owner: TestStaffMember;
let locationId = 0;
let unitTypeId = 0;

const sql = (text: string, params: unknown[] = []) => cluster!.query(text, params);

/** A visitor's page (no cookie) with what differs on every response (the CSP nonce) blanked. */
async function visitorPage(server: ServerHandle, path: string): Promise<string> {
  const res = await fetch(`${server.baseUrl}${path}`, { redirect: "manual", signal: AbortSignal.timeout(10_000) });
  expect(res.status, `${server.baseUrl}${path}`).toBe(200);
  return (await res.text()).replace(/nonce="[^"]*"/g, 'nonce=""');
}

async function publishedVersion(): Promise<number> {
  const r = await sql("select max(version) as v from changesets where status = 'published'");
  return r.rows[0].v == null ? 0 : Number(r.rows[0].v);
}

async function submit(page: Page, name: string | RegExp) {
  await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name, exact: typeof name === "string" }).first().click()]);
  await page.waitForLoadState("load");
}

describe.skipIf(Boolean(skip))("issue 24 in a browser: one changeset previewed, diffed, published on two processes, rolled back", () => {
  beforeAll(async () => {
    cluster = await createCluster();
    unitTypeId = await prepareDatabase(cluster.url, { extraUnits: 0 });
    handle = openDatabase({ url: cluster.url, poolSize: 2 });
    const loc = await sql("select id, account_id from locations where url_slug = $1", [LOCATION]);
    locationId = Number(loc.rows[0].id);
    owner = await signedInStaffMember(handle.db, { accountId: Number(loc.rows[0].account_id), role: "owner" });
    const env = { DATABASE_URL: cluster.url };
    [a, b] = await Promise.all([startServer({ env }), startServer({ env })]);
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([a?.stop(5_000), b?.stop(5_000)]);
    await handle?.close();
    cluster?.destroy();
  });

  for (const js of [true, false]) {
    it(`JavaScript ${js ? "on" : "off"}: hours and a promotion, preview, diff, publish on A seen on A and B within seconds, rollback byte-identical`, async () => {
      const closes = js ? { value: "15:45", shown: "3:45 PM" } : { value: "15:15", shown: "3:15 PM" };
      // A unit type's description (its card and its page show it); a promotion's words come from what it gives (decision 674).
      const promotion = js ? "Wide door, lit aisle (with JavaScript)" : "Wide door, lit aisle (without JavaScript)";

      const before: Record<string, string> = {};
      for (const s of [a!, b!]) for (const p of PAGES) before[`${s.port}${p}`] = await visitorPage(s, p);
      for (const html of Object.values(before)) {
        expect(html).not.toContain(closes.shown);
        expect(html).not.toContain(promotion);
      }
      const versionBefore = await publishedVersion();

      const context = await browser!.newContext({ baseURL: a!.baseUrl, javaScriptEnabled: js });
      const [name, value] = owner.cookie.split("=") as [string, string];
      // The staff cookie belongs to the console's own origin (decision 450); /admin on the public site redirects there.
      // (A Secure cookie is added through its https:// address: Chromium sends it to http://admin.localhost too, a trustworthy origin.)
      await context.addCookies([{ name, value, url: name.startsWith("__Host-") ? a!.consoleUrl.replace(/^http:/, "https:") : a!.consoleUrl }]);
      const page = await context.newPage();
      try {
        // Saturday's office hours (the second line of Lumberton's office hours: "Sa").
        await page.goto(`/admin/content/locations/${locationId}/hours`);
        const saturday = page.getByRole("group", { name: "Office hours, line 2", exact: true });
        expect(await saturday.getByRole("checkbox", { name: "Saturday" }).isChecked()).toBe(true);
        await saturday.getByLabel("Closes").fill(closes.value);
        await Promise.all([page.waitForURL(/done=saved/), saturday.getByRole("button", { name: "Save this line" }).click()]);

        // A description on the 10×10 drive-up unit type.
        await page.goto(`/admin/content/unit-types/${unitTypeId}`);
        await page.getByLabel(/^Description( Changed, not published)?$/).fill(promotion);
        await Promise.all([page.waitForURL(/done=saved/), page.getByRole("button", { name: "Save unit type" }).click()]);

        // One changeset holds both.
        const draft = await sql("select c.entity from changeset_changes c join changesets s on s.id = c.changeset_id where s.status = 'draft' order by c.entity");
        expect(draft.rows.map((r) => r.entity)).toEqual(["hoursItem", "unitType"]);

        // The live site (both processes, visitors) shows neither.
        for (const s of [a!, b!]) {
          for (const p of PAGES) {
            const html = await visitorPage(s, p);
            expect(html).not.toContain(closes.shown);
            expect(html).not.toContain(promotion);
          }
        }

        // The preview shows both.
        await page.goto("/admin/preview");
        await submit(page, "Preview the site");
        await page.goto(LOCATION_PAGE);
        await page.getByText("these changes are not live yet", { exact: false }).first().waitFor({ state: "visible", timeout: 10_000 });
        const previewText = await page.locator("main").innerText();
        expect(previewText).toContain(closes.shown);
        expect(previewText).toContain(promotion);
        await page.goto(UNIT_TYPE_PAGE);
        expect(await page.locator("main").innerText()).toContain(promotion);
        // …and still only to the staff member.
        for (const s of [a!, b!]) expect(await visitorPage(s, LOCATION_PAGE)).not.toContain(promotion);
        await page.goto("/admin/preview");
        await submit(page, "Leave preview");

        // The diff lists the affected URLs.
        await page.goto("/admin/changes/diff");
        const pagesThatChange = page.getByRole("heading", { name: /Pages that change/ });
        await pagesThatChange.waitFor({ state: "visible", timeout: 60_000 });
        expect(await page.getByRole("link", { name: LOCATION_PAGE, exact: true }).count()).toBeGreaterThan(0);
        expect(await page.getByRole("link", { name: UNIT_TYPE_PAGE, exact: true }).count()).toBeGreaterThan(0);

        // Publish: both live pages show both changes within seconds, not its lifetime, on A and on B.
        await page.goto("/admin/changes");
        await submit(page, "Publish now");
        expect(page.url()).toContain("done=published");
        const publishedAt = Date.now();
        const pending = new Set(PAGES.flatMap((p) => [a!, b!].map((s) => [s, p] as const)));
        while (pending.size && Date.now() - publishedAt < SEEN_WITHIN_MS) {
          for (const entry of [...pending]) {
            const [s, p] = entry;
            const html = await visitorPage(s, p);
            if (html.includes(promotion) && (p !== LOCATION_PAGE || html.includes(closes.shown))) pending.delete(entry);
          }
          if (pending.size) await sleep(25);
        }
        expect([...pending].map(([s, p]) => `${s.baseUrl}${p}`)).toEqual([]);

        // Roll back to the version that was live before: byte-identical pages on both processes.
        await page.goto(`/admin/changes/versions/${versionBefore}`);
        await submit(page, `Restore version ${versionBefore} now`);
        expect(page.url()).toContain("/admin/changes");
        const deadline = Date.now() + 5_000;
        let differing: string[] = [];
        do {
          differing = [];
          for (const s of [a!, b!]) for (const p of PAGES) if ((await visitorPage(s, p)) !== before[`${s.port}${p}`]) differing.push(`${s.baseUrl}${p}`);
          if (differing.length) await sleep(50);
        } while (differing.length && Date.now() < deadline);
        expect(differing).toEqual([]);
      } finally {
        await context.close();
      }
      // Nothing on either server's stderr: in particular no "Calling client.query() when the client is
      // already executing a query" from node-postgres (a previewed page's loaders share the preview
      // transaction's one connection; their statements are sent one at a time, decision 350).
      expect([...a!.errorLines(), ...b!.errorLines()]).toEqual([]);
    }, 180_000);
  }
});
