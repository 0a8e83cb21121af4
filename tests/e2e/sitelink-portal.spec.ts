import type { Page } from "@playwright/test";
import { addMonths, format, parseISO } from "date-fns";
import { expect, test } from "./support/test";
import { testHook } from "./support/hooks";
import { expectNoAxeViolations } from "./support/a11y";
import { loadContract } from "../../sitelink-simulator/contract";
import { soapCall } from "../../sitelink-simulator/test-client";
import { rentUpToCard, signIn } from "./support/portal";
import { addOfficeTenant, clearFaults, lastCall, simSite, SIM_URL, SITE, SITELINK_BASE_URL, sitelinkProject } from "./support/sitelink";

/**
 * The customer portal at a SiteLink location (issue 11 "Done when"), with JavaScript on and off:
 * a visitor rents at Lumberton (connected to the SiteLink simulator), signs in, sees the lease
 * SiteLink holds (LedgersByTenantID), turns autopay off, pays on account, gives move-out notice, sees
 * a payment the office took in SiteLink's ledger, and changes the city in SiteLink's tenant record;
 * and a tenant who rented at the office creates a sign-in by proving SiteLink's record (decision 141).
 */
test.use({ baseURL: SITELINK_BASE_URL });

const PASSWORD = "portal-pass1";
const unique = (label: string) => `sl-${label}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;
const todayNY = () => new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());

test.beforeEach(async ({ request }, testInfo) => {
  test.skip(!sitelinkProject(testInfo), "the SiteLink server runs in the desktop js and no-js projects");
  await testHook(request, "clearRateLimits", {});
  await clearFaults();
});

async function fillCard(page: Page, name: string) {
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiry month").selectOption("12");
  await page.getByLabel("Expiry year").selectOption(String(new Date().getFullYear() + 2));
  await page.getByLabel("Security code (CVV)").fill("123");
  await page.getByLabel("Name on card").fill(name);
}

async function rent(page: Page, request: import("@playwright/test").APIRequestContext, email: string): Promise<string> {
  const html = await (await request.get("/locations/lumberton-nc-28358/units/10x10-drive-up")).text();
  const rentPath = /href="(\/rent\/\d+)"/.exec(html)?.[1];
  expect(rentPath, "a Rent link on the SiteLink 10' x 10' Drive-Up page").toBeTruthy();
  await rentUpToCard(page, rentPath!, { email, password: PASSWORD });
  await fillCard(page, "Grace Hopper");
  await page.getByRole("button", { name: /^Pay \$[\d,.]+ and rent$/ }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
  return (await page.getByTestId("gate-code").innerText()).trim();
}

test("after a SiteLink rental: sign in, the lease from SiteLink, autopay off, a payment, move-out notice", async ({ page, request, javaScriptEnabled }) => {
  const email = unique("portal");
  const gate = await rent(page, request, email);
  const moveIn = await lastCall("MoveInWithDiscount_v7");
  const unitName = (await simSite()).units.find((u) => u.UnitID === Number(moveIn.params.UnitID))!.sUnitName;

  await signIn(page, email, PASSWORD);
  await expect(page.getByRole("heading", { level: 1, name: "My units" })).toBeVisible();
  const unit = page.getByRole("region", { name: new RegExp(`Unit ${unitName} at`) });
  await expect(unit.getByTestId("balance")).toHaveText("$0.00");
  await expect(unit.getByText(`${gate}#`)).toBeVisible();
  // SiteLink keeps the card for autopay; the dashboard says it is on.
  await expect(unit.getByTestId("autopay")).toHaveText(/^On/);
  // The dashboard read this tenant's ledgers from SiteLink.
  const ledgersCall = await lastCall("LedgersByTenantID_v3");
  expect(Number(ledgersCall.params.sTenantID)).toBe(Number(moveIn.params.TenantID));
  if (javaScriptEnabled) await expectNoAxeViolations(page, { include: "main", label: "SiteLink portal dashboard" });

  // Autopay off, in SiteLink.
  await unit.getByRole("link", { name: "Manage autopay" }).click();
  await page.getByRole("button", { name: "Cancel autopay" }).click();
  await expect(unit.getByTestId("autopay")).toHaveText("Off");

  // A payment on account (another amount) is posted to the ledger in SiteLink, once.
  const ledgerId = (await simSite()).ledgers.find((l) => l.UnitID === Number(moveIn.params.UnitID))!.LedgerID;
  const paymentsBefore = (await simSite()).payments.filter((p) => p.LedgerID === ledgerId).length;
  await unit.getByRole("link", { name: "Pay my bill" }).click();
  await page.getByLabel("Another amount").check();
  await page.getByLabel("Other amount in dollars").fill("10.00");
  await fillCard(page, "Grace Hopper");
  await page.getByLabel("Billing ZIP code").fill("28358");
  await page.getByRole("button", { name: "Pay now" }).click();
  await expect(page.getByRole("heading", { name: "Thank you, your payment was received." })).toBeVisible();
  await expect(page.getByTestId("receipt-amount")).toHaveText("$10.00");
  const paid = (await simSite()).payments.filter((p) => p.LedgerID === ledgerId);
  expect(paid).toHaveLength(paymentsBefore + 1);
  expect(paid.at(-1)!.amount).toBe(1000);
  await page.getByRole("link", { name: "Back to my units" }).click();

  // Move-out notice.
  await unit.getByRole("link", { name: "Give move-out notice" }).click();
  const moveOut = format(addMonths(parseISO(todayNY()), 2), "yyyy-MM-dd");
  await page.getByLabel("Move-out date").fill(moveOut);
  await page.getByRole("button", { name: "Give notice" }).click();
  await expect(page.getByRole("heading", { name: `Move-out date: ${format(parseISO(moveOut), "MMM d, yyyy")}` })).toBeVisible();
  await expect(page.getByText("We have received your move-out notice")).toBeVisible();

  // The ledger is SiteLink's: cash the office took (no receipt page here) shows up in the portal.
  const cash = await soapCall(`${SIM_URL}${loadContract().path}`, "PaymentSimpleCashWithSource", { iTenantID: Number(moveIn.params.TenantID), iUnitID: Number(moveIn.params.UnitID), dcPaymentAmount: "3.21", iSource: 1 }, { location: SITE });
  expect(Number(cash.rt?.Ret_Code)).toBeGreaterThan(0);
  await page.goto("/customer-portal");
  const officeCash = unit.getByRole("row", { name: /Payment: Cash/ });
  await expect(officeCash).toContainText("$3.21");
  await expect(officeCash.getByRole("link", { name: "Receipt" })).toHaveCount(0);

  // A contact change reaches SiteLink's tenant record (TenantUpdate_v3), gate code kept.
  await page.goto("/customer-portal/profile");
  await page.getByLabel("City").fill("Pembroke");
  await page.getByRole("button", { name: "Save contact details" }).click();
  await expect(page.getByText("Your contact details have been saved.")).toBeVisible();
  const record = (await simSite()).tenants.find((t) => t.TenantID === Number(moveIn.params.TenantID))!;
  expect(record.fields.sCity).toBe("Pembroke");
  expect(record.accessCode).toBe(gate);
});

test("rented at the office: create a sign-in against SiteLink's record, then sign in and see the unit", async ({ page, javaScriptEnabled }) => {
  // The office rents a free unit to a tenant and gives them a web password (SiteLink's own record).
  const email = unique("office");
  const free = (await simSite()).units.filter((u) => !u.rented && u.rentable && !u.waitingListReserved && !u.excludeFromWebsite && !u.deleted).at(-1)!;
  const office = await addOfficeTenant({ firstName: "Olive", lastName: "Office", email, webPassword: "desk4321", unitId: free.UnitID });

  await page.goto("/customer-portal/login");
  await page.getByRole("link", { name: "Rented at the office? Create your sign-in" }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Create your sign-in");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password from the office").fill("desk4321");
  await page.getByLabel("New password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Confirm new password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create my sign-in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "My units" })).toBeVisible();
  if (javaScriptEnabled) await expectNoAxeViolations(page, { include: "main", label: "office tenant's dashboard" });

  // Signed out, the new password signs in and the unit SiteLink rents them is there, with its gate code.
  await page.getByRole("button", { name: "Sign out" }).click();
  await signIn(page, email, PASSWORD);
  const unit = page.getByRole("region", { name: new RegExp(`Unit ${free.sUnitName} at Lumberton`) });
  await expect(unit).toBeVisible();
  await expect(unit.getByText(`${office.accessCode}#`)).toBeVisible();
});
