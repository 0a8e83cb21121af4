import type { Page } from "@playwright/test";
import { generate } from "otplib";
import { expect, expectNoAxeViolations, test } from "../support/a11y";
import { consoleUrl, inviteByCommand, nextCode } from "../support/admin";
import { isNoJs } from "../support/site";

// Issue 23: the first owner is invited by `npm run staff:invite` while the server runs (the command
// asks the server through its local endpoint: the embedded database admits one process), accepts the
// invitation, enrols TOTP from the page's text key, sees the recovery codes, signs out, and signs in
// with password + code and then with a recovery code. JavaScript on and off; axe on each kind of page.

const PASSWORD = "Quiet-Otter-73";

async function axe(page: Page, label: string) {
  if (!isNoJs(test.info())) await expectNoAxeViolations(page, { label });
}

async function signInWithPassword(page: Page, email: string) {
  await page.goto("/admin/staff");
  await expect(page).toHaveURL(/\/admin\/sign-in\?next=%2Fadmin%2Fstaff$/);
  await page.getByLabel("E-mail address").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("heading", { name: "Enter your code" })).toBeVisible();
}

test("the first owner: invited by command, enrols TOTP, signs in with a code and with a recovery code", { tag: "@no-js-over-http" }, async ({ page }) => {
  test.setTimeout(120_000);
  const email = `owner-${test.info().project.name}-${Date.now()}@example.com`;
  const path = inviteByCommand(email);
  // A colleague invited too: their row on the staff page carries "Reset sign-in" and "Disable" (issue 39).
  const colleague = `colleague-${test.info().project.name}-${Date.now()}@example.com`;
  inviteByCommand(colleague);

  await page.goto(path);
  await expect(page.getByRole("heading", { name: "Set up your staff account" })).toBeVisible();
  // No site chrome, no indexing.
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", /noindex/);
  await expect(page.locator(".site-header, header.site-header")).toHaveCount(0);
  await axe(page, "invitation page");
  const secret = (await page.getByTestId("totp-secret").innerText()).trim();
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await expect(page.locator(".console-qr svg")).toBeVisible();

  // A wrong code keeps what was typed (but the passwords) and says so beside the field.
  await page.getByLabel("Your name").fill("Olive Owner");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Password again").fill(PASSWORD);
  await page.getByLabel("Code from your app").fill("000000");
  await page.getByRole("button", { name: "Save and show my recovery codes" }).click();
  await expect(page.locator("#field-code-error")).toContainText("not right");
  await expect(page.getByLabel("Your name")).toHaveValue("Olive Owner");
  expect((await page.getByTestId("totp-secret").innerText()).trim()).toBe(secret);
  await axe(page, "invitation page with errors");

  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Password again").fill(PASSWORD);
  await page.getByLabel("Code from your app").fill(await generate({ secret }));
  await page.getByRole("button", { name: "Save and show my recovery codes" }).click();
  await expect(page.getByRole("heading", { name: "Your recovery codes" })).toBeVisible();
  const codes = (await page.getByRole("list", { name: "Recovery codes" }).getByRole("listitem").allInnerTexts()).map((c) => c.trim());
  expect(codes).toHaveLength(10);
  await axe(page, "recovery codes");

  // The link works once.
  await page.goto(path);
  await expect(page.getByText("has been used already")).toBeVisible();

  await page.goto("/admin");
  await expect(page.getByRole("heading", { name: "Back office" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Back office" }).getByRole("link", { name: "Staff" })).toBeVisible();
  await axe(page, "console home");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByText("You have signed out.")).toBeVisible();
  await axe(page, "sign-in page");
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/admin\/sign-in$/);

  // Password + TOTP (the next step's code: the enrolment's is spent).
  await signInWithPassword(page, email);
  await axe(page, "code page");
  await page.getByLabel("Code").fill(await nextCode(secret));
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/admin\/staff$/);
  await expect(page.getByRole("heading", { name: "Staff", exact: true })).toBeVisible();
  await expect(page.getByRole("cell", { name: new RegExp(email) })).toBeVisible();
  // Resetting a colleague's sign-in asks first (decision 504): axe with the confirmation open.
  await page.locator("tr", { hasText: colleague }).locator("summary", { hasText: "Reset sign-in" }).click();
  await expect(page.getByLabel(`Yes, reset the sign-in of ${colleague}`)).toBeVisible();
  await axe(page, "staff page");
  await page.getByRole("button", { name: "Sign out" }).click();

  // Password + a recovery code; then the same recovery code is refused.
  await signInWithPassword(page, email);
  await page.getByLabel("Code").fill(codes[0]!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Staff", exact: true })).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await signInWithPassword(page, email);
  await page.getByLabel("Code").fill(codes[0]!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator("#field-code-error")).toContainText("used already");

  // The audit trail shows the sign-ins and the failure.
  await page.getByLabel("Code").fill(codes[1]!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.goto(`/admin/audit?action=staff.sign_in`);
  await expect(page.getByRole("cell", { name: "Signed in", exact: true }).first()).toBeVisible();
  await axe(page, "audit trail");
});

test("a wrong password says so and keeps the e-mail; console answers are no-store and noindex", async ({ page, request }) => {
  await page.goto("/admin/sign-in");
  await page.getByLabel("E-mail address").fill("nobody@example.com");
  await page.getByLabel("Password").fill("wrong-password");
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("alert")).toContainText("not right");
  await expect(page.getByLabel("E-mail address")).toHaveValue("nobody@example.com");
  await axe(page, "sign-in with an error");
  // Issue 39: "Forgot your password?" answers one neutral message, member or not (decision 503).
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await page.getByLabel("E-mail address").fill("nobody@example.com");
  await page.getByRole("button", { name: "E-mail me a link" }).click();
  await expect(page.getByRole("status")).toContainText("If that e-mail address belongs to a staff account");
  await axe(page, "forgot password, sent");
  const response = await request.get("/admin/sign-in");
  expect(response.headers()["cache-control"]).toContain("no-store");
  expect(response.headers()["x-robots-tag"]).toContain("noindex");
  const home = await request.get(consoleUrl("/admin"), { maxRedirects: 0 });
  expect(home.status()).toBe(303);
  expect(home.headers()["location"]).toBe("/admin/sign-in");
});
