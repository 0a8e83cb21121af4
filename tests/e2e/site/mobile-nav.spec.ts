import { SiteLayout } from "../support/site";
import { expect, expectNoAxeViolations, openAllDisclosures, test } from "../support/a11y";

// Issue 9: on a 390 px phone the Main Menu sits behind one "Menu" disclosure (<details>/<summary>),
// so the header is a single row above the content. Native HTML: it works without JavaScript, from
// the keyboard and with screen readers. Runs in both projects (with and without JavaScript).

const PHONE = { width: 390, height: 844 };
test.use({ viewport: PHONE });

test("390 px: one compact header row; the menu opens from 'Menu' and leads to a page", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/");
  const header = page.locator("header.site-header");
  const box = (await header.boundingBox())!;
  expect(box.height, "header height at 390 px").toBeLessThanOrEqual(80);
  const toggle = site.header.locator("summary", { hasText: /^Menu$/ });
  await expect(toggle).toBeVisible();
  await expect(site.rentButton("Rent a unit")).toBeVisible();
  // Closed until asked for: no menu row pushes the content down.
  await expect(site.mainNav).toBeHidden();
  const mainTop = (await site.main.boundingBox())!.y;
  expect(mainTop).toBeLessThanOrEqual(box.y + box.height + 1);

  // Keyboard: Enter on the toggle opens the menu; Enter on a submenu toggle opens the submenu.
  await toggle.focus();
  await page.keyboard.press("Enter");
  await expect(site.mainNav).toBeVisible();
  await expect(site.mainNav.getByRole("link", { name: "Pay Bill", exact: true })).toBeVisible();
  const panel = await site.openSubmenuWithKeyboard("Locations");
  const lumberton = panel.locator("xpath=.//summary[normalize-space(.)='Lumberton']");
  await expect(lumberton).toBeVisible();
  // The menu fits the screen: nothing sticks out sideways.
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(PHONE.width);

  await site.mainNav.getByRole("link", { name: "Pay Bill", exact: true }).click();
  await expect(page).toHaveURL(/\/customer-portal\/login$/);
});

test("390 px: axe finds nothing with the menu closed, and open with every submenu open", async ({ scanPage }) => {
  await scanPage.setViewportSize(PHONE);
  const site = new SiteLayout(scanPage);
  await site.goto("/");
  await expectNoAxeViolations(scanPage, { label: "390 px, menu closed" });
  await site.header.locator("summary", { hasText: /^Menu$/ }).click();
  await openAllDisclosures(site.mainNav);
  await expectNoAxeViolations(scanPage, { include: "header", label: "390 px, menu open" });
});

test("desktop is unchanged: the menu bar shows, no 'Menu' toggle", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const site = new SiteLayout(page);
  await site.goto("/");
  await expect(site.mainNav).toBeVisible();
  await expect(site.header.locator("summary", { hasText: /^Menu$/ })).toBeHidden();
  await expect(site.mainNav.locator("xpath=.//summary[normalize-space(.)='Locations']")).toBeVisible();
});
