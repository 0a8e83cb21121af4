import type { Page } from "@playwright/test";
import { addMonths, format, parseISO } from "date-fns";
import { expect, test } from "../support/test";
import { testHook } from "../support/hooks";
import { expectNoAxeViolations } from "../support/a11y";
import { ownServers, specServerPort } from "../support/servers";
import { rentUpToCard, signIn } from "../support/portal";
import {
  cardGroup,
  expectNoCardData,
  expectOnlyStripeJs,
  fillStripeCard,
  recordOurRequests,
  rentalPath,
  startStripeServer,
  succeededIntents,
  type StripeServer,
} from "../support/stripe";

/**
 * Issue 25: the pay link (decision 240) and prepay on Stripe with JavaScript on (decision 390's card
 * Element through the fake's Stripe.js stand-in), on a built server of the spec's own with
 * PAYMENT_GATEWAY=stripe. A tenant who rented through Stripe's fields (autopay off) owes a month: the
 * e-mailed pay link is paid with a new card (the receipt); prepay pays months ahead with a new card
 * (the paid-through date moves). Axe finds nothing on either page, and no request our server
 * receives carries the card number or the security code.
 */

const SERVERS = ownServers();
/** This worker's own server: a spec-server port of its own (support/servers.ts, specServerPort). */
const PORT = specServerPort(3);
const BASE = `http://localhost:${PORT}`;
const PASSWORD = "Tidy-Unit-42";

let stripe: StripeServer;

test.use({ baseURL: BASE });
test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  stripe = await startStripeServer({ port: PORT, pgliteDir: `${SERVERS.pgliteDir}-stripe-pay-link`, webhookSecret: "whsec_e2e_stripe_pay_link" });
});

test.afterAll(async () => {
  await stripe?.stop();
});

test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "Stripe's card fields need JavaScript; the JavaScript-off path (Stripe Checkout) is another spec's");

test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});

const todayNY = () =>
  new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
const payButton = /^Continue to pay \$[\d,.]+$/;

/** A tenant who rents through Stripe's card fields, with autopay left off; signs out of nothing (the portal is not signed in). */
async function rentThroughStripe(page: Page, email: string) {
  await rentUpToCard(page, await rentalPath(page), { email, password: PASSWORD });
  await expect(page).toHaveURL(/step=pay/);
  const autopay = page.getByTestId("autopay-box");
  if ((await autopay.count()) > 0 && (await autopay.isEnabled()) && (await autopay.isChecked())) await autopay.uncheck();
  await fillStripeCard(page, "4242 4242 4242 4242");
  await page.getByRole("button", { name: payButton }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
}

test("the pay link paid with a new card through Stripe's fields: the receipt, the money at Stripe, no card data to us", async ({ page, request }, testInfo) => {
  const email = `stripe-pay-link.${testInfo.project.name}.${Date.now()}@example.com`;
  await rentThroughStripe(page, email);
  // A month later the rent is due: the office sends the pay link.
  const due = format(addMonths(parseISO(todayNY()), 1), "yyyy-MM-dd");
  const run = await testHook<{ chargesPosted: number }>(request, "runBilling", { date: due, email });
  expect(run.chargesPosted).toBeGreaterThan(0);
  expect(await testHook(request, "sendPayLink", { email })).toMatchObject({ ok: true });
  const mail = await testHook<{ subject: string; text: string }>(request, "lastEmailTo", { to: email });
  const path = /https?:\/\/[^/\s]+(\/pay\/[A-Za-z0-9_.-]+)/.exec(mail.text)?.[1];
  expect(path, "a pay link in the e-mail").toBeTruthy();

  const ours = recordOurRequests(page, BASE);
  await page.goto(path!);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Pay your storage bill");
  const amount = (await page.getByTestId("balance-due").innerText()).trim();
  expect(amount).toMatch(/^\$\d[\d,]*\.\d\d$/);
  expect(amount).not.toBe("$0.00");
  await expect(cardGroup(page)).toBeVisible();
  await expectOnlyStripeJs(page, stripe.fake);
  await expectNoAxeViolations(page, { include: "main", label: "pay link with Stripe's fields" });
  const before = succeededIntents(stripe.fake).length;

  await fillStripeCard(page, "5555 5555 5555 4444");
  await page.getByRole("button", { name: `Pay ${amount}` }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your payment was received." })).toBeVisible();
  await expect(page.getByTestId("receipt-amount")).toHaveText(amount);
  await expect(page.getByTestId("receipt-number")).toHaveText(/^\d+$/);
  await expectNoAxeViolations(page, { include: "main", label: "pay link confirmation" });
  const cents = Math.round(Number(amount.replace(/[$,]/g, "")) * 100);
  const paid = succeededIntents(stripe.fake).slice(before);
  expect(paid.map((pi) => pi.amount)).toEqual([cents]);

  // Our server received the card's PaymentMethod id, never the card.
  const posts = ours.filter((r) => r.method() === "POST" && r.url().includes("/pay/"));
  expect(posts.length).toBe(1);
  expect(new URLSearchParams(posts[0]!.postData() ?? "").get("payment_token")).toMatch(/^pm_/);
  expectNoCardData(ours);
});

test("prepay months ahead with a new card through Stripe's fields: the paid-through date moves, no card data to us", async ({ page }, testInfo) => {
  const email = `stripe-prepay.${testInfo.project.name}.${Date.now()}@example.com`;
  await rentThroughStripe(page, email);
  await signIn(page, email, PASSWORD);
  await expect(page.getByRole("heading", { level: 1, name: "My units" })).toBeVisible();

  const ours = recordOurRequests(page, BASE);
  await page.getByRole("link", { name: "Pay months ahead" }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "Pay months ahead" })).toBeVisible();
  await expect(cardGroup(page)).toBeVisible();
  await expectOnlyStripeJs(page, stripe.fake);
  const two = page.getByLabel(/^2 months:/);
  await expect(two).toBeVisible();
  const label = (await page.locator('label[for="months-2"]').textContent())!;
  // The date the page promises (two months past today's paid-through date) is the one the receipt shows.
  const promised = /paid through ([A-Z][a-z]+ \d{1,2}, \d{4})/.exec(label)?.[1];
  expect(promised, label).toBeTruthy();
  const amount = /\$[\d,]+\.\d\d/.exec(label)![0];
  await two.check();
  const newCard = page.getByRole("radio", { name: "A new card (enter it below)" });
  if ((await newCard.count()) > 0) await newCard.check();
  await expectNoAxeViolations(page, { include: "main", label: "prepay with Stripe's fields" });
  const before = succeededIntents(stripe.fake).length;

  await fillStripeCard(page, "4000 0566 5566 5556");
  await page.getByRole("button", { name: "Pay ahead now" }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your payment was received." })).toBeVisible();
  await expect(page.getByTestId("receipt-amount")).toHaveText(amount);
  await expect(page.getByTestId("paid-through")).toHaveText(promised!);
  const cents = Math.round(Number(amount.replace(/[$,]/g, "")) * 100);
  expect(succeededIntents(stripe.fake).slice(before).map((pi) => pi.amount)).toEqual([cents]);

  const posts = ours.filter((r) => r.method() === "POST" && /\/prepay$/.test(r.url()));
  expect(posts.length).toBe(1);
  expect(new URLSearchParams(posts[0]!.postData() ?? "").get("payment_token")).toMatch(/^pm_/);
  expectNoCardData(ours);
});
