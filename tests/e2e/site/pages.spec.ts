import { expect, test } from "@playwright/test";
import { SiteLayout, escapeRegExp } from "../support/site";
import {
  CARD_LABELS,
  COMING_SOON_LOCATIONS,
  CONTACT_PHONE,
  CONTACT_PHONE_TEL,
  FAQ_TITLES,
  INSURANCE_PREMIUMS,
  LIVE_LOCATIONS,
  LOCATIONS,
  PRIMARY_DOMAIN,
  STORAGE_TIP_TITLES,
} from "../support/seed-facts";

// Issue 2: every route of spec section 2 answers 200 with its content, rendered from the seeded data.

test("home page: the tagline, every location and a way to find one", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/");
  await expect(site.heading()).toContainText("self storage", { ignoreCase: true });
  for (const l of LOCATIONS) await expect(site.main.getByRole("link", { name: new RegExp(`^${l.name}\\b`) }).first()).toHaveAttribute("href", l.path);
  await expect(site.main.getByRole("link", { name: "Find a location" })).toHaveAttribute("href", "/view-locations");
});

test("/view-locations lists every location with its address, status and page link", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/view-locations");
  await expect(site.heading()).toBeVisible();
  for (const l of LOCATIONS) {
    const card = site.main.getByRole("article").filter({ has: page.getByRole("heading", { name: new RegExp(`^${l.name}\\b`) }) });
    await expect(card).toHaveCount(1);
    await expect(card).toContainText(l.street1);
    await expect(card).toContainText(l.postal);
    await expect(card.locator(".badge")).toHaveText(l.status === "Live" ? "Renting now" : "Coming soon");
    await expect(card.getByRole("link", { name: new RegExp(`^${l.name}\\b`) })).toHaveAttribute("href", l.path);
  }
});

for (const l of LIVE_LOCATIONS) {
  test(`live location page ${l.path}: facts from the database`, async ({ page }) => {
    const site = new SiteLayout(page);
    await site.goto(l.path);
    await expect(site.heading()).toContainText(l.name);
    await expect(site.main.locator(".location-header .badge")).toHaveText("Renting now");
    const address = site.main.locator("address").first();
    await expect(address).toContainText(l.street1);
    await expect(address).toContainText(`${l.city}, NC ${l.postal}`);
    await expect(site.main.getByRole("link", { name: /Get directions/ })).toHaveAttribute("href", /^https:\/\//);
    await expect(site.main.getByRole("link", { name: CONTACT_PHONE }).first()).toHaveAttribute("href", `tel:${CONTACT_PHONE_TEL}`);
    await expect(site.main.getByRole("heading", { name: "Gate hours" })).toBeVisible();
    await expect(site.main.getByRole("heading", { name: "Office hours" })).toBeVisible();
    for (const amenity of l.amenities) await expect(site.main.getByText(amenity, { exact: true })).toBeVisible();
    for (const premium of INSURANCE_PREMIUMS) await expect(site.main.getByRole("cell", { name: premium })).toBeVisible();
    for (const card of CARD_LABELS) await expect(site.main.getByText(card, { exact: true })).toBeVisible();
    await expect(site.main.getByRole("heading", { name: "Reviews" })).toBeVisible();
    await expect(page).toHaveTitle(new RegExp(escapeRegExp(l.name)));
    // JSON-LD SelfStorage business data (issue 2, SEO basics).
    const jsonLd = await page.locator('script[type="application/ld+json"]').allTextContents();
    expect(jsonLd.some((s) => s.includes('"SelfStorage"') && s.includes(l.street1))).toBe(true);
  });
}

for (const l of COMING_SOON_LOCATIONS) {
  test(`coming-soon location page ${l.path}: says Coming Soon, offers a notify form, no Rent button`, async ({ page }) => {
    const site = new SiteLayout(page);
    await site.goto(l.path);
    await expect(site.heading()).toContainText(l.name);
    await expect(site.main.locator(".location-header .badge")).toHaveText("Coming soon");
    await expect(site.main.getByRole("heading", { name: /coming soon/i }).first()).toBeVisible();
    await expect(site.main.locator("address").first()).toContainText(l.street1);
    // No way to rent here: no Rent link or button, no link to a unit list or the rental desk.
    await expect(site.main.getByRole("link", { name: /\brent\b/i })).toHaveCount(0);
    await expect(site.main.getByRole("button", { name: /\brent\b/i })).toHaveCount(0);
    await expect(site.main.locator('a[href^="/units"], a[href*="/rent"]')).toHaveCount(0);
    // No insurance and no card types for coming-soon sites (spec §9).
    await expect(site.main.getByRole("cell", { name: INSURANCE_PREMIUMS[0]! })).toHaveCount(0);
    await expect(site.main.getByRole("button", { name: "Notify me" })).toBeVisible();
  });
}

test("unknown location slug and unknown path give a 404 page with navigation", async ({ page }) => {
  const site = new SiteLayout(page);
  for (const path of ["/locations/nowhere-nc-00000", "/this-page-does-not-exist"]) {
    await site.goto(path, 404);
    await expect(site.heading()).toHaveText("We could not find that page");
    // The Main Menu is there (behind "Menu" on a 390 px screen).
    await site.openMainMenu();
    await expect(site.main.getByRole("link", { name: "Home" })).toHaveAttribute("href", "/");
    await expect(site.footer).toBeVisible();
    await expect(page.getByRole("main")).not.toContainText(/at .*\.(ts|js):\d+/); // no stack trace
  }
});

test("about, portable storage and privacy policy pages show the operator's content", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/about");
  await expect(site.heading()).toContainText("About");
  await expect(site.main).toContainText("Lumberton");

  await site.goto("/portable-storage");
  await expect(site.heading()).toContainText("Portable Storage");
  await expect(site.main.getByRole("link", { name: CONTACT_PHONE })).toHaveAttribute("href", `tel:${CONTACT_PHONE_TEL}`);

  await site.goto("/privacy-policy");
  await expect(site.heading()).toContainText("Privacy", { ignoreCase: true });
  await expect(site.main).toContainText("We never store your full card number");
});

test("FAQs in index order, each an accessible disclosure widget that opens and closes", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/faqs");
  await expect(site.heading()).toContainText("questions", { ignoreCase: true });
  const questions = site.main.locator("details summary");
  await expect(questions).toHaveText(FAQ_TITLES.map((t) => new RegExp(escapeRegExp(t))));

  const faq = site.main.locator("details").filter({ hasText: "How do I enter the gate?" });
  const answer = faq.getByText("press the # sign", { exact: false });
  await expect(answer).toBeHidden();
  await faq.locator("summary").click();
  await expect(faq).toHaveAttribute("open", "");
  await expect(answer).toBeVisible();
  await faq.locator("summary").click();
  await expect(answer).toBeHidden();
  // And by keyboard.
  await faq.locator("summary").focus();
  await page.keyboard.press("Enter");
  await expect(answer).toBeVisible();
  await page.keyboard.press("Space");
  await expect(answer).toBeHidden();
});

test("storage tips in index order, including cartons of 30 lbs or less", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/storage-tips");
  await expect(site.heading()).toContainText("tips", { ignoreCase: true });
  await expect(site.main.getByRole("heading", { level: 2 })).toHaveText(STORAGE_TIP_TITLES.map((t) => t));
  await expect(site.main).toContainText("30 lbs or less");
});

test("size guide shows the common unit sizes with what fits", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/size-guide");
  await expect(site.heading()).toContainText("size", { ignoreCase: true });
  for (const size of ["5' x 5'", "5' x 10'", "10' x 10'", "10' x 20'"]) {
    await expect(site.main.getByRole("heading", { name: size, exact: true })).toBeVisible();
  }
  await expect(site.main.getByRole("heading", { name: "What fits" }).first()).toBeVisible();
});

test("customer portal sign-in and the units page exist", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/customer-portal/login");
  await expect(site.heading()).toBeVisible();
  await expect(page).toHaveTitle(/\S/);

  // /units: the default rent target covers the live locations (issue 3 fills in the unit list).
  await site.goto("/units");
  await expect(site.heading()).toBeVisible();
  for (const l of LIVE_LOCATIONS) await expect(site.main).toContainText(l.name);
});

test("sitemap.xml lists every public page and location; robots.txt points to it", async ({ request }) => {
  const sitemap = await request.get("/sitemap.xml");
  expect(sitemap.status()).toBe(200);
  expect(sitemap.headers()["content-type"]).toContain("xml");
  const xml = await sitemap.text();
  const origin = `https://${PRIMARY_DOMAIN}`;
  const paths = ["/", "/view-locations", "/about", "/portable-storage", "/contact", "/faqs", "/storage-tips", "/size-guide", "/privacy-policy", "/customer-portal/login", "/units"];
  for (const path of [...paths, ...LOCATIONS.map((l) => l.path)]) expect(xml).toContain(`<loc>${origin}${path}</loc>`);

  const robots = await request.get("/robots.txt");
  expect(robots.status()).toBe(200);
  expect(robots.headers()["content-type"]).toContain("text/plain");
  const body = await robots.text();
  expect(body).toContain("User-agent: *");
  expect(body).toContain(`Sitemap: ${origin}/sitemap.xml`);
});
