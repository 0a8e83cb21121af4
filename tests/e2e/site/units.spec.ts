import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { testHook } from "../support/hooks";

const LUMBERTON = "/locations/lumberton-nc-28358";
const MAINTENANCE = "Rentals are currently under maintenance. Please call the office to make a payment.";

const visibleCards = (page: Page) => page.locator("[data-unit-card]:visible");

/** Picks a filter option: with JavaScript the list changes at once (no page load); without, the form is submitted. */
async function filter(page: Page, label: string, option: string, javaScriptEnabled: boolean) {
  const select = page.getByLabel(label, { exact: true });
  const [value] = await select.selectOption({ label: option });
  if (!javaScriptEnabled) {
    const name = (await select.getAttribute("name"))!;
    await Promise.all([
      page.waitForURL((url) => url.searchParams.get(name) === value),
      page.getByRole("button", { name: "Show units" }).click(),
    ]);
  }
}

/** axe runs inside the page, so it needs JavaScript: the scan runs in the js project only. */
async function expectNoAxeViolations(page: Page, javaScriptEnabled: boolean) {
  if (!javaScriptEnabled) return;
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]).analyze();
  expect(result.violations).toEqual([]);
}

test.describe("units and prices", () => {
  test("filters Lumberton's units by size group and type", async ({ page, javaScriptEnabled }) => {
    const response = await page.goto(LUMBERTON);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["cache-control"]).toBe("public, max-age=0, s-maxage=60, stale-while-revalidate=300");
    const all = await visibleCards(page).count();
    expect(all).toBeGreaterThanOrEqual(10);
    await expect(page.getByRole("status").filter({ hasText: `Showing all ${all} unit types` })).toBeVisible();
    if (javaScriptEnabled) await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));

    await filter(page, "Size", "Small", javaScriptEnabled);
    await expect(page).toHaveURL(/[?&]size=small\b/);
    await expect(visibleCards(page).first()).toBeVisible();
    const small = await visibleCards(page).count();
    expect(small).toBeLessThan(all);
    for (const group of await visibleCards(page).evaluateAll((els) => els.map((e) => e.getAttribute("data-size-group")))) {
      expect(group).toBe("small");
    }
    await expect(page.getByRole("heading", { name: "10' x 10' Drive-Up" })).toBeHidden();
    await expect(page.getByRole("status").filter({ hasText: `Showing ${small} of ${all} unit types` })).toBeVisible();

    await filter(page, "Type", "Drive-up", javaScriptEnabled);
    await expect(page).toHaveURL(/size=small&type=drive_up/);
    await expect(visibleCards(page)).toHaveCount(1);
    await expect(visibleCards(page).getByRole("heading")).toHaveText("5' x 10' Drive-Up");

    await filter(page, "Size", "Large", javaScriptEnabled);
    await expect(visibleCards(page).getByRole("heading")).toHaveText(["10' x 20' Drive-Up", "10' x 30' Drive-Up"]);

    if (javaScriptEnabled) {
      // The filters applied without a page load.
      expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
    }
    await page.getByRole("link", { name: "Clear filters" }).click();
    await expect(visibleCards(page)).toHaveCount(all);
  });

  test("a filter with no match says so and offers to call", { tag: "@no-js-over-http" }, async ({ page, javaScriptEnabled }) => {
    await page.goto(LUMBERTON);
    await filter(page, "Size", "Small", javaScriptEnabled);
    await filter(page, "Type", "Parking", javaScriptEnabled);
    await expect(visibleCards(page)).toHaveCount(0);
    await expect(page.getByText("No units match these filters.")).toBeVisible();
  });

  test("a sold-out unit type says so and offers to call", { tag: "@no-js-over-http" }, async ({ page, javaScriptEnabled }) => {
    await page.goto(LUMBERTON);
    await expectNoAxeViolations(page, javaScriptEnabled);
    const soldOut = page.locator("[data-unit-card]").filter({ hasText: "Sold out" }).first();
    await expect(soldOut).toBeVisible();
    await expect(soldOut.getByRole("link", { name: /^Rent/ })).toHaveCount(0);
    await expect(soldOut.getByRole("link", { name: "(910) 555-0134" })).toHaveAttribute("href", "tel:+19105550134");
  });

  test("Rent goes to the start of the rental flow; no Reserve button while reservations are off", { tag: "@no-js-over-http" }, async ({ page }) => {
    await page.goto(LUMBERTON);
    await expect(page.locator('a[href^="/reserve/"]')).toHaveCount(0);
    // Any type still to let (other specs rent units from the shared database).
    const rent = page.locator('[data-unit-card] a[href^="/rent/"]').first();
    const href = await rent.getAttribute("href");
    expect(href).toMatch(/^\/rent\/\d+$/);
    await rent.click();
    await expect(page).toHaveURL(new RegExp(`${href}$`));
  });

  test("the unit type page takes its title and description from the website's templates", { tag: "@no-js-over-http" }, async ({ page, javaScriptEnabled }) => {
    await page.goto(LUMBERTON);
    await page.getByRole("link", { name: "10' x 20' Drive-Up", exact: true }).click();
    await expect(page).toHaveURL(`${LUMBERTON}/units/10x20-drive-up`);
    await expect(page).toHaveTitle("10' x 20' Drive-Up Storage Unit in Lumberton");
    await expect(page.locator('meta[name="description"]')).toHaveAttribute(
      "content",
      "Rent a 10' x 20' Drive-Up storage unit at Lumberton, 4350 Fayetteville Rd, Lumberton, NC 28358. See today's price and rent online in minutes.",
    );
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("10' x 20' Drive-Up storage unit in Lumberton");
    await expectNoAxeViolations(page, javaScriptEnabled);
  });

  test("an unknown unit type page is a 404", { tag: "@no-js-over-http" }, async ({ page }) => {
    const response = await page.goto(`${LUMBERTON}/units/99x99-nothing`);
    expect(response?.status()).toBe(404);
  });

  test("coming-soon locations list no units", { tag: "@no-js-over-http" }, async ({ page }) => {
    await page.goto("/locations/kinston-nc-28501");
    await expect(page.getByRole("heading", { name: "Coming soon" })).toBeVisible();
    await expect(page.locator("[data-unit-card]")).toHaveCount(0);
    await expect(page.locator('a[href^="/rent/"]')).toHaveCount(0);
  });

  test("/units lists rentable types of every live location, filtered by location and by size from the size guide", async ({ page, javaScriptEnabled }) => {
    await page.goto("/size-guide");
    await page.getByRole("link", { name: "See available 10' x 10' units" }).click();
    await expect(page).toHaveURL(/\/units\?size=10x10$/);
    const sizes = await visibleCards(page).evaluateAll((els) => els.map((e) => e.getAttribute("data-size")));
    expect(sizes.length).toBeGreaterThan(0);
    expect(new Set(sizes)).toEqual(new Set(["10x10"]));
    await expect(page.locator("[data-unit-card]").filter({ hasText: "Sold out" })).toHaveCount(0);

    await page.goto("/units");
    await filter(page, "Location", "Jacksonville", javaScriptEnabled);
    await expect(page).toHaveURL(/location=jacksonville-nc-28546/);
    const where = await visibleCards(page).evaluateAll((els) => els.map((e) => e.getAttribute("data-location")));
    expect(where.length).toBeGreaterThan(0);
    expect(new Set(where)).toEqual(new Set(["jacksonville-nc-28546"]));
    await expect(page.getByRole("heading", { name: "Lumberton" })).toBeHidden();
    await expectNoAxeViolations(page, javaScriptEnabled);
  });

  test.describe("with the account's flags changed", { tag: "@no-js-over-http" }, () => {
    test.afterEach(async ({ request }) => {
      await testHook(request, "setAccountSettings", {
        settings: { is_rentals_enabled: true, is_reservations_enabled: false, is_web_rates_enabled: false },
      });
    });

    test("rentals off: the maintenance message with the phone instead of Rent", async ({ page, request }) => {
      await testHook(request, "setAccountSettings", { settings: { is_rentals_enabled: false } });
      await page.goto(LUMBERTON);
      await expect(page.locator("[data-unit-card]").first()).toBeVisible();
      await expect(page.locator('a[href^="/rent/"]')).toHaveCount(0);
      const card = page.locator("[data-unit-card]").filter({ hasText: MAINTENANCE }).first();
      await expect(card).toBeVisible();
      await expect(card.getByRole("link", { name: "(910) 555-0134" })).toHaveAttribute("href", "tel:+19105550134");
    });

    test("reservations and web rates on: Reserve buttons and the standard rate struck through", async ({ page, request }) => {
      await testHook(request, "setAccountSettings", { settings: { is_reservations_enabled: true, is_web_rates_enabled: true } });
      await page.goto(LUMBERTON);
      const card = page.locator("[data-unit-card]").filter({ has: page.locator('a[href^="/reserve/"]') }).first();
      await expect(card.getByRole("link", { name: /^Reserve/ })).toHaveAttribute("href", /^\/reserve\/\d+$/);
      await expect(card.locator("s")).toHaveText(/^\$\d+\.\d\d$/);
      await expect(card).toContainText(/Save \$\d+\.\d\d a month online/);
    });
  });
});
