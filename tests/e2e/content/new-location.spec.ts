import type { Browser, Page } from "@playwright/test";
import { generate } from "otplib";
import sharp from "sharp";
import { expect, test } from "../support/test";
import { consoleUrl, inviteByCommand } from "../support/admin";
import { testHook } from "../support/hooks";
import { isNoJs } from "../support/site";
import { PRIMARY_DOMAIN } from "../support/seed-facts";
import { ownServers } from "../support/servers";
import { expectNoAxeViolations } from "../support/a11y";
import { SIM_URL } from "../support/sitelink";
import { loadContract } from "../../../sitelink-simulator/contract";
import { DEMO_CORP } from "../../../sitelink-simulator/corp";
import { NEW_LOCATION_SITELINK_API_KEY_ENV, NEW_LOCATION_SITELINK_PASSWORD_ENV } from "../support/production-env";

/**
 * Issue 40's "done when": an owner adds a location that then rents online (decisions 620–623, 680,
 * 681), with JavaScript on and off. A first owner, invited by `npm run staff:invite`, adds a
 * demo-units location from the console (name, address, time zone, phone, text number, hours, a photo
 * on the form itself: without JavaScript a refused form keeps the file received); it is not on the
 * website; preview shows its page; "Publish now" puts it on /view-locations; a visitor opens it, picks
 * a unit and rents it to the confirmation and its gate code. Then a SiteLink location, connected to
 * the SiteLink simulator over HTTP: its publish is refused, the owner runs its go-live check from its
 * settings page, saves the card types the check proposes, runs it again, and publishes it. Validation,
 * roles, photos refused and a check that cannot reach SiteLink are the integration suite's
 * (tests/integration/content/new-location.test.ts).
 */

const PASSWORD = "Quiet-Otter-73";

test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});

async function signInFirstOwner(page: Page) {
  await page.goto(inviteByCommand(`new-location-${Date.now()}@example.com`));
  const secret = (await page.getByTestId("totp-secret").innerText()).trim();
  await page.getByLabel("Your name").fill("Nora Newsite");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Password again").fill(PASSWORD);
  await page.getByLabel("Code from your app").fill(await generate({ secret }));
  await page.getByRole("button", { name: "Save and show my recovery codes" }).click();
  await expect(page.getByRole("heading", { name: "Your recovery codes" })).toBeVisible();
}

/**
 * The console sends "Preview the site" to the website's own origin (https://www.…), which is this very
 * server on localhost here: its answer's Location and CSP name this server instead (as in
 * console-a11y.spec.ts).
 */
async function previewOnThisServer(page: Page) {
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
}

/**
 * The go-live check's results, at 1280 and at 390 px (an owner may run it from a phone at the
 * facility): nothing wider than the screen, and (with JavaScript, as the day walk scans) axe finds
 * nothing. The day walk scans the settings page before any check has run; this is the page after one.
 */
async function checkAtBothWidths(page: Page, label: string) {
  const before = page.viewportSize();
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
    expect(scrollWidth, `${label} at ${width} px scrolls sideways`).toBeLessThanOrEqual(clientWidth + 1);
    if (!isNoJs(test.info())) await expectNoAxeViolations(page, { label: `${label} at ${width} px` });
  }
  if (before) await page.setViewportSize(before);
}

async function visitor(browser: Browser) {
  return browser.newContext({ baseURL: ownServers().baseURL, javaScriptEnabled: !isNoJs(test.info()) });
}

test("an owner adds a location with demo units, previews and publishes it, and a visitor rents a unit there", async ({ page, browser }, testInfo) => {
  test.setTimeout(240_000);
  // One location per project run (js, no-js): its city makes its slug.
  const city = `Whiteville ${testInfo.project.name.replace(/[^a-z0-9]/gi, " ")} ${testInfo.retry}`.replace(/\s+/g, " ").trim();
  const name = `Gatehouse ${city}`;
  await signInFirstOwner(page);

  await page.goto(consoleUrl("/admin/content"));
  await page.getByRole("link", { name: "Add a location" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Add a location");
  if (!isNoJs(testInfo)) await expectNoAxeViolations(page, { label: "add a location" });
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Street", { exact: true }).fill("410 S Madison St");
  await page.getByLabel("City").fill(city);
  await page.getByLabel("State").selectOption("NC");
  // A typo first: the message is beside the field, what was typed is kept.
  await page.getByLabel("ZIP code").fill("2847");
  await page.getByLabel("Time zone").selectOption("America/New_York");
  await page.getByLabel("Office phone number").fill("(910) 555-0188");
  await page.getByLabel("Text message number (optional)").fill("(910) 555-0189");
  await page.getByLabel("Monday to Friday", { exact: true }).first().selectOption("24h");
  // A photo on the form itself (decision 680).
  const png = await sharp({ create: { width: 800, height: 450, channels: 3, background: { r: 20, g: 69, b: 122 } } }).png().toBuffer();
  const photo = page.getByRole("group", { name: "Photo 1" });
  await photo.getByLabel("Image file").setInputFiles({ name: "front-gate.png", mimeType: "image/png", buffer: png });
  await photo.getByLabel("Description for people who cannot see the image").fill(`The front gate of ${name}`);
  await page.getByLabel("Demo units").check();
  await page.getByRole("button", { name: "Save the location to the draft" }).click();
  const zipError = page.locator("#field-postal-error");
  await expect(zipError).toHaveText("Enter a ZIP code such as 28358.");
  await expect(page.getByLabel("ZIP code")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue(name);
  await expect(photo.getByLabel("Description for people who cannot see the image")).toHaveValue(`The front gate of ${name}`);
  // Without JavaScript the server answered: the file it received is kept, not to be chosen again.
  if (isNoJs(testInfo)) await expect(photo.getByText("“front-gate.png” is received", { exact: false })).toBeVisible();
  if (!isNoJs(testInfo)) await expectNoAxeViolations(page, { label: "add a location, with an error" });
  await page.getByLabel("ZIP code").fill("28472");
  await page.getByRole("button", { name: "Save the location to the draft" }).click();

  await expect(page).toHaveURL(/\/admin\/content\/locations\/\d+\?done=location-added$/);
  await expect(page.getByRole("heading", { name: "Not on the website yet" })).toBeVisible();
  if (!isNoJs(testInfo)) await expectNoAxeViolations(page, { label: "the new location's page" });
  const slugText = await page.getByRole("region", { name: "Not on the website yet" }).innerText();
  const path = /\/locations\/[a-z0-9-]+-nc-28472/.exec(slugText)?.[0];
  expect(path, slugText).toBeTruthy();
  // Twelve demo unit types are listed on its page.
  await expect(page.getByRole("region", { name: "Unit types" }).getByRole("listitem")).toHaveCount(12);

  // The photo came with the form: its photos page lists it, for later changes.
  await page.getByRole("link", { name: "Change on the photos page" }).click();
  await expect(page.getByRole("list", { name: `Photos of ${name}` }).getByText(`Description: The front gate of ${name}`)).toBeVisible();

  // Not public yet.
  const before = await page.request.get(`${ownServers().baseURL}${path}`);
  expect(before.status()).toBe(404);

  // Preview shows it.
  await previewOnThisServer(page);
  await page.goto(consoleUrl("/admin/preview"));
  await Promise.all([page.waitForURL((u) => !u.pathname.startsWith("/admin")), page.getByRole("button", { name: "Preview the site" }).click()]);
  await page.goto(path!);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(name);
  await expect(page.getByText("these changes are not live yet", { exact: false }).first()).toBeVisible();
  await page.getByRole("button", { name: "Leave preview" }).first().click();
  await expect(page.getByText("these changes are not live yet", { exact: false })).toHaveCount(0);

  // Publish.
  await page.goto(consoleUrl("/admin/changes"));
  await page.getByRole("button", { name: "Publish now" }).click();
  await expect(page).toHaveURL(/done=published/);

  // A visitor finds it and rents a unit there.
  const context = await visitor(browser);
  const v = await context.newPage();
  await v.goto("/view-locations");
  await v.getByRole("link", { name: new RegExp(`^${name}\\b`) }).first().click();
  await expect(v).toHaveURL(new RegExp(`${path}$`));
  await expect(v.getByRole("heading", { level: 1 })).toContainText(name);
  await expect(v.getByRole("img", { name: `The front gate of ${name}` }).first()).toBeVisible();
  await v.locator('a[href^="/rent/"]').first().click();
  await expect(v.getByRole("heading", { level: 1 })).toHaveText(/^Rent a /);
  await v.getByLabel("First name", { exact: true }).fill("Ada");
  await v.getByLabel("Last name", { exact: true }).fill("Lovelace");
  await v.getByLabel("Email address").fill(`new-location.${testInfo.project.name}.${Date.now()}.${testInfo.retry}@example.com`);
  await v.getByLabel("Cell phone").pressSequentially("9105550134");
  await v.getByLabel("Street address").fill("1 Main St");
  await v.getByLabel("City").fill("Whiteville");
  await v.getByLabel("State").selectOption("NC");
  await v.getByLabel("ZIP code").fill("28472");
  await v.getByLabel("Password", { exact: true }).fill("Tidy-Unit-42");
  await v.getByLabel("Confirm password").fill("Tidy-Unit-42");
  await v.getByRole("button", { name: "Continue", exact: true }).click();
  await expect(v).toHaveURL(/step=protection/);
  await v.getByRole("radio", { name: /No protection plan/ }).check();
  await v.getByRole("button", { name: "Continue", exact: true }).click();
  await expect(v).toHaveURL(/step=review/);
  const total = (await v.getByTestId("rental-total").innerText()).trim();
  await v.getByRole("link", { name: "Continue to the lease" }).click();
  await v.getByLabel("Type your full name to sign").fill("Ada Lovelace");
  await v.getByLabel("I have read the rental agreement").check();
  await v.getByRole("button", { name: "Sign the lease" }).click();
  await expect(v).toHaveURL(/step=pay/);
  await expect(v.getByTestId("pay-total")).toHaveText(total);
  await v.getByLabel("Card number").fill("4242 4242 4242 4242");
  await v.getByLabel("Expiry month").selectOption("12");
  await v.getByLabel("Expiry year").selectOption("2030");
  await v.getByLabel("Security code (CVV)").fill("123");
  await v.getByRole("button", { name: /^Pay \$[\d,.]+ and rent$/ }).click();
  await expect(v.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
  expect((await v.getByTestId("gate-code").innerText()).trim()).toMatch(/^\d{6}$/);
  await expect(v.getByRole("table", { name: "Charged today" }).getByTestId("rental-total")).toHaveText(total);
  await context.close();
});

test("an owner adds a SiteLink location, runs its go-live check from the console, and publishes it", async ({ page }, testInfo) => {
  test.setTimeout(240_000);
  const tag = `${testInfo.project.name === "no-js" ? "N" : "J"}${testInfo.retry}`;
  const city = `Conway ${testInfo.project.name.replace(/[^a-z0-9]/gi, " ")} ${testInfo.retry}`.replace(/\s+/g, " ").trim();
  const name = `Gatehouse ${city}`;
  // The location's own site in the simulator: free units and the demo corp's payment types (Master Card 5, Visa 6, Discover 8).
  const code = `LC${tag}`;
  const seeded = await fetch(`${SIM_URL}/__sim/sites`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: city, sLocationCode: code, SiteID: 47000 + (tag.startsWith("N") ? 10 : 0) + testInfo.retry, unitIdBase: tag.startsWith("N") ? 8100 : 8000, unitTypes: [{ typeName: "Drive-Up", width: 10, length: 10, stdRate: 9200, statuses: ["available", "available", "available"] }] }),
  });
  expect(seeded.status).toBe(201);
  await signInFirstOwner(page);

  await page.goto(consoleUrl("/admin/content/locations/new"));
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByLabel("Street", { exact: true }).fill("1101 Main St");
  await page.getByLabel("City").fill(city);
  await page.getByLabel("State").selectOption("SC");
  await page.getByLabel("ZIP code").fill("29526");
  await page.getByLabel("Office phone number").fill("(843) 555-0188");
  await page.getByLabel("SiteLink", { exact: true }).check();
  await page.getByLabel("Web service address").fill(`${SIM_URL}${loadContract().path}`);
  await page.getByLabel("Corp code").fill(DEMO_CORP.corpCode);
  await page.getByLabel("Location code").fill(code);
  await page.getByLabel("User name").fill(DEMO_CORP.userName);
  await page.getByLabel("API key (optional): the name of the environment variable that holds it").fill(NEW_LOCATION_SITELINK_API_KEY_ENV);
  await page.getByLabel("Password: the name of the environment variable that holds it").fill(NEW_LOCATION_SITELINK_PASSWORD_ENV);
  await page.getByRole("button", { name: "Save the location to the draft" }).click();
  await expect(page).toHaveURL(/\/admin\/content\/locations\/\d+\?done=location-added$/);
  await expect(page.getByTestId("go-live")).toContainText("the go-live check has not passed with these settings, so publishing is refused");

  // Not before its check has passed.
  await page.goto(consoleUrl("/admin/changes"));
  await page.getByRole("button", { name: "Publish now" }).click();
  await expect(page.getByText(`${name} cannot go on the website yet`, { exact: false }).first()).toBeVisible();
  await page.goBack();
  await page.goBack();

  // The check, from the location's page to its settings page.
  await page.getByRole("link", { name: "Run the go-live check" }).click();
  await expect(page).toHaveURL(/\/settings#go-live-check$/);
  const section = page.getByRole("region", { name: "SiteLink go-live check" });
  await expect(section.getByTestId("go-live-state")).toHaveText(/^Not live: no go-live check has passed yet\./);
  await section.getByRole("button", { name: "Run the go-live check" }).click();
  await expect(section.getByRole("heading", { level: 3, name: /^The latest check: .*: did not pass$/ })).toBeVisible();
  const checklist = section.getByRole("list", { name: /^The latest check/ });
  await expect(checklist.getByRole("listitem").filter({ hasText: /^Unit types and their prices: Passed/ })).toHaveCount(1);
  await expect(checklist.getByRole("listitem").filter({ hasText: /^Card types: Failed/ })).toContainText(
    "What to do: Use the card types SiteLink lists (Visa = 6, Master Card = 5, Discover = 8) with the button below, then run the check again.",
  );
  await checkAtBothWidths(page, "a go-live check that did not pass");
  await section.getByRole("button", { name: "Use these settings" }).click();
  await expect(section.getByText("The settings are saved. Run the go-live check again", { exact: false })).toBeVisible();
  await expect(section.getByRole("definition").filter({ hasText: "visa = 6" })).toHaveCount(1);
  await section.getByRole("button", { name: "Run the go-live check" }).click();
  await expect(section.getByRole("heading", { level: 3, name: /^The latest check: .*: passed$/ })).toBeVisible();
  await expect(section.getByTestId("go-live-state")).toHaveText(/^Live: the go-live check passed with these settings/);
  await expect(checklist.getByRole("listitem").filter({ hasText: /: Failed/ })).toHaveCount(0);
  await checkAtBothWidths(page, "a go-live check that passed");

  // Now the draft publishes it.
  await page.goto(consoleUrl("/admin/changes"));
  await page.getByRole("button", { name: "Publish now" }).click();
  await expect(page).toHaveURL(/done=published/);
  const view = await page.request.get(`${ownServers().baseURL}/view-locations`);
  expect(await view.text()).toContain(name);
});
