/**
 * Issue 9: every field and flag of the spec does what it says. One describe per flag; each test
 * changes the seeded data it needs and puts it back.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, eq, inArray } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, amenities, locationImages, locations, payments, paymentTypes, unitTypes } from "~/db/schema";
import { getCsrfToken } from "~/services/web/csrf.server";
import { storageFor } from "~/storage-software/index.server";
import { action as payAction, loader as payLoader } from "~/routes/portal/pay";
import { action as prepayAction, loader as prepayLoader } from "~/routes/portal/prepay";
import { action as autopayAction, loader as autopayLoader } from "~/routes/portal/autopay";
import { getAccount, getSiteLayout, getWebsite } from "~/db/queries/site.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { createTenantSession } from "~/services/web/session.server";
import { loader as locationLoader } from "~/routes/site/location";
import { loader as dashboardLoader } from "~/routes/portal/_index";
import { action as rentAction, loader as rentLoader } from "~/routes/rental/rent";
import { loader as reserveLoader } from "~/routes/rental/reserve";
import { loader as robotsLoader } from "~/routes/site/robots[.]txt";
import { loader as rootLoader } from "~/root";
import {
  rentalLeaseText,
  placeMoveIn,
  quoteRental
} from "~/services/rental/move-in.server";
import { getRental, saveDetails, saveProtection, saveSignature } from "~/services/rental/record.server";
import { getLeaseDocument } from "~/services/rental/lease-links.server";
import { getRentalConfirmation } from "~/services/rental/confirmation.server";
import { loadRentalContext } from "~/services/rental/context.server";
import { rentalBlock } from "~/domain/rental/rules";
import { protectionSchema } from "~/domain/rental/steps";
import { card, ctxFor, lumbertonUnitType, tenantDetails } from "../support/rental-fixtures";
import type { MenuItem } from "~/domain/site/menu";
import type { AccountGlobalSettings } from "~/domain/shared/account-settings";
import { createTestDatabase } from "../support/db";
import { callRoute } from "../support/route-helpers";

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

async function setAccountFlags(flags: Partial<AccountGlobalSettings>) {
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

async function lumbertonTypes() {
  const loc = (await db().query.locations.findFirst({ where: eq(locations.urlSlug, LUMBERTON) }))!;
  const types = await db().query.unitTypes.findMany({ where: eq(unitTypes.locationId, loc.id) });
  return { loc, types };
}

describe("is_show_only_specific_unit_types / specific_unit_types_to_show", () => {
  it("a hidden type is neither rentable nor reservable by URL (404); a shown one still is", async () => {
    await setAccountFlags({ is_reservations_enabled: true });
    const { loc, types } = await lumbertonTypes();
    const parking = types.find((t) => t.name === "Parking")!;
    const other = types.find((t) => t.name !== "Parking")!;
    for (const id of [parking.id, other.id]) {
      expect((await callRoute(rentLoader, db(), `/rent/${id}`, { params: { unitTypeId: String(id) } })).status).toBe(200);
      expect((await callRoute(reserveLoader, db(), `/reserve/${id}`, { params: { unitTypeId: String(id) } })).status).toBe(200);
    }
    await db().update(locations).set({ isShowOnlySpecificUnitTypes: true, specificUnitTypesToShow: ["Parking"] }).where(eq(locations.id, loc.id));
    const rentHidden = await callRoute<{ message: string }>(rentLoader, db(), `/rent/${other.id}`, { params: { unitTypeId: String(other.id) } });
    expect(rentHidden.status).toBe(404);
    expect(rentHidden.data.message).toBe("This unit is not offered online");
    const reserveHidden = await callRoute(reserveLoader, db(), `/reserve/${other.id}`, { params: { unitTypeId: String(other.id) } });
    expect(reserveHidden.status).toBe(404);
    const post = await callRoute(rentAction, db(), `/rent/${other.id}`, { params: { unitTypeId: String(other.id) }, init: { method: "POST", body: new URLSearchParams({ intent: "details" }) } });
    expect(post.status).toBe(404);
    expect((await callRoute(rentLoader, db(), `/rent/${parking.id}`, { params: { unitTypeId: String(parking.id) } })).status).toBe(200);
  });
});

describe("accepted cards (payment_types)", () => {
  it("come from the location's payment types: names and marks on the location page, the rental refuses other brands", async () => {
    const page = await callRoute<{ location: { acceptedCards: string[] } }>(locationLoader, db(), `/locations/${LUMBERTON}`, { params: { slug: LUMBERTON } });
    expect(page.data.location.acceptedCards).toEqual(["visa", "mastercard", "discover"]);
    const { loc, types } = await lumbertonTypes();
    const pt = await db().query.paymentTypes.findMany({ where: eq(paymentTypes.locationId, loc.id) });
    try {
      await db().update(paymentTypes).set({ deletedAt: new Date() }).where(eq(paymentTypes.id, pt.find((p) => p.category === "mastercard")!.id));
      const ctx = (await loadRentalContext(db(), String(types[0]!.id), new Date()))!;
      expect(ctx.acceptedCards).toEqual(["visa", "discover"]);
      const page2 = await callRoute<{ location: { acceptedCards: string[] } }>(locationLoader, db(), `/locations/${LUMBERTON}`, { params: { slug: LUMBERTON } });
      expect(page2.data.location.acceptedCards).toEqual(["visa", "discover"]);
    } finally {
      await db().update(paymentTypes).set({ deletedAt: null }).where(eq(paymentTypes.locationId, loc.id));
    }
  });

  it("a location with no payment types offers no card payment: the rental says to call the office", async () => {
    const { loc, types } = await lumbertonTypes();
    try {
      await db().update(paymentTypes).set({ deletedAt: new Date() }).where(eq(paymentTypes.locationId, loc.id));
      const id = String(types.find((t) => t.name !== "Parking")!.id);
      const rent = await callRoute<{ blocked: string | null; view: unknown }>(rentLoader, db(), `/rent/${id}`, { params: { unitTypeId: id } });
      expect(rent.data.view).toBeNull();
      expect(rent.data.blocked).toMatch(/does not take card payments online\. Please call the office at \(\d{3}\) \d{3}-\d{4}/);
      const page = await callRoute<{ location: { acceptedCards: string[] } }>(locationLoader, db(), `/locations/${LUMBERTON}`, { params: { slug: LUMBERTON } });
      expect(page.data.location.acceptedCards).toEqual([]);
    } finally {
      await db().update(paymentTypes).set({ deletedAt: null }).where(eq(paymentTypes.locationId, loc.id));
    }
  });

  it("Seven Springs and Kinston (no payment types in the spec) take no cards", async () => {
    for (const slug of ["seven-springs-nc-28578", "kinston-nc-28501"]) {
      const page = await callRoute<{ location: { acceptedCards: string[] } }>(locationLoader, db(), `/locations/${slug}`, { params: { slug } });
      expect(page.data.location.acceptedCards).toEqual([]);
    }
  });
});

describe("is_insurance_shown", () => {
  it("governs the location page's plan list too", async () => {
    const shown = await callRoute<{ location: { insurancePlans: unknown[] } }>(locationLoader, db(), `/locations/${LUMBERTON}`, { params: { slug: LUMBERTON } });
    expect(shown.data.location.insurancePlans).toHaveLength(4);
    await setAccountFlags({ is_insurance_shown: false });
    const hidden = await callRoute<{ location: { insurancePlans: unknown[] } }>(locationLoader, db(), `/locations/${LUMBERTON}`, { params: { slug: LUMBERTON } });
    expect(hidden.data.location.insurancePlans).toEqual([]);
  });
});

describe("staging_domain", () => {
  it("robots.txt on the staging host disallows everything; on the primary domain it is the normal one", async () => {
    const website = (await getWebsite(db()))!;
    const staging = await callRoute(robotsLoader, db(), `http://${website.stagingDomain}/robots.txt`);
    expect(await staging.response!.text()).toBe("User-agent: *\nDisallow: /\n");
    expect(staging.headers.get("X-Robots-Tag")).toBe("noindex, nofollow");
    const live = await callRoute(robotsLoader, db(), `http://${website.domain}/robots.txt`);
    const text = await live.response!.text();
    expect(text).not.toMatch(/^Disallow: \/$/m);
    expect(text).toContain("Sitemap:");
  });

  it("pages on the staging host carry the noindex flag for the robots meta tag", async () => {
    const website = (await getWebsite(db()))!;
    const staging = await callRoute<{ isStaging: boolean }>(rootLoader, db(), `http://${website.stagingDomain}:3000/`);
    expect(staging.data.isStaging).toBe(true);
    const live = await callRoute<{ isStaging: boolean }>(rootLoader, db(), `http://${website.domain}/`);
    expect(live.data.isStaging).toBe(false);
  });
});

describe("ID upload and unit alarms flags (decision 094)", () => {
  async function dashboard() {
    const now = new Date();
    const t = await createTenantWithLease(db(), { email: `office-${Date.now()}-${Math.random()}@example.com`, password: "secret1", now, withInsurance: false });
    const cookie = (await createTenantSession(db(), { tenantId: String(t.tenantId), now })).split(";")[0]!;
    const r = await callRoute<{ units: Array<{ officeInstructions: Array<{ key: string; text: string }> }> }>(dashboardLoader, db(), "/customer-portal", {
      init: { headers: { Cookie: cookie } },
    });
    // Each unit's section follows its location's settings (decision 201); the tenant has one unit.
    expect(r.data.units).toHaveLength(1);
    return { data: { officeInstructions: r.data.units[0]!.officeInstructions } };
  }

  it("off (seed): the portal says nothing about them", async () => {
    expect((await dashboard()).data.officeInstructions).toEqual([]);
  });

  it("on: the portal shows the office's instructions", async () => {
    await setAccountFlags({ is_id_upload_enabled: true, is_unit_alarms_enabled: true });
    const list = (await dashboard()).data.officeInstructions;
    expect(list.map((i) => i.key)).toEqual(["id_upload", "unit_alarms"]);
    expect(list[0]!.text).toMatch(/^Bring a photo ID .* to the office/);
    expect(list[1]!.text).toMatch(/Ask the office about unit alarms/);
    await setAccountFlags({ is_unit_alarms_enabled: true });
    expect((await dashboard()).data.officeInstructions.map((i) => i.key)).toEqual(["unit_alarms"]);
  });
});

describe("rental_days_in_advance and rentals on Sunday (decision 094)", () => {
  const SUNDAY = new Date("2026-11-22T15:00:00Z"); // 10:00 on Sunday in Lumberton

  it("0 (seed): today only; Sundays off → no date on a Sunday, the rental says so", async () => {
    const { unitTypeId } = await lumbertonUnitType(db());
    expect((await ctxFor(db(), unitTypeId, SUNDAY)).moveInDates).toEqual(["2026-11-22"]);
    await setAccountFlags({ is_rentals_on_sunday_allowed: false });
    const ctx = await ctxFor(db(), unitTypeId, SUNDAY);
    expect(ctx.moveInDates).toEqual([]);
    expect(rentalBlock(ctx)).toBe("sunday");
  });

  it("3: today to today + 3 (without Sunday when not allowed); billing, lease and receipt follow the chosen date", async () => {
    await setAccountFlags({ rental_days_in_advance: 3 });
    const { unitTypeId } = await lumbertonUnitType(db());
    expect((await ctxFor(db(), unitTypeId, SUNDAY)).moveInDates).toEqual(["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"]);
    await setAccountFlags({ rental_days_in_advance: 3, is_rentals_on_sunday_allowed: false });
    const ctx = await ctxFor(db(), unitTypeId, SUNDAY);
    expect(ctx.moveInDates).toEqual(["2026-11-23", "2026-11-24", "2026-11-25"]);
    expect(rentalBlock(ctx)).toBeNull();

    const details = tenantDetails();
    const id = await saveDetails(db(), ctx, { existing: null, details, webPw: "secret1", now: SUNDAY });
    let rental = (await getRental(db(), id, unitTypeId))!;
    await saveProtection(db(), ctx, rental, "none", SUNDAY, "2026-11-24");
    rental = (await getRental(db(), id, unitTypeId))!;
    expect(rental.moveInDate).toBe("2026-11-24");
    const q = await quoteRental(ctx, rental.insuranceChoice, rental.moveInDate);
    expect([q.quote.moveInDate, q.quote.paidThroughDate, q.quote.nextDueDate]).toEqual(["2026-11-24", "2026-12-23", "2026-12-24"]);
    const text = rentalLeaseText(ctx, details, q);
    await saveSignature(db(), ctx, rental, { signedName: `${details.first_name} ${details.last_name}`, text, ip: "203.0.113.9", now: SUNDAY });
    rental = (await getRental(db(), id, unitTypeId))!;
    const placed = await placeMoveIn(db(), ctx, rental, { payment: { kind: "card", card: card() }, autopay: false, now: SUNDAY, origin: "http://localhost" });
    expect(placed.status).toBe("completed");
    if (placed.status !== "completed") return;
    const receipt = (await getRentalConfirmation(ctx.storage, Number(placed.leaseId)))!;
    expect([receipt.moveInDate, receipt.paidThroughDate, receipt.nextDueDate]).toEqual(["2026-11-24", "2026-12-23", "2026-12-24"]);
    const lease = (await getLeaseDocument(db(), Number(placed.leaseId)))!;
    expect(lease.moveInDate).toBe("2026-11-24");

    // A Sunday cannot be chosen.
    const { plans } = await quoteRental(ctx, null);
    const bad = protectionSchema(plans.map((p) => p.id), false, ctx.moveInDates).safeParse({ insurance_plan: "none", move_in_date: "2026-11-22" });
    expect(bad.success).toBe(false);
  });
});

describe("the portal's card forms follow the location (payment_types, external_payment_link; decisions 091, 136)", () => {
  const MASTERCARD = "5555 5555 5555 4444";
  const cardFields = (number: string) => ({ payment_method: "new", card_number: number, exp_month: "12", exp_year: String(new Date().getFullYear() + 3), cvv: "123", name_on_card: "Pat Tenant", billing_postal_code: "28358" });
  type Answer = { payment: { kind: string; accepted?: string[]; href?: string }; savedCards: Array<{ id: string; brand: string }>; result?: { error?: Record<string, string[]> } };

  async function signedInTenant() {
    const now = new Date();
    const t = await createTenantWithLease(db(), { email: `portal-cards-${Date.now()}-${Math.random()}@example.com`, password: "secret1", now, withInsurance: false });
    const session = (await createTenantSession(db(), { tenantId: String(t.tenantId), now })).split(";")[0]!;
    const csrf = (await getCsrfToken(new Request("http://localhost/", { headers: { Cookie: session } }))).token;
    return { leaseId: String(t.leaseId), tenantId: String(t.tenantId), session, csrf };
  }

  const forms = [
    { name: "pay", loader: payLoader, action: payAction, fields: (key: string) => ({ idempotency_key: key, amount_choice: "other", other_amount: "5.00" }) },
    { name: "prepay", loader: prepayLoader, action: prepayAction, fields: (key: string) => ({ idempotency_key: key, months: "1" }) },
    { name: "autopay", loader: autopayLoader, action: autopayAction, fields: () => ({ intent: "enrol", agree_terms: "on" }) },
  ] as const;

  async function load(form: (typeof forms)[number], t: Awaited<ReturnType<typeof signedInTenant>>) {
    return callRoute<Answer>(form.loader, db(), `/customer-portal/units/${t.leaseId}/${form.name}`, { params: { leaseId: t.leaseId }, init: { headers: { Cookie: t.session } } });
  }
  async function submit(form: (typeof forms)[number], t: Awaited<ReturnType<typeof signedInTenant>>, fields: Record<string, string>) {
    const body = new URLSearchParams({ csrf: t.csrf, ...form.fields(`portalcards${Date.now()}${Math.random().toString(36).slice(2)}`), ...fields });
    return callRoute<Answer>(form.action, db(), `/customer-portal/units/${t.leaseId}/${form.name}`, {
      params: { leaseId: t.leaseId },
      init: { method: "POST", body, headers: { Cookie: t.session, "Content-Type": "application/x-www-form-urlencoded" } },
    });
  }
  const paymentCount = async () => (await db().select().from(payments)).length;

  it("a brand the location does not take is refused beside the card number on pay, prepay and autopay; a saved card of that brand is not offered", async () => {
    const t = await signedInTenant();
    // A Master Card saved while the location still took it.
    const first = await submit(forms[0], t, { ...cardFields(MASTERCARD), save_card: "on" });
    expect(first.status).toBe(303);
    const { loc } = await lumbertonTypes();
    try {
      await db().update(paymentTypes).set({ deletedAt: new Date() }).where(and(eq(paymentTypes.locationId, loc.id), eq(paymentTypes.category, "mastercard")));
      for (const form of forms) {
        const page = await load(form, t);
        expect(page.data.payment).toEqual({ kind: "cards", accepted: ["visa", "discover"], demonstration: true, hosted: false });
        expect(page.data.savedCards).toEqual([]);
        const before = await paymentCount();
        const r = await submit(form, t, cardFields(MASTERCARD));
        expect(r.status, form.name).toBe(400);
        expect(r.data.result?.error?.card_number).toEqual(["This card is not accepted here. We accept Visa and Discover."]);
        expect(await paymentCount()).toBe(before);
      }
      const saved = await storageFor(db(), loc).listSavedCards(t.tenantId);
      const r = await submit(forms[0], t, { payment_method: `saved:${saved[0]!.id}` });
      expect(r.status).toBe(400);
      expect(r.data.result?.error?.payment_method).toEqual(["This card is not accepted here. We accept Visa and Discover."]);
      // A brand it takes still goes through.
      expect((await submit(forms[0], t, cardFields("4242 4242 4242 4242"))).status).toBe(303);
    } finally {
      await db().update(paymentTypes).set({ deletedAt: null }).where(eq(paymentTypes.locationId, loc.id));
    }
  });

  it("a location with no payment types takes no card in the portal, by page or by URL", async () => {
    const t = await signedInTenant();
    const { loc } = await lumbertonTypes();
    try {
      await db().update(paymentTypes).set({ deletedAt: new Date() }).where(eq(paymentTypes.locationId, loc.id));
      for (const form of forms) {
        expect((await load(form, t)).data.payment).toEqual({ kind: "no_cards" });
        const before = await paymentCount();
        const r = await submit(form, t, cardFields("4242 4242 4242 4242"));
        expect(r.status).toBe(303);
        expect(r.headers.get("Location")).toBe(`/customer-portal/units/${t.leaseId}/${form.name}`);
        expect(await paymentCount()).toBe(before);
      }
    } finally {
      await db().update(paymentTypes).set({ deletedAt: null }).where(eq(paymentTypes.locationId, loc.id));
    }
  });

  it("with external_payment_link set, pay, prepay and autopay send the tenant there and take no card by URL", async () => {
    const t = await signedInTenant();
    await db().update(locations).set({ externalPaymentLink: PAY_SITE }).where(eq(locations.urlSlug, LUMBERTON));
    for (const form of forms) {
      expect((await load(form, t)).data.payment).toEqual({ kind: "external", href: PAY_SITE });
      const before = await paymentCount();
      const r = await submit(form, t, cardFields("4242 4242 4242 4242"));
      expect(r.status).toBe(303);
      expect(r.headers.get("Location")).toBe(`/customer-portal/units/${t.leaseId}/${form.name}`);
      expect(await paymentCount()).toBe(before);
    }
  });
});

describe("location media, main_logo and amenity images (spec §3; docs/spec-audit.md)", () => {
  it("the location page carries the location's photos in order (not repeating the main image), its logo and its amenities' images", async () => {
    const { loc } = await lumbertonTypes();
    const logo = { width: 200, height: 80, type: "logo", alt: "Lumberton Self Storage", src: "/images/lumberton-logo.png", src_webp: null, title: null, file_name: null, file_name_full: null, file_name_original: null, file_name_webp: null, file_name_original_unmodified: null, file_type: "png", file_base_url: null };
    const amenity = (await db().query.amenities.findFirst({ where: eq(amenities.locationId, loc.id) }))!;
    try {
      await db().update(locations).set({ mainLogo: logo }).where(eq(locations.id, loc.id));
      await db().update(amenities).set({ image: { ...logo, alt: "", src: "/images/gate.svg" } }).where(eq(amenities.id, amenity.id));
      await db().insert(locationImages).values([
        { locationId: loc.id, index: 2, src: "/images/second.jpg", srcWebp: "/images/second.webp", alt: "Wide aisles", width: 800, height: 600, title: "Aisles" },
        { locationId: loc.id, index: 1, src: "/images/first.jpg", alt: "Front gate", width: 800, height: 600 },
      ]);
      type L = { media: Array<{ src: string; src_webp: string | null; alt: string; title: string | null }>; mainLogo: { src: string } | null; amenities: Array<{ id: number; image: { src: string } | null }> };
      const page = await callRoute<{ location: L }>(locationLoader, db(), `/locations/${LUMBERTON}`, { params: { slug: LUMBERTON } });
      expect(page.data.location.media.map((m) => [m.src, m.src_webp, m.alt, m.title])).toEqual([
        ["/images/first.jpg", null, "Front gate", null],
        ["/images/second.jpg", "/images/second.webp", "Wide aisles", "Aisles"],
      ]);
      expect(page.data.location.mainLogo?.src).toBe("/images/lumberton-logo.png");
      expect(page.data.location.amenities.find((a) => a.id === amenity.id)?.image?.src).toBe("/images/gate.svg");
    } finally {
      await db().delete(locationImages).where(and(eq(locationImages.locationId, loc.id), inArray(locationImages.src, ["/images/first.jpg", "/images/second.jpg"])));
      await db().update(locations).set({ mainLogo: null }).where(eq(locations.id, loc.id));
      await db().update(amenities).set({ image: amenity.image }).where(eq(amenities.id, amenity.id));
    }
  });
});
