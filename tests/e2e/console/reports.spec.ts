import { expect, expectNoAxeViolations, test } from "../support/a11y";
import { consoleUrl, signInNewOwner } from "../support/admin";

// Issue 40 (decision 610): "Your reports" — an owner chooses a weekly report at 8 am on Wednesdays, with
// JavaScript on and off (a plain form); axe finds nothing on the page before and after (with JavaScript:
// axe runs in the page). The e-mail itself is tested over SMTP (tests/integration/console/reports.test.ts).
test("an owner chooses a weekly report on 'Your reports'", async ({ page, javaScriptEnabled }) => {
  test.setTimeout(180_000);
  // axe runs inside the page, so only where JavaScript runs (the page is the same server-rendered HTML).
  const axe = (label: string) => (javaScriptEnabled ? expectNoAxeViolations(page, { label }) : Promise.resolve());
  await signInNewOwner(page, `reports-owner-${Date.now()}@example.com`, "Slate-Otter-73");
  await page.goto(consoleUrl("/admin"));
  await page.getByRole("navigation", { name: "Back office" }).getByRole("link", { name: "Your reports" }).click();
  await expect(page.getByRole("heading", { name: "Your reports by e-mail" })).toBeVisible();
  await expect(page.getByRole("radio", { name: "No report" })).toBeChecked();
  await axe("your reports (none)");

  await page.getByRole("radio", { name: "Weekly" }).check();
  await page.getByLabel("Sent at").selectOption({ label: "8 am" });
  await page.getByLabel("Weekly reports on").selectOption({ label: "Wednesday" });
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Saved. Your report will come at the next time you chose.")).toBeVisible();
  await expect(page.getByRole("radio", { name: "Weekly" })).toBeChecked();
  await expect(page.getByLabel("Sent at")).toHaveValue("8");
  await expect(page.getByLabel("Weekly reports on")).toHaveValue("3");
  await axe("your reports (weekly)");

  await page.getByRole("radio", { name: "No report" }).check();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Saved. You will get no report.")).toBeVisible();
});
