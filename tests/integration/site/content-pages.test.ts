/**
 * Issue 24's content on the public pages, through the real loaders and components on the seeded
 * database (both drivers): special hours on the location page (the list, open-now, JSON-LD, the date
 * turning at the location's midnight through the site cache), unit types' promotion, description and
 * photo on the location page, /units and the rental pages, and a type hidden online: listed nowhere,
 * and its rental and reservation refused with a message and no unit held.
 */
import { and, count, eq, isNotNull, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, locations, rentals, reservations, specialHours, unitTypes, units } from "~/db/schema";
import { SiteCache } from "~/db/site-cache.server";
import { pinClockForTests } from "~/platform/clock.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import LocationPage, { loader as locationLoader, meta as locationMeta } from "~/routes/site/location";
import UnitsPage, { loader as unitsLoader } from "~/routes/site/units";
import UnitTypePage, { loader as unitTypeLoader } from "~/routes/site/unit-type";
import RentPage, { action as rentAction, loader as rentLoader } from "~/routes/rental/rent";
import ReservePage, { action as reserveAction, loader as reserveLoader } from "~/routes/rental/reserve";
import { loader as sitemapLoader } from "~/routes/site/sitemap[.]xml";
import { createTestDatabase } from "../support/db";
import { renderPage } from "../support/render-page";
import { callRoute, loadContext } from "../support/route-helpers";
import { detailsFormFields } from "../support/rental-fixtures";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";
import { storageFor } from "~/storage-software/index.server";
import { getAllUnitsListing } from "~/db/queries/units.server";
import { getAccount } from "~/db/queries/site.server";

const LUMBERTON = "lumberton-nc-28358";
const JACKSONVILLE = "jacksonville-nc-28546";
// Thanksgiving 2026, noon in Lumberton (EST): the week says the office is open (Thursday 9–6).
const THANKSGIVING_NOON = new Date("2026-11-26T17:00:00Z");
// A Tuesday morning, for the unit pages (rentals are not refused for the day of the week).
const TUESDAY = new Date("2026-11-24T15:00:00Z");

let handle: DatabaseHandle;
const db = () => handle.db;
beforeAll(async () => {
  handle = await createTestDatabase();
});
afterAll(async () => {
  pinClockForTests(null);
  await handle?.close();
});

async function locationId(slug: string) {
  const [row] = await db().select({ id: locations.id }).from(locations).where(eq(locations.urlSlug, slug));
  return row!.id;
}

type LocationData = {
  hours: Array<{ type: string; status: { isOpen: boolean; text: string } }>;
  specialHours: Array<{ date: string; isToday: boolean }>;
  units: { sections: Array<{ cards: Array<{ id: string; promotion: string; description: string; image: { src: string } | null }> }> } | null;
};
const locationPage = (slug: string, context?: ReturnType<typeof loadContext>) =>
  context
    ? (locationLoader({ request: new Request(`http://localhost/locations/${slug}`), params: { slug }, context } as never) as Promise<{ data: LocationData }>).then((r) => ({ data: r.data, status: 200 }))
    : callRoute<LocationData>(locationLoader, db(), `/locations/${slug}`, { params: { slug } });
const renderLocation = async (slug: string, data: unknown) =>
  renderPage(LocationPage as never, { pattern: "/locations/:slug", url: `/locations/${slug}`, loaderData: data });

describe("special hours on the location page (decision 325)", () => {
  beforeAll(async () => {
    pinClockForTests(THANKSGIVING_NOON);
    const lumberton = await locationId(LUMBERTON);
    await db()
      .insert(specialHours)
      .values([
        { locationId: lumberton, date: "2026-11-20", label: "Staff training", isClosed: true },
        { locationId: lumberton, date: "2026-11-26", label: "Thanksgiving", isClosed: true },
        { locationId: lumberton, date: "2026-11-27", label: "Black Friday", isClosed: false, open: "10:00", close: "14:00" },
        { locationId: lumberton, date: "2027-03-01", label: "Too far ahead", isClosed: true },
      ]);
  });

  it("lists today and the coming dates near the hours; past and far dates are not shown", async () => {
    const r = await locationPage(LUMBERTON);
    expect(r.status).toBe(200);
    expect(r.data.specialHours.map((s) => [s.date, s.isToday])).toEqual([
      ["2026-11-26", true],
      ["2026-11-27", false],
    ]);
    const html = await renderLocation(LUMBERTON, r.data);
    expect(html).toContain("Special hours");
    expect(html).toContain("Thu, Nov 26 — Thanksgiving: Closed");
    expect(html).toContain("Fri, Nov 27 — Black Friday: 10:00 AM – 2:00 PM");
    expect(html).not.toContain("Staff training");
    expect(html).not.toContain("Too far ahead");
    // The list is in the office's card, after its weekly table.
    const office = html.slice(html.indexOf('id="hours-office"'), html.indexOf('id="hours-gate"'));
    expect(office).toContain('data-testid="special-hours"');
  });

  it("open-now follows them: the office is closed on Thanksgiving and opens at Black Friday's hour; the gate keeps its week", async () => {
    const r = await locationPage(LUMBERTON);
    expect(r.data.hours.map((h) => [h.type, h.status.text])).toEqual([
      ["office", "Closed now · opens tomorrow at 10:00 AM"],
      ["gate", "Open now · closes at 10:00 PM"],
    ]);
    // Jacksonville has no special hours: its office is open on the same Thursday noon.
    const jax = await locationPage(JACKSONVILLE);
    expect(jax.data.hours[0]!.status.text).toBe("Open now · closes at 5:00 PM");
    expect(jax.data.specialHours).toEqual([]);
    expect(await renderLocation(JACKSONVILLE, jax.data)).not.toContain("Special hours");
  });

  it("are in the page's SelfStorage JSON-LD as specialOpeningHoursSpecification", async () => {
    const r = await locationPage(LUMBERTON);
    const tags = (locationMeta as (args: unknown) => Array<Record<string, unknown>>)({ data: r.data, matches: [], params: { slug: LUMBERTON } });
    const jsonLd = tags.find((t) => "script:ld+json" in t)!["script:ld+json"] as Record<string, unknown>;
    expect(jsonLd["@type"]).toBe("SelfStorage");
    expect(jsonLd.specialOpeningHoursSpecification).toEqual([
      { "@type": "OpeningHoursSpecification", validFrom: "2026-11-26", validThrough: "2026-11-26", opens: "00:00", closes: "00:00" },
      { "@type": "OpeningHoursSpecification", validFrom: "2026-11-27", validThrough: "2026-11-27", opens: "10:00", closes: "14:00" },
    ]);
  });

  it("turn at the location's midnight though the site cache keeps the rows: nothing stale across the date change", async () => {
    const context = Object.assign(loadContext(db()), { siteCache: new SiteCache() });
    // 23:59 on Wednesday Nov 25 in Lumberton: Thanksgiving is upcoming, not today.
    pinClockForTests(new Date("2026-11-26T04:59:00Z"));
    const before = await locationPage(LUMBERTON, context);
    expect(before.data.specialHours[0]).toMatchObject({ date: "2026-11-26", isToday: false });
    expect(before.data.hours[0]!.status.text).toBe("Closed now · opens Friday at 10:00 AM");
    // One minute later, the same cached rows: Thanksgiving is today.
    pinClockForTests(new Date("2026-11-26T05:00:00Z"));
    const after = await locationPage(LUMBERTON, context);
    expect(after.data.specialHours[0]).toMatchObject({ date: "2026-11-26", isToday: true });
    // Two days later Thanksgiving is gone from the list.
    pinClockForTests(new Date("2026-11-28T15:00:00Z"));
    expect((await locationPage(LUMBERTON, context)).data.specialHours).toEqual([]);
    pinClockForTests(THANKSGIVING_NOON);
  });
});

describe("unit types' promotion, description, photo and hidden flag (decisions 326, 674)", () => {
  let promoted: string;
  let hidden: string;
  // Only a promotion that applies shows words (decision 674): one month free at this local location.
  const PROMOTION = "First month free";
  const FREE_MONTH = { promotionKind: "percent", promotionPercent: 100, promotionMonths: 1 };
  const PHOTO = { width: 640, height: 480, type: null, alt: "Inside the unit", src: "/media/unit-photo.jpg", src_webp: "/media/unit-photo.webp", title: null, file_name: null, file_name_full: null, file_name_original: null, file_name_webp: null, file_name_original_unmodified: null, file_type: null, file_base_url: null };

  beforeAll(async () => {
    pinClockForTests(TUESDAY);
    // Two Lumberton types with free units: one promoted with a description and a photo, one hidden.
    const lumberton = await locationId(LUMBERTON);
    const free = await db()
      .select({ id: unitTypes.id, n: count(units.id) })
      .from(unitTypes)
      .innerJoin(units, and(eq(units.unitTypeId, unitTypes.id), eq(units.status, "available")))
      .where(and(eq(unitTypes.locationId, lumberton), sql`${unitTypes.category} <> 'parking'`))
      .groupBy(unitTypes.id)
      .orderBy(sql`count(${units.id}) desc`, unitTypes.id);
    promoted = String(free[0]!.id);
    hidden = String(free[1]!.id);
    await db().update(unitTypes).set({ ...FREE_MONTH, description: "Wide door, lit aisle.", images: [PHOTO] }).where(eq(unitTypes.id, Number(promoted)));
    await db().update(unitTypes).set({ isHiddenOnline: true, promotionKind: "percent", promotionPercent: 50, description: "Never shown" }).where(eq(unitTypes.id, Number(hidden)));
    // Reservations on, so the reservation form is offered (and must refuse the hidden type).
    await db().update(accounts).set({ globalSettings: sql`${accounts.globalSettings} || '{"is_reservations_enabled": true}'::jsonb` });
  });
  beforeEach(() => {
    pinClockForTests(TUESDAY);
  });

  const cardsOf = (listing: { sections: Array<{ cards: Array<{ id: string; promotion: string; description: string; image: { src: string } | null }> }> }) => listing.sections.flatMap((s) => s.cards);

  it("the location page shows the promotion, the description and the photo on the type's card, and not the hidden type", async () => {
    const r = await locationPage(LUMBERTON);
    const cards = cardsOf(r.data.units!);
    const card = cards.find((c) => c.id === promoted)!;
    expect(card).toMatchObject({ promotion: PROMOTION, description: "Wide door, lit aisle.", image: { src: PHOTO.src } });
    expect(cards.map((c) => c.id)).not.toContain(hidden);
    const html = await renderLocation(LUMBERTON, r.data);
    expect(html).toContain(`<span class="visually-hidden">Promotion: </span>${PROMOTION}`);
    expect(html).toContain("Wide door, lit aisle.");
    expect(html).toMatch(/<source srcSet="\/media\/unit-photo\.webp" type="image\/webp"\/><img src="\/media\/unit-photo\.jpg" alt="" width="640" height="480" loading="lazy"/);
    expect(html).not.toContain("Never shown");
    expect(html).not.toContain(`/rent/${hidden}"`);
  });

  it("/units shows the promotion and not the hidden type; the unit type page shows the promotion and photo, the hidden type's page is a 404", async () => {
    const r = await callRoute<{ listing: Parameters<typeof cardsOf>[0] }>(unitsLoader, db(), "/units");
    const cards = cardsOf(r.data.listing);
    expect(cards.find((c) => c.id === promoted)!.promotion).toBe(PROMOTION);
    expect(cards.map((c) => c.id)).not.toContain(hidden);
    const html = await renderPage(UnitsPage as never, { pattern: "/units", url: "/units", loaderData: r.data });
    expect(html).toContain(PROMOTION);
    expect(html).not.toContain("Never shown");

    const promotedCard = cards.find((c) => c.id === promoted) as unknown as { href: string; slug: string };
    const page = await callRoute<{ card: { promotion: string } }>(unitTypeLoader, db(), promotedCard.href, { params: { slug: LUMBERTON, unitTypeSlug: promotedCard.slug } });
    expect(page.status).toBe(200);
    const pageHtml = await renderPage(UnitTypePage as never, { pattern: "/locations/:slug/units/:unitTypeSlug", url: promotedCard.href, loaderData: page.data });
    expect(pageHtml).toContain(PROMOTION);
    expect(pageHtml).toContain('alt="Inside the unit"');

    // The hidden type's own page (its slug as it would be) answers 404, and the sitemap leaves it out.
    const [h] = await db().select().from(unitTypes).where(eq(unitTypes.id, Number(hidden)));
    await db().update(unitTypes).set({ isHiddenOnline: false }).where(eq(unitTypes.id, h!.id));
    const visible = cardsOf((await callRoute<{ listing: Parameters<typeof cardsOf>[0] }>(unitsLoader, db(), "/units")).data.listing).find((c) => c.id === hidden) as unknown as { href: string; slug: string } | undefined;
    const sitemapWith = await (await callRoute(sitemapLoader, db(), "/sitemap.xml")).response!.text();
    await db().update(unitTypes).set({ isHiddenOnline: true }).where(eq(unitTypes.id, h!.id));
    const sitemapWithout = await (await callRoute(sitemapLoader, db(), "/sitemap.xml")).response!.text();
    expect(visible).toBeDefined();
    expect(sitemapWith).toContain(visible!.href);
    expect(sitemapWithout).not.toContain(visible!.href);
    const gone = await callRoute(unitTypeLoader, db(), visible!.href, { params: { slug: LUMBERTON, unitTypeSlug: visible!.slug } });
    expect(gone.status).toBe(404);
  });

  it("the rental and reservation pages show the promotion beside the unit; the price is unchanged", async () => {
    const rent = await callRoute<{ promotion: string; monthlyRate: number }>(rentLoader, db(), `/rent/${promoted}`, { params: { unitTypeId: promoted } });
    expect(rent.data.promotion).toBe(PROMOTION);
    const [t] = await db().select().from(unitTypes).where(eq(unitTypes.id, Number(promoted)));
    expect([t!.standardRate, t!.webRate]).toContain(rent.data.monthlyRate);
    const rentHtml = await renderPage(RentPage as never, { pattern: "/rent/:unitTypeId", url: `/rent/${promoted}`, loaderData: rent.data });
    expect(rentHtml).toContain(PROMOTION);
    const reserve = await callRoute<{ promotion: string }>(reserveLoader, db(), `/reserve/${promoted}`, { params: { unitTypeId: promoted } });
    const reserveHtml = await renderPage(ReservePage as never, { pattern: "/reserve/:unitTypeId", url: `/reserve/${promoted}`, loaderData: reserve.data });
    expect(reserveHtml).toContain(PROMOTION);
  });

  async function post(fn: unknown, url: string, unitTypeId: string, fields: Record<string, string>) {
    const { token, setCookie } = await getCsrfToken(new Request(`http://localhost${url}`));
    return callRoute<{ formError?: string | null }>(fn as never, db(), url, {
      params: { unitTypeId },
      clientIp: `10.24.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
      init: { method: "POST", body: new URLSearchParams({ csrf: token, ...fields }), headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" } },
    });
  }
  const heldUnits = async (unitTypeId: string) =>
    (await db().select({ n: count() }).from(units).where(and(eq(units.unitTypeId, Number(unitTypeId)), isNotNull(units.holdToken))))[0]!.n;

  it("a hidden type cannot be rented: the page says so and the POST is refused with the message, no unit held, no rental", async () => {
    const page = await callRoute<{ blocked: string | null }>(rentLoader, db(), `/rent/${hidden}`, { params: { unitTypeId: hidden } });
    expect(page.status).toBe(200);
    expect(page.data.blocked).toMatch(/^Sorry, this unit size is not offered online\. Please choose another size or call \(\d{3}\) \d{3}-\d{4}\.$/);
    const rentalsBefore = (await db().select({ n: count() }).from(rentals))[0]!.n;
    const r = await post(rentAction, `/rent/${hidden}?step=details`, hidden, detailsFormFields("hidden-type@example.com"));
    expect(r.status).toBe(409);
    expect(r.data.formError).toBe(page.data.blocked);
    expect(await heldUnits(hidden)).toBe(0);
    expect((await db().select({ n: count() }).from(rentals))[0]!.n).toBe(rentalsBefore);
    // The same form for the promoted (shown) type does hold a unit: the refusal is the hidden flag's.
    const ok = await post(rentAction, `/rent/${promoted}?step=details`, promoted, detailsFormFields("shown-type@example.com"));
    expect(ok.status).toBe(303);
    expect(await heldUnits(promoted)).toBe(1);
  });

  it("a hidden type cannot be reserved: refused with the message, no reservation made", async () => {
    const page = await callRoute<{ blocked: string | null; window: { min: string } }>(reserveLoader, db(), `/reserve/${hidden}`, { params: { unitTypeId: hidden } });
    expect(page.data.blocked).toMatch(/^Sorry, this unit size is not offered online\./);
    const before = (await db().select({ n: count() }).from(reservations))[0]!.n;
    const r = await post(reserveAction, `/reserve/${hidden}`, hidden, {
      idempotency_key: `hidden${Date.now()}`,
      first_name: "Grace",
      last_name: "Hopper",
      email: "hidden-reserve@example.com",
      phone: "(910) 555-0199",
      desired_move_in_date: page.data.window.min,
    });
    expect(r.status).toBe(409);
    expect(r.data.formError).toBe(page.data.blocked);
    expect((await db().select({ n: count() }).from(reservations))[0]!.n).toBe(before);
    expect(await heldUnits(hidden)).toBe(0);
  });
});

describe("a unit type hidden online at a SiteLink location (decision 326)", () => {
  let bed: SiteLinkTestbed;
  let hiddenId: string;
  beforeAll(async () => {
    pinClockForTests(TUESDAY);
    bed = await startSyncedSiteLinkTestbed(TUESDAY);
    hiddenId = (await roomiestSyncedUnitType(bed, bed.lumberton)).id;
    // Its promotion: the site's "1st Month Free" plan, as the adapter read it from SiteLink (decision 673).
    bed.sim.control.configureSite("L001", { concessions: [{ ConcessionID: 41, sPlanName: "1st Month Free", pcDiscount: 100 }] });
    await storageFor(bed.handle.db, bed.lumberton).listDiscountPlans();
    await bed.handle.db.update(unitTypes).set({ isHiddenOnline: true, promotionKind: "plan", promotionPlanId: 41, promotionPlanWording: "First month free" }).where(eq(unitTypes.id, Number(hiddenId)));
  });
  afterAll(() => bed?.close());

  it("the adapter reports the flag and the promotion from the synced catalogue; the listing leaves the type out", async () => {
    const storage = storageFor(bed.handle.db, bed.lumberton);
    const type = await storage.getUnitType(hiddenId, { now: TUESDAY });
    expect(type).toMatchObject({ isHiddenOnline: true, promotion: "First month free" });
    const account = (await getAccount(bed.handle.db, (await bed.handle.db.query.accounts.findFirst())!.id))!;
    const { listing } = await getAllUnitsListing(loadContext(bed.handle.db), account, new URLSearchParams());
    const ids = listing.sections.flatMap((s) => s.cards.map((c) => c.id));
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).not.toContain(hiddenId);
  });

  it("its rental is refused with the message: nothing asked of SiteLink, no unit held, no rental", async () => {
    const { token, setCookie } = await getCsrfToken(new Request(`http://localhost/rent/${hiddenId}`));
    const rentalsBefore = (await bed.handle.db.select({ n: count() }).from(rentals))[0]!.n;
    const callsBefore = bed.sim.control.calls({ location: "L001" }).length;
    const r = await callRoute<{ formError?: string }>(rentAction, bed.handle.db, `/rent/${hiddenId}?step=details`, {
      params: { unitTypeId: hiddenId },
      clientIp: "10.24.1.1",
      init: { method: "POST", body: new URLSearchParams({ csrf: token, ...detailsFormFields("hidden-sitelink@example.com") }), headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" } },
    });
    expect(r.status).toBe(409);
    expect(r.data.formError).toMatch(/^Sorry, this unit size is not offered online\./);
    expect((await bed.handle.db.select({ n: count() }).from(rentals))[0]!.n).toBe(rentalsBefore);
    expect((await bed.handle.db.select({ n: count() }).from(units).where(and(eq(units.unitTypeId, Number(hiddenId)), isNotNull(units.holdToken))))[0]!.n).toBe(0);
    // Reads only (the availability check); no hold or move-in call reached the software.
    const calls = bed.sim.control.calls({ location: "L001" }).slice(callsBefore).map((c) => c.operation);
    expect(calls.filter((op) => /Reserv|MoveIn|Hold/i.test(op ?? ""))).toEqual([]);
  });
});
