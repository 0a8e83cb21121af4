import type { Page, TestInfo } from "@playwright/test";
import { expect, test } from "../support/test";
import { testHook } from "../support/hooks";
import { expectNoAxeViolations } from "../support/a11y";
import { escapeRegExp } from "../support/site";
import {
  addFault,
  clearFaults,
  dollars,
  lastCall,
  setUnitStatus,
  simCalls,
  simSite,
  siteLinkMoveInCost,
  SITE_B,
  SITELINK_BASE_URL,
  sitelinkProject,
} from "../support/sitelink";

/**
 * The online rental at a SiteLink location (issue 11 "Done when"), with JavaScript on and off:
 * Lumberton on the second e2e server is connected to the SiteLink simulator (real SOAP). The totals
 * are SiteLink's MoveInCostRetrieveWithDiscount_v4 to the cent, the confirmation shows the gate code
 * SiteLink holds, and the hard cases run through the simulator's fault API.
 */
test.use({ baseURL: SITELINK_BASE_URL });

const UNIT_TYPE_PAGE = "/locations/lumberton-nc-28358/units/10x10-drive-up";
let RENT = "";

const uniqueEmail = (testInfo: TestInfo, what: string) => `sl-${what}.${testInfo.project.name}.${Date.now()}.${testInfo.retry}@example.com`;

test.beforeEach(async ({ request }, testInfo) => {
  test.skip(!sitelinkProject(testInfo), "the SiteLink server runs in the desktop js and no-js projects");
  await testHook(request, "clearRateLimits", {});
  await clearFaults();
});

/** The Rent link of a unit type page on the SiteLink server. */
async function rentLink(request: import("@playwright/test").APIRequestContext, unitTypePage: string) {
  const html = await (await request.get(`${SITELINK_BASE_URL}${unitTypePage}`)).text();
  const id = /href="\/rent\/(\d+)"/.exec(html)?.[1];
  if (!id) throw new Error(`No Rent link on ${unitTypePage} (SiteLink server)`);
  return `/rent/${id}`;
}

test.beforeAll(async ({ request }) => {
  RENT = await rentLink(request, UNIT_TYPE_PAGE);
});

/** The rental up to the pay step, as a visitor (at Lumberton unless another Rent link is given). */
async function toPayStep(page: Page, email: string, plan: RegExp = /No protection plan/, rent = RENT) {
  await page.goto(rent);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Rent a 10' x 10' Drive-Up unit");
  await page.getByLabel("First name", { exact: true }).fill("Ada");
  await page.getByLabel("Last name", { exact: true }).fill("Lovelace");
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
  await page.getByRole("radio", { name: plan }).check();
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await expect(page).toHaveURL(/step=review/);
  const reviewTotal = (await page.getByTestId("rental-total").innerText()).trim();
  await page.getByRole("link", { name: "Continue to the lease" }).click();
  await expect(page).toHaveURL(/step=sign/);
  await page.getByLabel("Type your full name to sign").fill("Ada Lovelace");
  await page.getByLabel("I have read the rental agreement").check();
  await page.getByRole("button", { name: "Sign the lease" }).click();
  await expect(page).toHaveURL(/step=pay/);
  return reviewTotal;
}

async function fillCard(page: Page, number: string) {
  await page.getByLabel("Card number").fill(number);
  await page.getByLabel("Expiry month").selectOption("12");
  await page.getByLabel("Expiry year").selectOption("2030");
  await page.getByLabel("Security code (CVV)").fill("123");
}

const pay = (page: Page) => page.getByRole("button", { name: /^Pay \$[\d,.]+ and rent$/ }).click();

/** The ledger SiteLink opened for the last move-in, its tenant and payments. */
async function lastMoveIn() {
  const call = await lastCall("MoveInWithDiscount_v7");
  const site = await simSite();
  const ledger = site.ledgers.find((l) => l.UnitID === Number(call.params.UnitID))!;
  const tenant = site.tenants.find((t) => t.TenantID === ledger.TenantID)!;
  return { call, ledger, tenant, payments: site.payments.filter((p) => p.LedgerID === ledger.LedgerID) };
}

test.describe("online rental at a SiteLink location", () => {
  test("totals are SiteLink's MoveInCostRetrieve to the cent; the confirmation shows SiteLink's gate code", async ({ page, javaScriptEnabled }, testInfo) => {
    const reviewTotal = await toPayStep(page, uniqueEmail(testInfo, "rent"), /\$1,000\.00 coverage for \$8\.95 a month/);
    const cost = await siteLinkMoveInCost();
    expect(reviewTotal).toBe(dollars(cost.total));
    await expect(page.getByTestId("pay-total")).toHaveText(dollars(cost.total));
    if (javaScriptEnabled) await expectNoAxeViolations(page, { include: "main", label: "SiteLink pay step" });

    const before = (await simCalls("MoveInWithDiscount_v7")).length;
    await fillCard(page, "4242 4242 4242 4242");
    await pay(page);
    await expect(page).toHaveURL(new RegExp(`${RENT}/confirmation$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
    if (javaScriptEnabled) await expectNoAxeViolations(page, { include: "main", label: "SiteLink confirmation" });

    // One move-in in SiteLink, for the unit quoted, paying exactly SiteLink's cost.
    expect(await simCalls("MoveInWithDiscount_v7")).toHaveLength(before + 1);
    const { call, tenant, payments } = await lastMoveIn();
    expect(Number(call.params.UnitID)).toBe(cost.unitId);
    expect(Math.round(Number(call.params.dcPaymentAmount) * 100)).toBe(cost.total);
    expect(payments.map((p) => p.amount)).toEqual([cost.total]);
    await expect(page.getByRole("table", { name: "Charged today" }).getByTestId("rental-total")).toHaveText(dollars(cost.total));

    // The gate code is SiteLink's, for this tenant.
    expect(tenant.accessCode).toBeTruthy();
    await expect(page.getByTestId("gate-code")).toHaveText(tenant.accessCode);
    await expect(page.getByRole("status")).toContainText(`Your gate code is ${tenant.accessCode}`);
    await page.reload();
    await expect(page.getByTestId("gate-code")).toHaveText(tenant.accessCode);
    expect(await simCalls("MoveInWithDiscount_v7")).toHaveLength(before + 1);
  });

  test("commit then timeout at move-in: 'we are confirming your rental' reloads into success; one lease, one charge", async ({ page }, testInfo) => {
    await toPayStep(page, uniqueEmail(testInfo, "hang"));
    const cost = await siteLinkMoveInCost();
    // SiteLink moves the tenant in but never answers; and its ledgers cannot be read for a while.
    await addFault({ operation: "MoveInWithDiscount_v7", kind: "commit_then_hang", times: 1 });
    await addFault({ operation: "LedgersByTenantID_v3", kind: "http_503" });
    const before = (await simCalls("MoveInWithDiscount_v7")).length;
    await fillCard(page, "4242 4242 4242 4242");
    await pay(page);
    await expect(page).toHaveURL(new RegExp(`${RENT}/confirmation$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("We are confirming your rental");
    await expect(page.getByRole("status")).toContainText("Please do not pay again");
    await clearFaults();
    // The page reloads itself (meta refresh) until the rental is confirmed.
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete", { timeout: 30_000 });
    const { call, tenant, payments } = await lastMoveIn();
    expect(await simCalls("MoveInWithDiscount_v7")).toHaveLength(before + 1);
    expect(Number(call.params.UnitID)).toBe(cost.unitId);
    expect(payments.map((p) => p.amount)).toEqual([cost.total]);
    await expect(page.getByTestId("gate-code")).toHaveText(tenant.accessCode);
  });

  test("a unit rented at the office a second before the payment: a clear message, another unit held, no charge", async ({ page }, testInfo) => {
    await toPayStep(page, uniqueEmail(testInfo, "taken"));
    const { unitId } = await siteLinkMoveInCost();
    await setUnitStatus(unitId, "rented");
    const before = (await simCalls("MoveInWithDiscount_v7")).length;
    const paymentsBefore = (await simSite()).payments.length;
    await fillCard(page, "4242 4242 4242 4242");
    await pay(page);
    await expect(page).toHaveURL(/step=pay/);
    await expect(page.getByRole("status").filter({ hasText: "The unit held for you was just rented at the office." })).toContainText("Nothing was charged.");
    expect(await simCalls("MoveInWithDiscount_v7")).toHaveLength(before);
    expect((await simSite()).payments).toHaveLength(paymentsBefore);
    // Paying again rents the unit now held, at SiteLink's cost for it.
    await fillCard(page, "4242 4242 4242 4242");
    await pay(page);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
    const { call } = await lastMoveIn();
    expect(Number(call.params.UnitID)).not.toBe(unitId);
  });

  test("a declined card: a clear message, nothing charged or moved in; the next card rents", async ({ page }, testInfo) => {
    await toPayStep(page, uniqueEmail(testInfo, "declined"));
    const ledgersBefore = (await simSite()).ledgers.length;
    await fillCard(page, "4000 0000 0000 0002");
    await pay(page);
    await expect(page.getByRole("alert").filter({ hasText: "Your card was declined. Nothing was charged." })).toBeVisible();
    await expect(page).toHaveURL(/step=pay/);
    expect((await simSite()).ledgers).toHaveLength(ledgersBefore);
    await fillCard(page, "4242 4242 4242 4242");
    await pay(page);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
    expect((await simSite()).ledgers).toHaveLength(ledgersBefore + 1);
  });

  test("SiteLink refusing or unreachable at the pay step: a clear message, an honest 503 on reload (never a 500), nothing half-saved", async ({ page }, testInfo) => {
    await toPayStep(page, uniqueEmail(testInfo, "creds"));
    const ledgersBefore = (await simSite()).ledgers.length;
    const before = (await simCalls("MoveInWithDiscount_v7")).length;
    // What SiteLink answers to a wrong corp password (decision 107), on every call.
    // Only the payment's own calls are refused: the pay page's loader, run again after the action, also
    // asks SiteLink (for the quote) and cannot show the page while the credentials are refused.
    await addFault({ operation: "*", kind: "rt_error", retCode: -1, retMsg: "Invalid corporate code, user name or password.", times: 1 });
    await fillCard(page, "4242 4242 4242 4242");
    await pay(page);
    await expect(page.getByText("We could not reach the facility's system just now. Please try again in a few minutes.").first()).toBeVisible();
    await expect(page).toHaveURL(/step=pay/);
    await expect(page.getByRole("button", { name: /^Pay \$[\d,.]+ and rent$/ })).toBeVisible();
    await clearFaults();
    // SiteLink unreachable altogether: the pay page needs SiteLink's quote, so loading it again (a GET,
    // as a reload after the form would resend it) answers 503 with Retry-After in the site's layout.
    await addFault({ operation: "*", kind: "drop_before" });
    const down = await page.goto(`${RENT}?step=pay`);
    expect(down!.status()).toBe(503);
    expect(down!.headers()["retry-after"]).toBe("30");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("We will be back in a moment");
    await expect(page.getByText("Please try again in a minute.")).toBeVisible();
    await clearFaults();
    await page.goto(`${RENT}?step=pay`);
    await expect(page.getByRole("button", { name: /^Pay \$[\d,.]+ and rent$/ })).toBeVisible();
    expect((await simSite()).ledgers).toHaveLength(ledgersBefore);
    expect(await simCalls("MoveInWithDiscount_v7")).toHaveLength(before);
    // Once SiteLink answers again the same rental rents, once.
    await fillCard(page, "4242 4242 4242 4242");
    await pay(page);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
    expect(await simCalls("MoveInWithDiscount_v7")).toHaveLength(before + 1);
  });
});

test.describe("online rental at a SiteLink location where our gateway charges (option B)", () => {
  test("our gateway charges the card; SiteLink records the payment (cash, no card data) for the unit rented", async ({ page, request }, testInfo) => {
    const rent = await rentLink(request, "/locations/jacksonville-nc-28546/units/10x10-drive-up");
    await toPayStep(page, uniqueEmail(testInfo, "option-b"), /No protection plan/, rent);
    const total = (await page.getByTestId("pay-total").innerText()).trim();
    const before = (await simCalls("MoveInWithDiscount_v7", SITE_B)).length;
    await fillCard(page, "4242 4242 4242 4242");
    await pay(page);
    await expect(page).toHaveURL(new RegExp(`${rent}/confirmation$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
    // Charged by our gateway: its authorisation (the test gateway's AUTH-…), for the total.
    await expect(page.getByText(new RegExp(`Paid ${escapeRegExp(total)} by Visa ending 4242\\. Authorisation AUTH-[0-9A-F]{10}\\.`))).toBeVisible();

    // SiteLink moved the tenant in once, as a cash payment with no card data, and holds that payment.
    const calls = await simCalls("MoveInWithDiscount_v7", SITE_B);
    expect(calls).toHaveLength(before + 1);
    const call = calls.at(-1)!;
    expect(call.params.iPayMethod).toBe("2");
    expect(call.params.sCreditCardNumber ?? "").toBe("");
    const site = await simSite(SITE_B);
    const ledger = site.ledgers.find((l) => l.UnitID === Number(call.params.UnitID))!;
    const payments = site.payments.filter((p) => p.LedgerID === ledger.LedgerID);
    expect(payments.map((p) => [dollars(p.amount), p.payMethod])).toEqual([[total, 2]]);
    await expect(page.getByTestId("gate-code")).toHaveText(site.tenants.find((t) => t.TenantID === ledger.TenantID)!.accessCode);
  });
});
