import { gzipSync } from "node:zlib";
import type { Page } from "@playwright/test";
import { expect, test } from "../support/test";
import { testHook } from "../support/hooks";

/**
 * Issue 10: pages that run JavaScript stay light and clean.
 * - Every page with a form ships at most 90 kB of JavaScript, gzipped: script files as the browser
 *   received them (each gzipped as the server's compression sends it) plus inline scripts.
 * - The sign-in page, a rental step and the portal dashboard log no Content-Security-Policy
 *   violation and no console error.
 */

const BUDGET_BYTES = 90_000;
const PASSWORD = "scripts-pass1";
const unique = (label: string) => `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;

test.beforeEach(async ({ request }) => {
  await testHook(request, "clearRateLimits", {});
});

async function rentPath(page: Page): Promise<string> {
  const html = await (await page.request.get("/locations/lumberton-nc-28358/units/5x10-drive-up")).text();
  const path = /href="(\/rent\/\d+)"/.exec(html)?.[1];
  expect(path, "a Rent link on the 5' x 10' Drive-Up page").toBeTruthy();
  return path!;
}

async function signIn(page: Page): Promise<number> {
  const email = unique("scripts");
  const t = await testHook<{ leaseId: number }>(page.request, "createTenantWithLease", { email, password: PASSWORD });
  await page.goto("/customer-portal/login");
  await page.getByLabel("Email address").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/customer-portal$/);
  return t.leaseId;
}

/** The JavaScript a page ships: gzipped bytes of its script files and its inline scripts. */
async function javaScriptOf(page: Page, path: string) {
  const files: Array<{ url: string; gzip: number }> = [];
  const pending: Promise<void>[] = [];
  const onResponse = (response: import("@playwright/test").Response) => {
    if (response.request().resourceType() !== "script") return;
    pending.push(
      response.body().then(
        (body) => void files.push({ url: response.url(), gzip: gzipSync(body).length }),
        () => undefined,
      ),
    );
  };
  page.on("response", onResponse);
  await page.goto(path, { waitUntil: "networkidle" });
  page.off("response", onResponse);
  await Promise.all(pending);
  const inline = await page.evaluate(() =>
    [...document.querySelectorAll("script:not([src])")].filter((s) => s.getAttribute("type") !== "application/ld+json").map((s) => s.textContent ?? ""),
  );
  const inlineGzip = inline.length ? gzipSync(inline.join("\n")).length : 0;
  return { files, total: files.reduce((n, f) => n + f.gzip, 0) + inlineGzip };
}

test("every page with a form ships at most 90 kB of JavaScript, gzipped", async ({ page, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "measures what a browser running JavaScript loads");
  const pages = ["/customer-portal/login", "/customer-portal/forgot-password", "/customer-portal/reset-password?token=x", "/contact", await rentPath(page)];
  const leaseId = await signIn(page);
  pages.push("/customer-portal", "/customer-portal/profile");
  for (const step of ["pay", "prepay", "autopay", "move-out"]) pages.push(`/customer-portal/units/${leaseId}/${step}`);
  for (const path of pages) {
    const js = await javaScriptOf(page, path);
    expect(js.total, `${path}: ${js.total} bytes gzipped (${js.files.map((f) => `${new URL(f.url).pathname} ${f.gzip}`).join(", ") || "inline only"})`).toBeLessThanOrEqual(
      BUDGET_BYTES,
    );
  }
});

test("sign-in, a rental step and the portal dashboard: no CSP violation, no console error", async ({ page }) => {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  // Violations of a report-only or enforced policy are events in the page; note them before any script runs.
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  const rent = await rentPath(page);
  await page.goto("/customer-portal/login");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Customer portal sign in");
  await page.goto(rent);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Rent a");
  // The phone mask (the form script) runs on the rental step.
  await page.getByLabel("Cell phone").pressSequentially("9105550134");
  await expect(page.getByLabel("Cell phone")).toHaveValue(/^(\(910\) 555-0134|9105550134)$/);
  await signIn(page);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await page.waitForLoadState("networkidle");
  expect(problems).toEqual([]);
});

test("the form script: pending button, one submit per click, focus on the first field in error", async ({ page, javaScriptEnabled }) => {
  test.skip(!javaScriptEnabled, "the script's behaviour");
  let posts = 0;
  // Hold the server's answer for a moment, so the pending state can be seen and a second click tried.
  await page.route(
    (url) => url.pathname === "/customer-portal/login",
    async (route) => {
      if (route.request().method() === "POST") {
        posts += 1;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      return route.continue();
    },
  );
  await page.goto("/customer-portal/login");
  await page.getByLabel("Email address").fill("not-an-email");
  // The document is leaving once the form is sent: it reports the button's state and clicks it again itself.
  const reported = new Promise<string>((resolve) => page.on("console", (m) => m.text().startsWith("pending:") && resolve(m.text())));
  await page.evaluate(() => {
    document.addEventListener("submit", (event) => {
      const button = event.submitter as HTMLButtonElement;
      setTimeout(() => {
        console.log(`pending: ${button.textContent} ${button.getAttribute("aria-disabled")}`);
        button.click();
      }, 0);
    });
  });
  await page.getByRole("button", { name: "Sign in" }).click();
  expect(await reported).toBe("pending: Signing in… true");
  // The server's answer: the errors beside the fields, focus on the first field in error.
  await expect(page.getByLabel("Email address")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByLabel("Email address")).toBeFocused();
  await expect(page.getByLabel("Email address")).toHaveValue("not-an-email");
  await expect(page.getByRole("button", { name: "Sign in" })).not.toHaveAttribute("aria-disabled");
  expect(posts).toBe(1);
});
