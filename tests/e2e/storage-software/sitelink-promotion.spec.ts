import type { Page } from "@playwright/test";
import { expect, test } from "../support/test";
import { testHook } from "../support/hooks";
import { clearFaults, lastCall, SITELINK_BASE_URL, SIM_URL, sitelinkProject } from "../support/sitelink";

/**
 * A promotion of one month free at a SiteLink location (issue 40 "Done when"), JavaScript on and off:
 * Lumberton's 6' x 9' Drive-Up names the site's "1st Month Free" discount plan (published through the
 * console's draft and publish services). The card, the unit type page, the rental's summary, the review
 * step, the lease, the confirmation and the receipt e-mail all say the same words, and SiteLink
 * applies the plan at move-in: MoveInWithDiscount_v7 names it and the simulator's ledger holds the
 * concession on the first month's rent. Then the plan is changed in SiteLink (decision 673): after the
 * server's sync the card says what SiteLink now gives.
 */
test.use({ baseURL: SITELINK_BASE_URL });

const LOCATION = "/locations/lumberton-nc-28358";
const TYPE_PAGE = `${LOCATION}/units/6x9-drive-up`;
const WORDS = "First month free";
const LINE = `Promotion: ${WORDS}`;

test.beforeEach(async ({ request }, testInfo) => {
  test.skip(!sitelinkProject(testInfo), "the SiteLink server runs in the desktop js and no-js projects");
  await testHook(request, "clearRateLimits", {});
  await clearFaults();
  const published = (await testHook(request, "publishUnitTypePromotion", {
    slug: "lumberton-nc-28358",
    width: 6,
    length: 9,
    values: { promotionKind: "plan", promotionPlanId: 41, promotionStartsOn: "", promotionEndsOn: "" },
  })) as { shown: string };
  expect(published.shown).toBe(WORDS);
});

interface SimCharge {
  LedgerID: number;
  sChgCategory: string;
  amount: number;
  discount?: number;
  ConcessionID?: number;
}

/** The server's seeded plan (scripts/e2e-sitelink-server.ts). */
const FREE_MONTH_PLAN = { ConcessionID: 41, sPlanName: "1st Month Free", pcDiscount: 100 };

/** The site's discount plans in SiteLink, as the office would change them. */
async function setPlans(concessions: unknown[]) {
  const res = await fetch(`${SIM_URL}/__sim/sites/L001`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ concessions }) });
  expect(res.ok).toBe(true);
}

async function simLedgerCharges(ledgerId: number): Promise<SimCharge[]> {
  const site = (await (await fetch(`${SIM_URL}/__sim/sites/L001`)).json()) as { charges: SimCharge[] };
  return site.charges.filter((c) => c.LedgerID === ledgerId);
}

/** The visitor's details, no protection plan, up to the review step. */
async function toReview(page: Page, rent: string, email: string) {
  await page.goto(rent);
  await expect(page.getByTestId("unit-promotion")).toHaveText(`Promotion: ${WORDS}`);
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
  await page.getByRole("radio", { name: /No protection plan/ }).check();
  await page.getByRole("button", { name: "Continue", exact: true }).click();
  await expect(page).toHaveURL(/step=review/);
}

test("one month free: the same words on every page and the e-mail, and SiteLink applies the plan at move-in", async ({ page, request }, testInfo) => {
  // The card on the location page and the unit type's own page.
  await page.goto(`${LOCATION}?promo=${testInfo.project.name}`);
  // Only this type has a promotion at the SiteLink server's Lumberton.
  await expect(page.getByTestId("unit-promotion")).toHaveText([`Promotion: ${WORDS}`]);
  await page.goto(TYPE_PAGE);
  await expect(page.getByTestId("unit-promotion").first()).toHaveText(`Promotion: ${WORDS}`);
  const rent = await page.locator('main a[href^="/rent/"]').first().getAttribute("href");
  expect(rent).toMatch(/^\/rent\/\d+$/);

  const email = `sl-promo.${testInfo.project.name}.${Date.now()}.${testInfo.retry}@example.com`;
  await toReview(page, rent!, email);
  // The review step: the promotion's line takes the first month's rent off.
  // The review step: the charges' line and the unit's badge say the very same words.
  await expect(page.getByRole("rowheader", { name: LINE, exact: true })).toBeVisible();
  await expect(page.getByTestId("unit-promotion")).toHaveText(LINE);
  await page.getByRole("link", { name: "Continue to the lease" }).click();
  await expect(page).toHaveURL(/step=sign/);
  await expect(page.getByRole("main")).toContainText(LINE);
  await page.getByLabel("Type your full name to sign").fill("Ada Lovelace");
  await page.getByLabel("I have read the rental agreement").check();
  await page.getByRole("button", { name: "Sign the lease" }).click();
  await expect(page).toHaveURL(/step=pay/);
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiry month").selectOption("12");
  await page.getByLabel("Expiry year").selectOption("2030");
  await page.getByLabel("Security code (CVV)").fill("123");
  await page.getByRole("button", { name: /^Pay \$[\d,.]+ and rent$/ }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
  await expect(page.getByRole("rowheader", { name: LINE, exact: true })).toBeVisible();

  // SiteLink applied it: the move-in names the plan, the ledger's first rent carries the concession.
  const call = await lastCall("MoveInWithDiscount_v7");
  expect(call.params.ConcessionPlanID).toBe("41");
  const ledgerId = call.retCode!;
  const rentCharge = (await simLedgerCharges(ledgerId)).find((c) => c.sChgCategory === "Rent")!;
  expect(rentCharge.ConcessionID).toBe(41);
  expect(rentCharge.discount).toBeGreaterThan(0);
  expect(rentCharge.amount).toBe(0);

  // The receipt e-mail says the same.
  const mail = (await testHook(request, "lastEmailTo", { to: email })) as { text: string | null };
  expect(mail.text).toContain(LINE);

  // The plan changed in SiteLink after publishing (decision 673): once the server has read the site's
  // plans again (its sync does every 15 minutes), the card says what SiteLink now applies, not what
  // was published.
  try {
    await setPlans([{ ...FREE_MONTH_PLAN, pcDiscount: 50 }]);
    expect(await testHook(request, "readDiscountPlansNow", { slug: "lumberton-nc-28358" })).toEqual({ plans: 1 });
    await page.goto(`${LOCATION}?changed=${testInfo.project.name}`);
    await expect(page.getByTestId("unit-promotion")).toHaveText(["Promotion: 50% off the first month"]);
  } finally {
    await setPlans([FREE_MONTH_PLAN]);
    await testHook(request, "readDiscountPlansNow", { slug: "lumberton-nc-28358" });
  }
});
