import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, eq, isNotNull } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { rentals, emailOutbox, units } from "~/db/schema";
import { getCsrfToken } from "~/services/web/csrf.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { saveDetails } from "~/services/rental/record.server";
import { resolveOldDomain } from "~/services/site/redirects.server";
import { getWebsite } from "~/db/queries/site.server";
import { action as forgotAction } from "~/routes/portal/forgot-password";
import { action as rentAction } from "~/routes/rental/rent";
import { loader as sitemapLoader } from "~/routes/site/sitemap[.]xml";
import { loader as robotsLoader } from "~/routes/site/robots[.]txt";
import { createTestDatabase } from "../support/db";
import { callRoute } from "../support/route-helpers";
import { ctxFor, lumbertonUnitType, NOW, tenantDetails } from "../support/rental-fixtures";
import { readOutboxMail } from "~/services/mail/outbox.server";

const ORIGIN = "https://www.gatehousestorage.example";
let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await createTestDatabase();
});
afterAll(() => handle?.close());

/** A form post as the browser sends it (CSRF cookie and field), from a host the visitor chose. */
async function formPost(fields: Record<string, string>, headers: Record<string, string> = {}) {
  const { token, setCookie } = await getCsrfToken(new Request("http://localhost/"));
  const body = new URLSearchParams({ ...fields, csrf: token });
  return { method: "POST", body, headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded", ...headers } };
}

describe("absolute links come from the configured origin, never the request (password-reset poisoning)", () => {
  it.each([
    ["Host", "http://evil.example/customer-portal/forgot-password", { Host: "evil.example" }],
    ["X-Forwarded-Host", "http://localhost/customer-portal/forgot-password", { "X-Forwarded-Host": "evil.example" }],
  ])("a reset requested with %s: evil.example mails a link on the website's origin", async (_name, url, headers) => {
    const email = `reset-${_name.toLowerCase()}-${Date.now()}@example.com`;
    await createTenantWithLease(handle.db, { email, password: "secret1", now: NOW, moveInDate: "2026-11-01", withInsurance: false });
    const r = await callRoute(forgotAction, handle.db, url, { init: await formPost({ email }, headers) });
    expect(r.status).toBe(303);
    const [mail] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, email));
    expect(readOutboxMail(mail!).text).toContain(`${ORIGIN}/customer-portal/reset-password?token=`);
    expect(JSON.stringify(mail)).not.toContain("evil.example");
  });

  it("the sitemap and robots.txt name the website's origin whatever host asked", async () => {
    const sitemap = await callRoute(sitemapLoader, handle.db, "http://evil.example/sitemap.xml");
    const xml = await sitemap.response!.text();
    expect(xml).toContain(`<loc>${ORIGIN}/faqs</loc>`);
    expect(xml).not.toContain("evil.example");
    const robots = await (await callRoute(robotsLoader, handle.db, "http://evil.example/robots.txt")).response!.text();
    expect(robots).toContain(`Sitemap: ${ORIGIN}/sitemap.xml`);
  });

  it("old domains still answer 301 to their location page on the website's origin", async () => {
    const website = await getWebsite(handle.db);
    const found = await resolveOldDomain(handle.db, { host: "www.lumbertonselfstorage.example", search: "?a=1" }, website);
    expect(found).toEqual({ status: 301, location: `${ORIGIN}/locations/lumberton-nc-28358?a=1`, forced: true });
    expect(await resolveOldDomain(handle.db, { host: "evil.example", search: "" }, website)).toBeNull();
  });
});

describe("control characters in the rental details step: a message beside the field, nothing half-saved", () => {
  const heldUnits = async () => (await handle.db.select({ n: count() }).from(units).where(isNotNull(units.holdToken)))[0]!.n;
  const rentalCount = async () => (await handle.db.select({ n: count() }).from(rentals))[0]!.n;

  it("a NUL in the first name answers 400 with the error on first_name, the other values kept, no rental, no hold", async () => {
    const { unitTypeId } = await lumbertonUnitType(handle.db);
    const [holdsBefore, rentalsBefore] = [await heldUnits(), await rentalCount()];
    const d = tenantDetails();
    const fields = {
      intent: "details",
      first_name: "Ada\u0000",
      last_name: "Love\u202Elace",
      email: d.email,
      cell_phone: "(910) 555-0134",
      web_pw: "secret1",
      confirm_web_pw: "secret1",
      addr_1: "1 Main St",
      city: "Lumberton",
      region: "NC",
      postal_code: "28358",
    };
    const r = await callRoute<{ result: { error: Record<string, string[]>; initialValue: Record<string, string> } }>(rentAction, handle.db, `/rent/${unitTypeId}`, {
      params: { unitTypeId },
      init: await formPost(fields),
    });
    expect(r.status).toBe(400);
    expect(Object.keys(r.data.result.error).sort()).toEqual(["first_name", "last_name"]);
    expect(r.data.result.error.first_name![0]).toMatch(/control/);
    expect(r.data.result.initialValue.city).toBe("Lumberton");
    expect(r.data.result.initialValue.web_pw).toBeUndefined();
    expect(await heldUnits()).toBe(holdsBefore);
    expect(await rentalCount()).toBe(rentalsBefore);
  });

  it("saveDetails that cannot write its rental lets go of the unit it held", async () => {
    const { unitTypeId } = await lumbertonUnitType(handle.db);
    const ctx = await ctxFor(handle.db, unitTypeId);
    const before = await heldUnits();
    // A NUL byte is refused by PostgreSQL's text type: the insert fails after the hold was taken.
    await expect(saveDetails(handle.db, ctx, { existing: null, details: tenantDetails({ city: "Lumber\u0000ton" }), webPw: "secret1", now: NOW })).rejects.toThrow();
    expect(await heldUnits()).toBe(before);
    const open = await handle.db.select({ n: count() }).from(rentals).where(and(eq(rentals.status, "open")));
    expect(open[0]!.n).toBe(0);
  });
});
