/**
 * Issue 19 item 1 (decision 200): production never charges through the test gateway. With the
 * built-in test gateway every card form says it is a demonstration; with no gateway configured
 * (PAYMENT_GATEWAY=none, production's only choice besides the demonstration) a location whose cards
 * go through our gateway offers "call the office" instead of a card form, in the rental and in the
 * portal, and a card posted anyway charges nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { rentals, leases, payments } from "~/db/schema";
import { getCsrfToken } from "~/services/web/csrf.server";
import { rentalCookieHeader } from "~/services/rental/record.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { createTenantSession } from "~/services/web/session.server";
import { getPaymentGateway, NO_GATEWAY, setPaymentGatewayForTests, setPaymentGatewayNameForTests, type PaymentGateway } from "~/platform/payments/gateway.server";
import { action as rentAction, loader as rentLoader } from "~/routes/rental/rent";
import { action as payAction, loader as payLoader } from "~/routes/portal/pay";
import { action as autopayAction, loader as autopayLoader } from "~/routes/portal/autopay";
import { loader as prepayLoader } from "~/routes/portal/prepay";
import { loader as locationLoader } from "~/routes/site/location";
import { createTestDatabase } from "../support/db";
import { lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";
import { callRoute } from "../support/route-helpers";

let handle: DatabaseHandle;
let unitTypeId: string;

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  handle = await createTestDatabase();
  unitTypeId = (await lumbertonUnitType(handle.db)).unitTypeId;
});
afterAll(async () => {
  delete process.env.FAKE_NOW;
  setPaymentGatewayNameForTests(null);
  setPaymentGatewayForTests(null);
  await handle?.close();
});
afterEach(() => {
  setPaymentGatewayNameForTests(null);
  setPaymentGatewayForTests(null);
});

/** A gateway that records every call (and approves like the test gateway would). */
function watchedGateway(): PaymentGateway & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    fields: "own-inputs",
    async charge() {
      calls.push("charge");
      return { status: "approved", authReference: "AUTH-X", brand: "visa", last4: "4242", cardToken: "tok_visa_4242_ok_122030_x" };
    },
    async tokenize() {
      calls.push("tokenize");
      return { status: "ok", brand: "visa", last4: "4242", cardToken: "tok_visa_4242_ok_122030_x" };
    },
    async lookup() {
      calls.push("lookup");
      return null;
    },
    async refund() {
      calls.push("refund");
      return { refunded: false };
    },
  };
}

async function rentalCookie(rentalId: string) {
  const { token, setCookie } = await getCsrfToken(new Request("http://localhost/rent"));
  return { csrf: token, cookie: `${setCookie!.split(";")[0]!}; ${(await rentalCookieHeader(rentalId)).split(";")[0]!}` };
}

const CARD = { card_number: "4242424242424242", exp_month: "12", exp_year: "2030", cvv: "987", name_on_card: "Ada Lovelace", billing_postal_code: "28358" };

async function rentPayPage(rentalId: string) {
  const { cookie } = await rentalCookie(rentalId);
  return callRoute<{ blocked: string | null; view: { step: string; demonstration?: boolean } | null }>(rentLoader, handle.db, `/rent/${unitTypeId}?step=pay`, {
    params: { unitTypeId },
    init: { headers: { Cookie: cookie } },
  });
}

async function rentPayPost(rentalId: string) {
  const { csrf, cookie } = await rentalCookie(rentalId);
  return callRoute<{ formError: string | null }>(rentAction, handle.db, `/rent/${unitTypeId}?step=pay`, {
    params: { unitTypeId },
    init: { method: "POST", body: new URLSearchParams({ csrf, intent: "pay", ...CARD }), headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } },
  });
}

const rows = async () => ({
  leases: (await handle.db.select({ n: count() }).from(leases))[0]!.n,
  payments: (await handle.db.select({ n: count() }).from(payments))[0]!.n,
});

describe("rental pay step", () => {
  it("with the test gateway (the demonstration): the card form says it is a demonstration", async () => {
    const { id } = await signedRental(handle.db, unitTypeId);
    const page = await rentPayPage(id);
    expect(page.data.blocked).toBeNull();
    expect(page.data.view).toMatchObject({ step: "pay", demonstration: true });
  });

  it("without a gateway: call to rent with the location's phone instead of the card form; a posted card charges nothing", async () => {
    setPaymentGatewayNameForTests("none");
    const gateway = watchedGateway();
    const { id } = await signedRental(handle.db, unitTypeId);
    const page = await rentPayPage(id);
    expect(page.data.view).toBeNull();
    expect(page.data.blocked).toMatch(/does not take card payments online\. Please call the office at .*\d{3}.*\d{4} to rent this unit\./);

    // The action refuses before any gateway is asked (a replaced gateway would have approved).
    setPaymentGatewayForTests(gateway);
    const before = await rows();
    const post = await rentPayPost(id);
    expect(post.status).toBe(409);
    expect(post.data.formError).toContain("call the office");
    expect(gateway.calls).toEqual([]);
    expect(await rows()).toEqual(before);
    const rental = await handle.db.query.rentals.findFirst({ where: eq(rentals.id, id) });
    expect(rental!.completedLeaseId).toBeNull();
  });

  it("without a gateway the location's unit cards say to call to rent instead of Rent", async () => {
    type Card = { actions: { rentHref: string | null; callToRent: boolean; soldOut: boolean } };
    const cards = async () => {
      const slug = "lumberton-nc-28358";
      const page = await callRoute<{ units: { sections: Array<{ cards: Card[] }> } }>(locationLoader, handle.db, `/locations/${slug}`, { params: { slug } });
      return page.data.units.sections.flatMap((x) => x.cards).filter((c) => !c.actions.soldOut);
    };
    expect((await cards()).every((c) => c.actions.rentHref && !c.actions.callToRent)).toBe(true);
    setPaymentGatewayNameForTests("none");
    const off = await cards();
    expect(off.length).toBeGreaterThan(0);
    expect(off.every((c) => c.actions.rentHref === null && c.actions.callToRent)).toBe(true);
  });

  it("without a gateway the process's gateway itself takes nothing (the last line behind the pages)", async () => {
    setPaymentGatewayNameForTests("none");
    const g = getPaymentGateway();
    expect(g).toBe(NO_GATEWAY);
    const charge = await g.charge({ amount: 100, idempotencyKey: "k", card: { number: "4242424242424242", expMonth: 12, expYear: 2030, cvv: "123", nameOnCard: "A", postalCode: "28358" } });
    expect(charge.status).toBe("declined");
    expect((await g.tokenize({ number: "4242424242424242", expMonth: 12, expYear: 2030, cvv: "123", nameOnCard: "A", postalCode: "28358" })).status).toBe("declined");
  });
});

describe("portal card pages", () => {
  async function tenant() {
    const now = new Date();
    const t = await createTenantWithLease(handle.db, { email: `gateway-${Date.now()}-${Math.random()}@example.com`, password: "secret1", now, withInsurance: false });
    const session = (await createTenantSession(handle.db, { tenantId: String(t.tenantId), now })).split(";")[0]!;
    const csrf = (await getCsrfToken(new Request("http://localhost/", { headers: { Cookie: session } }))).token;
    return { leaseId: String(t.leaseId), session, csrf };
  }

  it("with the test gateway: pay, prepay and autopay offer cards, marked as a demonstration", async () => {
    const t = await tenant();
    for (const [name, loader] of [["pay", payLoader], ["prepay", prepayLoader], ["autopay", autopayLoader]] as const) {
      const r = await callRoute<{ payment: { kind: string; demonstration?: boolean } }>(loader, handle.db, `/customer-portal/units/${t.leaseId}/${name}`, {
        init: { headers: { Cookie: t.session } },
      });
      expect(r.data.payment, name).toMatchObject({ kind: "cards", demonstration: true });
    }
  });

  it("without a gateway: pay, prepay and autopay say to call the office; a posted payment or autopay card charges nothing", async () => {
    const t = await tenant();
    setPaymentGatewayNameForTests("none");
    for (const [name, loader] of [["pay", payLoader], ["prepay", prepayLoader], ["autopay", autopayLoader]] as const) {
      const r = await callRoute<{ payment: { kind: string } }>(loader, handle.db, `/customer-portal/units/${t.leaseId}/${name}`, { init: { headers: { Cookie: t.session } } });
      expect(r.data.payment, name).toEqual({ kind: "no_cards" });
    }
    const gateway = watchedGateway();
    setPaymentGatewayForTests(gateway);
    const before = await rows();
    const form = (body: Record<string, string>): RequestInit => ({
      method: "POST",
      body: new URLSearchParams({ csrf: t.csrf, ...body }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: t.session },
    });
    const pay = await callRoute(payAction, handle.db, `/customer-portal/units/${t.leaseId}/pay`, {
      init: form({ idempotency_key: "gw-none-pay", amount_choice: "other", other_amount: "10.00", payment_method: "new", ...CARD }),
    });
    expect(pay.status).toBe(303);
    expect(pay.headers.get("Location")).toBe(`/customer-portal/units/${t.leaseId}/pay`);
    const autopay = await callRoute(autopayAction, handle.db, `/customer-portal/units/${t.leaseId}/autopay`, {
      init: form({ intent: "enrol", payment_method: "new", ...CARD }),
    });
    expect(autopay.status).toBe(303);
    expect(gateway.calls).toEqual([]);
    expect(await rows()).toEqual(before);
  });
});
