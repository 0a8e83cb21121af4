/**
 * The Stripe.js stand-in in a real browser (Chromium), on a page of another origin, as the app's
 * pages will use it: the Payment Element's card fields in the fake's iframe, confirmPayment with
 * and without 3DS, a decline, confirmSetup; the page's own server never receives a card number.
 */
import { createServer, type Server } from "node:http";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import { chromium, type Browser, type Page } from "@playwright/test";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeFake, type RunningStripeFake } from "./index";

let fake: RunningStripeFake;
let stripe: Stripe;
let shop: Server;
let shopOrigin: string;
let browser: Browser;
const shopRequests: string[] = [];

const HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell";

/** The shop's pay page: the intent's client secret in the page, Stripe.js from the fake. */
function payPage(kind: "payment" | "setup", clientSecret: string): string {
  const confirm = kind === "payment" ? "confirmPayment" : "confirmSetup";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pay</title>
<script src="${fake.jsUrl}"></script></head><body><main>
<form id="pay"><div id="payment-element"></div><button type="submit">Pay</button></form>
<p id="result" role="status"></p>
<script>
  const stripe = Stripe(${JSON.stringify(fake.publishableKey)});
  const elements = stripe.elements({ clientSecret: ${JSON.stringify(clientSecret)} });
  const payment = elements.create("payment");
  payment.mount("#payment-element");
  payment.on("change", (e) => { document.body.dataset.complete = String(e.complete); });
  document.getElementById("pay").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const { error: submitError } = await elements.submit();
    if (submitError) { document.getElementById("result").textContent = "invalid: " + submitError.message; return; }
    const r = await stripe.${confirm}({ elements, confirmParams: { return_url: location.origin + "/done" }, redirect: "if_required" });
    const intent = r.paymentIntent || r.setupIntent;
    document.getElementById("result").textContent = r.error ? "error: " + (r.error.decline_code || r.error.code) + ": " + r.error.message : "status: " + intent.status + " " + intent.payment_method;
  });
</script></main></body></html>`;
}

const pages = new Map<string, string>();

beforeAll(async () => {
  fake = await startStripeFake({ port: 0 });
  stripe = new Stripe(fake.secretKey, { ...fake.clientConfig, maxNetworkRetries: 0 });
  shop = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      shopRequests.push(`${req.method} ${req.url} ${Buffer.concat(chunks).toString("utf8")}`);
      const html = pages.get(req.url ?? "");
      res.writeHead(html ? 200 : 404, { "Content-Type": "text/html; charset=utf-8" }).end(html ?? "not found");
    });
  });
  // "localhost" for the shop, 127.0.0.1 for the fake: two origins, as the site and js.stripe.com.
  await new Promise<void>((r) => shop.listen(0, "127.0.0.1", r));
  shopOrigin = `http://localhost:${(shop.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await fake?.close();
  await new Promise((r) => shop?.close(r));
});

async function openPay(kind: "payment" | "setup", clientSecret: string): Promise<Page> {
  const path = `/pay/${pages.size}`;
  pages.set(path, payPage(kind, clientSecret));
  const page = await browser.newPage();
  await page.goto(`${shopOrigin}${path}`);
  return page;
}

async function typeCard(page: Page, number: string) {
  const frame = page.frameLocator('iframe[title="Secure card payment input frame"]');
  await frame.getByLabel("Card number").fill(number);
  await frame.getByLabel("Expiry date (MM / YY)").fill("12 / 40");
  await frame.getByLabel("Security code").fill("123");
}

describe("the Stripe.js stand-in in Chromium", () => {
  it("pays with a card typed in the fake's frame; the shop's server never sees the number", async () => {
    const pi = await stripe.paymentIntents.create({ amount: 2500, currency: "usd" });
    const page = await openPay("payment", pi.client_secret as string);
    await page.getByRole("button", { name: "Pay" }).click();
    await expect.poll(() => page.locator("#result").textContent()).toContain("invalid: Your card number is incomplete.");
    await typeCard(page, "4242 4242 4242 4242");
    await page.getByRole("button", { name: "Pay" }).click();
    await expect.poll(() => page.locator("#result").textContent()).toMatch(/^status: succeeded pm_/);
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe("succeeded");
    expect(shopRequests.join("\n")).not.toContain("4242424242424242");
    expect(shopRequests.join("\n")).not.toContain("4242 4242");
    await page.close();
  });

  it("shows the decline as Stripe.js returns it", async () => {
    const pi = await stripe.paymentIntents.create({ amount: 2500, currency: "usd" });
    const page = await openPay("payment", pi.client_secret as string);
    await typeCard(page, "4000000000009995");
    await page.getByRole("button", { name: "Pay" }).click();
    await expect.poll(() => page.locator("#result").textContent()).toBe("error: insufficient_funds: Your card has insufficient funds.");
    await page.close();
  });

  it("runs the 3DS challenge in a modal, then succeeds", async () => {
    const pi = await stripe.paymentIntents.create({ amount: 2500, currency: "usd" });
    const page = await openPay("payment", pi.client_secret as string);
    await typeCard(page, "4000002760003184");
    await page.getByRole("button", { name: "Pay" }).click();
    await page.getByRole("dialog", { name: "Authenticate your payment" }).waitFor();
    await page.frameLocator('iframe[title="3D Secure authentication"]').getByRole("button", { name: "Complete authentication" }).click();
    await expect.poll(() => page.locator("#result").textContent()).toMatch(/^status: succeeded/);
    expect(await page.getByRole("dialog").count()).toBe(0);
    await page.close();
  });

  it("saves a card with confirmSetup, failing 3DS first", async () => {
    const customer = await stripe.customers.create({});
    const si = await stripe.setupIntents.create({ customer: customer.id, usage: "off_session" });
    const page = await openPay("setup", si.client_secret as string);
    await typeCard(page, "4000002500003155");
    await page.getByRole("button", { name: "Pay" }).click();
    await page.frameLocator('iframe[title="3D Secure authentication"]').getByRole("button", { name: "Fail authentication" }).click();
    await expect.poll(() => page.locator("#result").textContent()).toContain("error: setup_intent_authentication_failure");
    await page.getByRole("button", { name: "Pay" }).click();
    await page.frameLocator('iframe[title="3D Secure authentication"]').getByRole("button", { name: "Complete authentication" }).click();
    await expect.poll(() => page.locator("#result").textContent()).toMatch(/^status: succeeded pm_/);
    const pms = await stripe.customers.listPaymentMethods(customer.id);
    expect(pms.data).toHaveLength(1);
    await page.close();
  });
});
