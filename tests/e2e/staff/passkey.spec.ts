import type { Page } from "@playwright/test";
import { generate } from "otplib";
import { expect, expectNoAxeViolations, test } from "../support/a11y";
import { inviteByCommand, nextCode } from "../support/admin";
import { ownServers } from "../support/servers";

// Issue 23: passkeys as a second factor for staff, with Chromium's virtual authenticator (CDP
// WebAuthn domain): a member enrolled with TOTP adds a passkey on "Your sign-in", signs out, and signs
// in with the password and the passkey; the audit trail shows both; with JavaScript off the code page
// says passkeys need JavaScript and the app's code still works; removing the passkey takes the
// button away. A passkey needs JavaScript, so this spec runs in the js project only.
test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "passkeys need JavaScript");

const PASSWORD = "Amber-Falcon-58";

async function signInWithPassword(page: Page, email: string) {
  await page.goto("/admin/sign-in");
  await page.getByLabel("E-mail address").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("heading", { name: "Enter your code" })).toBeVisible();
}

test("a member adds a passkey, signs in with it, and removes it; without JavaScript the code still works", async ({ page, browser, baseURL }) => {
  test.setTimeout(120_000);
  const email = `passkey-owner-${Date.now()}@example.com`;
  const invite = inviteByCommand(email);

  // Enrol: password and TOTP from the page's text key.
  await page.goto(invite);
  const secret = (await page.getByTestId("totp-secret").innerText()).trim();
  await page.getByLabel("Your name").fill("Pat Passkey");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Password again").fill(PASSWORD);
  await page.getByLabel("Code from your app").fill(await generate({ secret }));
  await page.getByRole("button", { name: "Save and show my recovery codes" }).click();
  await expect(page.getByRole("heading", { name: "Your recovery codes" })).toBeVisible();

  // Chromium's virtual platform authenticator (user verification on: a fingerprint that always matches).
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });

  // A member without a passkey is not offered one at sign-in … (checked after signing out below.)
  await page.goto("/admin");
  await page.getByRole("navigation", { name: "Back office" }).getByRole("link", { name: "Your sign-in" }).click();
  await expect(page.getByRole("heading", { name: "Your sign-in" })).toBeVisible();
  await expect(page.getByText("You have no passkey yet.")).toBeVisible();
  await expectNoAxeViolations(page, { label: "your sign-in (no passkey)" });
  await page.getByLabel("Name of this passkey").fill("Office laptop");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByText("Your passkey was added.")).toBeVisible();
  await expect(page.getByRole("cell", { name: "Office laptop", exact: true })).toBeVisible();
  await expectNoAxeViolations(page, { label: "your sign-in (a passkey)" });
  const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
  expect(credentials).toHaveLength(1);
  // The relying party is the console's own origin (decision 450), never the public site's.
  expect(credentials[0]!.rpId).toBe(new URL(ownServers().consoleURL).hostname);
  expect(credentials[0]!.rpId).not.toBe(new URL(baseURL!).hostname);
  expect(credentials[0]!.signCount).toBe(1);

  // Sign out; password, then "Use a passkey": signed in, back where sign-in was asked for.
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.goto("/admin/security");
  await expect(page).toHaveURL(/\/admin\/sign-in\?next=%2Fadmin%2Fsecurity$/);
  await page.getByLabel("E-mail address").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("heading", { name: "Or use a passkey" })).toBeVisible();
  await expect(page.getByText("Passkeys need JavaScript")).toBeHidden();
  await expectNoAxeViolations(page, { label: "code page with a passkey" });
  await page.getByRole("button", { name: "Use a passkey" }).click();
  await expect(page).toHaveURL(/\/admin\/security$/);
  await expect(page.getByRole("heading", { name: "Your sign-in" })).toBeVisible();
  await expect(page.getByRole("row", { name: /Office laptop/ }).getByRole("cell").nth(2)).not.toHaveText("Not yet");
  expect((await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials[0]!.signCount).toBe(2);

  // The audit trail: the passkey added and the sign-in with it.
  await page.goto("/admin/audit?action=staff.passkey_added");
  await expect(page.getByRole("cell", { name: "Added a passkey", exact: true })).toBeVisible();
  await expect(page.getByRole("cell", { name: /Office laptop/ }).first()).toBeVisible();
  await page.goto("/admin/audit?action=staff.sign_in");
  await expect(page.getByRole("row", { name: new RegExp(`${email.replace(/[.]/g, "\\.")}.*Method: “passkey”`) }).first()).toBeVisible();

  // Only the console's pages may ask for a passkey; the public site may not.
  expect((await page.request.get("/admin/sign-in")).headers()["permissions-policy"]).toContain("publickey-credentials-get=(self)");
  expect((await page.request.get("/contact")).headers()["permissions-policy"]).toContain("publickey-credentials-get=()");

  // Without JavaScript: the code page says passkeys need it, has no passkey button, and the code works.
  const noJs = await browser.newContext({ javaScriptEnabled: false });
  const plain = await noJs.newPage();
  await signInWithPassword(plain, email);
  await expect(plain.getByText("Passkeys need JavaScript")).toBeVisible();
  await expect(plain.getByRole("button", { name: "Use a passkey" })).toHaveCount(0);
  await plain.getByLabel("Code").fill(await nextCode(secret));
  await plain.getByRole("button", { name: "Sign in" }).click();
  await expect(plain).toHaveURL(/\/admin$/);
  await plain.goto("/admin/security");
  await expect(plain.getByText("Adding a passkey needs JavaScript")).toBeVisible();
  await expect(plain.getByRole("button", { name: "Add a passkey" })).toHaveCount(0);
  // Removing works without JavaScript.
  await plain.getByRole("button", { name: "Remove the passkey Office laptop" }).click();
  await expect(plain.getByText("The passkey was removed.")).toBeVisible();
  await expect(plain.getByText("You have no passkey yet.")).toBeVisible();
  await noJs.close();

  // With no passkey left, the code page offers none.
  await page.getByRole("button", { name: "Sign out" }).click();
  await signInWithPassword(page, email);
  await expect(page.getByRole("button", { name: "Use a passkey" })).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Or use a passkey" })).toHaveCount(0);
});
