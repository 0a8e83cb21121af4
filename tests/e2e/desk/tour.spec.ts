import fs from "node:fs";
import type { Browser, Page } from "@playwright/test";
import { generate } from "otplib";
import { expect, test } from "../support/test";
import { expectNoAxeViolations } from "../support/a11y";
import { inviteByCommand, nextCode } from "../support/admin";
import { testHook } from "../support/hooks";
import { isNoJs } from "../support/site";

/**
 * The back office's tour (issue 23), with JavaScript on and off: last night a visitor rented a unit
 * online and another gave their details and left (the server's clock is pinned to last night through
 * the setClock hook while they do, then runs again). This morning the first owner is invited by
 * `npm run staff:invite`, enrols TOTP from the page's text key, signs in with password + code, finds
 * last night's rental (filtered by yesterday's date) and the abandoned rental among the leads, exports
 * the rentals as CSV (a download with JavaScript; the link fetched with the page's cookies without),
 * copies a pay link for the renter from the tenant's page (no mail server here); the tenant pays through it once
 * (a second visit says it was used); and the audit trail shows the sign-in, the export and the pay
 * link; the reconciliation page agrees with what was paid (issue 35). axe checks each console page (in the js project; axe needs JavaScript).
 */

const PASSWORD = "Quiet-Otter-73";
const UNIT_TYPE_PAGE = "/locations/lumberton-nc-28358/units/10x10-drive-up";
const TZ = "America/New_York"; // Lumberton's

test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});

// Whatever happens, the clock runs again for the specs after this one.
test.afterEach(async ({ request }) => {
  await testHook(request, "setClock", { at: null });
});

const ymd = (d: Date) => new Intl.DateTimeFormat("en-CA", { timeZone: TZ, year: "numeric", month: "2-digit", day: "2-digit" }).format(d);

/** `time` (HH:MM) on `day` (YYYY-MM-DD) in Lumberton, as an instant. */
function localInstant(day: string, time: string): Date {
  const guess = new Date(`${day}T${time}:00Z`);
  const name = new Intl.DateTimeFormat("en-US", { timeZone: TZ, timeZoneName: "shortOffset" }).formatToParts(guess).find((p) => p.type === "timeZoneName")!.value; // "GMT-5"
  const m = /GMT([+-])(\d{1,2})(?::(\d\d))?/.exec(name);
  const offsetMin = m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0)) : 0;
  return new Date(guess.getTime() - offsetMin * 60_000);
}

function yesterday(): string {
  const d = new Date(`${ymd(new Date())}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() - 1);
  return d.toISOString().slice(0, 10);
}

async function axe(page: Page, label: string) {
  if (!isNoJs(test.info())) await expectNoAxeViolations(page, { label });
}

async function newVisitor(browser: Browser, baseURL: string | undefined) {
  return browser.newContext({ baseURL, javaScriptEnabled: !isNoJs(test.info()) });
}

/** The renter's details step, as rental.spec fills it. */
async function startRental(page: Page, rentPath: string, email: string, name: { first: string; last: string }) {
  await page.goto(rentPath);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Rent a 10' x 10' Drive-Up unit");
  await page.getByLabel("First name", { exact: true }).fill(name.first);
  await page.getByLabel("Last name", { exact: true }).fill(name.last);
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Cell phone").pressSequentially("9105550134");
  await page.getByLabel("Street address").fill("1 Main St");
  await page.getByLabel("City").fill("Lumberton");
  await page.getByLabel("State").selectOption("NC");
  await page.getByLabel("ZIP code").fill("28358");
  await page.getByLabel("Password", { exact: true }).fill("Tidy-Unit-42");
  await page.getByLabel("Confirm password").fill("Tidy-Unit-42");
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await expect(page).toHaveURL(/step=protection/);
}

async function fillCard(page: Page) {
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiry month").selectOption("12");
  await page.getByLabel("Expiry year").selectOption(String(new Date().getFullYear() + 2));
  await page.getByLabel("Security code (CVV)").fill("123");
}

test("the desk's morning: last night's rental and abandoned rental, CSV, a pay link paid once, the audit trail", async ({ page, browser, request, baseURL }) => {
  test.setTimeout(180_000);
  const run = `${test.info().project.name}-${Date.now()}`;
  const renterEmail = `renter-${run}@example.com`;
  const leaverEmail = `leaver-${run}@example.com`;
  const ownerEmail = `owner-${run}@example.com`;
  const lastNight = yesterday();

  // Last night: the spec's own stock, then a rental paid online at 21:00 and one left at the
  // protection step at 21:30 (the clock stands still while pinned).
  await testHook(request, "addUnits", { locationSlug: "lumberton-nc-28358", width: 10, length: 10, name: "Drive-Up", count: 2 });
  const id = /href="\/rent\/(\d+)"/.exec(await (await request.get(UNIT_TYPE_PAGE)).text())?.[1];
  expect(id, "a Rent link on the unit type page").toBeTruthy();
  const rentPath = `/rent/${id}`;

  await testHook(request, "setClock", { at: localInstant(lastNight, "21:00").toISOString() });
  const renter = await newVisitor(browser, baseURL);
  const r = await renter.newPage();
  await startRental(r, rentPath, renterEmail, { first: "Rita", last: "Renter" });
  await r.getByRole("radio", { name: /No protection plan/ }).check();
  await r.getByRole("button", { name: "Continue", exact: true }).click();
  await expect(r).toHaveURL(/step=review/);
  await r.getByRole("link", { name: "Continue to the lease" }).click();
  await r.getByLabel("Type your full name to sign").fill("Rita Renter");
  await r.getByLabel("I have read the rental agreement").check();
  await r.getByRole("button", { name: "Sign the lease" }).click();
  await expect(r).toHaveURL(/step=pay/);
  await fillCard(r);
  await r.getByLabel(/Pay my rent automatically/).uncheck();
  await r.getByRole("button", { name: /^Pay \$[\d,.]+ and rent$/ }).click();
  await expect(r.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
  await renter.close();

  await testHook(request, "setClock", { at: localInstant(lastNight, "21:30").toISOString() });
  const leaver = await newVisitor(browser, baseURL);
  await startRental(await leaver.newPage(), rentPath, leaverEmail, { first: "Lena", last: "Leaver" });
  await leaver.close();
  await testHook(request, "setClock", { at: null });

  // This morning: the first owner, by command; TOTP enrolled from the text key.
  await page.goto(inviteByCommand(ownerEmail));
  const secret = (await page.getByTestId("totp-secret").innerText()).trim();
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await page.getByLabel("Your name").fill("Olive Owner");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Password again").fill(PASSWORD);
  await page.getByLabel("Code from your app").fill(await generate({ secret }));
  await page.getByRole("button", { name: "Save and show my recovery codes" }).click();
  await expect(page.getByRole("heading", { name: "Your recovery codes" })).toBeVisible();
  await page.goto("/admin");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByText("You have signed out.")).toBeVisible();

  // Sign in: password, then a code.
  await page.goto("/admin/rentals");
  await expect(page).toHaveURL(/\/admin\/sign-in\?next=%2Fadmin%2Frentals$/);
  await page.getByLabel("E-mail address").fill(ownerEmail);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Code").fill(await nextCode(secret));
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/admin\/rentals$/);

  // Last night's rental: the rentals of yesterday (Lumberton's calendar).
  await expect(page.getByRole("heading", { name: "Online rentals" })).toBeVisible();
  await page.getByLabel("From").fill(lastNight);
  await page.getByLabel("To").fill(lastNight);
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(new RegExp(`from=${lastNight}.*to=${lastNight}`));
  const rentalRow = page.getByRole("row").filter({ hasText: renterEmail });
  await expect(rentalRow).toHaveCount(1);
  await expect(rentalRow).toContainText(lastNight);
  await expect(rentalRow).toContainText("Rita Renter");
  await expect(rentalRow).toContainText("Confirmed");
  const amount = (await rentalRow.getByRole("cell").nth(4).innerText()).trim();
  expect(amount).toMatch(/^\$\d[\d,]*\.\d\d$/);
  await axe(page, "online rentals, filtered");

  // The CSV of exactly what the filter shows.
  const csvLink = page.getByRole("link", { name: /^Export these .*as CSV$/ });
  await expect(csvLink).toHaveAttribute("href", new RegExp(`^/admin/rentals\\.csv\\?.*from=${lastNight}`));
  let csv: string;
  if (isNoJs(test.info())) {
    const response = await page.request.get((await csvLink.getAttribute("href"))!);
    expect(response.status()).toBe(200);
    expect(response.headers()["content-type"]).toContain("text/csv");
    csv = await response.text();
  } else {
    const [download] = await Promise.all([page.waitForEvent("download"), csvLink.click()]);
    expect(download.suggestedFilename()).toMatch(/^online-rentals.*\.csv$/);
    csv = fs.readFileSync((await download.path())!, "utf8");
  }
  const lines = csv.replace(/^\uFEFF/, "").trim().split(/\r?\n/);
  expect(lines[0]).toBe("Date,Location,Unit,Unit type,Renter,E-mail,Phone,Amount,Status,Reference");
  const shown = Number(/^(\d+) results?/.exec((await page.locator(".desk-list__count").innerText()).trim())?.[1]);
  expect(lines).toHaveLength(shown + 1);
  for (const line of lines.slice(1)) expect(line.startsWith(`${lastNight},`)).toBe(true);
  const csvRow = lines.find((l) => l.includes(renterEmail));
  expect(csvRow).toBeTruthy();
  expect(csvRow).toContain("Rita Renter");
  expect(csvRow).toContain(amount);
  expect(csvRow).toContain("Confirmed");

  // The abandoned rental among the leads: details given last night, never paid.
  await page.getByRole("navigation", { name: "Back office" }).getByRole("link", { name: "Leads" }).click();
  await expect(page.getByRole("heading", { name: "Leads" })).toBeVisible();
  await page.getByLabel(/^Name, e-mail, phone/).fill(leaverEmail);
  await page.getByRole("button", { name: "Show" }).click();
  const leadRow = page.getByRole("row").filter({ hasText: leaverEmail });
  await expect(leadRow).toHaveCount(1);
  await expect(leadRow).toContainText("Abandoned rental");
  await expect(leadRow).toContainText("Lena Leaver");
  await expect(leadRow).toContainText(lastNight);
  await expect(leadRow).toContainText("Not contacted");
  await axe(page, "leads, searched");

  // The renter owes next month's rent (the billing run a month ahead; autopay is off).
  const due = new Date(`${ymd(new Date())}T12:00:00Z`);
  due.setUTCMonth(due.getUTCMonth() + 1);
  const billed = await testHook<{ chargesPosted: number }>(request, "runBilling", { date: due.toISOString().slice(0, 10), email: renterEmail });
  expect(billed.chargesPosted).toBeGreaterThan(0);

  // From the tenant's page: send a pay link.
  await page.getByRole("navigation", { name: "Back office" }).getByRole("link", { name: "Tenants" }).click();
  await page.getByRole("searchbox").fill(renterEmail);
  await page.getByRole("button", { name: "Show" }).click();
  await page.getByRole("link", { name: "Rita Renter" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Rita Renter");
  await axe(page, "tenant page");
  // This server has no mail server (no SMTP_URL): the page says so, and the desk copies the link instead (issue 39, decision 507).
  await expect(page.getByText("No e-mail can be sent from this server")).toBeVisible();
  await expect(page.getByRole("button", { name: "Send a pay link" })).toHaveCount(0);
  await page.getByRole("button", { name: "Copy the link" }).click();
  const linkField = page.getByLabel(/^Pay link for unit /);
  await expect(linkField).toHaveValue(/\/pay\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  const link = await linkField.inputValue();
  if (!isNoJs(test.info())) {
    // With JavaScript, the Copy button puts it on the clipboard and says so.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(page.url()).origin });
    await page.getByRole("button", { name: "Copy", exact: true }).click();
    await expect(page.getByText("Copied. Paste it into a text or an e-mail.")).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
  }
  await axe(page, "tenant page, the link to copy");

  // The tenant pays through the copied link, once.
  const payPath = new URL(link).pathname;
  const tenant = await newVisitor(browser, baseURL);
  const t = await tenant.newPage();
  await t.goto(payPath!);
  await expect(t.getByRole("heading", { level: 1 })).toHaveText("Pay your storage bill");
  const owed = (await t.getByTestId("balance-due").innerText()).trim();
  expect(owed).not.toBe("$0.00");
  await fillCard(t);
  await t.getByLabel("Name on card").fill("Rita Renter");
  await t.getByLabel("Billing ZIP code").fill("28358");
  await t.getByRole("button", { name: `Pay ${owed}` }).click();
  await expect(t.getByRole("heading", { name: "Thank you, your payment was received." })).toBeVisible();
  await tenant.close();
  const again = await newVisitor(browser, baseURL);
  const second = await again.newPage();
  expect((await second.goto(payPath!))!.status()).toBe(410);
  await expect(second.getByRole("heading", { level: 1 })).toHaveText("This link has already been used");
  await again.close();

  // Reconciliation (issue 35): the processor's list (the test gateway's own) agrees with what was recorded; no JavaScript needed for the form.
  await page.getByRole("navigation", { name: "Back office" }).getByRole("link", { name: "Reconciliation" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Reconciliation");
  await page.getByRole("button", { name: "Compare" }).click();
  await expect(page.getByRole("heading", { name: "Differences" })).toBeVisible();
  await expect(page.getByText("No differences: the card processor and our records agree for this day.")).toBeVisible();
  await axe(page, "reconciliation");

  // The audit trail: this owner's sign-in, export and pay link.
  await page.getByRole("navigation", { name: "Back office" }).getByRole("link", { name: /Audit/ }).click();
  await page.getByLabel("Staff member").selectOption({ label: `Olive Owner (${ownerEmail})` });
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/staff=\d+/);
  // In the operator's words (decision 644): the action as a sentence, the export's filter in words.
  for (const action of ["Accepted an invitation", "Signed in", "Online rentals exported", "Copied a pay link"]) {
    await expect(page.getByRole("row").filter({ has: page.getByRole("cell", { name: action, exact: true }) }).first(), action).toContainText(ownerEmail);
  }
  const exported = page.getByRole("row").filter({ has: page.getByRole("cell", { name: "Online rentals exported", exact: true }) });
  await expect(exported.first()).toContainText(lastNight);
  // Never the rows themselves.
  await expect(page.getByRole("table")).not.toContainText(renterEmail);
  await axe(page, "audit trail");

  // Issue 39: every console page at 390 and 1280 px and the home page's numbers are the office's
  // day walk's, as each role with JavaScript on and off (console/day.spec.ts, decision 650). Here:
  // the audit trail on a phone is stacked rows, each cell under its column's name.
  await page.goto(new URL("/admin/audit", page.url()).href);
  await page.setViewportSize({ width: 390, height: 900 });
  // Stacked: each cell shows its column's name.
  const firstCell = page.getByRole("table").locator("tbody td").first();
  expect(await firstCell.evaluate((td) => getComputedStyle(td, "::before").content)).toBe('"When"');
});
