import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { oldDomains, redirects } from "~/db/schema";
import { getWebsite } from "~/db/queries/site.server";
import { listLocations } from "~/db/queries/locations.server";
import { RedirectLoopError, RedirectRuleError, saveOldDomain, saveRedirect } from "~/services/content/redirects.server";
import { resolveRedirect } from "~/services/site/redirects.server";
import { createTestDatabase } from "../support/db";

let handle: DatabaseHandle;
beforeEach(async () => {
  handle = await createTestDatabase();
});
afterEach(() => handle?.close());

const websiteId = async () => (await getWebsite(handle.db))!.id;
const allRules = async () =>
  (await handle.db.select().from(redirects).orderBy(redirects.fromPath)).map((r) => `${r.fromPath} → ${r.toPath}`);

describe("resolveRedirect: the permanent redirects of spec §2", () => {
  it.each([
    ["/contact-us", "", "/contact"],
    ["/Contact-Us/", "", "/contact"],
    ["/faq", "?q=gate", "/faqs?q=gate"],
    ["/FAQ/", "?a=1&b=2", "/faqs?a=1&b=2"],
    ["/payonline", "", "/customer-portal/login"],
    ["/privacy", "", "/privacy-policy"],
    ["/terms", "", "/privacy-policy"],
    ["/self-storage", "?utm_source=ad", "/view-locations?utm_source=ad"],
    ["/4350-Fayetteville-Rd/", "", "/view-locations"],
  ])("%s%s → 301 %s", async (pathname, search, location) => {
    expect(await resolveRedirect(handle.db, { host: "localhost:3000", pathname, search })).toEqual({ status: 301, location, forced: true });
  });

  it.each(["/", "/contact", "/faqs", "/locations/lumberton-nc-28358", "/contact-us/x"])("leaves %s alone", async (pathname) => {
    expect(await resolveRedirect(handle.db, { host: "localhost:3000", pathname, search: "" })).toBeNull();
  });
});

describe("resolveRedirect: a stored target a browser reads as another host is never followed (issue 36)", () => {
  it.each(["/\\evil.example", "\\\\evil.example", "/\t/evil.example", "/%5Cevil.example", "/%2F/evil.example"])("%j", async (toPath) => {
    await handle.db.insert(redirects).values({ websiteId: await websiteId(), fromPath: "/old-bad", toPath });
    expect(await resolveRedirect(handle.db, { host: "localhost:3000", pathname: "/old-bad", search: "" })).toBeNull();
  });

  it.each(["/\\evil.example", "/%5cevil.example", "/\n/evil.example"])("saveRedirect refuses %j", async (toPath) => {
    await expect(saveRedirect(handle.db, { websiteId: await websiteId(), fromPath: "/old-bad", toPath })).rejects.toBeInstanceOf(RedirectRuleError);
  });
});

describe("resolveRedirect: old domains go to their location page on the primary domain", () => {
  it.each([
    ["lumbertonselfstorage.example", "/", "", "lumberton-nc-28358"],
    ["www.lumbertonselfstorage.example", "/", "", "lumberton-nc-28358"],
    ["WWW.LUMBERTONSELFSTORAGE.EXAMPLE:443", "/old/page", "", "lumberton-nc-28358"],
    ["jacksonvillestorage.example", "/", "?utm_source=card", "jacksonville-nc-28546"],
    ["www.jacksonvillestorage.example:80", "/faq", "", "jacksonville-nc-28546"],
  ])("%s%s%s → 301 to %s", async (host, pathname, search, slug) => {
    const primary = (await getWebsite(handle.db))!.domain;
    expect(await resolveRedirect(handle.db, { host, pathname, search })).toEqual({
      status: 301,
      location: `https://${primary}/locations/${slug}${search}`,
      forced: true,
    });
  });

  it("does not redirect the primary domain or unknown hosts", async () => {
    const primary = (await getWebsite(handle.db))!.domain;
    expect(await resolveRedirect(handle.db, { host: primary, pathname: "/", search: "" })).toBeNull();
    expect(await resolveRedirect(handle.db, { host: "other.example", pathname: "/about", search: "" })).toBeNull();
  });
});

describe("saveRedirect", () => {
  it("saves a new rule, normalised, and it takes effect", async () => {
    const row = await saveRedirect(handle.db, { websiteId: await websiteId(), fromPath: "/Old-About/", toPath: "/about" });
    expect(row).toMatchObject({ fromPath: "/old-about", toPath: "/about", statusCode: 301 });
    expect(await resolveRedirect(handle.db, { host: "localhost", pathname: "/OLD-ABOUT", search: "" })).toEqual({ status: 301, location: "/about", forced: true });
  });

  it.each([
    ["a rule to itself", "/loop", "/loop/", "This redirect would make a loop: /loop → /loop/"],
    ["a loop with a seeded rule", "/contact", "/contact-us", "This redirect would make a loop: /contact → /contact-us → /contact"],
    ["a loop through two seeded rules", "/view-locations", "/self-storage", "This redirect would make a loop: /view-locations → /self-storage → /view-locations"],
  ])("refuses %s with a clear error and saves nothing", async (_name, fromPath, toPath, message) => {
    const before = await allRules();
    const attempt = saveRedirect(handle.db, { websiteId: await websiteId(), fromPath, toPath });
    await expect(attempt).rejects.toThrow(RedirectLoopError);
    await expect(saveRedirect(handle.db, { websiteId: await websiteId(), fromPath, toPath })).rejects.toThrow(message);
    expect(await allRules()).toEqual(before);
  });

  it("refuses a loop through an absolute URL on the primary domain", async () => {
    const primary = (await getWebsite(handle.db))!.domain;
    await expect(
      saveRedirect(handle.db, { websiteId: await websiteId(), fromPath: "/contact", toPath: `https://${primary}/Contact-Us` }),
    ).rejects.toThrow(RedirectLoopError);
  });

  it("refuses a chain that becomes a loop when a later row is saved", async () => {
    const id = await websiteId();
    await saveRedirect(handle.db, { websiteId: id, fromPath: "/a", toPath: "/b" });
    await saveRedirect(handle.db, { websiteId: id, fromPath: "/b", toPath: "/c" });
    await expect(saveRedirect(handle.db, { websiteId: id, fromPath: "/c", toPath: "/a" })).rejects.toThrow(
      "This redirect would make a loop: /c → /a → /b → /c",
    );
    // Pointing the first rule elsewhere is fine, and replaces it.
    await saveRedirect(handle.db, { websiteId: id, fromPath: "/a", toPath: "/faqs" });
    expect((await handle.db.select().from(redirects).where(eq(redirects.fromPath, "/a")))[0]!.toPath).toBe("/faqs");
  });

  it.each([
    ["no leading slash", "old", "/about", "The old path must start with a single /, like /contact-us."],
    ["the home page", "/", "/about", "The home page cannot be redirected."],
    ["a javascript: target", "/x", "javascript:alert(1)", "The new path must be a path like /contact or a full http(s) address."],
  ])("refuses %s", async (_name, fromPath, toPath, message) => {
    const attempt = saveRedirect(handle.db, { websiteId: await websiteId(), fromPath, toPath });
    await expect(attempt).rejects.toThrow(RedirectRuleError);
    await expect(saveRedirect(handle.db, { websiteId: await websiteId(), fromPath, toPath })).rejects.toThrow(message);
  });
});

describe("saveOldDomain", () => {
  it("stores the bare hostname, so www and either protocol match", async () => {
    const id = await websiteId();
    const kinston = (await listLocations(handle.db, (await getWebsite(handle.db))!.accountId)).find((l) => l.name === "Kinston")!;
    const row = await saveOldDomain(handle.db, { websiteId: id, hostname: "https://WWW.KinstonStorage.example/", locationId: kinston.id });
    expect(row.hostname).toBe("kinstonstorage.example");
    const primary = (await getWebsite(handle.db))!.domain;
    for (const host of ["kinstonstorage.example", "www.kinstonstorage.example"]) {
      expect(await resolveRedirect(handle.db, { host, pathname: "/", search: "" })).toEqual({
        status: 301,
        location: `https://${primary}/locations/kinston-nc-28501`,
        forced: true,
      });
    }
  });

  it("refuses the website's own domain and names that are not domains", async () => {
    const website = (await getWebsite(handle.db))!;
    const [location] = await listLocations(handle.db, website.accountId);
    await expect(saveOldDomain(handle.db, { websiteId: website.id, hostname: website.domain, locationId: location!.id })).rejects.toThrow(
      "The website's own domain cannot redirect to one of its pages.",
    );
    await expect(saveOldDomain(handle.db, { websiteId: website.id, hostname: "not a domain", locationId: location!.id })).rejects.toThrow(
      RedirectRuleError,
    );
    expect(await handle.db.select().from(oldDomains)).toHaveLength(2);
  });
});
