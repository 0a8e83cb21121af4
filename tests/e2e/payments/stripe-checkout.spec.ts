import type { Browser, Page } from "@playwright/test";
import { addMonths, format, parseISO } from "date-fns";
import { expect, test } from "../support/test";
import { testHook } from "../support/hooks";
import { expectNoAxeViolations } from "../support/a11y";
import { ownServers, specServerPort } from "../support/servers";
import { rentUpToCard, signIn } from "../support/portal";
import type { RunningStripeFake } from "../../../stripe-fake";
import { CVC, expectNoCardData, recordOurRequests, startStripeServer, type StripeServer } from "../support/stripe";

/**
 * Issue 25, decision 400: the card pages with JavaScript off at a Stripe location go on to Stripe
 * Checkout (here the Stripe fake's hosted page, a plain form) and come back to the confirmation. The
 * spec starts the fake and a built server of its own (PAYMENT_GATEWAY=stripe pointed at the fake,
 * PUBLIC_URL so the return addresses are this server's) on a fresh seeded database, rents a unit
 * through Checkout, pays on the portal with a new card through Checkout, and turns autopay on with a
 * card saved on Checkout's card page. Then another tenant pays months ahead and the e-mailed pay link
 * through Checkout. The browser never sends our server a card number.
 */

const SERVERS = ownServers();
/** This worker's own server: a spec-server port of its own (support/servers.ts, specServerPort). */
const PORT = specServerPort(1);
const BASE = `http://localhost:${PORT}`;
const WEBHOOK_SECRET = "whsec_e2e_stripe_checkout";
const VISA = "4242424242424242";
const MASTERCARD = "5555555555554444";

let fake: RunningStripeFake;
let stripe: StripeServer | undefined;

test.use({ baseURL: BASE });
test.describe.configure({ mode: "serial" });
test.skip(({ javaScriptEnabled }) => javaScriptEnabled !== false, "the JavaScript-off path; with JavaScript, stripe-card-fields.spec.ts");

test.beforeAll(async () => {
  test.setTimeout(180_000);
  stripe = await startStripeServer({ port: PORT, pgliteDir: `${SERVERS.pgliteDir}-checkout`, webhookSecret: WEBHOOK_SECRET, env: { PUBLIC_URL: BASE } });
  fake = stripe.fake;
});

test.afterAll(async () => {
  await stripe?.stop();
});

test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});

/** Stripe's hosted page (the fake's): the card typed there, then its button. */
async function payOnStripe(page: Page, number: string, button: "Pay" | "Save card") {
  await expect(page).toHaveURL(new RegExp(`^${fake.origin}/c/pay/cs_`));
  await page.getByLabel("Card number").fill(number);
  await page.getByLabel("Expiry date (MM / YY)").fill("12 / 34");
  await page.getByLabel("Security code").fill(CVC);
  await page.getByLabel("Name on card").fill("Grace Hopper");
  await page.getByRole("button", { name: button, exact: true }).click();
}

/**
 * axe on the page as a visitor without JavaScript gets it: axe needs JavaScript, so it runs in a
 * context of the same tenant where the app's modules and Stripe.js are blocked (nothing changes the
 * server's HTML).
 */
async function scanWithoutScripts(browser: Browser, page: Page, path: string, label: string) {
  const context = await browser.newContext({ baseURL: BASE, javaScriptEnabled: true, storageState: await page.context().storageState() });
  await context.route(/\/assets\/.+\.js(\?.*)?$/, (route) => route.abort());
  await context.route(`${fake.origin}/v3/**`, (route) => route.abort());
  const scan = await context.newPage();
  await scan.goto(path);
  await expectNoAxeViolations(scan, { include: "main", label });
  await context.close();
}

async function rentalPath(page: Page): Promise<string> {
  await testHook(page.request, "addUnits", { locationSlug: "lumberton-nc-28358", width: 10, length: 10, name: "Drive-Up", count: 3 });
  const html = await (await page.request.get("/locations/lumberton-nc-28358/units/10x10-drive-up")).text();
  const id = /href="\/rent\/(\d+)"/.exec(html)?.[1];
  expect(id, "a Rent link on the 10' x 10' Drive-Up page").toBeTruthy();
  return `/rent/${id}`;
}

/** The rental's pay step goes to Stripe's page and back to the confirmation (decision 383); no autopay, so no card is saved. */
async function rentThroughCheckout(page: Page, email: string) {
  await rentUpToCard(page, await rentalPath(page), { email, password: "Tidy-Unit-42" });
  await expect(page).toHaveURL(/step=pay/);
  const autopay = page.getByLabel("Pay my rent automatically each month with this card (autopay)");
  if (await autopay.isEnabled()) await autopay.uncheck();
  await page.getByRole("button", { name: /^Continue to pay \$[\d,.]+$/ }).click();
  await payOnStripe(page, VISA, "Pay");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
}

const succeeded = () => fake.control.objects("payment_intent").filter((pi) => pi.status === "succeeded");

test("JavaScript off: rent, pay on the portal and turn autopay on, each through Stripe Checkout", async ({ page, browser }, testInfo) => {
  const ours = recordOurRequests(page, BASE);
  const email = `stripe-checkout.${testInfo.project.name}.${Date.now()}@example.com`;

  await rentThroughCheckout(page, email);

  // Portal pay with a new card: the page says where the card is entered; the button goes to Stripe's page.
  await signIn(page, email, "Tidy-Unit-42");
  await expect(page.getByRole("heading", { level: 1, name: "My units" })).toBeVisible();
  await page.getByRole("link", { name: "Pay my bill" }).first().click();
  await expect(page).toHaveURL(/\/customer-portal\/units\/\d+\/pay$/);
  const payPath = new URL(page.url()).pathname;
  await expect(page.getByText("You go on to our payment processor’s secure page (Stripe) to enter your card.")).toBeVisible();
  await expect(page.getByText(/needs JavaScript/)).toHaveCount(0);
  await scanWithoutScripts(browser, page, payPath, "portal pay with Stripe Checkout, JavaScript off");
  // The same page with JavaScript: Stripe's fields mount and the button's own words come back.
  const withJs = await browser.newContext({ baseURL: BASE, javaScriptEnabled: true, storageState: await page.context().storageState() });
  const jsPage = await withJs.newPage();
  await jsPage.goto(payPath);
  await expect(jsPage.getByRole("group", { name: "Card number, expiry date and security code" })).toBeVisible();
  await expect(jsPage.getByRole("button", { name: "Pay now" })).toBeVisible();
  await expect(jsPage.getByRole("button", { name: "Continue to secure payment" })).toHaveCount(0);
  await withJs.close();

  // Out, and back without paying ("Cancel and go back"): the form with what was chosen, nothing charged.
  const before = succeeded().length;
  await page.getByLabel("Another amount").check();
  await page.getByLabel("Other amount in dollars").fill("10.00");
  await page.getByRole("button", { name: "Continue to secure payment" }).click();
  await expect(page).toHaveURL(new RegExp(`^${fake.origin}/c/pay/cs_`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Pay $10.00");
  await page.getByRole("link", { name: "Cancel and go back" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "You left the secure payment page without paying. Nothing was charged." })).toBeVisible();
  await expect(page.getByLabel("Other amount in dollars")).toHaveValue("10.00");
  await expect(page.getByLabel("Another amount")).toBeChecked();
  expect(succeeded().length).toBe(before);

  // Out again and paid: the receipt, one payment at Stripe.
  await page.getByRole("button", { name: "Continue to secure payment" }).click();
  await payOnStripe(page, MASTERCARD, "Pay");
  await expect(page.getByRole("heading", { name: "Thank you, your payment was received." })).toBeVisible();
  await expect(page.getByTestId("receipt-amount")).toHaveText("$10.00");
  await expect(page.getByText(/^Master ?Card ending 4444$/i)).toBeVisible();
  expect(succeeded().length).toBe(before + 1);
  // The return address again (a refresh, a bookmark): the receipt again, nothing charged or recorded twice.
  const returnUrl = ours.map((r) => r.url()).find((u) => u.includes("/pay?checkout_session="));
  expect(returnUrl, "the return from Stripe's page came to the pay page").toBeTruthy();
  await page.goto(returnUrl!);
  await expect(page.getByRole("heading", { name: "Thank you, your payment was received." })).toBeVisible();
  expect(succeeded().length).toBe(before + 1);

  // Autopay with a new card: Stripe's card page (setup mode), back to the portal with autopay on.
  const leasePath = payPath.replace(/\/pay$/, "");
  await page.goto(`${leasePath}/autopay`);
  await expect(page.getByRole("heading", { name: "Set up autopay" })).toBeVisible();
  await scanWithoutScripts(browser, page, `${leasePath}/autopay`, "autopay with Stripe Checkout, JavaScript off");
  await page.getByLabel("I have read and agree to the autopay terms").check();
  await page.getByRole("button", { name: "Continue to secure card page" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Save your card");
  await payOnStripe(page, VISA, "Save card");
  await expect(page).toHaveURL(/\/customer-portal\?done=autopay-on$/);
  await expect(page.getByText("Autopay is on. Your card will be charged on each due date.")).toBeVisible();
  await expect(page.getByTestId("autopay")).toHaveText("On — Visa ending 4242");
  expect(fake.control.objects("setup_intent").filter((si) => si.status === "succeeded").length).toBeGreaterThanOrEqual(1);

  expectNoCardData(ours, [VISA, MASTERCARD]);
});

const todayNY = () =>
  new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());

/**
 * The page's "Continue to secure payment" to Stripe's page for `amount` ("$12.34"), paid there with
 * `card`, back to our receipt of that amount: exactly one PaymentIntent of it succeeded meanwhile.
 */
async function payAmountThroughCheckout(page: Page, amount: string, card: string) {
  const before = succeeded().length;
  await page.getByRole("button", { name: "Continue to secure payment" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Pay ${amount}`);
  await payOnStripe(page, card, "Pay");
  await expect(page.getByRole("heading", { name: "Thank you, your payment was received." })).toBeVisible();
  await expect(page.getByTestId("receipt-amount")).toHaveText(amount);
  const cents = Math.round(Number(amount.replace(/[$,]/g, "")) * 100);
  expect(succeeded().slice(before).map((pi) => pi.amount)).toEqual([cents]);
}

test("JavaScript off: pay months ahead, then the e-mailed pay link, each through Stripe Checkout", async ({ page, request }, testInfo) => {
  const ours = recordOurRequests(page, BASE);
  const email = `stripe-checkout-prepay.${testInfo.project.name}.${Date.now()}@example.com`;
  await rentThroughCheckout(page, email);

  // Prepay two months: the page's promised date and amount; the button goes to Stripe's page and back to the receipt.
  await signIn(page, email, "Tidy-Unit-42");
  await page.getByRole("link", { name: "Pay months ahead" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "Pay months ahead" })).toBeVisible();
  const label = (await page.locator('label[for="months-2"]').textContent())!;
  const promised = /paid through ([A-Z][a-z]+ \d{1,2}, \d{4})/.exec(label)?.[1];
  expect(promised, label).toBeTruthy();
  const amount = /\$[\d,]+\.\d\d/.exec(label)![0];
  await page.getByLabel(/^2 months:/).check();
  await payAmountThroughCheckout(page, amount, MASTERCARD);
  await expect(page.getByTestId("paid-through")).toHaveText(promised!);

  // Three months on the rent is due again: the office's pay link, paid through Stripe's page without signing in.
  const due = format(addMonths(parseISO(todayNY()), 3), "yyyy-MM-dd");
  const run = await testHook<{ chargesPosted: number }>(request, "runBilling", { date: due, email });
  expect(run.chargesPosted).toBeGreaterThan(0);
  expect(await testHook(request, "sendPayLink", { email })).toMatchObject({ ok: true });
  const mail = await testHook<{ text: string }>(request, "lastEmailTo", { to: email });
  const path = /https?:\/\/[^/\s]+(\/pay\/[A-Za-z0-9_.-]+)/.exec(mail.text)?.[1];
  expect(path, "a pay link in the e-mail").toBeTruthy();
  await page.context().clearCookies();
  await page.goto(path!);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Pay your storage bill");
  const dueAmount = (await page.getByTestId("balance-due").innerText()).trim();
  expect(dueAmount).toMatch(/^\$\d[\d,]*\.\d\d$/);
  await payAmountThroughCheckout(page, dueAmount, VISA);

  expectNoCardData(ours, [VISA, MASTERCARD]);
});
