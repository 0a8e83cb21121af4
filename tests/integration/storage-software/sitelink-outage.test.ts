/**
 * SiteLink unreachable at a SiteLink location (issue 11; the rule of issue 14): the process keeps
 * running, a page that cannot be shown answers 503 with Retry-After (never a 500), and a form keeps
 * what was typed and says to try again in a moment. The loaders and actions of the rental, the
 * reservation and the portal run against the SiteLink simulator (real SOAP) while it drops every
 * connection; the page answer is React Router's handleError + handleRequest (entry.server.tsx).
 */
import { eq, like, sql } from "drizzle-orm";
import type { EntryContext } from "react-router";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { accounts, rentals, rateLimitHits, reservations } from "~/db/schema";
import { FORM_UNAVAILABLE_MESSAGE, PAYMENT_UNAVAILABLE_MESSAGE } from "~/db/unavailable";
import handleRequest, { handleError } from "~/entry.server";
import { action as createSignInAction } from "~/routes/portal/create-sign-in";
import { loader as dashboardLoader } from "~/routes/portal/_index";
import { action as payAction, loader as payLoader } from "~/routes/portal/pay";
import { action as rentAction, loader as rentLoader } from "~/routes/rental/rent";
import { action as reserveAction } from "~/routes/rental/reserve";
import { getCsrfToken } from "~/services/web/csrf.server";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { rentalCookieHeader, getRental } from "~/services/rental/record.server";
import { createTenantSession } from "~/services/web/session.server";
import { card, ctxFor, NOW, signedRental, tenantDetails } from "../support/rental-fixtures";
import { callLayouts, callRoute, loadContext } from "../support/route-helpers";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

let bed: SiteLinkTestbed;
let unitTypeId: string;

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  bed = await startSyncedSiteLinkTestbed(NOW, { readTimeoutMs: 1500 });
    unitTypeId = (await roomiestSyncedUnitType(bed, bed.lumberton)).id;
});
afterAll(async () => {
  delete process.env.FAKE_NOW;
  await bed?.close();
});
beforeEach(() => bed.sim.control.clearFaults());

/** SiteLink stops answering: every connection is closed before anything is done. */
const siteLinkDown = () => bed.sim.control.addFault({ operation: "*", kind: "drop_before" });

/** A form post as the page sends it (CSRF token and cookie), plus other cookies. */
async function form(url: string, fields: Record<string, string>, cookies: string[] = []) {
  const { token, setCookie } = await getCsrfToken(new Request(`http://localhost${url}`, { headers: { Cookie: cookies.join("; ") } }));
  const all = [...(setCookie ? [setCookie.split(";")[0]!] : []), ...cookies];
  return { method: "POST", body: new URLSearchParams({ csrf: token, ...fields }), headers: { Cookie: all.join("; "), "Content-Type": "application/x-www-form-urlencoded" } };
}

/**
 * What the visitor gets for a loader that threw: React Router calls handleError, then renders the
 * document with handleRequest. Returns the response, or the error when it is not an outage.
 */
async function pageFor(url: string, run: (request: Request) => Promise<unknown>, cookies: string[] = []): Promise<Response> {
  const request = new Request(`http://localhost${url}`, { headers: { Cookie: cookies.join("; ") } });
  const error = await run(request).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, "the loader should fail while SiteLink is down").toBeTruthy();
  expect(error).not.toBeInstanceOf(Response);
  handleError(error, { request });
  const context = Object.assign(loadContext(bed.handle.db), { cspNonce: "n0nce" });
  // With an outage marked, the document is the 503 page before the router context is read.
  return (await handleRequest(request, 500, new Headers(), {} as EntryContext, context)) as Response;
}

async function expect503Page(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get("Retry-After")).toBe("30");
  expect(response.headers.get("Cache-Control")).toMatch(/no-store/);
  expect(await response.text()).toContain("We will be back in a moment");
}

const loaderArgs = (request: Request, params: Record<string, string> = {}) => ({ request, params, context: loadContext(bed.handle.db) }) as never;

/** A portal page's loader arguments as React Router gives them: after the portal layouts' middleware (session, unit). */
async function portalLoaderArgs(request: Request, params: Record<string, string> = {}) {
  const { context, pageRan } = await callLayouts(bed.handle.db, request.url, { init: { headers: request.headers } });
  expect(pageRan, "the portal layouts should let a signed-in tenant through").toBe(true);
  return { request, params, context } as never;
}

describe("the rental while SiteLink is unreachable", () => {
  it("a reload of the pay step is an honest 503 with Retry-After (it needs SiteLink's quote), then shows the page again", async () => {
    const { id, quote } = await signedRental(bed.handle.db, unitTypeId);
    const cookie = (await rentalCookieHeader(id)).split(";")[0]!;
    const url = `/rent/${unitTypeId}?step=pay`;
    siteLinkDown();
    await expect503Page(await pageFor(url, (request) => rentLoader(loaderArgs(request, { unitTypeId })), [cookie]));
    bed.sim.control.clearFaults();
    const back = await callRoute<{ view: { step: string; total: number } }>(rentLoader, bed.handle.db, url, { params: { unitTypeId }, init: { headers: { Cookie: cookie } } });
    expect(back.status).toBe(200);
    expect(back.data.view).toMatchObject({ step: "pay", total: quote.total });
  });

  it("paying: 503 with Retry-After and 'try again', nothing charged, the rental still open", async () => {
    const { id } = await signedRental(bed.handle.db, unitTypeId);
    const cookie = (await rentalCookieHeader(id)).split(";")[0]!;
    const paymentsBefore = bed.sim.control.inspectSite("L001").payments.length;
    siteLinkDown();
    const r = await callRoute<{ formError: string }>(rentAction, bed.handle.db, `/rent/${unitTypeId}?step=pay`, {
      params: { unitTypeId },
      init: await form(`/rent/${unitTypeId}`, { intent: "pay", card_number: "4242424242424242", exp_month: "12", exp_year: "2030", cvv: "123", name_on_card: "Ada Lovelace", billing_postal_code: "28358" }, [cookie]),
    });
    expect(r.status).toBe(503);
    expect(r.headers.get("Retry-After")).toBe("30");
    expect(r.data.formError).toMatch(/could not reach the facility's system just now\. Please try again/);
    expect(JSON.stringify(r.data)).not.toContain("4242424242424242");
    expect(bed.sim.control.inspectSite("L001").payments.length).toBe(paymentsBefore);
    expect((await getRental(bed.handle.db, id, unitTypeId))!.status).toBe("open");
  });

  it("the details form: 503, what was typed kept (never the password), no rental and no unit held", async () => {
    const before = (await bed.handle.db.select().from(rentals)).length;
    siteLinkDown();
    const d = tenantDetails();
    const fields = { intent: "details", first_name: d.first_name, last_name: d.last_name, email: d.email, cell_phone: "9105550134", addr_1: d.addr_1, city: d.city, region: d.region, postal_code: d.postal_code, web_pw: "Tidy-Unit-42", confirm_web_pw: "Tidy-Unit-42" };
    const r = await callRoute<{ result: { initialValue: Record<string, string>; error: Record<string, string[]> } }>(rentAction, bed.handle.db, `/rent/${unitTypeId}?step=details`, {
      params: { unitTypeId },
      init: await form(`/rent/${unitTypeId}`, fields),
    });
    expect(r.status).toBe(503);
    expect(r.headers.get("Retry-After")).toBe("30");
    expect(r.data.result.error[""]).toEqual([FORM_UNAVAILABLE_MESSAGE]);
    expect(r.data.result.initialValue).toMatchObject({ first_name: d.first_name, email: d.email, city: d.city });
    expect(r.data.result.initialValue.web_pw).toBeUndefined();
    expect((await bed.handle.db.select().from(rentals)).length).toBe(before);
  });
});

describe("the reservation while SiteLink is unreachable", () => {
  it("503 with Retry-After, the typed details kept, nothing reserved here", async () => {
    await bed.handle.db.update(accounts).set({ globalSettings: sql`${accounts.globalSettings} || '{"is_reservations_enabled": true}'::jsonb` });
    const before = (await bed.handle.db.select().from(reservations)).length;
    siteLinkDown();
    const fields = { first_name: "Ada", last_name: "Lovelace", email: `reserve-down-${Date.now()}@example.com`, phone: "9105550134", desired_move_in_date: "2026-11-24" };
    const r = await callRoute<{ result: { initialValue: Record<string, string> } }>(reserveAction, bed.handle.db, `/reserve/${unitTypeId}`, {
      params: { unitTypeId },
      init: await form(`/reserve/${unitTypeId}`, fields),
    });
    expect(r.status).toBe(503);
    expect(r.headers.get("Retry-After")).toBe("30");
    expect(r.data.result.initialValue).toMatchObject({ first_name: "Ada", email: fields.email });
    expect((await bed.handle.db.select().from(reservations)).length).toBe(before);
  });
});

describe("the portal while SiteLink is unreachable", () => {
  let session = "";
  let leaseId = "";

  beforeAll(async () => {
    bed.sim.control.clearFaults();
    const { id } = await signedRental(bed.handle.db, unitTypeId, { details: tenantDetails({ email: `portal-down-${Date.now()}@example.com` }) });
    const ctx = await ctxFor(bed.handle.db, unitTypeId);
    const outcome = await placeMoveIn(bed.handle.db, ctx, (await getRental(bed.handle.db, id, unitTypeId))!, {
      payment: { kind: "card", card: card() },
      autopay: false,
      now: NOW,
      origin: "https://www.example.com",
    });
    expect(outcome.status).toBe("completed");
    leaseId = (outcome as { leaseId: string }).leaseId;
    const [row] = await bed.handle.db.select().from(rentals).where(eq(rentals.id, id));
    const lease = await bed.handle.db.query.leases.findFirst({ where: (l, { eq }) => eq(l.id, row!.completedLeaseId!) });
    session = (await createTenantSession(bed.handle.db, { tenantId: String(lease!.tenantId), now: NOW })).split(";")[0]!;
  });

  it("the dashboard and the pay page (SiteLink's balance) are an honest 503 with Retry-After", async () => {
    siteLinkDown();
    await expect503Page(await pageFor("/customer-portal", async (request) => dashboardLoader(await portalLoaderArgs(request)), [session]));
    await expect503Page(await pageFor(`/customer-portal/units/${leaseId}/pay`, async (request) => payLoader(await portalLoaderArgs(request, { leaseId })), [session]));
  });

  it("a payment: 503, 'try again', the amount typed kept, the card never echoed, nothing charged", async () => {
    const paymentsBefore = bed.sim.control.inspectSite("L001").payments.length;
    siteLinkDown();
    const url = `/customer-portal/units/${leaseId}/pay`;
    const r = await callRoute<{ result: { initialValue: Record<string, string>; error: Record<string, string[]> } }>(payAction, bed.handle.db, url, {
      params: { leaseId },
      init: await form(
        url,
        { amount_choice: "other", other_amount: "12.34", payment_method: "new", card_number: "4242424242424242", exp_month: "12", exp_year: "2030", cvv: "123", name_on_card: "Ada Lovelace", billing_postal_code: "28358", idempotency_key: "down-key-0123456789abcdef" },
        [session],
      ),
    });
    expect(r.status).toBe(503);
    expect(r.headers.get("Retry-After")).toBe("30");
    expect(r.data.result.error[""]).toEqual([PAYMENT_UNAVAILABLE_MESSAGE]);
    expect(r.data.result.initialValue).toMatchObject({ other_amount: "12.34" });
    expect(JSON.stringify(r.data)).not.toContain("4242424242424242");
    expect(bed.sim.control.inspectSite("L001").payments.length).toBe(paymentsBefore);
  });

  it("office sign-in (SiteLink checks the web password): 503 with the e-mail kept", async () => {
    siteLinkDown();
    const url = "/customer-portal/create-sign-in";
    const r = await callRoute<{ result: { initialValue: Record<string, string> } }>(createSignInAction, bed.handle.db, url, {
      init: await form(url, { email: "office.tenant@example.com", office_password: "abc123", new_password: "Tidy-Unit-42", confirm_password: "Tidy-Unit-42" }),
    });
    expect(r.status).toBe(503);
    expect(r.headers.get("Retry-After")).toBe("30");
    expect(r.data.result.initialValue).toMatchObject({ email: "office.tenant@example.com" });
    expect(JSON.stringify(r.data)).not.toContain("Tidy-Unit-42");
    // Nothing was checked, so the attempt does not count against the e-mail or the IP.
    const counted = await bed.handle.db.select().from(rateLimitHits).where(like(rateLimitHits.key, "office-signin:%"));
    expect(counted.map((h) => h.count).filter((n) => n > 0)).toEqual([]);
  });
});
