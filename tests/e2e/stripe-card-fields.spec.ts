import { spawn, type ChildProcess } from "node:child_process";
import type { Page, Request } from "@playwright/test";
import { expect, test } from "./support/test";
import { testHook } from "./support/hooks";
import { expectNoAxeViolations } from "./support/a11y";
import { ownServers } from "./support/servers";
import { rentUpToCard, signIn } from "./support/portal";
import { startStripeFake, type RunningStripeFake } from "../../stripe-fake";

/**
 * Issue 25, decision 390: Stripe's card fields on the card pages, with JavaScript on. The spec starts
 * the Stripe fake (its Stripe.js stand-in in the browser, its API behind the real `stripe` package) and
 * a built server of its own with PAYMENT_GATEWAY=stripe pointed at it (STRIPE_API_BASE, STRIPE_JS_URL),
 * on a fresh seeded database. It rents a unit through the card Element (approved → confirmation; a
 * declined card → the message beside the card field, nothing rented), pays on the portal with a new
 * card, and checks that no request our server receives carries the card number or the security code.
 * Without JavaScript the pages keep their JavaScript-off paths (tests/integration/stripe-rental.test.ts).
 */

const SERVERS = ownServers();
/** This worker's own server: its set's port + 50 (clear of every worker's set, decision 285's stride 3). */
const PORT = SERVERS.port + 50;
const BASE = `http://localhost:${PORT}`;
const WEBHOOK_SECRET = "whsec_e2e_stripe_card_fields";
const CVC = "739";
const CARDS = { visa: "4242424242424242", declined: "4000000000000002", mastercard: "5555555555554444", visaDebit: "4000056655665556" };

let fake: RunningStripeFake;
let server: ChildProcess | undefined;

test.use({ baseURL: BASE });
test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  fake = await startStripeFake({ port: 0, webhooks: [{ url: `${BASE}/webhooks/stripe`, secret: WEBHOOK_SECRET }] });
  server = spawn("node", ["scripts/e2e-server.mjs"], {
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      PORT: String(PORT),
      PASSKEY_ORIGIN: BASE,
      PGLITE_DIR: `${SERVERS.pgliteDir}-stripe`,
      BUILD_DIR: process.env.BUILD_DIR ?? "build",
      NODE_ENV: "test",
      E2E_HOOKS: "1",
      PAYMENT_GATEWAY: "stripe",
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_PUBLISHABLE_KEY: fake.publishableKey,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: fake.url,
      STRIPE_JS_URL: fake.jsUrl,
    },
  });
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the Stripe-configured server stopped (exit ${server.exitCode})`);
    const up = await fetch(`${BASE}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  await fake?.close();
});

test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "Stripe's card fields need JavaScript; the JavaScript-off paths are tested in stripe-rental.test.ts");

test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});

/** Every request the browser sends to our server, with its body: none may carry card data. */
function recordOurRequests(page: Page): Request[] {
  const seen: Request[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).origin === BASE) seen.push(request);
  });
  return seen;
}

function expectNoCardData(requests: Request[]) {
  expect(requests.length).toBeGreaterThan(0);
  for (const request of requests) {
    const body = request.postData() ?? "";
    const values = [...new URLSearchParams(body).values(), ...new URL(request.url()).searchParams.values()];
    const text = decodeURIComponent(`${request.url()} ${body}`).replace(/[\s-]/g, "");
    for (const number of Object.values(CARDS)) expect(text, `${request.method()} ${request.url()}`).not.toContain(number);
    expect(values, `${request.method()} ${request.url()}: the security code`).not.toContain(CVC);
    for (const name of ["card_number", "cvv", "cvc", "card[number]", "card[cvc]"]) expect(new URLSearchParams(body).has(name), `${request.url()} sends ${name}`).toBe(false);
  }
}

const cardFrame = (page: Page) => page.frameLocator('iframe[title="Secure card payment input frame"]');
const cardGroup = (page: Page) => page.getByRole("group", { name: "Card number, expiry date and security code" });

async function fillStripeCard(page: Page, number: string) {
  const frame = cardFrame(page);
  await frame.getByLabel("Card number").fill(number);
  await frame.getByLabel("Expiry date (MM / YY)").fill("12 / 34");
  await frame.getByLabel("Security code").fill(CVC);
}

/** The page loads Stripe.js (here the fake's stand-in) and no other script file. */
async function expectOnlyStripeJs(page: Page) {
  const sources = await page.evaluate(() => [...document.querySelectorAll("script[src]")].map((s) => (s as HTMLScriptElement).src));
  expect(sources).toEqual([fake.jsUrl]);
}

async function rentalPath(page: Page): Promise<string> {
  await testHook(page.request, "addUnits", { locationSlug: "lumberton-nc-28358", width: 10, length: 10, name: "Drive-Up", count: 3 });
  const html = await (await page.request.get("/locations/lumberton-nc-28358/units/10x10-drive-up")).text();
  const id = /href="\/rent\/(\d+)"/.exec(html)?.[1];
  expect(id, "a Rent link on the 10' x 10' Drive-Up page").toBeTruthy();
  return `/rent/${id}`;
}

const succeeded = () => fake.control.objects("payment_intent").filter((pi) => pi.status === "succeeded");

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
