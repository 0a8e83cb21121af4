/**
 * `redirects.is_forced` (the editor's "Redirect even when the old path still has a page"): a forced
 * rule redirects before any page renders; a rule that is not forced moves only a path where no page
 * answers (a 404), so a page at that path wins. Over HTTP against the built server (server/app.ts
 * decides redirects).
 */
// First: it gives this process and the built app one session secret.
import { startBuiltServer, type BuiltServer } from "../support/built-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { redirects } from "~/db/schema";
import { getWebsite } from "~/db/queries/site.server";
import { createTestDatabase } from "../support/db";

let handle: DatabaseHandle;
let server: BuiltServer;

beforeAll(async () => {
  handle = await createTestDatabase();
  const websiteId = (await getWebsite(handle.db))!.id;
  await handle.db.insert(redirects).values([
    { websiteId, fromPath: "/about", toPath: "/units", statusCode: 301, isForced: false },
    { websiteId, fromPath: "/winter-specials", toPath: "/units", statusCode: 302, isForced: false },
    { websiteId, fromPath: "/storage-tips", toPath: "/faqs", statusCode: 301, isForced: true },
  ]);
  server = await startBuiltServer(handle);
}, 600_000);

afterAll(async () => {
  await server?.close();
  await handle?.close();
});

const get = (path: string) => fetch(`${server.origin}${path}`, { redirect: "manual" });

describe("redirect rules: forced or only where no page answers", () => {
  it("a rule that is not forced leaves a page that answers alone", async () => {
    const about = await get("/about");
    expect(about.status).toBe(200);
    expect(about.headers.get("location")).toBeNull();
    expect(await about.text()).toContain("<h1");
  });

  it("a rule that is not forced moves a path where no page answers, with its status and the query kept", async () => {
    const moved = await get("/winter-specials?utm_source=flyer");
    expect(moved.status).toBe(302);
    expect(moved.headers.get("location")).toBe("/units?utm_source=flyer");
    // A path with no rule is still the ordinary 404.
    expect((await get("/winter-specials-2")).status).toBe(404);
  });

  it("a forced rule moves a path even though its page exists", async () => {
    const forced = await get("/storage-tips");
    expect(forced.status).toBe(301);
    expect(forced.headers.get("location")).toBe("/faqs");
  });

  it("the spec's permanent redirects are forced", async () => {
    const old = await get("/faq");
    expect(old.status).toBe(301);
    expect(old.headers.get("location")).toBe("/faqs");
  });
});
