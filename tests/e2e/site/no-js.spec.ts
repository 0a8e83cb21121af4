import { expect, test } from "@playwright/test";
import { SiteLayout, isNoJs, recordScriptRequests } from "../support/site";
import { LOCATIONS } from "../support/seed-facts";

// Issue 2, "No JavaScript where none is needed": content pages ship no React Router client bundle.
// In the "js" project the browser would fetch and run any module the page referenced, so counting
// /assets/*.js requests proves the page has none; in both projects the HTML must not reference one.

const CONTENT_PAGES = [
  "/",
  "/view-locations",
  // Location pages are content pages today. If unit filters ever opt a location page into
  // hydration (handle.hydrate), take it out here and say why: the rule is for content-only pages.
  ...LOCATIONS.filter((l) => l.status === "Live").map((l) => l.path),
  "/about",
  "/portable-storage",
  "/faqs",
  "/storage-tips",
  "/size-guide",
  "/privacy-policy",
];

const moduleReferences = "script[src*='/assets/'], script[type='module'], link[rel='modulepreload']";

test("content pages load no /assets/*.js module", async ({ page }) => {
  const scripts = recordScriptRequests(page);
  const site = new SiteLayout(page);
  for (const path of CONTENT_PAGES) {
    await site.goto(path);
    await page.waitForLoadState("load");
    await expect(page.locator(moduleReferences), `module references in ${path}`).toHaveCount(0);
    expect(scripts.filter((s) => s.startsWith("/assets/")), `scripts loaded by ${path}`).toEqual([]);
  }
});

test("form pages load no /assets/*.js module either: a small inline script enhances them (issue 10)", async ({ page }, testInfo) => {
  const scripts = recordScriptRequests(page);
  await new SiteLayout(page).goto("/contact");
  await page.waitForLoadState("load");
  await expect(page.locator(moduleReferences)).toHaveCount(0);
  // The form script is inline, with the request's CSP nonce.
  const formScripts = await page.evaluate(
    () => [...document.querySelectorAll("script[nonce]:not([src])")].filter((s) => (s.textContent ?? "").includes("data-pending-text")).length,
  );
  expect(formScripts).toBe(1);
  await page.getByRole("button", { name: "Send message" }).click();
  await expect(page.getByLabel("Your name")).toHaveAttribute("aria-invalid", "true");
  if (isNoJs(testInfo)) {
    // The server's answer opens on the focused summary of the errors.
    await expect(page.getByRole("alert").filter({ hasText: "There is a problem" })).toBeFocused();
  } else {
    // The positive control: the script ran (focus on the first field in error) and still no module was loaded.
    await expect(page.getByLabel("Your name")).toBeFocused();
    expect(scripts.filter((s) => s.startsWith("/assets/"))).toEqual([]);
  }
});
