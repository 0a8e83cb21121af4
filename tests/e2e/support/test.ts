import { test as base, expect } from "@playwright/test";
import { waitForHydration } from "./site";

/**
 * Playwright's `test` with one change: `page.goto` (and reload, goBack, goForward) waits until React has hydrated the page (on
 * pages that ship the client bundle, in the js project). Without it a spec can type into a
 * server-rendered form and click before hydration, and React then resets the controlled inputs
 * (the phone mask) and drops the click: a flaky test that says nothing about the product.
 */
export const test = base.extend({
  page: async ({ page }, use, testInfo) => {
    const goto = page.goto.bind(page);
    page.goto = (async (url: string, options?: Parameters<typeof goto>[1]) => {
      const response = await goto(url, options);
      await waitForHydration(page, testInfo);
      return response;
    }) as typeof page.goto;
    for (const name of ["reload", "goBack", "goForward"] as const) {
      const original = page[name].bind(page);
      page[name] = (async (options?: Parameters<typeof original>[0]) => {
        const response = await original(options);
        await waitForHydration(page, testInfo);
        return response;
      }) as (typeof page)[typeof name];
    }
    await use(page);
    // At 390 px (the mobile-390 project): the page the test ends on fits the screen, nothing wider
    // than the viewport (which would hide controls off to the side).
    if (testInfo.project.name === "mobile-390" && testInfo.status === testInfo.expectedStatus && !page.isClosed() && page.url().startsWith("http")) {
      const { scrollWidth, innerWidth, wide } = await page.evaluate(() => {
        const vw = window.innerWidth;
        const offenders = [...document.querySelectorAll("body *")]
          .filter((el) => el.getBoundingClientRect().right > vw + 1 && getComputedStyle(el).position !== "fixed" && !el.closest(".visually-hidden, [hidden], details:not([open]) > :not(summary)"))
          .slice(0, 5)
          .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className && typeof el.className === "string" ? `.${el.className.trim().split(/\s+/).join(".")}` : ""}`);
        return { scrollWidth: document.documentElement.scrollWidth, innerWidth: vw, wide: offenders };
      });
      expect(scrollWidth, `${page.url()} is wider than the 390 px screen: ${wide.join(", ")}`).toBeLessThanOrEqual(innerWidth);
    }
  },
});

export { expect };
