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
  },
});

export { expect };
