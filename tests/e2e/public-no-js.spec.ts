import { expect, test } from "@playwright/test";
import { SiteLayout, isNoJs, recordScriptRequests } from "./support/site";
import { LOCATIONS } from "./support/seed-facts";

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

test("the contact page (a form page) hydrates when JavaScript is on", async ({ page }, testInfo) => {
  const scripts = recordScriptRequests(page);
  await new SiteLayout(page).goto("/contact");
  await page.waitForLoadState("load");
  if (isNoJs(testInfo)) {
    // The server-rendered HTML references the bundle (the browser just does not run it).
    await expect(page.locator("link[rel='modulepreload']").first()).toBeAttached();
  } else {
    // The positive control for the test above: the same counting does see the client bundle here.
    expect(scripts.filter((s) => /^\/assets\/.+\.js$/.test(s)).length).toBeGreaterThan(0);
  }
});
