/**
 * Issue 9: every field and flag of the spec does what it says. One describe per flag; each test
 * changes the seeded data it needs and puts it back.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, locations } from "~/db/schema";
import { getAccount, getSiteLayout, getWebsite } from "~/db/queries/site.server";
import { createTenantWithLease } from "~/services/portal-demo.server";
import { createTenantSession } from "~/services/session.server";
import { loader as locationLoader } from "~/routes/location";
import { loader as dashboardLoader } from "~/routes/customer-portal._index";
import type { MenuItem } from "~/domain/menu";
import type { AccountGlobalSettings } from "~/domain/portal-settings";
import { createTestDatabase } from "./db";
import { callRoute } from "./route-helpers";

const LUMBERTON = "lumberton-nc-28358";
const JACKSONVILLE = "jacksonville-nc-28546";
const PAY_SITE = "https://pay.example.com/gatehouse";

let handle: DatabaseHandle;
let seededSettings: AccountGlobalSettings;
const db = () => handle.db;

beforeAll(async () => {
  handle = await createTestDatabase();
  seededSettings = (await db().query.accounts.findFirst())!.globalSettings as AccountGlobalSettings;
});
afterAll(() => handle?.close());
beforeEach(async () => {
  await db().update(accounts).set({ globalSettings: seededSettings });
  await db().update(locations).set({ externalPaymentLink: null, isShowOnlySpecificUnitTypes: false, specificUnitTypesToShow: [] });
});

export async function setAccountFlags(flags: Partial<AccountGlobalSettings>) {
  await db().update(accounts).set({ globalSettings: { ...seededSettings, ...flags } });
}

function findByName(items: MenuItem[], name: string): MenuItem[] {
  return items.flatMap((i) => [...(i.name === name ? [i] : []), ...findByName(i.children, name)]);
}

async function payBillUrls() {
  const website = (await getWebsite(db()))!;
  const account = (await getAccount(db(), website.accountId))!;
  const layout = (await getSiteLayout(db(), { website, account }))!;
  return Object.values(layout.menus).flatMap((m) => findByName(m.items, "Pay Bill").map((i) => i.url));
}

describe("external_payment_link (location)", () => {
  it("off (seed): Pay Bill goes to the portal sign-in, the location page links the portal", async () => {
    expect(await payBillUrls()).toEqual(["/payonline", "/payonline"]);
    const page = await callRoute<{ payBill: { href: string } }>(locationLoader, db(), `/locations/${LUMBERTON}`, { params: { slug: LUMBERTON } });
    expect(page.data.payBill.href).toBe("/customer-portal/login");
  });

  it("set on one location: that location's page and portal links go there; the site-wide Pay Bill stays on the portal", async () => {
    await db().update(locations).set({ externalPaymentLink: PAY_SITE }).where(eq(locations.urlSlug, LUMBERTON));
    const page = await callRoute<{ payBill: { href: string; external: boolean } }>(locationLoader, db(), `/locations/${LUMBERTON}`, { params: { slug: LUMBERTON } });
    expect(page.data.payBill).toEqual({ href: PAY_SITE, external: true });
    const other = await callRoute<{ payBill: { href: string } }>(locationLoader, db(), `/locations/${JACKSONVILLE}`, { params: { slug: JACKSONVILLE } });
    expect(other.data.payBill.href).toBe("/customer-portal/login");
    expect(await payBillUrls()).toEqual(["/payonline", "/payonline"]);

    // The portal: the tenant's Lumberton unit pays on the payment site.
    const now = new Date();
    const t = await createTenantWithLease(db(), { email: `ext-pay-${Date.now()}@example.com`, password: "secret1", now, withInsurance: false });
    const cookie = (await createTenantSession(db(), { tenantId: String(t.tenantId), now })).split(";")[0]!;
    const dash = await callRoute<{ units: Array<{ location: { externalPaymentLink: string | null } }> }>(dashboardLoader, db(), "/customer-portal", {
      init: { headers: { Cookie: cookie } },
    });
    expect(dash.status).toBe(200);
    expect(dash.data.units.map((u) => u.location.externalPaymentLink)).toEqual([PAY_SITE]);
  });

  it("set on every live location: the menus' Pay Bill links go there too", async () => {
    await db().update(locations).set({ externalPaymentLink: PAY_SITE }).where(eq(locations.status, "Live"));
    expect(await payBillUrls()).toEqual([PAY_SITE, PAY_SITE]);
  });

  it("ignores a link that is not an http(s) URL", async () => {
    await db().update(locations).set({ externalPaymentLink: "javascript:alert(1)" }).where(eq(locations.urlSlug, LUMBERTON));
    const page = await callRoute<{ payBill: { href: string } }>(locationLoader, db(), `/locations/${LUMBERTON}`, { params: { slug: LUMBERTON } });
    expect(page.data.payBill.href).toBe("/customer-portal/login");
  });
});
