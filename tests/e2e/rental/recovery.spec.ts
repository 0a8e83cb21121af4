import { expect, test } from "../support/test";
import { testHook } from "../support/hooks";
import { expectNoAxeViolations } from "../support/a11y";

/**
 * Abandoned-rental recovery (issue 40, decisions 517–519), in the browser with JavaScript on and off:
 * a renter who gives details and stops at the protection step gets one reminder after the delay
 * (none before, none on a second pass), follows its link in a browser without the rental's cookie,
 * lands on the protection step with a unit held again, and rents. The server's clock is pinned.
 */
const UNIT_TYPE_PAGE = "/locations/lumberton-nc-28358/units/10x10-drive-up";
const START = new Date("2026-12-02T15:00:00Z"); // 10:00 in Lumberton
const at = (minutes: number) => new Date(START.getTime() + minutes * 60_000).toISOString();
let RENT = "";

test.beforeAll(async ({ request }) => {
  await testHook(request, "addUnits", { locationSlug: "lumberton-nc-28358", width: 10, length: 10, name: "Drive-Up", count: 3 });
  const id = /href="\/rent\/(\d+)"/.exec(await (await request.get(UNIT_TYPE_PAGE)).text())?.[1];
  if (!id) throw new Error(`No Rent link on ${UNIT_TYPE_PAGE}`);
  RENT = `/rent/${id}`;
});

test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});

test.afterEach(async ({ request }) => {
  await testHook(request, "setClock", { at: null });
});

test("a renter who stops at the protection step gets one reminder, comes back through its link to that step and rents", async ({ page, browser }, testInfo) => {
  const email = `recovery.${testInfo.project.name}.${Date.now()}.${testInfo.retry}@example.com`;
  await testHook(page.request, "setClock", { at: at(0) });
  await page.goto(RENT);
  await page.getByLabel("First name", { exact: true }).fill("Ada");
  await page.getByLabel("Last name", { exact: true }).fill("Lovelace");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Cell phone").pressSequentially("9105550134");
  await page.getByLabel("Street address").fill("1 Main St");
  await page.getByLabel("City").fill("Lumberton");
  await page.getByLabel("State").selectOption("NC");
  await page.getByLabel("ZIP code").fill("28358");
  await page.getByLabel("Password", { exact: true }).fill("Tidy-Unit-42");
  await page.getByLabel("Confirm password").fill("Tidy-Unit-42");
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await expect(page).toHaveURL(/step=protection/);
  // The renter leaves here.

  await testHook(page.request, "setClock", { at: at(30) });
  expect(await testHook(page.request, "sendRentalRecoveryReminders", { to: email })).toMatchObject({ mailsTo: 0 });
  await testHook(page.request, "setClock", { at: at(61) });
  expect(await testHook(page.request, "sendRentalRecoveryReminders", { to: email })).toMatchObject({ mailsTo: 1 });
  expect(await testHook(page.request, "sendRentalRecoveryReminders", { to: email })).toMatchObject({ mailsTo: 1 });
  const mail = await testHook<{ subject: string; text: string }>(page.request, "lastEmailTo", { to: email });
  expect(mail.subject).toMatch(/pick up where you left off/);
  expect(mail.text).toContain('got as far as the "Protection plan" step');
  const link = /https?:\/\/\S+\/rent\/back\/[A-Za-z0-9_-]+/.exec(mail.text)?.[0];
  expect(link).toBeTruthy();
  expect(mail.text).toMatch(/\/rent\/unsubscribe\/[A-Za-z0-9_-]+/);

  // Another browser (the phone the e-mail is read on), without the rental's cookie, an hour and a half later.
  await testHook(page.request, "setClock", { at: at(90) });
  const context = await browser.newContext({ javaScriptEnabled: testInfo.project.use.javaScriptEnabled !== false, baseURL: testInfo.project.use.baseURL });
  const back = await context.newPage();
  await back.goto(new URL(link!).pathname);
  await expect(back).toHaveURL(new RegExp(`${RENT}\\?step=protection$`));
  await expect(back.getByRole("navigation", { name: "Rental steps" }).locator('[aria-current="step"]')).toContainText("Protection plan");
  await expect(back.getByText(/We are holding this unit for you until/)).toBeVisible();

  await back.getByRole("radio", { name: /No protection plan/ }).check();
  await back.getByRole("button", { name: "Continue", exact: true }).click();
  await expect(back).toHaveURL(/step=review/);
  await back.getByRole("link", { name: "Continue to the lease" }).click();
  await back.getByLabel("Type your full name to sign").fill("Ada Lovelace");
  await back.getByLabel("I have read the rental agreement").check();
  await back.getByRole("button", { name: "Sign the lease" }).click();
  await expect(back).toHaveURL(/step=pay/);
  await back.getByLabel("Card number").fill("4242 4242 4242 4242");
  await back.getByLabel("Expiry month").selectOption("12");
  await back.getByLabel("Expiry year").selectOption("2030");
  await back.getByLabel("Security code (CVV)").fill("123");
  await back.getByRole("button", { name: /^Pay \$[\d,.]+ and rent$/ }).click();
  await expect(back).toHaveURL(new RegExp(`${RENT}/confirmation$`));
  await expect(back.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");

  // The unsubscribe link: one click, JavaScript or not.
  await back.goto(new URL(/https?:\/\/\S+\/rent\/unsubscribe\/[A-Za-z0-9_-]+/.exec(mail.text)![0]).pathname);
  await expect(back.getByRole("heading", { level: 1 })).toHaveText("You are unsubscribed");
  await expect(back.getByRole("status")).toContainText(email);
  if (testInfo.project.use.javaScriptEnabled !== false) await expectNoAxeViolations(back, { include: "main", label: "unsubscribed" });
  await context.close();
});
