import type { APIRequestContext, Browser, Page } from "@playwright/test";
import { expect, test } from "../support/test";
import { expectNoAxeViolations } from "../support/a11y";
import { acceptInvitation, consoleUrl, inviteMember } from "../support/admin";
import { testHook } from "../support/hooks";
import { NEW_LOCATION_SITELINK_API_KEY_ENV, NEW_LOCATION_SITELINK_PASSWORD_ENV } from "../support/production-env";
import { SIM_URL } from "../support/sitelink";
import { ContactFormPage, isNoJs, waitForHydration } from "../support/site";
import { consoleNavFor } from "../../../app/domain/console/nav";
import type { StaffRole } from "../../../app/domain/staff/roles";
import { loadContract } from "../../../sitelink-simulator/contract";
import { DEMO_CORP } from "../../../sitelink-simulator/corp";

/**
 * The office's day in the back office (issue 39, decision 650), as each role — an owner, a manager,
 * a front-desk member and a read-only member, the last three scoped to one location — with
 * JavaScript on and off. Each member accepts an invitation (and is then signed in) and walks every
 * console page their menu offers, and one record page of each kind those pages link to (a tenant,
 * a lead, a location's content, the diff…), found by following the links, so a page added to the
 * menu is walked without changing this spec; the owner also opens a SiteLink location's settings
 * page, with its go-live check. On each page: at 1280 px and at 390 px nothing
 * scrolls sideways; axe finds nothing (in the js project: axe needs JavaScript); the pages of the
 * owner's menu the member may not open answer 403. On the home page every number equals the
 * count its link's list states (and the rows it shows). And a little of the day: the front desk finds
 * last night's rental and copies a pay link; the read-only member has no form to change anything and
 * is refused when posting one anyway; the manager publishes a change at their location.
 */

const PASSWORD = "Quiet-Otter-73";
const WIDTHS = [1280, 390] as const;

test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});
test.afterEach(async ({ request }) => {
  await testHook(request, "setClock", { at: null });
});

interface Day {
  locationId: number;
  tenantEmail: string;
  tenantId: number;
  unitName: string;
  lastNight: string;
}

let dayOnce: Promise<Day> | undefined;

/**
 * Last night a visitor rented a unit (the server's clock pinned to 21:00 yesterday) and owes next
 * month's rent; this morning another rented (today's numbers) and a visitor asked a question by the
 * contact form (a lead). Once per worker.
 */
function theDay(request: APIRequestContext, browser: Browser, baseURL: string | undefined): Promise<Day> {
  dayOnce ??= (async () => {
    const run = `${test.info().project.name}-${Date.now()}`;
    const tenantEmail = `night-${run}@example.com`;
    const today = new Date();
    const lastNightAt = new Date(today.getTime() - 24 * 60 * 60 * 1000);
    lastNightAt.setUTCHours(2, 0, 0, 0); // 21:00 or 22:00 the evening before in the eastern US
    await testHook(request, "setClock", { at: lastNightAt.toISOString() });
    const rental = await testHook<{ tenantId: number; locationId: number; unitName: string }>(request, "createTenantWithLease", { email: tenantEmail, password: "Tidy-Unit-42" });
    await testHook(request, "setClock", { at: null });
    const lastNight = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(lastNightAt);
    const due = new Date(today);
    due.setUTCMonth(due.getUTCMonth() + 1);
    await testHook(request, "runBilling", { date: due.toISOString().slice(0, 10), email: tenantEmail });
    await testHook(request, "createTenantWithLease", { email: `morning-${run}@example.com`, password: "Tidy-Unit-42" });
    const visitor = await browser.newContext({ baseURL, javaScriptEnabled: !isNoJs(test.info()) });
    const contact = new ContactFormPage(await visitor.newPage());
    await contact.layout.goto("/contact");
    await contact.fill({ name: "Quinn Question", email: `lead-${run}@example.com`, message: "Do you have a 10x10 free this week?" });
    await contact.form.getByLabel(/^Location/).selectOption({ label: "Lumberton" });
    await contact.submit();
    await expect(contact.page.getByRole("status")).toContainText("your message has been sent");
    await visitor.close();
    return { locationId: rental.locationId, tenantEmail, tenantId: rental.tenantId, unitName: rental.unitName, lastNight };
  })();
  return dayOnce;
}

const ROLE_NAMES: Record<StaffRole, string> = { owner: "Olive Owner", manager: "Manny Manager", front_desk: "Fran Desk", read_only: "Reed Only" };

/** A member of `role` (scoped to the day's location unless an owner), invited and signed in in `page`. */
async function signIn({ page, request, browser, baseURL }: { page: Page; request: APIRequestContext; browser: Browser; baseURL: string | undefined }, role: StaffRole): Promise<Day> {
  const day = await theDay(request, browser, baseURL);
  const email = `${role.replace("_", "-")}-${test.info().project.name}-${Date.now()}@example.com`;
  // The invitation's and the recovery codes' pages are console pages too (the enrolment key in its box).
  await acceptInvitation(page, await inviteMember(email, role, role === "owner" ? [] : [day.locationId]), ROLE_NAMES[role], PASSWORD, (step) =>
    checkPage(page, `/admin/invite/${step}`, `${role}: the ${step} page`),
  );
  return day;
}

/** A page's kind: its path with every segment holding a digit (an id) as ":id". */
const kindOf = (path: string) =>
  new URL(path, "http://x")
    .pathname.split("/")
    .map((s) => (/\d/.test(s) ? ":id" : s))
    .join("/");

/** Links not to walk: downloads, signing out or in again, invitations, the public site. */
const NOT_A_PAGE = /\.csv(\?|$)|^\/admin\/(sign-out|sign-in|reauth|invite|reset-password|forgot-password)\b/;

/** What axe has scanned in this worker: a page's kind, the width and the controls its main shows. */
const scanned = new Set<string>();
/** How many scans this worker ran (printed with WALK_DEBUG=1, with each page's time: docs/testing.md). */
let axeScans = 0;

/**
 * The content editor's pages console-a11y.spec scans at 1280 px (decision 352): all but the rental
 * settings pages (the account's and a location's, with a SiteLink location's go-live check), which
 * only this walk scans, at both widths.
 */
const scannedByConsoleA11y = (path: string) => path.startsWith("/admin/content/") && !/^\/admin\/content\/(rental-settings|locations\/\d+\/settings)$/.test(new URL(path, "http://x").pathname);

/**
 * At 1280 and 390 px: nothing wider than the screen (soft, so one run names every page that fails).
 * axe (js project) at each width, once per page kind and set of controls in this worker: another
 * role's page with the same controls as one scanned (the manager's content editor, the owner's) is
 * not scanned again, one with other controls (the read-only member's tenant page, without actions)
 * is. The content editor's pages at 1280 px are console-a11y.spec's (decision 352), scanned there
 * with their error states; here at 390 px (decision 650), and the settings pages at both widths.
 */
async function checkPage(page: Page, path: string, label: string) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    const { scrollWidth, clientWidth, wide, controls } = await page.evaluate(() => {
      const root = document.documentElement;
      const vw = root.clientWidth;
      const offenders = [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > vw + 1 && !el.closest(".visually-hidden, [hidden], details:not([open]) > :not(summary)"))
        .slice(-3)
        .map((el) => `${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? `.${el.className.trim().split(/\s+/).join(".")}` : ""}`);
      const controls = [...new Set([...document.querySelectorAll("main button, main input, main select, main textarea")].map((e) => `${e.tagName}:${e.getAttribute("name") ?? ""}:${e.tagName === "BUTTON" ? (e.textContent ?? "").trim() : (e.getAttribute("type") ?? "")}`))].sort().join("|");
      return { scrollWidth: root.scrollWidth, clientWidth: vw, wide: offenders, controls };
    });
    expect.soft(scrollWidth, `${label} at ${width} px scrolls sideways (${scrollWidth} px): ${wide.join(", ")}`).toBeLessThanOrEqual(clientWidth + 1);
    if (isNoJs(test.info())) continue;
    const key = `${kindOf(path)} ${width} ${controls}`;
    if (scanned.has(key) || (width === 1280 && scannedByConsoleA11y(path))) continue;
    scanned.add(key);
    await expectNoAxeViolations(page, { label: `${label} at ${width} px` });
    axeScans++;
  }
}

/**
 * The menu's pages of one part: the content editor's (the items that need "content.edit") or the
 * rest (the desk's lists, staff, audit, the member's own sign-in, and any page added later with
 * another permission).
 */
type Part = "content" | "rest" | "all";
function inPart(role: StaffRole, href: string, part: Part): boolean {
  if (part === "all") return true;
  const content = consoleNavFor(role).find((i) => i.href === href)?.permission === "content.edit";
  return part === "content" ? content : !content;
}

/**
 * Walks the console as the signed-in member: every page of the menu (of one part), then one page
 * of each kind those pages link to, and one of each kind those link to in turn (a location's
 * content → its hours, a unit type). `onPage` runs on each. Returns the paths walked.
 */
async function walk(page: Page, role: StaffRole, part: Part, onPage?: (path: string) => Promise<void>): Promise<string[]> {
  await page.goto(consoleUrl("/admin"));
  const menu = await page.getByRole("navigation", { name: "Back office" }).locator("a[href^='/admin']").evaluateAll((as) => as.map((a) => a.getAttribute("href")!));
  // The menu is the role's (app/domain/console/nav.ts): nothing more, nothing less.
  expect(menu.sort()).toEqual(consoleNavFor(role).map((i) => i.href).sort());
  const seen = new Set(menu.map(kindOf));
  const queue = menu.filter((href) => inPart(role, href, part)).map((path) => ({ path, depth: 0 }));
  const walked: string[] = [];
  while (queue.length) {
    const { path, depth } = queue.shift()!;
    const response = await page.goto(consoleUrl(path));
    expect.soft(response?.status(), `${role}: ${path} (linked from the console) opens`).toBe(200);
    walked.push(path);
    const t0 = Date.now();
    await checkPage(page, path, `${role}: ${path}`);
    if (process.env.WALK_DEBUG) console.log(`${role} ${depth} ${path} ${Date.now() - t0} ms, ${axeScans} axe scans so far`);
    await onPage?.(path);
    if (depth >= 2) continue;
    // The seeded Lumberton location's links first: locations other specs add on the same server sort
    // before it by name, and a SiteLink one may have no unit types yet (its page would hide that kind).
    const found = await page.locator("main a[href^='/admin/']:not([download])").evaluateAll((as) => as.map((a) => ({ href: a.getAttribute("href")!, text: a.textContent ?? "" })));
    const links = [...found.filter((a) => /^\s*Lumberton\b/.test(a.text)), ...found.filter((a) => !/^\s*Lumberton\b/.test(a.text))].map((a) => a.href);
    for (const link of links) {
      const kind = kindOf(link);
      if (NOT_A_PAGE.test(link) || seen.has(kind)) continue;
      seen.add(kind);
      queue.push({ path: link.split("#")[0]!, depth: depth + 1 });
    }
  }
  // The pages of the owner's menu this role may not open are refused (403), not shown.
  if (part !== "content") for (const item of consoleNavFor("owner")) {
    if (menu.includes(item.href)) continue;
    const refused = await page.request.get(consoleUrl(item.href), { maxRedirects: 0 });
    expect.soft(refused.status(), `${role}: ${item.href} is refused`).toBe(403);
  }
  return walked;
}

/**
 * The home page's numbers: each link's list states the same count (and shows that many rows when
 * they fit on one page). Payment differences link to the list on the home page itself.
 */
async function checkHomeNumbers(page: Page, role: StaffRole) {
  await page.goto(consoleUrl("/admin"));
  const numbers = await page.locator("main a[data-number]").evaluateAll((as) =>
    as.map((a) => ({ key: a.getAttribute("data-number")!, href: a.getAttribute("href")!, count: Number((a.querySelector(".home-number__count, strong")?.textContent ?? "").trim()) })),
  );
  expect(numbers.length, `${role}: the home page has numbers`).toBeGreaterThanOrEqual(8);
  const checked = new Map<string, number>();
  for (const n of numbers) {
    const label = `${role}: home's "${n.key}" (${n.count}) → ${n.href}`;
    expect(Number.isInteger(n.count), label).toBe(true);
    if (n.href.startsWith("#")) {
      await expect(page.locator(`${n.href} li`), label).toHaveCount(n.count);
      continue;
    }
    if (!checked.has(n.href)) {
      const html = await (await page.request.get(consoleUrl(n.href))).text();
      const stated = /class="desk-list__count"[^>]*>(\d+) results?/.exec(html)?.[1];
      expect(stated, `${label}: the list states its count`).toBeDefined();
      const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(html)?.[1] ?? "";
      const rows = (body.match(/<tr[\s>]/g) ?? []).length;
      if (!/rel="next"/.test(html)) expect(rows, `${label}: the rows shown`).toBe(Number(stated));
      checked.set(n.href, Number(stated));
    }
    expect.soft(checked.get(n.href), label).toBe(n.count);
  }
}

/**
 * A SiteLink location added from the console (decision 620) and its draft discarded at once: it stays
 * off the website and nothing of it waits to be published (a SiteLink location in the draft would
 * refuse other specs' publishes, decision 623), but its settings page shows the go-live check. The
 * path of that page.
 */
async function addSiteLinkLocation(page: Page): Promise<string> {
  // A city of its own: content/new-location.spec adds Whiteville and Conway locations on the same server.
  const city = `Tabor City ${test.info().project.name.replace(/[^a-z0-9]/gi, " ")} ${test.info().retry}`.replace(/\s+/g, " ").trim();
  await page.goto(consoleUrl("/admin/content/locations/new"));
  await page.getByLabel("Name", { exact: true }).fill(`Walk ${city}`);
  await page.getByLabel("Street", { exact: true }).fill("640 Madison St");
  await page.getByLabel("City").fill(city);
  await page.getByLabel("State").selectOption("NC");
  await page.getByLabel("ZIP code").fill("28463");
  await page.getByLabel("Office phone number").fill("(910) 555-0164");
  await page.getByLabel("SiteLink", { exact: true }).check();
  await page.getByLabel("Web service address").fill(`${SIM_URL}${loadContract().path}`);
  await page.getByLabel("Corp code").fill(DEMO_CORP.corpCode);
  await page.getByLabel("Location code").fill(`LW${test.info().project.name === "no-js" ? "N" : "J"}${test.info().retry}`);
  await page.getByLabel("User name").fill(DEMO_CORP.userName);
  await page.getByLabel("Password: the name of the environment variable that holds it").fill(NEW_LOCATION_SITELINK_PASSWORD_ENV);
  await page.getByLabel("API key (optional): the name of the environment variable that holds it").fill(NEW_LOCATION_SITELINK_API_KEY_ENV);
  await page.getByRole("button", { name: "Save the location to the draft" }).click();
  await expect(page).toHaveURL(/\/admin\/content\/locations\/\d+\?done=location-added$/);
  const id = /\/locations\/(\d+)\?/.exec(page.url())![1];
  await page.goto(consoleUrl("/admin/changes"));
  await page.getByRole("button", { name: "Discard the draft…" }).click();
  await page.getByRole("button", { name: /^Yes, discard/ }).click();
  await expect(page).toHaveURL(/done=discarded/);
  return `/admin/content/locations/${id}/settings`;
}

// The owner's walk in two tests, each with its own time limit (and sign-in): the content editor's
// pages, then the rest with the home page's numbers.
test("the owner walks the content editor's pages at 1280 and 390 px", async ({ page, request, browser, baseURL }) => {
  test.setTimeout(180_000);
  await signIn({ page, request, browser, baseURL }, "owner");
  const goLiveSettings = await addSiteLinkLocation(page);
  const walked = (await walk(page, "owner", "content")).map(kindOf);
  for (const kind of ["/admin/content/locations/:id", "/admin/content/unit-types/:id", "/admin/changes/diff", "/admin/content/rental-settings", "/admin/content/locations/:id/settings"]) {
    expect(walked, kind).toContain(kind);
  }
  // A SiteLink location's settings page, with its go-live check (another set of controls: scanned too).
  await page.goto(consoleUrl(goLiveSettings));
  await expect(page.getByRole("region", { name: "SiteLink go-live check" })).toBeVisible();
  await checkPage(page, goLiveSettings, "owner: a SiteLink location's settings, with its go-live check");
});

test("the owner walks every other console page at 1280 and 390 px, and the home page's numbers match their lists", async ({ page, request, browser, baseURL }) => {
  test.setTimeout(180_000);
  await signIn({ page, request, browser, baseURL }, "owner");
  const walked = (await walk(page, "owner", "rest")).map(kindOf);
  // The walk reaches the record pages behind the lists.
  for (const kind of ["/admin/tenants/:id", "/admin/leads/:id"]) expect(walked, kind).toContain(kind);
  await checkHomeNumbers(page, "owner");
  // The console's pages before signing in, in a browser without the session.
  const signedOut = await browser.newContext({ javaScriptEnabled: !isNoJs(test.info()) });
  const out = await signedOut.newPage();
  for (const path of ["/admin/sign-in", "/admin/forgot-password"]) {
    expect((await out.goto(consoleUrl(path)))?.status(), path).toBe(200);
    await waitForHydration(out, test.info());
    await checkPage(out, path, `signed out: ${path}`);
  }
  await signedOut.close();
});

test("a manager of one location walks their pages and publishes a change at their location", async ({ page, request, browser, baseURL }) => {
  test.setTimeout(180_000);
  const day = await signIn({ page, request, browser, baseURL }, "manager");
  await walk(page, "manager", "all");
  await checkHomeNumbers(page, "manager");

  // A unit type's description at their location, published by them alone.
  await page.goto(consoleUrl(`/admin/content/locations/${day.locationId}`));
  const unitType = await page.locator("main a[href^='/admin/content/unit-types/']").first().getAttribute("href");
  expect(unitType).toBeTruthy();
  await page.goto(consoleUrl(unitType!));
  const description = page.getByLabel(/^Description( Changed, not published)?$/);
  const before = await description.inputValue();
  const publish = async (value: string) => {
    await page.goto(consoleUrl(unitType!));
    await page.getByLabel(/^Description( Changed, not published)?$/).fill(value);
    await Promise.all([page.waitForURL(/done=saved/), page.getByRole("button", { name: "Save unit type" }).click()]);
    await page.goto(consoleUrl("/admin/changes"));
    await expect(page.getByRole("main")).toContainText(value || before);
    await Promise.all([page.waitForURL(/done=published/), page.getByRole("button", { name: /^Publish (your changes )?now$/ }).click()]);
  };
  await publish(`Wide door, lit aisle (${test.info().project.name})`);
  await checkPage(page, "/admin/changes?done=published", "manager: the changes page, published");
  // As it was, for the specs after this one.
  await publish(before);
});

test("the front desk finds last night's rental and copies a pay link for the renter", async ({ page, request, browser, baseURL }) => {
  test.setTimeout(180_000);
  const day = await signIn({ page, request, browser, baseURL }, "front_desk");
  await walk(page, "front_desk", "all");
  await checkHomeNumbers(page, "front_desk");

  // Last night's rentals: the renter's unit among them.
  await page.goto(consoleUrl("/admin/rentals"));
  await page.getByLabel("From").fill(day.lastNight);
  await page.getByLabel("To").fill(day.lastNight);
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(new RegExp(`from=${day.lastNight}`));
  // The unit's cell: its name, then its type ("D135 (Drive-Up)").
  const unitCell = page.getByRole("cell").filter({ hasText: new RegExp(`^\\s*${day.unitName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\s|$)`) });
  await expect(page.getByRole("row").filter({ has: unitCell })).toHaveCount(1);

  // The renter's page: no mail server here, so the desk copies the link to send it another way.
  await page.goto(consoleUrl("/admin/tenants"));
  await page.getByRole("searchbox").fill(day.tenantEmail);
  await page.getByRole("button", { name: "Show" }).click();
  await page.getByRole("row").filter({ hasText: day.tenantEmail }).getByRole("link").first().click();
  await expect(page).toHaveURL(new RegExp(`/admin/tenants/${day.tenantId}$`));
  await page.getByRole("button", { name: "Copy the link" }).click();
  await expect(page.getByLabel(/^Pay link for unit /)).toHaveValue(/\/pay\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  await checkPage(page, "/admin/tenants/:id?link", "front desk: a tenant's page with the link to copy");
});

test("the read-only member sees the lists and can change nothing", async ({ page, request, browser, baseURL }) => {
  test.setTimeout(180_000);
  const day = await signIn({ page, request, browser, baseURL }, "read_only");
  // No form that changes anything on any page they may open (their own sign-in's page aside).
  await walk(page, "read_only", "all", async (path) => {
    if (path === "/admin/security") return;
    await expect.soft(page.locator("main form[method='post' i]"), `read-only: ${path} offers no form that changes anything`).toHaveCount(0);
  });
  await checkHomeNumbers(page, "read_only");
  // Posted anyway (the tenant page's "Copy the link"), the server refuses it.
  await page.goto(consoleUrl(`/admin/tenants/${day.tenantId}`));
  await expect(page.getByRole("button", { name: "Copy the link" })).toHaveCount(0);
  const refused = await page.request.post(consoleUrl(`/admin/tenants/${day.tenantId}`), { form: { intent: "copy-pay-link" }, headers: { origin: consoleUrl("") }, maxRedirects: 0 });
  expect(refused.status()).toBe(403);
});
