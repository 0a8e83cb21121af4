import { expect, test } from "../support/test";
import { consoleUrl, signInNewOwner } from "../support/admin";
import { testHook } from "../support/hooks";
import { ownServers } from "../support/servers";

// Issue 36, finding 1 (decision 450): the back office on an origin of its own. With the owner signed
// in to the console in the same browser, a script on a public page (published operator code, or any
// script there) cannot read a console page or a token: not through the public origin's /admin (which
// only redirects to the console and never accepts the staff cookie), not from the console's origin
// (another origin: the browser keeps the answer from the script, and the console refuses what its own
// pages did not ask for). Scripts run in the page, so the js project runs this spec.
test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "a public page's script needs JavaScript");

const PASSWORD = "Copper-Heron-41";
const { baseURL, consoleURL } = ownServers();

/** What a script on a public page gets from each attempt: the text it could read, or the error. */
const PROBE = `async (targets) => {
  const out = [];
  for (const [url, init] of targets) {
    try {
      const r = await fetch(url, { credentials: "include", ...init });
      out.push({ url, mode: init.mode ?? "cors", status: r.status, type: r.type, text: await r.text() });
    } catch (e) {
      out.push({ url, mode: init.mode ?? "cors", error: String(e) });
    }
  }
  return out;
}`;
const targets = (console: string) => [
  ["/admin/staff", {}],
  ["/admin/tenants", {}],
  ["/admin/staff", { redirect: "manual" }],
  ["/admin/staff.data", {}],
  [`${console}/admin/staff`, {}],
  [`${console}/admin/tenants`, {}],
  [`${console}/admin/staff`, { mode: "no-cors" }],
  [`${console}/admin/staff.data`, {}],
];

type Probe = { url: string; mode: string; status?: number; type?: string; text?: string; error?: string };

function expectNothingRead(results: Probe[], email: string) {
  expect(results).toHaveLength(8);
  for (const r of results) {
    const text = r.text ?? "";
    expect(text, `${r.url} (${r.mode}) read by a public page's script`).not.toContain(email);
    expect(text, `${r.url} (${r.mode}): a console page's token`).not.toMatch(/csrf|name="intent"|Back office/i);
  }
}

test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});

test("a script on a public page cannot read the console of the owner signed in in the same browser", async ({ page, request }) => {
  test.setTimeout(120_000);
  const { email } = await signInNewOwner(page, `origin-owner-${Date.now()}@example.com`, PASSWORD);
  // Signed in: the console answers this browser.
  await page.goto(consoleUrl("/admin/staff"));
  await expect(page.getByRole("cell", { name: new RegExp(email) })).toBeVisible();

  // The console's cookie is its own: host-only on the console's host, __Host- (Secure) even on http://admin.localhost.
  const cookies = await page.context().cookies();
  const staff = cookies.find((c) => /gh_staff$/.test(c.name));
  expect(staff?.name).toBe("__Host-gh_staff");
  expect(staff?.domain).toBe(new URL(consoleURL).hostname);
  expect(staff?.secure).toBe(true);
  expect(cookies.filter((c) => c.domain.replace(/^\./, "") === new URL(baseURL).hostname).map((c) => c.name)).not.toContain("__Host-gh_staff");

  // Any script on a public page (here run in the home page).
  await page.goto(`${baseURL}/`);
  expectNothingRead(await page.evaluate(`(${PROBE})(${JSON.stringify(targets(consoleURL))})`), email);

  // The operator's published code on the home page does the same.
  const before = await testHook<Record<string, string | null>>(request, "setWebsiteCode", {
    customJs: `(${PROBE})(${JSON.stringify(targets(consoleURL))}).then((r) => document.documentElement.setAttribute("data-probe", JSON.stringify(r)));`,
  });
  try {
    await page.goto(`${baseURL}/about`);
    await expect(page.locator("html[data-probe]")).toHaveCount(1, { timeout: 20_000 });
    expectNothingRead(JSON.parse((await page.locator("html").getAttribute("data-probe"))!) as Probe[], email);
    // The console's pages carry no operator code.
    const consolePage = await page.request.get(consoleUrl("/admin/staff"), { headers: { "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" } });
    expect(consolePage.status()).toBe(200);
    expect(await consolePage.text()).not.toContain("data-probe");
    expect(consolePage.headers()["content-security-policy"]).not.toContain("cdn.operator.example");
  } finally {
    await testHook(request, "setWebsiteCode", { customJs: before.customJs ?? "" });
  }

  // The server's own refusals, with the owner's cookie in the jar (page.request shares it):
  // a request from another site that is not a top-level navigation to a page is refused...
  for (const [site, mode, dest] of [
    ["same-site", "cors", "empty"],
    ["cross-site", "no-cors", "empty"],
    ["same-site", "navigate", "iframe"],
  ]) {
    const refused = await page.request.get(consoleUrl("/admin/staff"), { headers: { "Sec-Fetch-Site": site!, "Sec-Fetch-Mode": mode!, "Sec-Fetch-Dest": dest! }, maxRedirects: 0 });
    expect(refused.status(), `${site} ${mode} ${dest}`).toBe(403);
    expect(await refused.text()).not.toContain(email);
  }
  // ...so is an old browser's cross-origin request (no fetch metadata, another Origin)...
  const old = await page.request.post(consoleUrl("/admin/staff"), { headers: { Origin: baseURL }, form: { intent: "invite" }, maxRedirects: 0 });
  expect(old.status()).toBe(403);
  // ...while a link from elsewhere still opens the page.
  const link = await page.request.get(consoleUrl("/admin/staff"), { headers: { "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" }, maxRedirects: 0 });
  expect(link.status()).toBe(200);

  // The public origin never serves the console, even with the staff cookie sent to it by hand.
  const staffCookie = `${staff!.name}=${staff!.value}`;
  const onPublic = await request.get(`${baseURL}/admin/staff`, { headers: { Cookie: staffCookie }, maxRedirects: 0 });
  expect(onPublic.status()).toBe(302);
  expect(onPublic.headers()["location"]).toBe(`${consoleURL}/admin/staff`);
  const postOnPublic = await request.post(`${baseURL}/admin/staff`, { headers: { Cookie: staffCookie }, form: { intent: "invite" }, maxRedirects: 0 });
  expect(postOnPublic.status()).toBe(404);
});

test("the console's origin serves only the console; the public origin sends /admin there", async ({ request }) => {
  const home = await request.get(`${consoleURL}/`, { maxRedirects: 0 });
  expect(home.status()).toBe(302);
  expect(home.headers()["location"]).toBe("/admin");
  const publicPage = await request.get(`${consoleURL}/contact`, { maxRedirects: 0 });
  expect(publicPage.status()).toBe(302);
  expect(publicPage.headers()["location"]).toMatch(/\/contact$/);
  expect(publicPage.headers()["location"]).not.toContain(new URL(consoleURL).host);
  expect((await request.post(`${consoleURL}/contact`, { form: { name: "x" }, maxRedirects: 0 })).status()).toBe(404);
  const signIn = await request.get(`${baseURL}/admin/sign-in?next=%2Fadmin%2Fstaff`, { maxRedirects: 0 });
  expect(signIn.status()).toBe(302);
  expect(signIn.headers()["location"]).toBe(`${consoleURL}/admin/sign-in?next=%2Fadmin%2Fstaff`);
  // The console's own pages: a first-party policy, no operator source.
  const page = await request.get(`${consoleURL}/admin/sign-in`);
  expect(page.status()).toBe(200);
  expect(page.headers()["content-security-policy"]).not.toContain("cdn.operator.example");
});
