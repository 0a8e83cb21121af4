import { spawn, type ChildProcess } from "node:child_process";
import type { Page, Request } from "@playwright/test";
import { expect } from "./test";
import { testHook } from "./hooks";
import { productionTestEnv } from "./production-env";
import { startStripeFake, type RunningStripeFake } from "../../../stripe-fake";

/**
 * What the browser specs on Stripe share (issue 25): the Stripe fake and a built server of the spec's
 * own with PAYMENT_GATEWAY=stripe pointed at it (STRIPE_API_BASE, STRIPE_JS_URL: the fake's Stripe.js
 * stand-in), on a fresh seeded database; Stripe's card fields in the page; and the check that no
 * request our server receives carries card data.
 */
export interface StripeServer {
  fake: RunningStripeFake;
  base: string;
  stop(): Promise<void>;
}

export async function startStripeServer(options: { port: number; pgliteDir: string; webhookSecret: string; env?: Record<string, string> }): Promise<StripeServer> {
  const base = `http://localhost:${options.port}`;
  const fake = await startStripeFake({ port: 0, webhooks: [{ url: `${base}/webhooks/stripe`, secret: options.webhookSecret }] });
  const server: ChildProcess = spawn("node", ["scripts/e2e-server.mjs"], {
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      PORT: String(options.port),
      CONSOLE_URL: `http://admin.localhost:${options.port}`,
      PGLITE_DIR: options.pgliteDir,
      BUILD_DIR: process.env.BUILD_DIR ?? "build",
      ...productionTestEnv(),
      PAYMENT_GATEWAY: "stripe",
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_PUBLISHABLE_KEY: fake.publishableKey,
      STRIPE_WEBHOOK_SECRET: options.webhookSecret,
      STRIPE_API_BASE: fake.url,
      STRIPE_JS_URL: fake.jsUrl,
      ...options.env,
    },
  });
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the Stripe-configured server stopped (exit ${server.exitCode})`);
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return {
    fake,
    base,
    async stop() {
      // Every webhook the fake delivered to the server was taken (issue 35: they were all 415 once).
      await fake.control.webhooksSettled();
      const refused = fake.control.deliveries().filter((d) => d.status < 200 || d.status > 299);
      if (server.exitCode === null) {
        const exited = new Promise((resolve) => server.once("exit", resolve));
        server.kill("SIGTERM");
        await exited;
      }
      await fake.close();
      expect(refused, "webhook deliveries the server did not answer 2xx").toEqual([]);
    },
  };
}

export const CVC = "739";
const CARDS = { visa: "4242424242424242", declined: "4000000000000002", mastercard: "5555555555554444", visaDebit: "4000056655665556" };

/** Every request the browser sends to our server (`base`), with its body: none may carry card data. */
export function recordOurRequests(page: Page, base: string): Request[] {
  const seen: Request[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).origin === base) seen.push(request);
  });
  return seen;
}

/** `numbers`: the card numbers the spec typed (by default the ones above). */
export function expectNoCardData(requests: Request[], numbers: readonly string[] = Object.values(CARDS)) {
  expect(requests.length).toBeGreaterThan(0);
  for (const request of requests) {
    const body = request.postData() ?? "";
    const values = [...new URLSearchParams(body).values(), ...new URL(request.url()).searchParams.values()];
    const text = decodeURIComponent(`${request.url()} ${body}`).replace(/[\s-]/g, "");
    for (const number of numbers) expect(text, `${request.method()} ${request.url()}`).not.toContain(number);
    expect(values, `${request.method()} ${request.url()}: the security code`).not.toContain(CVC);
    for (const name of ["card_number", "cvv", "cvc", "card[number]", "card[cvc]"]) expect(new URLSearchParams(body).has(name), `${request.url()} sends ${name}`).toBe(false);
  }
}

export const cardFrame = (page: Page) => page.frameLocator('iframe[title="Secure card payment input frame"]');
export const cardGroup = (page: Page) => page.getByRole("group", { name: "Card number, expiry date and security code" });

export async function fillStripeCard(page: Page, number: string) {
  const frame = cardFrame(page);
  await frame.getByLabel("Card number").fill(number);
  await frame.getByLabel("Expiry date (MM / YY)").fill("12 / 34");
  await frame.getByLabel("Security code").fill(CVC);
}

/** The page loads Stripe.js (here the fake's stand-in) and no other script file. */
export async function expectOnlyStripeJs(page: Page, fake: RunningStripeFake) {
  const sources = await page.evaluate(() => [...document.querySelectorAll("script[src]")].map((s) => (s as HTMLScriptElement).src));
  expect(sources).toEqual([fake.jsUrl]);
}

/** The rental path of Lumberton's 10' x 10' Drive-Up, with units added for this spec. */
export async function rentalPath(page: Page): Promise<string> {
  await testHook(page.request, "addUnits", { locationSlug: "lumberton-nc-28358", width: 10, length: 10, name: "Drive-Up", count: 3 });
  const html = await (await page.request.get("/locations/lumberton-nc-28358/units/10x10-drive-up")).text();
  const id = /href="\/rent\/(\d+)"/.exec(html)?.[1];
  expect(id, "a Rent link on the 10' x 10' Drive-Up page").toBeTruthy();
  return `/rent/${id}`;
}

/** The PaymentIntents that succeeded at the fake. */
export const succeededIntents = (fake: RunningStripeFake) => fake.control.objects("payment_intent").filter((pi) => pi.status === "succeeded");
