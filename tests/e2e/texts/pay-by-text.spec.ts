import { spawn, type ChildProcess } from "node:child_process";
import type { Page } from "@playwright/test";
import { addMonths, format, parseISO } from "date-fns";
import { expect, test } from "../support/test";
import { testHook } from "../support/hooks";
import { productionTestEnv } from "../support/production-env";
import { ownServers, specServerPort } from "../support/servers";
import { rentalPath } from "../support/stripe";
import { startTwilioFake, type RunningTwilioFake } from "../../../twilio-fake";

/**
 * Pay by text (issue 40, decisions 511–513), in the browser with JavaScript on and off: a renter ticks the
 * texting opt-in on the rental's details step and rents; a month later the billing run's due reminder
 * reaches their phone through the Twilio fake (the real `twilio` package over HTTP, from the
 * location's number) with a pay link; opened on the "phone" (this browser), the link pays the bill.
 * The tenant then replies STOP, and the next month's bill is not texted.
 * The server is the spec's own, production build, texts pointed at the fake (TWILIO_API_BASE, taken in
 * production only from the test runner).
 */

const SERVERS = ownServers();
const PORT = specServerPort(4);
const BASE = `http://localhost:${PORT}`;
const LOCATION_NUMBER = "+19105550176";
const PASSWORD = "Tidy-Unit-42";

let twilio: RunningTwilioFake;
let server: ChildProcess;

test.use({ baseURL: BASE });
test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  twilio = await startTwilioFake({ port: 0 });
  twilio.control.addNumber(LOCATION_NUMBER, `${BASE}/webhooks/twilio/inbound`);
  server = spawn("node", ["scripts/e2e-server.mjs"], {
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      PORT: String(PORT),
      CONSOLE_URL: `http://admin.localhost:${PORT}`,
      PUBLIC_URL: BASE,
      PGLITE_DIR: `${SERVERS.pgliteDir}-texts`,
      BUILD_DIR: process.env.BUILD_DIR ?? "build",
      ...productionTestEnv(),
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_API_BASE: twilio.url,
    },
  });
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the texting server stopped (exit ${server.exitCode})`);
    if (await fetch(`${BASE}/healthz`).then((r) => r.ok, () => false)) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  await twilio?.close();
});

const todayNY = () => new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());

async function fillCard(page: Page) {
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiry month").selectOption("12");
  await page.getByLabel("Expiry year").selectOption(String(new Date().getFullYear() + 2));
  await page.getByLabel("Security code (CVV)").fill("123");
  await page.getByLabel("Name on card").fill("Grace Hopper");
  await page.getByLabel("Billing ZIP code").fill("28358");
}

test("a renter who opted in on the rental gets the bill's pay link by text, and pays it; after STOP the next bill is not texted", async ({ page, request }) => {
  // 10 am in Lumberton today: inside the texting hours, whenever the suite runs.
  await testHook(request, "setClock", { at: `${todayNY()}T15:00:00Z` });
  try {
    await testHook(request, "clearRateLimits", {});
    await testHook(request, "setLocationSms", { slug: "lumberton-nc-28358", sms: "(910) 555-0176" });
    const email = `pay-by-text-${Date.now()}@example.com`;

    // The rental, ticking the opt-in on the details step.
    await page.goto(await rentalPath(page));
    await page.getByLabel("First name", { exact: true }).fill("Grace");
    await page.getByLabel("Last name", { exact: true }).fill("Hopper");
    await page.getByLabel("Email address").fill(email);
    await page.getByLabel("Cell phone").fill("(910) 555-0175");
    await page.getByLabel("Street address").fill("2 Main St");
    await page.getByLabel("City").fill("Lumberton");
    await page.getByLabel("State").selectOption("NC");
    await page.getByLabel("ZIP code").fill("28358");
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Confirm password").fill(PASSWORD);
    const optIn = page.getByLabel(/^Text me about my rental/);
    await expect(optIn).not.toBeChecked();
    await optIn.check();
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await page.getByRole("radio", { name: /No protection plan/ }).check();
    await page.getByRole("button", { name: "Continue", exact: true }).click();
    await page.getByRole("link", { name: "Continue to the lease" }).click();
    await page.getByLabel("Type your full name to sign").fill("Grace Hopper");
    await page.getByLabel("I have read the rental agreement").check();
    await page.getByRole("button", { name: "Sign the lease" }).click();
    await fillCard(page);
    // Autopay (pre-ticked at this operator) left off: the bill is then due, and reminded.
    await page.getByLabel("Pay my rent automatically each month with this card (autopay)").uncheck();
    await page.getByRole("button", { name: /^Pay \$[\d,.]+ and rent$/ }).click();
    await expect(page).toHaveURL(/\/confirmation/);

    // A month later the billing run bills the unit; its due reminder goes by text.
    const due = format(addMonths(parseISO(todayNY()), 1), "yyyy-MM-dd");
    const run = await testHook<{ chargesPosted: number }>(request, "runBilling", { date: due, email });
    expect(run.chargesPosted).toBeGreaterThan(0);
    const texts = twilio.control.messages().filter((m) => m.to === "+19105550175" && m.direction === "outbound-api");
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatchObject({ from: LOCATION_NUMBER });
    expect(texts[0]!.body).toMatch(/^Lumberton: your bill for unit \S+ is due on .+: \$[\d,]+\.\d\d\. Pay by card here .+ Reply STOP to stop texts\.$/);
    const amount = /: (\$[\d,]+\.\d\d)\. Pay by card/.exec(texts[0]!.body)![1]!;
    const link = /(http:\/\/localhost:\d+\/pay\/[A-Za-z0-9_.-]+)/.exec(texts[0]!.body)?.[1];
    expect(link, "a pay link in the text").toBeTruthy();

    // Opened on the phone: the amount of the text, paid once.
    await page.goto(link!);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Pay your storage bill");
    await expect(page.getByTestId("balance-due")).toHaveText(amount);
    await fillCard(page);
    await page.getByRole("button", { name: `Pay ${amount}` }).click();
    await expect(page.getByRole("heading", { name: "Thank you, your payment was received." })).toBeVisible();
    await expect(page.getByTestId("receipt-amount")).toHaveText(amount);
    await twilio.control.settled();

    // The tenant replies STOP from the phone: answered at once, and the next month's bill is not texted.
    const stop = await twilio.control.inbound({ from: "+19105550175", to: LOCATION_NUMBER, body: "STOP" });
    expect(stop.reply?.body).toMatch(/no more texts/);
    const next = format(addMonths(parseISO(todayNY()), 2), "yyyy-MM-dd");
    const second = await testHook<{ chargesPosted: number }>(request, "runBilling", { date: next, email });
    expect(second.chargesPosted).toBeGreaterThan(0);
    await twilio.control.settled();
    expect(twilio.control.messages().filter((m) => m.to === "+19105550175" && m.direction === "outbound-api")).toHaveLength(1);
  } finally {
    await testHook(request, "setClock", { at: null });
  }
});
