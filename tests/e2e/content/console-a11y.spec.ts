import type { Locator, Page } from "@playwright/test";
import { generate } from "otplib";
import { expect, test } from "../support/test";
import { expectNoAxeViolations } from "../support/a11y";
import { consoleUrl, inviteByCommand } from "../support/admin";
import { testHook } from "../support/hooks";
import { isNoJs } from "../support/site";
import { PRIMARY_DOMAIN } from "../support/seed-facts";
import { ownServers } from "../support/servers";

/**
 * The back office's content editor (issue 24) under axe (WCAG 2.2 AA), decision 352: a first owner is
 * invited by `npm run staff:invite` and enrols TOTP (then signed in), and axe checks a representative
 * set of the editor's pages — the website, the company, a location's details, hours, special hours,
 * amenities and photos, a unit type and its photos, menus, pages, FAQs, redirects and old domains,
 * images, the changes waiting to be published, the diff — the forms among them also
 * in its error state after a bad submit (the message beside the field), and a public page in preview
 * with the preview banner. Keyboard focus is visible on each. axe runs inside the page, so this runs in
 * the "js" project only (the forms' server-side error states are the same markup: Conform draws both).
 */

const PASSWORD = "Quiet-Otter-73";
/** Longer than any one-line field of the registry allows (2,000 characters at most). */
const TOO_LONG = "x".repeat(2_100);

test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});

async function signInFirstOwner(page: Page) {
  await page.goto(inviteByCommand(`content-a11y-${Date.now()}@example.com`));
  const secret = (await page.getByTestId("totp-secret").innerText()).trim();
  await page.getByLabel("Your name").fill("Alma Access");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Password again").fill(PASSWORD);
  await page.getByLabel("Code from your app").fill(await generate({ secret }));
  await page.getByRole("button", { name: "Save and show my recovery codes" }).click();
  await expect(page.getByRole("heading", { name: "Your recovery codes" })).toBeVisible();
}

/** Tabs to the first focusable control of `main` and checks that its focus is drawn (an outline of at least 2 px). */
async function expectVisibleFocus(page: Page, label: string) {
  await page.locator("body").focus();
  let drawn = "";
  for (let i = 0; i < 40 && !drawn; i++) {
    await page.keyboard.press("Tab");
    drawn = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body || !el.closest("main")) return "";
      const style = getComputedStyle(el);
      const width = parseFloat(style.outlineWidth);
      return style.outlineStyle !== "none" && width >= 2 ? `${el.tagName} ${width}px ${style.outlineStyle}` : `none:${el.tagName}`;
    });
    if (drawn.startsWith("none:")) throw new Error(`${label}: focus on ${drawn.slice(5)} in main is not visible`);
  }
  expect(drawn, `${label}: no focusable control in main reached by Tab`).not.toBe("");
}

async function scan(page: Page, label: string) {
  await expectNoAxeViolations(page, { label });
}

/** Opens a page, scans it, checks focus. */
async function visit(page: Page, path: string, label: string) {
  const response = await page.goto(path);
  expect(response?.status(), path).toBe(200);
  await scan(page, label);
  await expectVisibleFocus(page, label);
}

/**
 * A bad submit of the first record form with a one-line text field: too long a value, sent; the
 * message shows beside the field (linked by aria-describedby, aria-invalid), then axe again.
 */
async function badSubmit(page: Page, label: string, form?: Locator) {
  const record = form ?? page.locator("form.console-record").filter({ has: page.locator('input[type="text"]') }).first();
  const field = record.locator('input[type="text"]').first();
  await field.fill(TOO_LONG);
  const button = record.locator('button[type="submit"][name="intent"][value="save"], button[type="submit"][name="intent"][value="create"]').first();
  await button.click();
  await expect(field).toHaveAttribute("aria-invalid", "true");
  const describedBy = (await field.getAttribute("aria-describedby")) ?? "";
  const errorId = describedBy.split(" ").find((id) => id.endsWith("-error"));
  expect(errorId, `${label}: the error is linked to its field`).toBeTruthy();
  await expect(page.locator(`[id="${errorId}"]`)).toBeVisible();
  await expect(field).toHaveValue(TOO_LONG);
  await scan(page, `${label} (after a bad submit)`);
  // The same form sent past the browser's checks (as without JavaScript): the server's answer, 400.
  const intent = await button.getAttribute("value");
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST"),
    record.evaluate((f, value) => {
      const form = f as HTMLFormElement;
      const input = document.createElement("input");
      Object.assign(input, { type: "hidden", name: "intent", value });
      form.append(input);
      form.submit();
    }, intent),
  ]);
  expect(response.status(), `${label}: the server refuses the bad submit`).toBe(400);
  await page.waitForLoadState("load");
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await expect(field).toHaveValue(TOO_LONG);
  await scan(page, `${label} (the server's answer to a bad submit)`);
}

/** The first link in `main` whose href matches. */
/**
 * The first link of the page's main region matching `pattern`, preferring the seeded Lumberton location's:
 * locations added by other specs on the same server (content/new-location) sort before it by name, and
 * the SiteLink one may have no unit types yet.
 */
async function href(page: Page, pattern: RegExp) {
  const all = await page.locator("main a").evaluateAll((as) => as.map((a) => ({ href: a.getAttribute("href") ?? "", text: a.textContent ?? "" })));
  const matching = all.filter((a) => pattern.test(a.href));
  const found = (matching.find((a) => /^\s*Lumberton\b/.test(a.text)) ?? matching[0])?.href;
  expect(found, String(pattern)).toBeTruthy();
  return found!;
}

// Three tests (each signs in a first owner of its own), so that each has its own time limit: the
// whole tour took 2 minutes alone and passed its limit on a loaded machine.
test("the content editor's site-wide and location pages and their error states pass axe, with visible focus", async ({ page }) => {
  test.skip(isNoJs(test.info()), "axe runs inside the page: the js project scans");
  test.setTimeout(180_000);
  await signInFirstOwner(page);

  await page.goto("/admin/content");
  const location = await href(page, /^\/admin\/content\/locations\/\d+$/);
  await scan(page, "/admin/content");

  await visit(page, "/admin/content/website", "website");
  await badSubmit(page, "website");

  await visit(page, `${location}/hours`, "a location's hours");
  await badSubmit(page, "a location's hours");

  await visit(page, `${location}/special-hours`, "a location's special hours");
  await badSubmit(page, "a location's special hours", page.locator("form.console-record").filter({ has: page.getByRole("button", { name: "Add this date" }) }));

  await visit(page, location, "a location's details");
  await visit(page, `${location}/amenities`, "a location's amenities");
  await visit(page, `${location}/photos`, "a location's photos");
  await visit(page, "/admin/content/company", "company");
  await visit(page, "/admin/content/faqs", "FAQs and storage tips");
  await badSubmit(page, "FAQs and storage tips");
});

test("the content editor's menus, pages, redirects and images and their error states pass axe, with visible focus", async ({ page }) => {
  test.skip(isNoJs(test.info()), "axe runs inside the page: the js project scans");
  test.setTimeout(180_000);
  await signInFirstOwner(page);

  await visit(page, "/admin/content/menus", "menus");
  await badSubmit(page, "menus");

  await visit(page, "/admin/content/pages", "pages");
  await badSubmit(page, "pages");

  await visit(page, "/admin/content/redirects", "redirects and old domains");
  await badSubmit(page, "redirects and old domains", page.locator("form.console-record").filter({ has: page.getByRole("button", { name: "Add this redirect" }) }));

  // Images: an upload without a file is refused by the server with a message.
  await visit(page, "/admin/content/images", "images");
  const upload = page.locator("form").filter({ has: page.locator('input[type="file"]') }).first();
  await upload.evaluate((f) => ((f as HTMLFormElement).noValidate = true));
  await upload.locator('button[type="submit"]').first().click();
  await expect(page.locator(".console-error, [role='alert']").first()).toBeVisible();
  await scan(page, "images (after a bad submit)");
});

test("a unit type's pages, the changes waiting, the diff and a previewed page pass axe, with visible focus", async ({ page }) => {
  test.skip(isNoJs(test.info()), "axe runs inside the page: the js project scans");
  test.setTimeout(180_000);
  await signInFirstOwner(page);

  // A unit type: its error state, then a real edit so that there is a draft to list, diff and preview.
  await page.goto("/admin/content");
  await page.goto(await href(page, /^\/admin\/content\/locations\/\d+$/));
  const unitType = await href(page, /^\/admin\/content\/unit-types\/\d+$/);
  await visit(page, unitType, "a unit type");
  await visit(page, `${unitType}/photos`, "a unit type's photos");
  await page.goto(unitType);
  await badSubmit(page, "a unit type");
  await page.goto(unitType);
  await page.getByLabel(/^Description( Changed, not published)?$/).fill("Drive-up access, checked for accessibility.");
  await Promise.all([page.waitForURL(/done=saved/), page.getByRole("button", { name: "Save unit type" }).click()]);
  await scan(page, "a unit type (saved)");

  await visit(page, "/admin/changes", "changes waiting to be published");
  await page.goto("/admin/changes/diff");
  await expect(page.getByRole("heading", { name: /Pages that change/ })).toBeVisible({ timeout: 60_000 });
  await scan(page, "the diff");
  await expectVisibleFocus(page, "the diff");

  // A previewed public page, with the banner (its links and "Leave preview" button keyboard-visible too).
  // The console sends "Preview the site" to the website's own origin (https://www.…), which is this
  // very server on localhost here: the console page's form-action and its answer's Location name this
  // server instead, as the site's DNS name would point the browser here (decisions 432, 450).
  const local = new URL(ownServers().baseURL).origin;
  await page.route("**/admin/preview", async (route) => {
    const answer = await route.fetch({ maxRedirects: 0 });
    const headers = { ...answer.headers() };
    for (const name of Object.keys(headers)) if (name.toLowerCase() === "content-security-policy") headers[name] = headers[name]!.replaceAll(`https://${PRIMARY_DOMAIN}`, local);
    if (headers.location) {
      const u = new URL(headers.location, route.request().url());
      if (u.hostname === PRIMARY_DOMAIN) headers.location = `${local}${u.pathname}${u.search}`;
    }
    return route.fulfill({ response: answer, headers });
  });
  await visit(page, consoleUrl("/admin/preview"), "preview");
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith("/admin")), page.getByRole("button", { name: "Preview the site" }).click()]);
  const banner = page.getByText("these changes are not live yet", { exact: false }).first();
  await expect(banner).toBeVisible();
  await scan(page, "a previewed page");
  // Tab to the banner's "Leave preview" button: its focus is drawn.
  await page.locator("body").focus();
  let focused = "";
  for (let i = 0; i < 10 && focused !== "Leave preview"; i++) {
    await page.keyboard.press("Tab");
    focused = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.innerText?.trim() ?? "");
  }
  expect(focused).toBe("Leave preview");
  expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe("none");
  await page.keyboard.press("Enter");
  await expect(page.getByText("these changes are not live yet", { exact: false })).toHaveCount(0);

  // The draft goes: the other specs see the seeded site.
  await page.goto("/admin/changes");
  await page.getByRole("button", { name: "Discard the draft…" }).click();
  // Asked first (decision 630), naming what goes.
  await expect(page.getByRole("heading", { name: /^Discard \d+ changes?\?$/ })).toBeVisible();
  await scan(page, "changes, asked before discarding");
  await page.getByRole("button", { name: /^Yes, discard/ }).click();
  await expect(page).toHaveURL(/done=discarded/);
  await scan(page, "changes, after discarding");
});
