import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { leases } from "~/db/schema";
import { env } from "~/platform/env.server";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { checkLeaseToken, leaseDocumentPath, portalLeasePath } from "~/services/rental/lease-links.server";
import { rentalCookieHeader, getRental } from "~/services/rental/record.server";
import { createTenantSession } from "~/services/web/session.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { loader as leaseLoader } from "~/routes/rental/rent.lease";
import { loader as confirmationLoader } from "~/routes/rental/rent.confirmation";
import { createTestDatabase } from "../support/db";
import { callRoute } from "../support/route-helpers";
import { card, ctxFor, lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";

/** Lease links expire (30 days, inside the HMAC); the confirmation page is shown for 24 hours (decision 078). */
let handle: DatabaseHandle;
let leaseId: number;
let tenantId: number;
let unitTypeId: string;
let rentalCookie: string;
let movedInAt: Date;
const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  handle = await createTestDatabase();
  const { db } = handle;
  unitTypeId = (await lumbertonUnitType(db)).unitTypeId;
  const { id } = await signedRental(db, unitTypeId);
  const result = await placeMoveIn(db, await ctxFor(db, unitTypeId), (await getRental(db, id, unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: "http://localhost" });
  leaseId = Number((result as { leaseId: string }).leaseId);
  const lease = (await db.query.leases.findFirst({ where: eq(leases.id, leaseId) }))!;
  tenantId = lease.tenantId;
  movedInAt = lease.createdAt;
  rentalCookie = (await rentalCookieHeader(id)).split(";")[0]!;
});
afterAll(() => handle?.close());
afterEach(() => {
  delete process.env.FAKE_NOW;
});

const at = (d: Date) => {
  process.env.FAKE_NOW = d.toISOString();
};
const openLease = (path: string, cookie?: string) =>
  callRoute(leaseLoader, handle.db, path, { params: { leaseId: path.split("/")[3]!.split("?")[0]! }, init: cookie ? { headers: { Cookie: cookie } } : undefined });
const sessionOf = async (tenant: number) =>
  (await createTenantSession(handle.db, { tenantId: String(tenant), now: new Date() })).split(";")[0]!;

describe("lease links", () => {
  it("carry an expiry inside the signed token: open before it, 'expired' (410, sign in to the portal) after", async () => {
    const t0 = new Date("2026-11-22T15:00:00Z");
    const path = leaseDocumentPath(leaseId, t0);
    expect(path).toMatch(new RegExp(`^/rent/lease/${leaseId}\\?token=\\d+\\.[A-Za-z0-9_-]{32}$`));

    at(new Date(t0.getTime() + 29 * DAY));
    const open = await openLease(path);
    expect(open.status).toBe(200);
    expect(await open.response!.text()).toContain("Signed electronically by");

    at(new Date(t0.getTime() + 31 * DAY));
    const expired = await openLease(path);
    expect(expired.status).toBe(410);
    const html = await expired.response!.text();
    expect(html).toContain("This lease link has expired");
    expect(html).toContain('href="/customer-portal/login"');
    expect(html).not.toContain("Signed electronically by");
  });

  it("refuses a token whose expiry was pushed back (the expiry is signed), and another lease's token", async () => {
    const t0 = new Date("2026-11-22T15:00:00Z");
    const token = new URL(leaseDocumentPath(leaseId, t0), "http://x").searchParams.get("token")!;
    const [exp, mac] = token.split(".");
    const later = `${Number(exp) + 365 * 86400}.${mac}`;
    expect(checkLeaseToken(String(leaseId), later, t0)).toBe("invalid");
    expect((await openLease(`/rent/lease/${leaseId}?token=${later}`)).status).toBe(404);
    expect(checkLeaseToken(String(leaseId + 1), token, t0)).toBe("invalid");
    expect(checkLeaseToken(String(leaseId), token, t0)).toBe("ok");
  });

  it("treats a link made before links expired (no expiry in it) as expired", async () => {
    const legacy = crypto.createHmac("sha256", env().sessionSecrets[0]!).update(`lease:${leaseId}`).digest("base64url").slice(0, 32);
    expect(checkLeaseToken(String(leaseId), legacy, new Date())).toBe("expired");
    expect((await openLease(`/rent/lease/${leaseId}?token=${legacy}`)).status).toBe(410);
  });

  it("open in the portal for the signed-in tenant who holds the lease, even without or with an expired token; nobody else", async () => {
    const own = await sessionOf(tenantId);
    expect((await openLease(portalLeasePath(leaseId), own)).status).toBe(200);
    const old = leaseDocumentPath(leaseId, new Date(Date.now() - 60 * DAY));
    expect((await openLease(old, own)).status).toBe(200);

    expect((await openLease(portalLeasePath(leaseId))).status).toBe(404);
    const other = await createTenantWithLease(handle.db, { email: `links-${Date.now()}@example.com`, password: "secret1", now: NOW, moveInDate: "2026-11-22", withInsurance: false });
    expect((await openLease(portalLeasePath(leaseId), await sessionOf(other.tenantId))).status).toBe(404);
  });
});

describe("the rental confirmation page", () => {
  const open = (cookie?: string) =>
    callRoute<{ expired: boolean; gateCode?: string }>(confirmationLoader, handle.db, `/rent/${unitTypeId}/confirmation`, {
      params: { unitTypeId },
      init: cookie ? { headers: { Cookie: cookie } } : undefined,
    });

  it("shows the rental to its own browser within 24 hours of the move-in", async () => {
    at(new Date(movedInAt.getTime() + 23 * 60 * 60 * 1000));
    const r = await open(rentalCookie);
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ expired: false, gateCode: expect.stringMatching(/^\d{6}$/) });
  });

  it("is not shown to another browser (no rental cookie)", async () => {
    at(new Date(movedInAt.getTime() + 60 * 1000));
    const r = await open();
    expect(r.status).toBe(302);
    expect(r.response!.headers.get("Location")).toBe(`/rent/${unitTypeId}`);
  });

  it("after 24 hours says plainly the link has expired (410), without the gate code or receipt", async () => {
    at(new Date(movedInAt.getTime() + 25 * 60 * 60 * 1000));
    const r = await open(rentalCookie);
    expect(r.status).toBe(410);
    expect(r.data).toEqual({ expired: true, hours: 24 });
  });
});
