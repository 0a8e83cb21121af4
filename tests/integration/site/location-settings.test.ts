/**
 * Issue 20 (decision 201): a location's own global_settings override the account's (the website's)
 * wherever a setting is read: the location page's unit cards, /units, /view-locations and the home
 * page, the rent and reserve routes, and the portal.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, locations, unitTypes } from "~/db/schema";
import { RENTALS_DISABLED_MESSAGE, type AccountGlobalSettings } from "~/domain/shared/account-settings";
import { getCsrfToken } from "~/services/web/csrf.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { createTenantSession } from "~/services/web/session.server";
import { loader as locationLoader } from "~/routes/site/location";
import { loader as unitsLoader } from "~/routes/site/units";
import { loader as viewLocationsLoader } from "~/routes/site/view-locations";
import { loader as homeLoader } from "~/routes/site/home";
import { action as rentAction, loader as rentLoader } from "~/routes/rental/rent";
import { loader as reserveLoader } from "~/routes/rental/reserve";
import { loader as payLoader } from "~/routes/portal/pay";
import { loader as dashboardLoader } from "~/routes/portal/_index";
import { createTestDatabase } from "../support/db";
import { callRoute } from "../support/route-helpers";
import { lumbertonUnitType, tenantDetails } from "../support/rental-fixtures";

const LUMBERTON = "lumberton-nc-28358";
const JACKSONVILLE = "jacksonville-nc-28546";

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
  await db().update(locations).set({ globalSettings: {} });
});

const setLocation = (slug: string, settings: Record<string, unknown>) => db().update(locations).set({ globalSettings: settings }).where(eq(locations.urlSlug, slug));
const setAccount = (flags: Partial<AccountGlobalSettings>) => db().update(accounts).set({ globalSettings: { ...seededSettings, ...flags } });

type Card = { locationSlug: string; actions: { rentHref: string | null; rentalsDisabled: boolean; soldOut: boolean } };
type Listing = { sections: Array<{ cards: Card[] }> };
const cardsOf = (listing: Listing) => listing.sections.flatMap((s) => s.cards);

async function locationCards(slug: string) {
  const page = await callRoute<{ units: Listing }>(locationLoader, db(), `/locations/${slug}`, { params: { slug } });
  return cardsOf(page.data.units).filter((c) => !c.actions.soldOut);
}

async function firstUnitTypeId(slug: string) {
  const loc = (await db().query.locations.findFirst({ where: eq(locations.urlSlug, slug) }))!;
  const type = (await db().query.unitTypes.findFirst({ where: eq(unitTypes.locationId, loc.id) }))!;
  return String(type.id);
}

describe("a location's global_settings over the account's", () => {
  it("Jacksonville with is_rentals_enabled false: its unit cards say the spec's message, Lumberton's still rent", async () => {
    await setLocation(JACKSONVILLE, { is_rentals_enabled: false });
    const jax = await locationCards(JACKSONVILLE);
    expect(jax.length).toBeGreaterThan(0);
    expect(jax.every((c) => c.actions.rentHref === null && c.actions.rentalsDisabled)).toBe(true);
    const lum = await locationCards(LUMBERTON);
    expect(lum.every((c) => c.actions.rentHref !== null && !c.actions.rentalsDisabled)).toBe(true);

    // /units: the same, section by section.
    const all = await callRoute<{ listing: Listing }>(unitsLoader, db(), "/units");
    const cards = cardsOf(all.data.listing);
    expect(cards.filter((c) => c.locationSlug === JACKSONVILLE).every((c) => c.actions.rentalsDisabled && c.actions.rentHref === null)).toBe(true);
    expect(cards.filter((c) => c.locationSlug === LUMBERTON).every((c) => c.actions.rentHref !== null)).toBe(true);
  });

  it("Jacksonville with rentals off: its rent route answers the spec's message and its form is refused", async () => {
    await setLocation(JACKSONVILLE, { is_rentals_enabled: false });
    const unitTypeId = await firstUnitTypeId(JACKSONVILLE);
    const page = await callRoute<{ blocked: string | null }>(rentLoader, db(), `/rent/${unitTypeId}`, { params: { unitTypeId } });
    expect(page.data.blocked).toBe(RENTALS_DISABLED_MESSAGE);
    const { token, setCookie } = await getCsrfToken(new Request("http://localhost/rent"));
    const d = tenantDetails();
    const body = new URLSearchParams({ csrf: token, intent: "details", ...Object.fromEntries(Object.entries(d).map(([k, v]) => [k, String(v)])) });
    const post = await callRoute<{ formError: string | null }>(rentAction, db(), `/rent/${unitTypeId}?step=details`, {
      params: { unitTypeId },
      init: { method: "POST", body, headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" } },
    });
    expect(post.status).toBe(409);
    expect(post.data.formError).toBe(RENTALS_DISABLED_MESSAGE);
    // Lumberton's rent route is open.
    const { unitTypeId: lumberton } = await lumbertonUnitType(db());
    const open = await callRoute<{ blocked: string | null }>(rentLoader, db(), `/rent/${lumberton}`, { params: { unitTypeId: lumberton } });
    expect(open.data.blocked).toBeNull();
  });

  it("/view-locations and the home page: 'rent online' only where rentals are on", async () => {
    type Loc = { urlSlug: string; status: string; rentsOnline: boolean; globalSettings?: unknown };
    const view = async () => (await callRoute<{ locations: Loc[] }>(viewLocationsLoader, db(), "/view-locations")).data.locations;
    const live = (list: Loc[]) => list.filter((l) => l.status === "Live");
    expect(live(await view()).every((l) => l.rentsOnline)).toBe(true);

    await setLocation(JACKSONVILLE, { is_rentals_enabled: false });
    const one = await view();
    expect(Object.fromEntries(live(one).map((l) => [l.urlSlug, l.rentsOnline]))).toEqual({ [LUMBERTON]: true, [JACKSONVILLE]: false });
    expect(one.every((l) => !("globalSettings" in l))).toBe(true); // the raw settings stay on the server

    await setLocation(LUMBERTON, { is_rentals_enabled: false });
    expect(live(await view()).some((l) => l.rentsOnline)).toBe(false);
    const home = await callRoute<{ rentsOnline: boolean }>(homeLoader, db(), "/");
    expect(home.data.rentsOnline).toBe(false);
  });

  it("the location can switch on what the account has off (rentals, reservations)", async () => {
    await setAccount({ is_rentals_enabled: false, is_reservations_enabled: false });
    await setLocation(LUMBERTON, { is_rentals_enabled: true, is_reservations_enabled: true });
    const { unitTypeId: lumberton } = await lumbertonUnitType(db());
    const rent = await callRoute<{ blocked: string | null }>(rentLoader, db(), `/rent/${lumberton}`, { params: { unitTypeId: lumberton } });
    expect(rent.data.blocked).toBeNull();
    const reserve = await callRoute<{ blocked: string | null }>(reserveLoader, db(), `/reserve/${lumberton}`, { params: { unitTypeId: lumberton } });
    expect(reserve.data.blocked).toBeNull();
    const jax = await firstUnitTypeId(JACKSONVILLE);
    expect((await callRoute<{ blocked: string | null }>(rentLoader, db(), `/rent/${jax}`, { params: { unitTypeId: jax } })).data.blocked).toBe(RENTALS_DISABLED_MESSAGE);
    expect((await callRoute<{ blocked: string | null }>(reserveLoader, db(), `/reserve/${jax}`, { params: { unitTypeId: jax } })).data.blocked).toContain("Online reservations are not available");
  });

  it("a value of the wrong kind is ignored: the account's setting stands", async () => {
    await setLocation(JACKSONVILLE, { is_rentals_enabled: "false" });
    expect((await locationCards(JACKSONVILLE)).every((c) => c.actions.rentHref !== null)).toBe(true);
  });

  it("the portal: a unit's pages follow its location's settings", async () => {
    const now = new Date();
    const t = await createTenantWithLease(db(), { email: `loc-settings-${Date.now()}@example.com`, password: "secret1", now, withInsurance: false });
    const cookie = (await createTenantSession(db(), { tenantId: String(t.tenantId), now })).split(";")[0]!;
    const lease = await db().query.leases.findFirst({ where: (l, { eq: e }) => e(l.id, t.leaseId), with: { unit: true } });
    const loc = (await db().query.locations.findFirst({ where: eq(locations.id, lease!.unit.locationId) }))!;
    await setLocation(loc.urlSlug, { is_payments_enabled: false, is_autopay_enabled: false });
    const pay = await callRoute<{ enabled: boolean }>(payLoader, db(), `/customer-portal/units/${t.leaseId}/pay`, { init: { headers: { Cookie: cookie } } });
    expect(pay.data.enabled).toBe(false);
    const dash = await callRoute<{ units: Array<{ flags: { payments: boolean; autopay: boolean; moveOut: boolean } }> }>(dashboardLoader, db(), "/customer-portal", {
      init: { headers: { Cookie: cookie } },
    });
    expect(dash.data.units.map((u) => u.flags)).toEqual([expect.objectContaining({ payments: false, autopay: false, moveOut: true })]);
    // Another location's settings do not reach this unit.
    await setLocation(loc.urlSlug, {});
    await db().update(locations).set({ globalSettings: { is_payments_enabled: false } }).where(eq(locations.urlSlug, loc.urlSlug === LUMBERTON ? JACKSONVILLE : LUMBERTON));
    expect((await callRoute<{ enabled: boolean }>(payLoader, db(), `/customer-portal/units/${t.leaseId}/pay`, { init: { headers: { Cookie: cookie } } })).data.enabled).toBe(true);
  });
});
