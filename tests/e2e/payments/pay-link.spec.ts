import type { Page } from "@playwright/test";
import { expect, test } from "../support/test";
import { addMonths, format, parseISO } from "date-fns";
import { testHook } from "../support/hooks";

/**
 * "Pay without a password" (issue 23, decision 240), with and without JavaScript: a tenant owes a
 * month's rent; the office sends a pay link (the hook calls the same sendPayLink as the back office);
 * the e-mailed link shows only the location, the unit and the amount due, pays once with the portal's
 * card form, shows a receipt-like confirmation, and then says it has been used, pointing to sign-in.
 */

test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});

const todayNY = () =>
  new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
const unique = (label: string) => `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;

async function fillCard(page: Page) {
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiry month").selectOption("12");
  await page.getByLabel("Expiry year").selectOption(String(new Date().getFullYear() + 2));
  await page.getByLabel("Security code (CVV)").fill("123");
  await page.getByLabel("Name on card").fill("Card Holder");
  await page.getByLabel("Billing ZIP code").fill("28358");
}

test("a tenant pays through an e-mailed pay link once, without signing in", async ({ page, request, browser }) => {
  const email = unique("pay-link");
  const created = await testHook<{ leaseId: number; unitName: string; gateCode: string }>(request, "createTenantWithLease", {
    email,
    password: "pay-link-pass1",
  });
  const due = format(addMonths(parseISO(todayNY()), 1), "yyyy-MM-dd");
  const run = await testHook<{ chargesPosted: number }>(request, "runBilling", { date: due, email });
  expect(run.chargesPosted).toBeGreaterThan(0);
  expect(await testHook(request, "sendPayLink", { email })).toMatchObject({ ok: true });
  const mail = await testHook<{ subject: string; text: string }>(request, "lastEmailTo", { to: email });
  expect(mail.subject).toContain(`unit ${created.unitName}`);
  const path = /https?:\/\/[^/\s]+(\/pay\/[A-Za-z0-9_.-]+)/.exec(mail.text)?.[1];
  expect(path, "a pay link in the e-mail").toBeTruthy();

  const response = await page.goto(path!);
  expect(response!.headers()["cache-control"]).toMatch(/no-store/);
  expect(response!.headers()["x-robots-tag"]).toBe("noindex");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Pay your storage bill");
  await expect(page.getByTestId("pay-link-unit")).toHaveText(created.unitName);
  const amount = (await page.getByTestId("balance-due").innerText()).trim();
  expect(amount).toMatch(/^\$\d[\d,]*\.\d\d$/);
  expect(amount).not.toBe("$0.00");
  // Nothing else of the account: no e-mail, no name, no gate code, no saved card, no portal navigation.
  const html = await page.content();
  for (const secret of [email, "Pat Tenant", created.gateCode, "9105550199", "Saved card", "Sign out"]) expect(html).not.toContain(secret);
  // A payment page: no operator code (decision 190).
  await expect(page.locator("html")).toHaveAttribute("data-payment-page", "");

  await fillCard(page);
  await page.getByRole("button", { name: `Pay ${amount}` }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your payment was received." })).toBeVisible();
  await expect(page.getByTestId("receipt-amount")).toHaveText(amount);
  await expect(page.getByTestId("receipt-number")).toHaveText(/^\d+$/);

  // Opened again elsewhere (or reloaded later without the confirmation), it says it was used.
  const other = await browser.newContext({ javaScriptEnabled: test.info().project.use.javaScriptEnabled !== false });
  const second = await other.newPage();
  const again = await second.goto(path!);
  expect(again!.status()).toBe(410);
  await expect(second.getByRole("heading", { level: 1 })).toHaveText("This link has already been used");
  await second.getByRole("link", { name: "Sign in to the customer portal" }).click();
  await expect(second).toHaveURL(/\/customer-portal\/login/);
  await other.close();

  // The tenant's balance is paid, once.
  const tampered = path!.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
  expect((await page.goto(tampered))!.status()).toBe(404);
});
