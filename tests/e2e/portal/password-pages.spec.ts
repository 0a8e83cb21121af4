import type { Page, Request } from "@playwright/test";
import { expect, test } from "../support/test";
import { testHook } from "../support/hooks";
import { signIn } from "../support/portal";

/**
 * Issue 36, finding 3 (decision 464): the portal's sign-in, create-sign-in, forgot-password, reset
 * and profile pages carried the operator's code and the tag manager, and the reset page kept its
 * token in the query string, which analytics tags send to their servers. With an analytics tag and the
 * operator's code set on the website, a real browser opening those pages requests nothing from
 * another origin, and after the e-mailed link's first redirect no URL (the page's, a request's, a
 * Referer) carries the token. A content page still loads the tag (the check can see it).
 */

const CODE = {
  analyticsId: "G-PWTEST1",
  customJs: "window.__operatorJs = 1;",
  customHeaderCode: '<script src="https://cdn.operator.example/head.js"></script><meta name="operator-head" content="1">',
  customBodyCode: '<div id="operator-body"></div><script>window.__operatorBody = 1;</script>',
  customCss: ".operator-css-marker{color:red}",
};
const MARKERS = ["__operatorJs", "operator-head", "operator-body", "__operatorBody", "operator-css-marker", "G-PWTEST1", "googletagmanager", "cdn.operator.example"];
const PASSWORD = "pw-pages1";
const unique = () => `pw-pages-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;

let previous: Record<string, unknown> = {};
test.beforeAll(async ({ request }) => {
  previous = await testHook<Record<string, unknown>>(request, "setWebsiteCode", CODE);
});
test.afterAll(async ({ request }) => {
  await testHook(request, "setWebsiteCode", previous);
});

/** Every request the page makes while `run` runs: its URL and Referer. */
async function requestsDuring(page: Page, run: () => Promise<unknown>) {
  const seen: Array<{ url: string; referer: string }> = [];
  const note = (r: Request) => seen.push({ url: r.url(), referer: r.headers()["referer"] ?? "" });
  page.on("request", note);
  try {
    await run();
    await page.waitForLoadState("networkidle");
  } finally {
    page.off("request", note);
  }
  return seen;
}

async function expectFirstPartyOnly(page: Page, path: string) {
  let response: Awaited<ReturnType<Page["goto"]>> = null;
  const seen = await requestsDuring(page, async () => (response = await page.goto(path)));
  expect(response!.status(), path).toBe(200);
  const here = new URL(page.url()).origin;
  expect(seen.map((r) => r.url).filter((u) => new URL(u).origin !== here), `${path}: requests to another origin`).toEqual([]);
  const html = await page.content();
  for (const m of MARKERS) expect(html, `${path} must not contain ${m}`).not.toContain(m);
  const csp = response!.headers()["content-security-policy"]!;
  expect(csp, path).not.toMatch(/google|operator\.example|stripe|https:/);
}

test("the portal's password pages load no third-party script; a content page still does", async ({ page, javaScriptEnabled }) => {
  // The control: a content page requests the tag manager and the operator's script host.
  const about = await requestsDuring(page, () => page.goto("/about"));
  const aboutHtml = await page.content();
  expect(aboutHtml).toContain("G-PWTEST1");
  // (Without JavaScript the browser fetches no script at all.)
  if (javaScriptEnabled) expect(about.some((r) => /googletagmanager|operator\.example/.test(r.url))).toBe(true);
  for (const path of ["/customer-portal/login", "/customer-portal/create-sign-in", "/customer-portal/forgot-password", "/customer-portal/reset-password"]) await expectFirstPartyOnly(page, path);
  const email = unique();
  await testHook(page.request, "createTenantWithLease", { email, password: PASSWORD });
  await signIn(page, email, PASSWORD);
  await expect(page.getByRole("heading", { level: 1, name: "My units" })).toBeVisible();
  await expectFirstPartyOnly(page, "/customer-portal/profile");
});

test("the reset token leaves the URL at the first redirect; the form works; a bare or spent link says so", async ({ page, browser, javaScriptEnabled }) => {
  const email = unique();
  await testHook(page.request, "createTenantWithLease", { email, password: PASSWORD });
  await page.goto("/customer-portal/forgot-password");
  await page.getByLabel("Email address").fill(email);
  await page.getByRole("button", { name: "Email me a reset link" }).click();
  await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
  const mail = await testHook<{ text: string }>(page.request, "lastEmailTo", { to: email });
  const link = new URL(/http\S+reset-password\?token=\S+/.exec(mail.text)![0]);
  const token = link.searchParams.get("token")!;
  expect(token.length).toBeGreaterThan(20);

  const seen = await requestsDuring(page, async () => {
    await page.goto(`${link.pathname}${link.search}`);
    await expect(page.getByRole("heading", { level: 1, name: "Choose a new password" })).toBeVisible();
    expect(page.url()).not.toContain(token);
    expect(new URL(page.url()).pathname).toBe("/customer-portal/reset-password");
    expect(await page.content()).not.toContain(token);
    await page.getByLabel("New password", { exact: true }).fill("brand-new2");
    await page.getByLabel("Confirm new password").fill("brand-new2");
    await page.getByRole("button", { name: "Save new password" }).click();
    await expect(page.getByText("Your password has been changed.")).toBeVisible();
  });
  // The link itself is the one request that carries the token; nothing after it does.
  expect(seen[0]!.url).toContain(token);
  const after = seen.slice(1);
  expect(after.length).toBeGreaterThan(1);
  for (const r of after) {
    expect(r.url, "a request's URL").not.toContain(token);
    expect(r.referer, `the Referer of ${r.url}`).not.toContain(token);
  }
  expect(page.url()).not.toContain(token);
  // The cookie that carried it is gone once the password is changed.
  expect((await page.context().cookies()).map((c) => c.value)).not.toContain(token);

  // The spent link says so (after its redirect too).
  await page.goto(`${link.pathname}${link.search}`);
  await expect(page.getByRole("heading", { name: "This link has expired" })).toBeVisible();
  expect(page.url()).not.toContain(token);

  // The bare page without the link's cookie (another browser, or the cookie ran out) says what to do.
  const other = await browser.newContext({ javaScriptEnabled });
  const fresh = await other.newPage();
  await fresh.goto(link.pathname);
  await expect(fresh.getByRole("heading", { name: "Open the link from your e-mail" })).toBeVisible();
  await other.close();

  await signIn(page, email, "brand-new2");
  await expect(page.getByRole("heading", { level: 1, name: "My units" })).toBeVisible();
});
