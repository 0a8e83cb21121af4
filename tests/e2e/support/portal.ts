import { expect, type Page } from "@playwright/test";

/** Signs a tenant in on the customer portal's sign-in page (JavaScript on or off). */
export async function signIn(page: Page, email: string, password: string) {
  await page.goto("/customer-portal/login");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/**
 * A new tenant's rental, from the rental page `rentPath` up to the card form: Grace Hopper's account
 * (with a portal password), no protection plan, the lease signed. The caller fills the card and pays.
 */
export async function rentUpToCard(page: Page, rentPath: string, account: { email: string; password: string }) {
  await page.goto(rentPath);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Rent a");
  await page.getByLabel("First name", { exact: true }).fill("Grace");
  await page.getByLabel("Last name", { exact: true }).fill("Hopper");
  await page.getByLabel("Email address").fill(account.email);
  await page.getByLabel("Cell phone").fill("(910) 555-0177");
  await page.getByLabel("Street address").fill("2 Main St");
  await page.getByLabel("City").fill("Lumberton");
  await page.getByLabel("State").selectOption("NC");
  await page.getByLabel("ZIP code").fill("28358");
  await page.getByLabel("Password", { exact: true }).fill(account.password);
  await page.getByLabel("Confirm password").fill(account.password);
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await page.getByRole("radio", { name: /No protection plan/ }).check();
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await page.getByRole("link", { name: "Continue to the lease" }).click();
  await page.getByLabel("Type your full name to sign").fill("Grace Hopper");
  await page.getByLabel("I have read the rental agreement").check();
  await page.getByRole("button", { name: "Sign the lease" }).click();
}
