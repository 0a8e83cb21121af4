import { expect, test } from "@playwright/test";
import { SiteLayout } from "../support/site";
import { CONTACT_PHONE_TEL, FOOTER_PROPS, NAV_PROPS, seedMenu, type SeedMenu } from "../support/seed-facts";

// Issue 2, "Layout driven by data": announcement bar, navbar with the Main Menu and its nested
// submenus, the 'Rent a unit' button and the footer's two menus all come from the seeded settings.

type Item = SeedMenu["items"][number];
const mainMenu = seedMenu(String(NAV_PROPS.main_menu));
const withChildren = (items: readonly Item[]) => items.filter((i) => i.children?.length);
const plainLinks = (items: readonly Item[]) => items.filter((i) => !i.children?.length);

test("announcement bar shows the configured text and a tel: link", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/about");
  await expect(site.announcement).toContainText(String(NAV_PROPS.announcement_bar_text));
  await expect(site.announcement.getByRole("link", { name: String(NAV_PROPS.announcement_bar_phone) })).toHaveAttribute(
    "href",
    `tel:${CONTACT_PHONE_TEL}`,
  );
});

test("the 'Rent a unit' button leads to /view-locations", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/faqs");
  const rent = site.rentButton(String(NAV_PROPS.rent_button_text));
  await expect(rent).toHaveAttribute("href", String(NAV_PROPS.rent_button_url));
  await rent.click();
  await expect(page).toHaveURL(/\/view-locations$/);
  await expect(site.heading()).toBeVisible();
});

test("the Main Menu renders every seeded item; submenus start closed", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/");
  await site.openMainMenu();
  for (const item of plainLinks(mainMenu.items)) {
    await expect(site.mainNav.getByRole("link", { name: item.name, exact: true })).toHaveAttribute("href", item.url);
  }
  for (const item of withChildren(mainMenu.items)) {
    await expect(site.submenuToggle(item.name)).toBeVisible();
    await expect(site.submenu(item.name)).not.toHaveAttribute("open", "");
    for (const child of item.children ?? []) {
      await expect(site.submenu(item.name).getByText(child.name, { exact: true }).first()).toBeHidden();
    }
  }
});

for (const path of ["/", "/contact"]) {
  test(`nested submenus open with the keyboard on ${path}`, async ({ page }) => {
    const site = new SiteLayout(page);
    await site.goto(path);
    const locationsItem = withChildren(mainMenu.items)[0]!;
    const panel = await site.openSubmenuWithKeyboard(locationsItem.name);
    for (const child of plainLinks(locationsItem.children ?? [])) {
      await expect(panel.getByRole("link", { name: child.name, exact: true })).toHaveAttribute("href", child.url);
    }
    // The location with two sub-sites is a nested submenu.
    const nested = withChildren(locationsItem.children ?? [])[0]!;
    const nestedPanel = await site.openSubmenuWithKeyboard(nested.name, panel);
    for (const sub of nested.children ?? []) {
      const link = nestedPanel.getByRole("link", { name: sub.name, exact: true });
      await expect(link).toBeVisible();
      await expect(link).toHaveAttribute("href", sub.url);
    }
    // Tab moves into the open submenu and Enter follows the focused link.
    await page.keyboard.press("Tab");
    const first = nested.children![0]!;
    await expect(nestedPanel.getByRole("link", { name: first.name, exact: true })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`${first.url}$`));
  });
}

test("every submenu link is reachable by pointer, with or without JavaScript", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/");
  await site.openMainMenu();
  const resources = withChildren(mainMenu.items).find((i) => i.name === "Resources")!;
  await site.submenuToggle(resources.name).click();
  const target = resources.children![0]!;
  await site.submenu(resources.name).getByRole("link", { name: target.name, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`${target.url}$`));
  await expect(site.heading()).toBeVisible();
});

test("the footer shows its two menus from the footer component settings", async ({ page }) => {
  const site = new SiteLayout(page);
  await site.goto("/size-guide");
  for (const prop of ["first_menu", "second_menu"]) {
    const menu = seedMenu(String(FOOTER_PROPS[prop]));
    const nav = site.footerMenu(menu.heading || menu.name);
    await expect(nav.getByRole("heading", { name: menu.heading || menu.name })).toBeVisible();
    await expect(nav.getByRole("link")).toHaveCount(menu.items.length);
    for (const item of menu.items) {
      await expect(nav.getByRole("link", { name: item.name, exact: true })).toHaveAttribute("href", item.url);
    }
  }
  // Exactly the two menus of spec §2 (decision 095: no third list of locations).
  await expect(site.footer.getByRole("navigation")).toHaveCount(2);
});
