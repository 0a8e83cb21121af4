import type { APIRequestContext, APIResponse } from "@playwright/test";
import { expect, test } from "../support/test";
import { testHook } from "../support/hooks";

/**
 * Payment pages (PCI DSS v4 6.4.3 / 11.6.1, docs/decisions/075): with an analytics id and the
 * operator's custom JS, header, body code and CSS set on the website, the pages with card fields
 * (rental, portal pay, prepay, autopay) carry none of them and their CSP names no
 * third-party host; a content page still has all of them. With JavaScript, a visitor who reaches a
 * payment page from a page that ran the operator's JS gets a fresh document without it.
 */

const CODE = {
  analyticsId: "G-PAYTEST1",
  customJs: "window.__operatorJs = 1;",
  customHeaderCode: '<script>window.__operatorHead = 1;</script><meta name="operator-head" content="1">',
  customBodyCode: '<div id="operator-body"></div><script>window.__operatorBody = 1;</script>',
  customCss: ".operator-css-marker{color:red}",
};
const MARKERS = ["__operatorJs", "__operatorHead", "operator-head", "operator-body", "__operatorBody", "operator-css-marker", "G-PAYTEST1", "googletagmanager"];
const OPERATOR_HOST = "https://cdn.operator.example"; // CSP_EXTRA_SCRIPT_SRC in playwright.config.ts
const PASSWORD = "pay-pages1";
const unique = () => `pay-pages-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;

let previous: Record<string, unknown> = {};
test.beforeAll(async ({ request }) => {
  previous = await testHook<Record<string, unknown>>(request, "setWebsiteCode", CODE);
});
test.afterAll(async ({ request }) => {
  await testHook(request, "setWebsiteCode", previous);
});

function scriptSrc(csp: string): string[] {
  const directive = csp.split(";").map((d) => d.trim()).find((d) => d.startsWith("script-src "));
  return directive!.split(/\s+/).slice(1);
}

async function expectPaymentPage(response: APIResponse, path: string) {
  expect(response.status(), path).toBe(200);
  const html = await response.text();
  expect(html, path).toContain("Card number");
  for (const m of MARKERS) expect(html, `${path} must not contain ${m}`).not.toContain(m);
  const csp = response.headers()["content-security-policy"]!;
  expect(csp, path).not.toMatch(/google|operator\.example/);
  expect(csp).not.toContain("https:");
  for (const source of scriptSrc(csp)) expect(source, `${path} script-src`).toMatch(/^'self'$|^'nonce-[A-Za-z0-9+/=]+'$/);
}

async function signedInTenant(request: APIRequestContext) {
  const email = unique();
  const t = await testHook<{ leaseId: number }>(request, "createTenantWithLease", { email, password: PASSWORD });
  const login = await (await request.get("/customer-portal/login")).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(login)?.[1];
  expect(csrf).toBeTruthy();
  const r = await request.post("/customer-portal/login", { form: { email, password: PASSWORD, csrf: csrf!, redirectTo: "/customer-portal" }, maxRedirects: 0 });
  expect(r.status()).toBe(303);
  return { email, leaseId: t.leaseId };
}

test("payment pages carry no operator code, no analytics and a first-party-only CSP; a content page keeps them", async ({ request, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "an HTTP check: once is enough");
  // A content page still has everything.
  const about = await request.get("/about");
  const aboutHtml = await about.text();
  for (const m of MARKERS) expect(aboutHtml, `/about must contain ${m}`).toContain(m);
  const aboutCsp = about.headers()["content-security-policy"]!;
  expect(aboutCsp).toContain("googletagmanager.com");
  expect(aboutCsp).toContain(OPERATOR_HOST);

  // The rental (the pay step is one of its steps: the route as a whole).
  const unitPage = await (await request.get("/locations/lumberton-nc-28358/units/5x10-drive-up")).text();
  const rentPath = /href="(\/rent\/\d+)"/.exec(unitPage)?.[1];
  expect(rentPath).toBeTruthy();
  const rent = await request.get(rentPath!);
  const rentHtml = await rent.text();
  for (const m of MARKERS) expect(rentHtml, `${rentPath} must not contain ${m}`).not.toContain(m);
  for (const source of scriptSrc(rent.headers()["content-security-policy"]!)) expect(source).toMatch(/^'self'$|^'nonce-/);
  // No script file at all (decision 130): the one script is our inline form script, with the nonce.
  expect(rentHtml).not.toMatch(/<script[^>]*\ssrc=|rel="modulepreload"/);
  expect([...rentHtml.matchAll(/<script(?![^>]*type="application\/ld\+json")[^>]*>/g)].map((m) => m[0])).toEqual([expect.stringMatching(/^<script nonce="[^"]+">$/)]);

  // The portal's card forms.
  const { leaseId } = await signedInTenant(request);
  for (const page of ["pay", "prepay", "autopay"]) {
    const path = `/customer-portal/units/${leaseId}/${page}`;
    await expectPaymentPage(await request.get(path), path);
  }
  // The portal home (no card fields) is an ordinary page.
  expect(await (await request.get("/customer-portal")).text()).toContain("__operatorJs");
});

test("any spelling of a payment page's path is sent to the canonical one, which carries no operator code (issue 19, decision 190)", async ({ request, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "an HTTP check: once is enough");
  const unitPage = await (await request.get("/locations/lumberton-nc-28358/units/5x10-drive-up")).text();
  const rentPath = /href="(\/rent\/\d+)"/.exec(unitPage)![1]!;
  const id = rentPath.split("/")[2]!;
  const { leaseId } = await signedInTenant(request);
  const payPath = `/customer-portal/units/${leaseId}/pay`;
  for (const [spelling, canonical] of [
    [`/RENT/${id}?step=pay`, `${rentPath}?step=pay`],
    [`/Rent/${id}/?step=pay`, `${rentPath}?step=pay`],
    [`/r%65nt/${id}`, rentPath],
    [`/CUSTOMER-PORTAL/units/${leaseId}/pay`, payPath],
    [`/customer-portal/units/${leaseId}/pay/`, payPath],
  ]) {
    const r = await request.get(spelling!, { maxRedirects: 0 });
    expect(r.status(), spelling).toBe(301);
    expect(r.headers()["location"], spelling).toBe(canonical);
    // A form sent to another spelling keeps its method and body (308), and is not run there.
    const post = await request.post(spelling!, { form: { intent: "x" }, maxRedirects: 0 });
    expect(post.status(), `POST ${spelling}`).toBe(308);
    expect(post.headers()["location"], `POST ${spelling}`).toBe(canonical);
  }
  // The canonical pages: no operator code, no analytics, the strict CSP, marked as a payment document.
  const rent = await request.get(rentPath);
  const rentHtml = await rent.text();
  for (const m of MARKERS) expect(rentHtml, `${rentPath} must not contain ${m}`).not.toContain(m);
  for (const source of scriptSrc(rent.headers()["content-security-policy"]!)) expect(source).toMatch(/^'self'$|^'nonce-/);
  expect(rentHtml).toMatch(/<html[^>]*\sdata-payment-page/);
  const pay = await request.get(payPath);
  await expectPaymentPage(pay, payPath);
  expect(pay.headers()["permissions-policy"]).toContain("payment=()");
  // An ordinary page is not marked, and its other spellings go to it too.
  expect(await (await request.get("/about")).text()).not.toContain("data-payment-page");
  expect((await request.get("/About/", { maxRedirects: 0 })).headers()["location"]).toBe("/about");
});

test("a payment page reached from a page that ran the operator's JS is loaded as a new document", async ({ page, request, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "client-side navigation needs JavaScript");
  const email = unique();
  const t = await testHook<{ leaseId: number }>(request, "createTenantWithLease", { email, password: PASSWORD });
  const payPath = `/customer-portal/units/${t.leaseId}/pay`;
  // (The sign-in page is first-party only since issue 36, decision 464: start from the portal's home.)
  await page.goto("/customer-portal/login");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/customer-portal$/);
  // The portal's home is an ordinary page: the operator's JS ran here.
  expect(await page.evaluate(() => (window as unknown as { __operatorJs?: number }).__operatorJs)).toBe(1);
  await page.getByRole("link", { name: "Pay my bill" }).click();
  await expect(page).toHaveURL(payPath);
  await expect(page.getByLabel("Card number")).toBeVisible();
  // A fresh document: the operator's JS and the analytics tag are gone with the old one.
  expect(await page.evaluate(() => (window as unknown as { __operatorJs?: number }).__operatorJs)).toBeUndefined();
  expect(await page.evaluate(() => "dataLayer" in window)).toBe(false);
  expect(await page.evaluate(() => performance.getEntriesByType("navigation")[0]!.name)).toContain(payPath);
});
