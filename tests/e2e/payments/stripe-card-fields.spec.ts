import type { Page } from "@playwright/test";
import { expect, test } from "../support/test";
import { testHook } from "../support/hooks";
import { expectNoAxeViolations } from "../support/a11y";
import { ownServers, specServerPort } from "../support/servers";
import { rentUpToCard, signIn } from "../support/portal";
import type { RunningStripeFake } from "../../../stripe-fake";
import {
  cardFrame,
  cardGroup,
  expectNoCardData,
  expectOnlyStripeJs as expectOnlyStripeJsOf,
  fillStripeCard,
  recordOurRequests as recordRequestsTo,
  rentalPath,
  startStripeServer,
  succeededIntents,
  type StripeServer,
} from "../support/stripe";

/**
 * Issue 25, decision 390: Stripe's card fields on the card pages, with JavaScript on. The spec starts
 * the Stripe fake (its Stripe.js stand-in in the browser, its API behind the real `stripe` package) and
 * a built server of its own with PAYMENT_GATEWAY=stripe pointed at it (STRIPE_API_BASE, STRIPE_JS_URL),
 * on a fresh seeded database. It rents a unit through the card Element (approved → confirmation; a
 * declined card → the message beside the card field, nothing rented), pays on the portal with a new
 * card, and checks that no request our server receives carries the card number or the security code.
 * Without JavaScript the pages keep their JavaScript-off paths (tests/integration/payments/stripe-rental.test.ts).
 */

const SERVERS = ownServers();
/** This worker's own server: a spec-server port of its own (support/servers.ts, specServerPort). */
const PORT = specServerPort(0);
const BASE = `http://localhost:${PORT}`;

let stripe: StripeServer;
let fake: RunningStripeFake;

test.use({ baseURL: BASE });
test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  stripe = await startStripeServer({ port: PORT, pgliteDir: `${SERVERS.pgliteDir}-stripe`, webhookSecret: "whsec_e2e_stripe_card_fields" });
  fake = stripe.fake;
});

test.afterAll(async () => {
  await stripe?.stop();
});

test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "Stripe's card fields need JavaScript; the JavaScript-off paths are tested in stripe-rental.test.ts");

test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});

const recordOurRequests = (page: Page) => recordRequestsTo(page, BASE);
const expectOnlyStripeJs = (page: Page) => expectOnlyStripeJsOf(page, fake);
const succeeded = () => succeededIntents(fake);

test("a rental through Stripe's card fields: a declined card is told beside the field and rents nothing; a good card rents", async ({ page }, testInfo) => {
  const ours = recordOurRequests(page);
  // The page's CSP lets Stripe.js (the stand-in), its frame and its API in: no violation, no console error.
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && !/status of 402/.test(message.text())) problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  const email = `stripe-js.${testInfo.project.name}.${Date.now()}@example.com`;
  await rentUpToCard(page, await rentalPath(page), { email, password: "Tidy-Unit-42" });
  await expect(page).toHaveURL(/step=pay/);

  // The card Element is mounted in the labelled group; the note speaks of the form on the page.
  await expect(cardGroup(page)).toBeVisible();
  await expect(cardFrame(page).getByLabel("Card number")).toBeVisible();
  await expect(page.getByText("Enter your card in our payment processor’s secure form (Stripe) below.")).toBeVisible();
  await expectOnlyStripeJs(page);
  const before = succeeded().length;

  // Stripe's own message (an incomplete card) beside the field, announced; nothing is sent to us.
  const posts = () => ours.filter((r) => r.method() === "POST").length;
  const postsBefore = posts();
  await cardFrame(page).getByLabel("Card number").fill("4242 4242");
  await page.getByRole("button", { name: /^Continue to pay \$[\d,.]+$/ }).click();
  await expect(cardGroup(page)).toHaveAccessibleDescription("Your card number is incomplete.");
  await expect(page.getByRole("alert").filter({ hasText: "Your card number is incomplete." }).first()).toBeVisible();
  expect(posts()).toBe(postsBefore);
  await expect(page).toHaveURL(/step=pay/);

  // A declined card: the PaymentMethod is made, our server's charge is declined, the message is beside the card field.
  await fillStripeCard(page, "4000 0000 0000 0002");
  await page.getByRole("button", { name: /^Continue to pay \$[\d,.]+$/ }).click();
  await expect(cardGroup(page)).toHaveAccessibleDescription(/Your card was declined\. Nothing was charged\./);
  await expect(page.getByRole("alert").filter({ hasText: "Your card was declined" })).toHaveCount(1);
  await expect(page).toHaveURL(/step=pay/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Rent a");
  expect(succeeded().length).toBe(before);
  await expectNoAxeViolations(page, { include: "main", label: "pay step with Stripe's fields and a decline" });

  // A good card: the confirmation, one payment succeeded at Stripe.
  await fillStripeCard(page, "4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Continue to pay \$[\d,.]+$/ }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
  expect(succeeded().length).toBe(before + 1);

  // The card went from Stripe's frame to Stripe (the fake), never to us.
  const tokenised = fake.control.requests().filter((r) => r.method === "POST" && r.path === "/v1/payment_methods");
  expect(tokenised.length).toBeGreaterThanOrEqual(2);
  const payPosts = ours.filter((r) => r.method() === "POST" && /step=pay/.test(r.url()));
  expect(payPosts.length).toBe(2);
  for (const post of payPosts) expect(new URLSearchParams(post.postData() ?? "").get("payment_token")).toMatch(/^pm_/);
  expectNoCardData(ours);
  expect(problems).toEqual([]);
});

test("portal pay and autopay with a new card through Stripe's card fields", async ({ page }, testInfo) => {
  const ours = recordOurRequests(page);
  const email = `stripe-js-portal.${testInfo.project.name}.${Date.now()}@example.com`;
  // The tenant rents through Stripe's fields (the demo tenant hook pays with a card number, which a Stripe location refuses).
  await rentUpToCard(page, await rentalPath(page), { email, password: "Tidy-Unit-42" });
  await fillStripeCard(page, "4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Continue to pay \$[\d,.]+$/ }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
  await signIn(page, email, "Tidy-Unit-42");
  await expect(page.getByRole("heading", { level: 1, name: "My units" })).toBeVisible();
  await page.getByRole("link", { name: "Pay my bill" }).first().click();
  await expect(page).toHaveURL(/\/customer-portal\/units\/\d+\/pay$/);
  await expect(cardGroup(page)).toBeVisible();
  await expectOnlyStripeJs(page);
  await page.getByLabel("Another amount").check();
  await page.getByLabel("Other amount in dollars").fill("10.00");
  // The rental's autopay (pre-checked) saved its card at Stripe; this payment uses a new one.
  await expect(page.getByRole("radio", { name: /^Saved card: Visa ending 4242/ })).toBeChecked();
  await page.getByRole("radio", { name: "A new card (enter it below)" }).check();
  await fillStripeCard(page, "5555 5555 5555 4444");
  await page.getByRole("button", { name: "Pay now" }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your payment was received." })).toBeVisible();
  await expect(page.getByTestId("receipt-amount")).toHaveText("$10.00");
  await expect(page.getByText(/^Master ?Card ending 4444$/i)).toBeVisible();
  const paid = succeeded().filter((pi) => pi.amount === 1000);
  expect(paid.length).toBeGreaterThanOrEqual(1);
  // What our server received: the new card's PaymentMethod id, no card.
  const payPost = ours.filter((r) => r.method() === "POST" && /\/customer-portal\/units\/\d+\/pay$/.test(r.url()));
  expect(payPost.length).toBe(1);
  const sent = new URLSearchParams(payPost[0]!.postData() ?? "");
  expect(sent.get("payment_method")).toBe("new");
  expect(sent.get("payment_token")).toMatch(/^pm_/);

  // Autopay: a new card through Stripe's fields, set up at Stripe (a SetupIntent) for the billing run.
  const leasePath = /\/customer-portal\/units\/\d+/.exec(payPost[0]!.url())![0];
  await page.goto(`${leasePath}/autopay`);
  await expect(page.getByRole("heading", { name: "Change the autopay card" })).toBeVisible();
  await expectOnlyStripeJs(page);
  await page.getByRole("radio", { name: "A new card (enter it below)" }).check();
  await fillStripeCard(page, "4000 0566 5566 5556");
  await page.getByLabel("I have read and agree to the autopay terms").check();
  await page.getByRole("button", { name: "Use this card for autopay" }).click();
  await expect(page.getByTestId("autopay")).toHaveText("On — Visa ending 5556");
  expect(fake.control.objects("setup_intent").filter((si) => si.status === "succeeded").length).toBeGreaterThanOrEqual(1);
  expectNoCardData(ours);
});
