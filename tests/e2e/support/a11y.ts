import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, type Locator, type Page } from "@playwright/test";
import { isNoJs } from "./site";

/** The WCAG 2.2 AA rule set the product promises (issue 2, conventions). */
const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/** Runs axe on the page (or a part of it) and fails with a readable list of violations. */
export async function expectNoAxeViolations(page: Page, options: { include?: string; label?: string } = {}) {
  let builder = new AxeBuilder({ page }).withTags(WCAG_TAGS);
  if (options.include) builder = builder.include(options.include);
  const { violations } = await builder.analyze();
  const found = violations.flatMap((v) =>
    v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(" ")} — ${n.failureSummary?.replace(/\s+/g, " ")}`),
  );
  expect(found, `axe violations on ${options.label ?? page.url()}`).toEqual([]);
}

/**
 * `scanPage`: the page to scan. axe runs inside the page, so it cannot run where JavaScript is
 * disabled; in the "no-js" project it is a JavaScript-enabled page in which the app's modules
 * (/assets/*.js) are blocked, so what axe sees is exactly the server-rendered, un-hydrated HTML
 * that a visitor without JavaScript gets.
 */
export const test = base.extend<{ scanPage: Page }>({
  scanPage: async ({ page, browser, baseURL }, use, testInfo) => {
    if (!isNoJs(testInfo)) {
      await use(page);
      return;
    }
    const context = await browser.newContext({ baseURL, viewport: testInfo.project.use.viewport ?? null, javaScriptEnabled: true });
    await context.route(/\/assets\/.+\.js(\?.*)?$/, (route) => route.abort());
    const scanPage = await context.newPage();
    await use(scanPage);
    await context.close();
  },
});

export { expect };

/**
 * In the "no-js" project, skips the rest of a scan when the page ships no client bundle: its HTML
 * is then the very same with and without JavaScript, and the "js" project has scanned it already.
 * Pages that hydrate (forms) are scanned in both projects, because their DOM can differ.
 */
export async function skipIfSameAsJsProject(scanPage: Page) {
  if (!isNoJs(test.info())) return;
  const ssrOnly = (await scanPage.locator("link[rel='modulepreload'], script[type='module']").count()) === 0;
  test.skip(ssrOnly, "no client bundle on this page: the same HTML was scanned in the js project");
}

/** Clicks every closed disclosure (<details>) toggle in a part of the page once, in document order. */
export async function openAllDisclosures(scope: Locator) {
  const summaries = scope.locator("details > summary");
  const count = await summaries.count();
  for (let i = 0; i < count; i++) {
    const summary = summaries.nth(i);
    if (!(await summary.isVisible())) continue;
    const open = await summary.evaluate((s) => (s.parentElement as HTMLDetailsElement).open);
    if (!open) await summary.click();
  }
}
