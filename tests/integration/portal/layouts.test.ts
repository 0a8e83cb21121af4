/**
 * Issue 9: the portal's pay, prepay, autopay and move-out pages share a layout route that checks the
 * session (and the unit) first, so the checks are not repeated in each (decision 160). The layouts'
 * middleware answers before the page's loader or action runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { payments } from "~/db/schema";
import routes from "~/routes";
import { CSRF_FIELD, getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { signedInTenantContext, tenantUnitContext } from "~/services/portal/access.server";
import { createTenantSession } from "~/services/web/session.server";
import { action as payAction } from "~/routes/portal/pay";
import { action as prepayAction } from "~/routes/portal/prepay";
import { action as autopayAction } from "~/routes/portal/autopay";
import { action as moveOutAction, loader as moveOutLoader } from "~/routes/portal/move-out";
import { loader as signedInLoader } from "~/routes/portal/signed-in";
import { createTestDatabase } from "../support/db";
import { callLayouts, callRoute } from "../support/route-helpers";

const PAGES = [
  ["pay", payAction],
  ["prepay", prepayAction],
  ["autopay", autopayAction],
  ["move-out", moveOutAction],
] as const;
const SIGN_IN = "/customer-portal/login?redirectTo=%2Fcustomer-portal";

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await createTestDatabase();
});
afterAll(() => handle?.close());

async function signedInTenant() {
  const now = new Date();
  const t = await createTenantWithLease(handle.db, { email: `layouts-${Date.now()}-${Math.random()}@example.com`, password: "secret1", now, withInsurance: false });
  const session = (await createTenantSession(handle.db, { tenantId: String(t.tenantId), now })).split(";")[0]!;
  const csrf = (await getCsrfToken(new Request("http://localhost/", { headers: { Cookie: session } }))).token;
  return { leaseId: String(t.leaseId), session, csrf };
}

const post = (body: Record<string, string>, cookie?: string): RequestInit => ({
  method: "POST",
  body: new URLSearchParams(body),
  headers: { "Content-Type": "application/x-www-form-urlencoded", ...(cookie ? { Cookie: cookie } : {}) },
});

type Entry = { file: string; path?: string; children?: Entry[] };
const find = (list: Entry[], file: string): Entry | undefined => {
  for (const e of list) {
    if (e.file === file) return e;
    const inner = find(e.children ?? [], file);
    if (inner) return inner;
  }
};

describe("the portal's layouts", () => {
  it("pay, prepay, autopay and move-out are the unit layout's children, inside the signed-in layout with the dashboard, profile and receipts; sign-in pages are outside", () => {
    const tree = routes as unknown as Entry[];
    const signedIn = find(tree, "routes/portal/signed-in.tsx")!;
    const unit = find(signedIn.children ?? [], "routes/portal/unit.tsx")!;
    expect(signedIn.path).toBeUndefined();
    expect(unit.path).toBeUndefined();
    expect(unit.children!.map((c) => c.path)).toEqual(PAGES.map(([name]) => `customer-portal/units/:leaseId/${name}`));
    expect(signedIn.children!.map((c) => c.path ?? c.file)).toEqual([
      "customer-portal",
      "customer-portal/profile",
      "customer-portal/receipts/:paymentId",
      "routes/portal/unit.tsx",
    ]);
    for (const open of ["login", "logout", "create-sign-in", "forgot-password", "reset-password"]) {
      expect(find(signedIn.children!, `routes/customer-portal.${open}.tsx`), open).toBeUndefined();
    }
  });

  it.each(PAGES)("an unsigned POST to %s is sent to sign in by the layout: the action never runs", async (name, action) => {
    const url = `/customer-portal/units/1/${name}`;
    const layouts = await callLayouts(handle.db, url, { init: post({ intent: "cancel" }) });
    expect(layouts.pageRan).toBe(false);
    expect(layouts.result!.status).toBe(303);
    expect(layouts.result!.headers.get("Location")).toBe(SIGN_IN);
    // The same through the page: no CSRF error (403), no form error, just the redirect.
    const r = await callRoute(action, handle.db, url, { init: post({ intent: "cancel" }) });
    expect(r.status).toBe(303);
    expect(r.headers.get("Location")).toBe(SIGN_IN);
  });

  it("an unsigned GET is sent to sign in with the page as the return path", async () => {
    const r = await callLayouts(handle.db, "/customer-portal/units/1/move-out?x=1");
    expect(r.pageRan).toBe(false);
    expect(r.result!.headers.get("Location")).toBe(`/customer-portal/login?redirectTo=${encodeURIComponent("/customer-portal/units/1/move-out?x=1")}`);
  });

  it("another tenant's lease, or none: the layout finds no unit and the page answers 404 before reading the form (no CSRF check, no payment)", async () => {
    const mine = await signedInTenant();
    const theirs = await signedInTenant();
    const before = (await handle.db.select({ n: count() }).from(payments))[0]!.n;
    for (const leaseId of [theirs.leaseId, "999999999", "abc"]) {
      for (const [name, action] of PAGES) {
        const url = `/customer-portal/units/${leaseId}/${name}`;
        const layouts = await callLayouts(handle.db, url, { init: post({}, mine.session) });
        const verdict = layouts.context.get(tenantUnitContext);
        expect(verdict.ok, url).toBe(false);
        // No CSRF token: had the action read the form, it would answer 403.
        const r = await callRoute(action, handle.db, url, { init: post({ amount_choice: "other", other_amount: "5.00" }, mine.session) });
        expect(r.status, url).toBe(404);
        expect(r.headers.get("Cache-Control")).toContain("no-store");
      }
    }
    expect((await handle.db.select({ n: count() }).from(payments))[0]!.n).toBe(before);
  });

  it("the tenant's own lease: the layout hands the unit to the page", async () => {
    const mine = await signedInTenant();
    const url = `/customer-portal/units/${mine.leaseId}/move-out`;
    const layouts = await callLayouts(handle.db, url, { init: { headers: { Cookie: mine.session } } });
    expect(layouts.pageRan).toBe(true);
    const verdict = layouts.context.get(tenantUnitContext);
    expect(verdict.ok && verdict.value.lease.leaseId).toBe(mine.leaseId);
    const page = await callRoute<{ lease: { leaseId: string } }>(moveOutLoader, handle.db, url, { init: { headers: { Cookie: mine.session } } });
    expect(page.status).toBe(200);
    expect(page.data.lease.leaseId).toBe(mine.leaseId);
    // The page's own checks still follow: a form without its CSRF token is refused.
    expect((await callRoute(moveOutAction, handle.db, url, { init: post({ move_out_date: "2030-01-31" }, mine.session) })).status).toBe(403);
  });

  it("the signed-in layout's loader gives the portal navigation (decision 225) the tenant's name and a sign-out token of the session", async () => {
    const mine = await signedInTenant();
    const url = "/customer-portal/profile";
    const request = () => new Request(`http://localhost${url}`, { headers: { Cookie: mine.session } });
    const layouts = await callLayouts(handle.db, url, { init: { headers: { Cookie: mine.session } } });
    const verdict = layouts.context.get(signedInTenantContext);
    if (!verdict.ok) throw new Error("not signed in");
    const tenant = (await verdict.value.storage.getTenant(verdict.value.session.tenantId))!;
    const nav = await signedInLoader({ request: request(), params: {}, context: layouts.context } as never);
    expect(nav.name).toBe(`${tenant.firstName} ${tenant.lastName}`);
    const form = new FormData();
    form.set(CSRF_FIELD, nav.csrfToken);
    await expect(validateCsrf(request(), form)).resolves.toBeUndefined();
  });
});
