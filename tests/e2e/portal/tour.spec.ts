import type { Page } from "@playwright/test";
import { expect, test } from "../support/test";
import { addDays, addMonths, format, parseISO } from "date-fns";
import { testHook } from "../support/hooks";
import { expectNoAxeViolations } from "../support/a11y";
import { rentUpToCard, signIn as signInAs } from "../support/portal";
import { CONTACT_EMAIL as OFFICE_EMAIL } from "../support/seed-facts";

// Every browser test comes from 127.0.0.1: start each with fresh rate limits (card attempts, holds per IP).
test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});

/**
 * The customer portal end to end, with and without JavaScript: a tenant (created as a move-in
 * leaves them, through the test hook) signs in, sees a zero balance; the billing run a month
 * ahead posts the next month; the tenant pays it (receipt, new balance), prepays 3 months and
 * gives move-out notice. Another tenant's unit is a 404. Each run uses its own tenants.
 */

const PASSWORD = "portal-pass1";
const todayNY = () =>
  new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
const iso = (d: Date) => format(d, "yyyy-MM-dd");
const human = (isoDate: string) => format(parseISO(isoDate), "MMM d, yyyy");
const unique = (label: string) => `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;

const signIn = (page: Page, email: string, password = PASSWORD) => signInAs(page, email, password);

async function fillCard(page: Page) {
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiry month").selectOption("12");
  await page.getByLabel("Expiry year").selectOption(String(new Date().getFullYear() + 2));
  await page.getByLabel("Security code (CVV)").fill("123");
  await page.getByLabel("Name on card").fill("Pat Tenant");
  await page.getByLabel("Billing ZIP code").fill("28358");
}

test("a tenant created by an online rental signs in at once and sees a zero balance", { tag: "@no-js-over-http" }, async ({ page, request }) => {
  // The rental desk's own flow (issue 4), on Lumberton's 5' x 10' Drive-Up type (the rental spec
  // rents 10' x 10' Drive-Up, which has few units; this one has more).
  const email = unique("portal-rental");
  const html = await (await request.get("/locations/lumberton-nc-28358/units/5x10-drive-up")).text();
  const rentPath = /href="(\/rent\/\d+)"/.exec(html)?.[1];
  expect(rentPath, "a Rent link on the 5' x 10' Drive-Up page").toBeTruthy();
  await rentUpToCard(page, rentPath!, { email, password: PASSWORD });
  await fillCard(page);
  await page.getByLabel("Name on card").fill("Grace Hopper");
  await page.getByRole("button", { name: /^Pay \$[\d,.]+ and rent$/ }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
  const gate = (await page.getByTestId("gate-code").innerText()).trim();

  await page.goto("/customer-portal/login");
  await signIn(page, email);
  await expect(page.getByRole("heading", { level: 1, name: "My units" })).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("$0.00");
  await expect(page.getByText(`${gate}#`)).toBeVisible();
  // Autopay was offered pre-checked at the rental: the portal shows it on with the card.
  await expect(page.getByTestId("autopay")).toHaveText("On — Visa ending 4242");

  // A month later the billing run posts the rent and charges the autopay card on the due date.
  const due = iso(addMonths(parseISO(todayNY()), 1));
  const run = await testHook<{ chargesPosted: number; autopayCharged: number }>(request, "runBilling", { date: due, email });
  expect(run).toMatchObject({ autopayCharged: 1 });
  expect(run.chargesPosted).toBeGreaterThan(0);
  await page.reload();
  await expect(page.getByRole("cell", { name: new RegExp(`^Rent ${human(due)}`) })).toBeVisible();
  await expect(page.getByRole("cell", { name: "Autopay (Visa ending 4242)" })).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("$0.00");
});

test("a wrong password is refused without saying whether the email exists", { tag: ["@width-independent", "@no-js-over-http"] }, async ({ page, request }) => {
  const email = unique("portal-wrong");
  await testHook(request, "createTenantWithLease", { email, password: PASSWORD });
  await signIn(page, email, "not-the-password");
  await expect(page.getByRole("alert")).toContainText("The email address or password is not right.");
  await expect(page.getByLabel("Email address")).toHaveValue(email);
  await expect(page.getByLabel("Password", { exact: true })).toHaveValue("");
  await signIn(page, unique("nobody"), "not-the-password");
  await expect(page.getByRole("alert")).toContainText("The email address or password is not right.");
});

test("sign in, billing run, pay, prepay 3 months, move-out notice", async ({ page, request }) => {
  const email = unique("portal");
  const created = await testHook<{ leaseId: number; unitName: string; gateCode: string }>(request, "createTenantWithLease", { email, password: PASSWORD });
  const moveIn = todayNY();

  // Signed out: the dashboard sends to sign-in.
  await page.goto("/customer-portal");
  await expect(page).toHaveURL(/\/customer-portal\/login\?redirectTo=%2Fcustomer-portal/);

  await signIn(page, email);
  await expect(page).toHaveURL(/\/customer-portal$/);
  await expect(page.getByRole("heading", { level: 1, name: "My units" })).toBeVisible();
  const unit = page.getByRole("region", { name: new RegExp(`Unit ${created.unitName} at`) });
  await expect(unit.getByTestId("balance")).toHaveText("$0.00");
  await expect(unit.getByText(`${created.gateCode}#`)).toBeVisible();
  await expect(unit.getByText("then press the # sign")).toBeVisible();
  await expect(unit.getByTestId("autopay")).toHaveText("Off");
  const firstDue = iso(addMonths(parseISO(moveIn), 1));
  await expect(unit.getByText(human(firstDue), { exact: true })).toBeVisible(); // next due date

  // The billing run with its clock a month ahead posts next month's rent.
  const run = await testHook<{ chargesPosted: number }>(request, "runBilling", { date: firstDue, email });
  expect(run.chargesPosted).toBeGreaterThan(0);
  await page.reload();
  const balanceText = (await unit.getByTestId("balance").textContent())!;
  expect(balanceText).not.toBe("$0.00");
  await expect(unit.getByRole("cell", { name: new RegExp(`^Rent ${human(firstDue)}`) })).toBeVisible();

  // Pay the balance by card: receipt and the new balance.
  await unit.getByRole("link", { name: "Pay my bill" }).click();
  await expect(page.getByTestId("balance-due")).toHaveText(balanceText);
  // The built-in test gateway takes the card: the form says so (decision 200).
  await expect(page.getByTestId("payment-demonstration")).toBeVisible();
  await fillCard(page);
  await page.getByRole("button", { name: "Pay now" }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your payment was received." })).toBeVisible();
  await expect(page.getByTestId("receipt-amount")).toHaveText(balanceText);
  await expect(page.getByTestId("balance-now")).toHaveText("$0.00");
  const paidThrough = iso(addDays(addMonths(parseISO(moveIn), 2), -1));
  await expect(page.getByTestId("paid-through")).toHaveText(human(paidThrough));
  await expect(page.getByText(/Visa ending 4242/)).toBeVisible();

  await page.getByRole("link", { name: "Back to my units" }).click();
  await expect(unit.getByTestId("balance")).toHaveText("$0.00");
  await expect(unit.getByRole("link", { name: "Receipt" }).first()).toBeVisible();

  // Prepay 3 months: the exact amount and the new paid-through date are shown before paying.
  await unit.getByRole("link", { name: "Pay months ahead" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Pay months ahead" })).toBeVisible();
  const newPaidThrough = iso(addDays(addMonths(parseISO(moveIn), 5), -1));
  const three = page.getByLabel(/^3 months:/);
  await expect(three).toBeVisible();
  const label = (await page.locator('label[for="months-3"]').textContent())!;
  expect(label).toContain(`paid through ${human(newPaidThrough)}`);
  const amount = /\$[\d,]+\.\d\d/.exec(label)![0];
  await three.check();
  await fillCard(page);
  await page.getByRole("button", { name: "Pay ahead now" }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your payment was received." })).toBeVisible();
  await expect(page.getByTestId("receipt-amount")).toHaveText(amount);
  await expect(page.getByTestId("paid-through")).toHaveText(human(newPaidThrough));

  // Move-out notice on a date after today (in the location's time zone).
  await page.getByRole("link", { name: "Back to my units" }).click();
  await unit.getByRole("link", { name: "Give move-out notice" }).click();
  const moveOut = iso(addDays(parseISO(moveIn), 20));
  await page.getByLabel("Move-out date").fill(iso(addDays(parseISO(moveIn), -1)));
  await page.getByRole("button", { name: "Give notice" }).click();
  await expect(page.getByLabel("Move-out date")).toHaveAccessibleDescription(/Choose today or a later date\./);
  await page.getByLabel("Move-out date").fill(moveOut);
  await page.getByRole("button", { name: "Give notice" }).click();
  await expect(page.getByRole("heading", { name: `Move-out date: ${human(moveOut)}` })).toBeVisible();
  await expect(page.getByText("We have received your move-out notice")).toBeVisible();
  // Issue 39: the tenant gets a confirmation and the office a notice, by e-mail.
  const confirmation = await testHook<{ subject: string | null; text: string | null }>(request, "lastEmailTo", { to: email });
  expect(confirmation.subject).toBe(`Your move-out notice: ${human(moveOut)}`);
  expect(confirmation.text).toContain(`unit ${created.unitName}`);
  expect(confirmation.text).toContain("We have received your move-out notice");
  const office = await testHook<{ subject: string | null; text: string | null }>(request, "lastEmailTo", { to: OFFICE_EMAIL });
  expect(office.subject).toMatch(new RegExp(`^Move-out notice: .+, unit ${created.unitName}, ${human(moveOut)}$`));
  expect(office.text).toContain(email);

  // Another tenant's unit is not found.
  const other = await testHook<{ leaseId: number }>(request, "createTenantWithLease", { email: unique("portal-other"), password: PASSWORD });
  const response = await page.goto(`/customer-portal/units/${other.leaseId}/pay`);
  expect(response?.status()).toBe(404);

  // Sign out ends the session.
  await page.goto("/customer-portal");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByText("You have signed out.")).toBeVisible();
  await page.goto("/customer-portal");
  await expect(page).toHaveURL(/\/customer-portal\/login/);
});

test("switched-off portal features say to call the office", { tag: ["@width-independent", "@no-js-over-http"] }, async ({ page, request }) => {
  const email = unique("portal-flags");
  await testHook(request, "createTenantWithLease", { email, password: PASSWORD });
  await testHook(request, "setAccountSettings", { settings: { is_payments_enabled: false, is_move_out_enabled: false } });
  try {
    await signIn(page, email);
    await expect(page.getByRole("link", { name: "Pay my bill" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Give move-out notice" })).toHaveCount(0);
    await expect(page.getByText("Online payments are not available right now. To pay your bill, please call the office at")).toBeVisible();
    await expect(page.getByText("To give notice that you are moving out, please call the office at")).toBeVisible();
  } finally {
    await testHook(request, "setAccountSettings", { settings: { is_payments_enabled: true, is_move_out_enabled: true } });
  }
});

test("forgot password, profile, autopay and a declined card", { tag: ["@width-independent", "@no-js-over-http"] }, async ({ page, request, javaScriptEnabled }) => {
  const email = unique("portal-reset");
  await testHook(request, "createTenantWithLease", { email, password: PASSWORD });

  // Forgot password: the same answer for anyone; the emailed link works once.
  await page.goto("/customer-portal/login");
  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Forgot your password?" })).toBeVisible();
  await page.getByLabel("Email address").fill(email);
  await page.getByRole("button", { name: "Email me a reset link" }).click();
  await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
  const mail = await testHook<{ text: string }>(request, "lastEmailTo", { to: email });
  const link = new URL(/http\S+reset-password\?token=\S+/.exec(mail.text)![0]);
  await page.goto(`${link.pathname}${link.search}`);
  await page.getByLabel("New password", { exact: true }).fill("abc");
  await page.getByLabel("Confirm new password").fill("abc");
  await page.getByRole("button", { name: "Save new password" }).click();
  await expect(page.getByLabel("New password", { exact: true })).toHaveAccessibleDescription(/Your new password must be at least 6 characters\./);
  await page.getByLabel("New password", { exact: true }).fill("brand-new1");
  await page.getByLabel("Confirm new password").fill("brand-new1");
  await page.getByRole("button", { name: "Save new password" }).click();
  await expect(page.getByText("Your password has been changed.")).toBeVisible();
  await page.goto(`${link.pathname}${link.search}`);
  await expect(page.getByRole("heading", { name: "This link has expired" })).toBeVisible();
  await signIn(page, email, "brand-new1");
  await expect(page.getByRole("heading", { level: 1, name: "My units" })).toBeVisible();
  if (javaScriptEnabled) await expectNoAxeViolations(page, { include: "main", label: "portal dashboard" });

  // A declined card charges nothing and says so beside the form.
  await page.getByRole("link", { name: "Pay my bill" }).click();
  await page.getByLabel("Another amount").check();
  await page.getByLabel("Other amount in dollars").fill("10.00");
  await fillCard(page);
  await page.getByLabel("Card number").fill("4000 0000 0000 0002");
  await page.getByRole("button", { name: "Pay now" }).click();
  await expect(page.getByRole("alert")).toContainText("Your card was declined. Nothing was charged.");
  await expect(page.getByLabel("Card number")).toHaveValue(javaScriptEnabled ? /.*/ : "");
  if (javaScriptEnabled) await expectNoAxeViolations(page, { include: "main", label: "pay form with an error" });

  // Autopay: the location's terms must be accepted.
  await page.goto("/customer-portal");
  await page.getByRole("link", { name: "Set up autopay" }).click();
  await expect(page.getByRole("heading", { name: "Autopay terms" })).toBeVisible();
  await expect(page.getByText("By enrolling in autopay you authorise")).toBeVisible();
  await fillCard(page);
  await page.getByRole("button", { name: "Turn on autopay" }).click();
  await expect(page.getByLabel("I have read and agree to the autopay terms")).toHaveAccessibleDescription("Please read the autopay terms and tick the box to agree.");
  await fillCard(page);
  await page.getByLabel("I have read and agree to the autopay terms").check();
  await page.getByRole("button", { name: "Turn on autopay" }).click();
  await expect(page.getByText("Autopay is on.")).toBeVisible();
  await expect(page.getByTestId("autopay")).toHaveText("On — Visa ending 4242");
  await page.getByRole("link", { name: "Manage autopay" }).click();
  await page.getByRole("button", { name: "Cancel autopay" }).click();
  await expect(page.getByTestId("autopay")).toHaveText("Off");

  // Profile: contact details with the rental form's rules; password change needs the current one.
  await page.getByRole("link", { name: "Profile and password" }).click();
  await page.getByLabel("City").fill("Fayetteville");
  await page.getByLabel("ZIP code").fill("2830");
  await page.getByRole("button", { name: "Save contact details" }).click();
  await expect(page.getByLabel("ZIP code")).toHaveAccessibleDescription(/Enter a 5-digit ZIP code, like 28358\./);
  await expect(page.getByLabel("City")).toHaveValue("Fayetteville");
  await page.getByLabel("ZIP code").fill("28301");
  await page.getByRole("button", { name: "Save contact details" }).click();
  await expect(page.getByText("Your contact details have been saved.")).toBeVisible();
  await expect(page.getByLabel("City")).toHaveValue("Fayetteville");
  await page.getByLabel("Cell phone").fill("910 555 0188");
  await page.getByRole("button", { name: "Save phone number" }).click();
  await expect(page.getByText("Your phone number has been saved.")).toBeVisible();
  await expect(page.getByLabel("Cell phone")).toHaveValue("(910) 555-0188");
  await page.getByLabel("Current password").fill("wrong-one");
  await page.getByLabel("New password", { exact: true }).fill("second-pass");
  await page.getByLabel("Confirm new password").fill("second-pass");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByLabel("Current password")).toHaveAccessibleDescription("Your current password is not right.");
  if (!javaScriptEnabled) await expect(page.getByRole("alert").filter({ hasText: "There is a problem" })).toBeFocused();
  await page.getByLabel("Current password").fill("brand-new1");
  await page.getByLabel("New password", { exact: true }).fill("second-pass");
  await page.getByLabel("Confirm new password").fill("second-pass");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("Your password has been changed.")).toBeVisible();
  if (javaScriptEnabled) await expectNoAxeViolations(page, { include: "main", label: "profile" });
});

test("an autopay decline in the billing run shows on the dashboard", { tag: ["@width-independent", "@no-js-over-http"] }, async ({ page, request }) => {
  const email = unique("portal-decline");
  await testHook(request, "createTenantWithLease", { email, password: PASSWORD });
  await signIn(page, email);
  await page.getByRole("link", { name: "Set up autopay" }).click();
  await fillCard(page);
  await page.getByLabel("Card number").fill("4000 0000 0000 0341"); // saves, but every charge declines
  await page.getByLabel("I have read and agree to the autopay terms").check();
  await page.getByRole("button", { name: "Turn on autopay" }).click();
  await expect(page.getByTestId("autopay")).toHaveText("On — Visa ending 0341");

  const due = iso(addMonths(parseISO(todayNY()), 1));
  const run = await testHook<{ autopayDeclined: number }>(request, "runBilling", { date: due, email });
  expect(run.autopayDeclined).toBe(1);
  await page.reload();
  const balance = (await page.getByTestId("balance").textContent())!;
  expect(balance).not.toBe("$0.00");
  await expect(page.getByRole("alert")).toContainText(`Your autopay payment of ${balance} was declined: Your card was declined.`);
});
