import { expect, test } from "@playwright/test";

test("the home page renders from the database", async ({ page }) => {
  const response = await page.goto("/");
  expect(response?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("self storage", { ignoreCase: true });
  await expect(page.getByRole("link", { name: "Rent a unit", exact: true })).toHaveAttribute("href", "/view-locations");
});
