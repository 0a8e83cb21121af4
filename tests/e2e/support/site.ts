import { expect, test, type Locator, type Page, type Response, type TestInfo } from "@playwright/test";

/** True in the "no-js" Playwright project (javaScriptEnabled: false). */
export function isNoJs(testInfo: TestInfo): boolean {
  return testInfo.project.use.javaScriptEnabled === false;
}

/**
 * The layout every public page shares: announcement bar, header with the Main Menu and the
 * 'Rent a unit' button, footer menus. Located by role and accessible name, not by markup.
 */
export class SiteLayout {
  readonly header: Locator;
  readonly mainNav: Locator;
  readonly main: Locator;
  readonly footer: Locator;
  readonly announcement: Locator;

  constructor(readonly page: Page) {
    this.header = page.getByRole("banner");
    this.mainNav = page.getByRole("navigation", { name: "Main" });
    this.main = page.getByRole("main");
    this.footer = page.getByRole("contentinfo");
    this.announcement = page.getByRole("region", { name: "Announcement" });
  }

  /** Opens a page, checks the status code and, where the page hydrates, waits for it. */
  async goto(path: string, status = 200): Promise<Response> {
    const response = await this.page.goto(path);
    expect(response, `no response for ${path}`).not.toBeNull();
    expect(response!.status(), `status of ${path}`).toBe(status);
    await waitForHydration(this.page, test.info());
    return response!;
  }

  heading(level = 1): Locator {
    return this.main.getByRole("heading", { level }).first();
  }

  rentButton(name: string): Locator {
    return this.header.getByRole("link", { name, exact: true });
  }

  /** The "Menu" disclosure that holds the Main Menu on a narrow (390 px) screen; hidden on a wide one. */
  get menuToggle(): Locator {
    return this.header.locator("summary", { hasText: /^Menu$/ });
  }

  /**
   * Makes the Main Menu visible: on a narrow screen it sits behind "Menu", which this opens (a
   * visitor's first tap); on a wide screen it is always shown and this does nothing.
   */
  async openMainMenu(): Promise<void> {
    if (await this.mainNav.isVisible()) return;
    if (await this.menuToggle.isVisible()) await this.menuToggle.click();
    await expect(this.mainNav).toBeVisible();
  }

  /** The toggle (a <summary>) of a Main Menu submenu, optionally inside another submenu. */
  submenuToggle(name: string, within: Locator = this.mainNav): Locator {
    return within.locator(`xpath=.//details/summary[normalize-space(.)=${xpathString(name)}]`).first();
  }

  /** The submenu (the <details> element) that a toggle opens. */
  submenu(name: string, within: Locator = this.mainNav): Locator {
    return within.locator(`xpath=.//details[summary[normalize-space(.)=${xpathString(name)}]]`).first();
  }

  /** Opens a submenu with the keyboard: focus its toggle and press Enter. */
  async openSubmenuWithKeyboard(name: string, within: Locator = this.mainNav): Promise<Locator> {
    await this.openMainMenu();
    const toggle = this.submenuToggle(name, within);
    await toggle.focus();
    await expect(toggle).toBeFocused();
    await this.page.keyboard.press("Enter");
    const panel = this.submenu(name, within);
    await expect(panel).toHaveAttribute("open", "");
    return panel;
  }

  /** A footer menu, found by its heading (the navigation landmark is labelled by it). */
  footerMenu(heading: string): Locator {
    return this.footer.getByRole("navigation", { name: heading });
  }
}

/** The contact form (also the coming-soon "notify me" form), by labels. */
export class ContactFormPage {
  readonly layout: SiteLayout;

  constructor(readonly page: Page) {
    this.layout = new SiteLayout(page);
  }

  get form(): Locator {
    return this.layout.main.locator("form").filter({ has: this.page.getByLabel("Email address") });
  }

  field(label: string | RegExp): Locator {
    return this.form.getByLabel(label);
  }

  async fill(values: { name?: string; email?: string; phone?: string; message?: string }) {
    if (values.name !== undefined) await this.field("Your name").fill(values.name);
    if (values.email !== undefined) await this.field("Email address").fill(values.email);
    if (values.phone !== undefined) await this.field(/^Phone number/).fill(values.phone);
    if (values.message !== undefined) await this.field(/^Message/).fill(values.message);
  }

  async submit(buttonName = "Send message") {
    await this.form.getByRole("button", { name: buttonName }).click();
  }

  /** The field is marked invalid and its error is beside it, announced as its description. */
  async expectFieldError(label: string | RegExp, message: string | RegExp) {
    const field = this.field(label);
    await expect(field).toHaveAttribute("aria-invalid", "true");
    await expect(field).toHaveAccessibleDescription(message);
    const errorId = (await field.getAttribute("aria-describedby"))?.split(/\s+/).find((id) => id.endsWith("error"));
    expect(errorId, "the error is linked to the field").toBeTruthy();
    await expect(this.page.locator(`[id="${errorId}"]`)).toBeVisible();
  }

  async expectFieldValid(label: string | RegExp) {
    await expect(this.field(label)).not.toHaveAttribute("aria-invalid", "true");
  }
}

function xpathString(value: string): string {
  return value.includes('"') ? `concat("${value.split('"').join(`", '"', "`)}")` : `"${value}"`;
}

/**
 * Waits until React has hydrated the page, on pages that ship the client bundle with JavaScript on,
 * so that a test exercises the enhanced behaviour and not the server-rendered HTML underneath.
 */
export async function waitForHydration(page: Page, testInfo: TestInfo) {
  if (isNoJs(testInfo)) return;
  await page.waitForFunction(() => {
    // Pages without the client bundle have no React Router context: nothing to wait for.
    if (!("__reactRouterContext" in window)) return true;
    const main = document.querySelector("main");
    return main !== null && Object.keys(main).some((key) => key.startsWith("__reactFiber"));
  });
}

export function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Collects the requests a page makes for the app's JavaScript modules (/assets/*.js). */
export function recordScriptRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (request.resourceType() === "script" || /^\/assets\/.*\.js$/.test(url.pathname)) urls.push(url.pathname);
  });
  return urls;
}
