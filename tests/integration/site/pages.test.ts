import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { oldDomains, redirects, websites } from "~/db/schema";
import { getLocationPage, listLocations } from "~/db/queries/locations.server";
import { getAccount, getSiteLayout, getWebsite } from "~/db/queries/site.server";
import { getContentItems, getPage } from "~/db/queries/content.server";
import { groupHours } from "~/domain/site/hours";
import { componentProp } from "~/domain/site/website-settings";
import type { MenuItem } from "~/domain/site/menu";
import { loader as homeLoader } from "~/routes/site/home";
import { loader as viewLocationsLoader } from "~/routes/site/view-locations";
import { loader as locationLoader } from "~/routes/site/location";
import { loader as aboutLoader } from "~/routes/site/about";
import { loader as portableStorageLoader } from "~/routes/site/portable-storage";
import { loader as contactLoader } from "~/routes/site/contact";
import { loader as faqsLoader } from "~/routes/site/faqs";
import { loader as storageTipsLoader } from "~/routes/site/storage-tips";
import { loader as privacyLoader } from "~/routes/site/privacy-policy";
import { loader as portalLoginLoader } from "~/routes/portal/login";
import { loader as sitemapLoader } from "~/routes/site/sitemap[.]xml";
import { loader as robotsLoader } from "~/routes/site/robots[.]txt";
import { loader as notFoundLoader } from "~/routes/site/not-found";
import { loader as rootLoader } from "~/root";
import { createTestDatabase } from "../support/db";
import { callRoute } from "../support/route-helpers";

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await createTestDatabase();
});
afterAll(() => handle?.close());
const db = () => handle.db;

const LOCATIONS = [
  { name: "Lumberton", urlSlug: "lumberton-nc-28358", status: "Live", software: "sitelink" },
  { name: "Jacksonville", urlSlug: "jacksonville-nc-28546", status: "Live", software: "sitelink" },
  { name: "Seven Springs", urlSlug: "seven-springs-nc-28578", status: "Coming Soon", software: "no_api" },
  { name: "Kinston", urlSlug: "kinston-nc-28501", status: "Coming Soon", software: "no_api" },
];
const LIVE = LOCATIONS.filter((l) => l.status === "Live");
const COMING_SOON = LOCATIONS.filter((l) => l.status === "Coming Soon");

const hoursText = (items: Parameters<typeof groupHours>[0]) => groupHours(items).map((r) => `${r.label}: ${r.text}`);

describe("the seeded locations (spec §9)", () => {
  it("are the four locations with their slugs, statuses and software, live ones first", async () => {
    const account = await getAccount(db(), (await getWebsite(db()))!.accountId);
    const list = await listLocations(db(), account!.id);
    expect(list.map(({ name, urlSlug, status, software }) => ({ name, urlSlug, status, software }))).toEqual(LOCATIONS);
  });

  it("share one contact phone number", async () => {
    const list = await listLocations(db(), (await getWebsite(db()))!.accountId);
    expect(new Set(list.map((l) => l.phoneNumber)).size).toBe(1);
    expect(list[0]!.phoneNumber).toMatch(/^\(\d{3}\) \d{3}-\d{4}$/);
  });

  it.each(LOCATIONS)("$name is in America/New_York", async ({ urlSlug }) => {
    const page = await getLocationPage(db(), urlSlug);
    expect(page!.timeZone.timeZoneId).toBe("America/New_York");
  });

  it("Lumberton: gate Mo-Sa 08:00-22:00; office Mo-Fr 09:00-18:00, Sa 09:00-14:00, Su closed", async () => {
    const page = await getLocationPage(db(), "lumberton-nc-28358");
    const block = (type: string) => page!.hoursBlocks.find((b) => b.type === type)!.items;
    expect(hoursText(block("gate"))).toEqual(["Mon – Sat: 8:00 AM – 10:00 PM", "Sun: Closed"]);
    expect(hoursText(block("office"))).toEqual(["Mon – Fri: 9:00 AM – 6:00 PM", "Sat: 9:00 AM – 2:00 PM", "Sun: Closed"]);
  });

  it.each(LOCATIONS.slice(1))("$name: gate 24 hours every day; office Mo-Fr 08:00-17:00, Sa and Su closed", async ({ urlSlug }) => {
    const page = await getLocationPage(db(), urlSlug);
    const block = (type: string) => page!.hoursBlocks.find((b) => b.type === type)!.items;
    expect(hoursText(block("gate"))).toEqual(["Every day: Open 24 hours"]);
    expect(hoursText(block("office"))).toEqual(["Mon – Fri: 8:00 AM – 5:00 PM", "Sat – Sun: Closed"]);
  });

  it.each(LIVE)("$name charges the lock fee: 7.00, tax_1_rate 6.75, not recurring", async ({ urlSlug }) => {
    const page = await getLocationPage(db(), urlSlug);
    expect(page!.extraCharges).toEqual([
      expect.objectContaining({ name: "Lock fee", amount: 7, tax_1_rate: 6.75, tax_2_rate: 0, is_recurring: false }),
    ]);
  });

  it.each(LIVE)("$name offers the four insurance tiers (50 % theft coverage)", async ({ urlSlug }) => {
    const page = await getLocationPage(db(), urlSlug);
    expect(
      page!.insurancePlans.map((p) => [p.coverage, p.premium, Number(p.percentOfTheftCoverage), p.description]),
    ).toEqual([
      [100_000, 895, 1, "50%"],
      [500_000, 1_195, 1, "50%"],
      [1_000_000, 2_195, 1, "50%"],
      [1_500_000, 3_695, 1, "50%"],
    ]);
  });

  it.each(LIVE)("$name accepts Visa, Master Card and Discover", async ({ urlSlug }) => {
    const page = await getLocationPage(db(), urlSlug);
    expect(page!.paymentTypes.map((p) => [p.label, p.category])).toEqual([
      ["Visa", "visa"],
      ["Master Card", "mastercard"],
      ["Discover", "discover"],
    ]);
  });

  it.each(COMING_SOON)("$name (coming soon) has no insurance, no payment types and no charges", async ({ urlSlug }) => {
    const page = await getLocationPage(db(), urlSlug);
    expect(page!.insurancePlans).toEqual([]);
    expect(page!.paymentTypes).toEqual([]);
    expect(page!.extraCharges).toEqual([]);
  });

  it.each(LOCATIONS)("$name's success messages: '#' after the gate code; office hours to finish paperwork", async ({ urlSlug }) => {
    const page = await getLocationPage(db(), urlSlug);
    expect(page!.rentalSuccessMessage).toMatch(/gate code/i);
    expect(page!.rentalSuccessMessage).toMatch(/press the <strong>#<\/strong> sign/);
    expect(page!.reservationSuccessMessage).toMatch(/come to the office during office hours/i);
    expect(page!.reservationSuccessMessage).toMatch(/paperwork/);
    expect(page!.reservationSuccessMessage).toMatch(/gate access/);
  });

  it.each(LOCATIONS)("$name has meta fields, an address and review settings with 0 reviews", async ({ urlSlug, name }) => {
    const page = await getLocationPage(db(), urlSlug);
    expect(page!.metaTitle).toContain(name);
    expect(page!.metaDescription.length).toBeGreaterThan(50);
    expect(page!.address).toMatchObject({ stateProvince: "NC", country: "US" });
    expect(page!.reviewSettings).toEqual({ batch_id: null, status: "get-results", total_reviews: 0, rating: 0 });
  });

  it("finds a location by slug whatever its case, and nothing for an unknown slug", async () => {
    expect((await getLocationPage(db(), "Lumberton-NC-28358"))?.name).toBe("Lumberton");
    expect(await getLocationPage(db(), "nowhere-nc-00000")).toBeNull();
  });
});

describe("the seeded website, account and menus", () => {
  it("website: flags, announcement bar with a phone link, the two footer menus", async () => {
    const website = (await getWebsite(db()))!;
    expect([website.hasNewChanges, website.hasRedeployStarted]).toEqual([false, true]);
    expect(componentProp(website.navComponent, "announcement_bar_enabled", false)).toBe(true);
    expect(componentProp(website.navComponent, "announcement_bar_phone", "")).toMatch(/^\(\d{3}\) \d{3}-\d{4}$/);
    expect(componentProp(website.navComponent, "rent_button_url", "")).toBe("/view-locations");
    expect(componentProp(website.footerComponent, "first_menu", "")).toBe("Company");
    expect(componentProp(website.footerComponent, "second_menu", "")).toBe("Quick Links");
  });

  it("account: the business constants and portal flags of spec §9", async () => {
    const account = (await getAccount(db(), (await getWebsite(db()))!.accountId))!;
    const s = account.globalSettings;
    expect([s.reservation_days_valid, s.portal_prepay_months, s.rental_days_in_advance, s.fake_discount_percentage]).toEqual([2, 3, 0, 0]);
    expect([s.is_autopay_enabled, s.is_payments_enabled, s.is_prepayments_enabled, s.is_move_out_enabled, s.is_phone_form_enabled, s.is_rentals_enabled, s.is_reservation_short_form_enabled, s.is_sitelink_esign_enabled, s.is_autopay_prechecked, s.is_rentals_on_sunday_allowed]).toEqual(Array(10).fill(true));
    expect([s.is_reservations_enabled, s.is_protection_plans_enabled, s.is_force_autopay, s.is_id_upload_enabled, s.is_unit_alarms_enabled, s.is_web_rates_enabled, s.is_value_pricing_enabled, s.is_insurance_required]).toEqual(Array(8).fill(false));
    expect(s.is_insurance_shown).toBe(true);
    expect(account.privacyPolicy).toContain("<h2>");
    expect(account.companyInformation.length).toBeGreaterThan(50);
  });

  it("menus: Main Menu nests the locations (Lumberton with two sub-sites), Resources and a Pay Bill link", async () => {
    const layout = (await getSiteLayout(db()))!;
    const outline = (items: MenuItem[]): unknown[] =>
      items.map((i) => (i.children.length ? { [i.name]: outline(i.children) } : i.name));
    expect(outline(layout.menus["Main Menu"]!.items)).toEqual([
      {
        Locations: [
          { Lumberton: ["Self Storage", "Portable Storage"] },
          "Jacksonville",
          "Seven Springs (Coming Soon)",
          "Kinston (Coming Soon)",
        ],
      },
      { Resources: ["Size Guide", "FAQs", "Storage Tips"] },
      "About",
      "Contact",
      "Pay Bill",
    ]);
    const payBill = layout.menus["Main Menu"]!.items.find((i) => i.name === "Pay Bill")!;
    expect(payBill.url).toBe("/payonline");
    const locationUrls = layout.menus["Main Menu"]!.items[0]!.children.map((c) => c.url);
    expect(locationUrls).toEqual(LOCATIONS.map((l) => `/locations/${l.urlSlug}`));
    expect(Object.keys(layout.menus).sort()).toEqual(["Company", "Main Menu", "Quick Links"]);
    expect(layout.menus["Company"]!.items.length).toBeGreaterThan(0);
    expect(layout.menus["Quick Links"]!.items.length).toBeGreaterThan(0);
    expect(layout.website.logo?.src).toBeTruthy();
    expect(layout.website.footerLogo?.src).toBeTruthy();
  });

  it("FAQs and storage tips come in index order; a tip advises cartons of 30 lbs or less", async () => {
    const accountId = (await getWebsite(db()))!.accountId;
    const faqs = await getContentItems(db(), accountId, "FAQ");
    const tips = await getContentItems(db(), accountId, "Storage Tip");
    expect(faqs.length).toBeGreaterThan(3);
    expect(faqs.map((f) => f.index)).toEqual([...faqs.map((f) => f.index)].sort((a, b) => a - b));
    expect(tips.map((t) => t.index)).toEqual([...tips.map((t) => t.index)].sort((a, b) => a - b));
    expect(faqs[0]!.title).toBe("How do I rent a storage unit online?");
    expect(tips[0]!.title).toBe("Use cartons of 30 lbs or less");
    expect(tips.some((t) => /cartons?[^<]*30 lbs or less/i.test(t.title + t.content))).toBe(true);
  });

  it("redirects and old domains are rows: the seven permanent redirects and two old domains", async () => {
    const rules = await db().select().from(redirects).orderBy(redirects.fromPath);
    expect(rules.map((r) => [r.fromPath, r.toPath, r.statusCode])).toEqual([
      ["/4350-fayetteville-rd", "/view-locations", 301],
      ["/contact-us", "/contact", 301],
      ["/faq", "/faqs", 301],
      ["/payonline", "/customer-portal/login", 301],
      ["/privacy", "/privacy-policy", 301],
      ["/self-storage", "/view-locations", 301],
      ["/terms", "/privacy-policy", 301],
    ]);
    const domains = await db().query.oldDomains.findMany({ with: { location: { columns: { urlSlug: true } } }, orderBy: oldDomains.hostname });
    expect(domains.map((d) => [d.hostname, d.location.urlSlug])).toEqual([
      ["jacksonvillestorage.example", "jacksonville-nc-28546"],
      ["lumbertonselfstorage.example", "lumberton-nc-28358"],
    ]);
  });

  it("the portable storage page exists", async () => {
    const page = await getPage(db(), (await getWebsite(db()))!.accountId, "portable-storage");
    expect(page?.title).toBe("Portable Storage");
  });
});

describe("page loaders return the seeded facts", () => {
  it("root: the layout (menus, announcement bar settings) and the global styles as CSS custom properties", async () => {
    const r = await callRoute<{ site: { menus: Record<string, unknown> }; globalCss: string }>(rootLoader, db(), "/");
    expect(Object.keys(r.data.site.menus)).toContain("Main Menu");
    expect(r.data.globalCss).toContain("--color-primary: #14457a;");
  });

  it("home lists every location", async () => {
    const r = await callRoute<{ locations: Array<{ urlSlug: string }>; faqs: unknown[] }>(homeLoader, db(), "/");
    expect(r.data.locations.map((l) => l.urlSlug)).toEqual(LOCATIONS.map((l) => l.urlSlug));
    expect(r.data.faqs).toHaveLength(3);
  });

  it("view-locations lists every location with its status", async () => {
    const r = await callRoute<{ locations: Array<{ urlSlug: string; status: string }> }>(viewLocationsLoader, db(), "/view-locations");
    expect(r.data.locations.map((l) => [l.urlSlug, l.status])).toEqual(LOCATIONS.map((l) => [l.urlSlug, l.status]));
  });

  it("a live location page: hours grouped, today's status, cacheable, no form", async () => {
    const r = await callRoute<{
      location: { name: string; status: string; insurancePlans: unknown[]; acceptedCards: string[] };
      hours: Array<{ type: string; ranges: Array<{ label: string }>; status: { text: string } }>;
      isComingSoon: boolean;
      csrfToken: string | null;
    }>(locationLoader, db(), "/locations/lumberton-nc-28358", { params: { slug: "lumberton-nc-28358" } });
    expect(r.status).toBe(200);
    expect(r.data.location.name).toBe("Lumberton");
    expect(r.data.isComingSoon).toBe(false);
    expect(r.data.csrfToken).toBeNull();
    expect(r.data.location.insurancePlans).toHaveLength(4);
    expect(r.data.location.acceptedCards).toEqual(["visa", "mastercard", "discover"]);
    expect(r.data.hours.map((h) => h.type)).toEqual(["office", "gate"]);
    expect(r.data.hours[0]!.ranges.map((x) => x.label)).toEqual(["Mon – Fri", "Sat", "Sun"]);
    expect(r.data.hours[0]!.status.text).toMatch(/^(Open now|Closed now)/);
    expect(r.headers.get("Cache-Control")).toMatch(/^public/);
  });

  it("a coming-soon location page offers the notify form and is never cached", async () => {
    const r = await callRoute<{ isComingSoon: boolean; csrfToken: string | null; location: { status: string } }>(
      locationLoader,
      db(),
      "/locations/kinston-nc-28501",
      { params: { slug: "kinston-nc-28501" } },
    );
    expect(r.data.location.status).toBe("Coming Soon");
    expect(r.data.isComingSoon).toBe(true);
    expect(r.data.csrfToken).toEqual(expect.any(String));
    expect(r.headers.get("Cache-Control")).toBe("private, no-store");
    expect(r.headers.get("Set-Cookie")).toMatch(/^csrf=/);
  });

  it("an unknown location answers 404", async () => {
    const r = await callRoute(locationLoader, db(), "/locations/nowhere-nc-00000", { params: { slug: "nowhere-nc-00000" } });
    expect(r.status).toBe(404);
  });

  it("an unknown path answers 404", async () => {
    const r = await callRoute(notFoundLoader, db(), "/no-such-page");
    expect(r.status).toBe(404);
  });

  it.each([
    ["about", aboutLoader, "/about", (d: { html: string }) => expect(d.html).toContain("Lumberton")],
    ["portable storage", portableStorageLoader, "/portable-storage", (d: { page: { content: string } }) => expect(d.page.content).toContain("How it works")],
    ["privacy policy", privacyLoader, "/privacy-policy", (d: { html: string }) => expect(d.html).toContain("We never store your full card number")],
    ["FAQs", faqsLoader, "/faqs", (d: { faqs: Array<{ title: string }> }) => expect(d.faqs[2]!.title).toBe("How do I enter the gate?")],
    ["storage tips", storageTipsLoader, "/storage-tips", (d: { tips: Array<{ title: string }> }) => expect(d.tips[0]!.title).toBe("Use cartons of 30 lbs or less")],
    ["portal sign-in", portalLoginLoader, "/customer-portal/login", (d: { phone: string }) => expect(d.phone).toMatch(/^\(\d{3}\)/)],
    ["contact", contactLoader, "/contact", (d: { csrfToken: string; locations: unknown[] }) => {
      expect(d.csrfToken.length).toBeGreaterThan(30);
      expect(d.locations).toHaveLength(4);
    }],
  ] as const)("%s", async (_name, loader, url, check) => {
    const r = await callRoute(loader as (args: never) => unknown, db(), url);
    expect(r.status).toBe(200);
    (check as (d: unknown) => void)(r.data);
  });

  it("sitemap.xml lists every public page and location on the primary domain", async () => {
    const r = await callRoute(sitemapLoader, db(), "/sitemap.xml");
    const xml = await r.response!.text();
    const domain = (await db().select({ d: websites.domain }).from(websites).where(eq(websites.id, (await getWebsite(db()))!.id)))[0]!.d;
    const locs = [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]!.replace(`https://${domain}`, ""));
    expect(locs).toEqual(
      expect.arrayContaining([
        "/",
        "/view-locations",
        "/about",
        "/portable-storage",
        "/contact",
        "/faqs",
        "/storage-tips",
        "/size-guide",
        "/privacy-policy",
        "/customer-portal/login",
        "/units",
        ...LOCATIONS.map((l) => `/locations/${l.urlSlug}`),
      ]),
    );
    expect(locs.filter((l) => /^\/locations\/[a-z0-9-]+\/units\/[a-z0-9-]+$/.test(l)).length).toBeGreaterThan(0);
    expect(locs.some((l) => l.startsWith("/locations/kinston-nc-28501/units/"))).toBe(false);
    expect(new Set(locs).size).toBe(locs.length);
    expect(r.response!.headers.get("Content-Type")).toContain("application/xml");
  });

  it("robots.txt points at the sitemap", async () => {
    const r = await callRoute(robotsLoader, db(), "/robots.txt");
    const text = await r.response!.text();
    expect(text).toContain("User-agent: *");
    expect(text).toMatch(/^Sitemap: https:\/\/[^/]+\/sitemap\.xml$/m);
    expect(text).toContain("Disallow: /customer-portal/\nAllow: /customer-portal/login");
    expect(text).toContain("Disallow: /rent/");
  });
});
