/**
 * Issue 20 (decision 203): is_sitelink_esign_enabled. On (the spec's data): the rental has its online
 * e-sign step. Off (the account's or the location's setting): there is no e-sign step, the renter
 * pays after the review, and the lease is recorded as not signed online: its page and the
 * confirmation say it is signed at the office.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { rentals, leases, locations } from "~/db/schema";
import { getCsrfToken } from "~/services/web/csrf.server";
import { quoteRental } from "~/services/rental/move-in.server";
import { rentalCookieHeader, getRental, saveDetails, saveProtection } from "~/services/rental/record.server";
import { getLeaseDocument } from "~/services/rental/lease-links.server";
import { action as rentAction, loader as rentLoader } from "~/routes/rental/rent";
import { loader as confirmationLoader } from "~/routes/rental/rent.confirmation";
import { createTestDatabase } from "../support/db";
import { ctxFor, lumbertonUnitType, NOW, tenantDetails } from "../support/rental-fixtures";
import { callRoute } from "../support/route-helpers";

const LUMBERTON = "lumberton-nc-28358";
let handle: DatabaseHandle;
let unitTypeId: string;

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  handle = await createTestDatabase();
  unitTypeId = (await lumbertonUnitType(handle.db)).unitTypeId;
});
afterAll(async () => {
  delete process.env.FAKE_NOW;
  await handle?.close();
});
beforeEach(async () => {
  await handle.db.update(locations).set({ globalSettings: {} });
});

/** A rental with details and a protection choice, not signed. */
async function reviewedRental() {
  const ctx = await ctxFor(handle.db, unitTypeId);
  const details = tenantDetails();
  const id = await saveDetails(handle.db, ctx, { existing: null, details, webPw: "secret1", now: NOW });
  await saveProtection(handle.db, ctx, (await getRental(handle.db, id, unitTypeId))!, "none", NOW);
  return { id, ctx };
}

async function cookieFor(id: string) {
  const { token, setCookie } = await getCsrfToken(new Request("http://localhost/rent"));
  return { csrf: token, cookie: `${setCookie!.split(";")[0]!}; ${(await rentalCookieHeader(id)).split(";")[0]!}` };
}

const page = async (id: string, step: string) => {
  const { cookie } = await cookieFor(id);
  return callRoute<{ steps: string[]; eSign: boolean; view: { step: string } | null; furthest: string }>(rentLoader, handle.db, `/rent/${unitTypeId}?step=${step}`, {
    params: { unitTypeId },
    init: { headers: { Cookie: cookie } },
  });
};

describe("is_sitelink_esign_enabled", () => {
  it("on (the spec's data): the e-sign step comes before payment", async () => {
    const { id } = await reviewedRental();
    const pay = await page(id, "pay");
    expect(pay.status).toBe(302);
    expect(pay.headers.get("Location")).toBe(`/rent/${unitTypeId}?step=sign`);
    const sign = await page(id, "sign");
    expect(sign.data.steps).toEqual(["details", "protection", "review", "sign", "pay"]);
    expect(sign.data.view!.step).toBe("sign");
  });

  it("off at the location: no e-sign step; after the review the renter pays; the lease says it is signed at the office", async () => {
    await handle.db.update(locations).set({ globalSettings: { is_sitelink_esign_enabled: false } }).where(eq(locations.urlSlug, LUMBERTON));
    const { id, ctx } = await reviewedRental();
    const review = await page(id, "review");
    expect(review.data.eSign).toBe(false);
    expect(review.data.steps).toEqual(["details", "protection", "review", "pay"]);
    expect(review.data.furthest).toBe("pay");
    // The sign step does not exist here: asked for, the furthest step answers.
    const sign = await page(id, "sign");
    expect(sign.status).toBe(302);
    expect(sign.headers.get("Location")).toBe(`/rent/${unitTypeId}?step=pay`);
    expect((await page(id, "pay")).data.view!.step).toBe("pay");

    const { csrf, cookie } = await cookieFor(id);
    const body = new URLSearchParams({ csrf, intent: "pay", card_number: "4242424242424242", exp_month: "12", exp_year: "2030", cvv: "123", name_on_card: "Ada Lovelace", billing_postal_code: "28358" });
    const paid = await callRoute(rentAction, handle.db, `/rent/${unitTypeId}?step=pay`, {
      params: { unitTypeId },
      init: { method: "POST", body, headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } },
    });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("Location")).toBe(`/rent/${unitTypeId}/confirmation`);

    const rental = (await handle.db.query.rentals.findFirst({ where: eq(rentals.id, id) }))!;
    const lease = (await handle.db.query.leases.findFirst({ where: eq(leases.id, rental.completedLeaseId!) }))!;
    expect(lease.signedName).toBe("");
    const doc = (await getLeaseDocument(handle.db, lease.id))!;
    const q = await quoteRental(ctx, "none");
    expect(doc.text).toContain(q.quote.lines[0]!.description);
    const confirmation = await callRoute<{ leaseSignedOnline: boolean }>(confirmationLoader, handle.db, `/rent/${unitTypeId}/confirmation`, {
      params: { unitTypeId },
      init: { headers: { Cookie: cookie } },
    });
    expect(confirmation.data.leaseSignedOnline).toBe(false);
  });
});
