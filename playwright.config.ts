import fs from "node:fs";
import path from "node:path";
import { defineConfig, devices, type PlaywrightTestConfig } from "@playwright/test";
import { ownServers, serverSet } from "./tests/e2e/support/servers";
// The console's origin is http://admin.localhost:PORT (decision 450): Playwright's `request` resolves it too.
import "./tests/support/localhost-names";
import { NEW_LOCATION_SITELINK_API_KEY_ENV, NEW_LOCATION_SITELINK_PASSWORD_ENV, productionTestEnv } from "./tests/e2e/support/production-env";
import { DEMO_CORP } from "./sitelink-simulator/corp";

/**
 * How many workers, each with a server set of its own (tests/e2e/support/servers.ts, decision 285):
 * E2E_WORKERS, or `--workers`/`-j` on the command line, else 2 under `npm run test:e2e` (and so
 * `npm test`) and 1 for a spec run by hand (`npx playwright test tests/e2e/x.spec.ts`: one set of
 * servers on the ports given).
 */
function workerCount(): number {
  const argv = process.argv;
  const flag = argv.findIndex((a) => a === "--workers" || a === "-j" || a.startsWith("--workers="));
  const arg = flag < 0 ? undefined : argv[flag];
  const fromArgv = arg === undefined ? undefined : arg.includes("=") ? arg.split("=")[1] : argv[flag + 1];
  const wanted = process.env.E2E_WORKERS ?? fromArgv ?? (process.env.npm_lifecycle_event === "test:e2e" ? "2" : "1");
  const n = Number(wanted);
  if (!Number.isInteger(n) || n < 1) throw new Error(`E2E_WORKERS/--workers must be a whole number of workers (percentages are not supported): ${wanted}`);
  return n;
}
const WORKERS = workerCount();

/**
 * The run's seeded database template (scripts/e2e-seeded-db.mjs, decision 522): the first server of
 * the run migrates and seeds it once and every server (each worker's two, the Stripe specs' own)
 * starts on a copy. Set here in the runner, before any server starts, after removing the templates of
 * earlier runs (they were made by older code and migrations); the workers and the servers inherit it.
 */
if (process.env.TEST_WORKER_INDEX === undefined) {
  const template = `${process.env.E2E_PGLITE_DIR ?? "data/e2e"}-seeded`;
  const parent = path.dirname(template);
  const prefix = `${path.basename(template)}-`;
  if (fs.existsSync(parent)) for (const name of fs.readdirSync(parent)) if (name.startsWith(prefix)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  process.env.E2E_SEEDED_TEMPLATE = template;
}
type WebServer = Extract<PlaywrightTestConfig["webServer"], unknown[]>[number];
const SETS = Array.from({ length: WORKERS }, (_, index) => serverSet(index));
/**
 * Chromium's headless shell (Debian's chromium-headless-shell, the same Blink and V8 as
 * /usr/bin/chromium; Playwright's own default for headless runs) when installed, else the full
 * browser: the shell needs about half the CPU per test (decision 287). CHROMIUM_PATH overrides.
 */
const HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell";
const executablePath = process.env.CHROMIUM_PATH ?? (fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : "/usr/bin/chromium");
const launchOptions = {
  executablePath,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
};

/** A 390 × 844 phone (iPhone 12–15 class): the narrowest width the site is designed and tested for. */
const PHONE_390 = { width: 390, height: 844 };

/**
 * Browser tests against the built server (npm run build first; `npm run test:e2e` does), on a
 * fresh seeded PGlite database under data/e2e. Every spec runs with JavaScript at a desktop size;
 * the no-JavaScript and 390 px projects leave out what they cannot change (docs/decisions/138):
 * - HTTP protocol checks made with `request` (security-http, public-redirects, page-cache): no page
 *   is rendered, so neither JavaScript nor the viewport can change what they see; they run once;
 * - at 390 px ("mobile-390", issue 9) only the flows and pages whose layout a phone changes run
 *   (public pages and their a11y scan, units, contact, rental, portal); mobile-nav sets 390 px itself
 *   and runs in both desktop projects. The SiteLink specs, the cache and script-budget checks and the
 *   smoke test render the same HTML and CSS as the flows already checked at 390 px.
 * The no-JavaScript flows are not repeated at 390 px: the server sends the same HTML at any width,
 * and the CSS that lays it out is the same the mobile-390 project checks (keeps `npm test` short).
 *
 * Without JavaScript ("no-js", decision 520) the browser runs what only a browser shows: the axe
 * scans of the un-hydrated HTML, the menus and disclosures, the pages' scripts, and each core flow
 * end to end once (browse and filter units, rent, reserve, a tenant's sign-in and payment, Stripe
 * Checkout), and the console's day walk (every console page each role reaches, laid out at 1280
 * and 390 px: console/day, decision 650). What a page does with a plain form post is the integration suite's, which posts the
 * same forms to the same server over HTTP; the specs (or tests tagged @no-js-over-http) whose
 * JavaScript-off run only repeated it are left out here, each with the integration test that
 * checks it named in decision 520. Files whose every test needs JavaScript (or needs it off) are
 * not loaded at all in the project that would skip them, so their servers are not started for nothing.
 */
const PROTOCOL_ONLY = ["web/security-http", "site/redirects", "site/page-cache"].map((name) => `**/${name}.spec.ts`);
const PHONE_FLOWS = ["site/pages", "site/layout", "site/a11y", "site/contact", "site/units", "rental/flow", "portal/tour"].map((name) => `**/${name}.spec.ts`);
/** Every test of these skips itself without JavaScript (they read HTTP only, or need scripts). */
const NEEDS_JS = [
  "console/origin",
  "content/console-a11y",
  "payments/payment-pages",
  "payments/stripe-authentication",
  "payments/stripe-card-fields",
  "payments/stripe-pay-link",
  "site/stored-layout",
  "staff/passkey",
].map((name) => `**/${name}.spec.ts`);
/** Every test of these skips itself with JavaScript (the JavaScript-off path of a payment). */
const NEEDS_NO_JS = ["payments/stripe-checkout"].map((name) => `**/${name}.spec.ts`);
/** Whole specs whose JavaScript-off run repeated the integration suite's HTTP checks (decision 520). */
const NO_JS_OVER_HTTP = [
  "desk/tour",
  "payments/pay-link",
  "portal/password-pages",
  "site/contact",
  "site/pages",
  "storage-software/sitelink-portal",
  "storage-software/sitelink-rental",
].map((name) => `**/${name}.spec.ts`);

export default defineConfig({
  testDir: "tests/e2e",
  // A spec file's tests run in order in one worker; the files are shared out among the workers.
  fullyParallel: false,
  workers: WORKERS,
  retries: process.env.CI ? 1 : 0,
  // Long flows (a whole rental, the portal tour) take 20–30 s on a loaded 2-core machine.
  timeout: 60_000,
  reporter: process.env.CI ? [["list"]] : [["list"]],
  // In a worker, its own server set (the config is loaded again in each worker, with TEST_PARALLEL_INDEX set).
  use: { baseURL: ownServers().baseURL, trace: "retain-on-failure" },
  projects: [
    { name: "js", use: { ...devices["Desktop Chrome"], launchOptions }, testIgnore: NEEDS_NO_JS },
    {
      name: "no-js",
      use: { ...devices["Desktop Chrome"], javaScriptEnabled: false, launchOptions },
      testIgnore: [...PROTOCOL_ONLY, ...NEEDS_JS, ...NO_JS_OVER_HTTP],
      grepInvert: /@no-js-over-http/,
    },
    {
      name: "mobile-390",
      use: { ...devices["Desktop Chrome"], viewport: PHONE_390, launchOptions },
      testMatch: PHONE_FLOWS,
      // The rental's and the portal's other paths (errors, declines, switched-off features) draw the
      // same pages the happy paths above already check at 390 px (decision 266).
      grepInvert: /@width-independent/,
    },
  ],
  // Every worker's servers start at once: Playwright awaits webServer entries one after another, so
  // these have no URL (started, not awaited) and the last entry waits for all of them (decision 285).
  webServer: [
    ...SETS.flatMap((set): WebServer[] => [
    {
      command: `node scripts/e2e-server.mjs`,
      reuseExistingServer: false,
      timeout: 120_000,
      // The production build in production mode, as a live site runs it (decision 432).
      env: productionTestEnv({
        PORT: String(set.port),
        CONSOLE_URL: set.consoleURL,
        PGLITE_DIR: set.pgliteDir,
        BUILD_DIR: process.env.BUILD_DIR ?? "build",
        FAKE_NOW: process.env.FAKE_NOW ?? "",
        CSP_EXTRA_SCRIPT_SRC: "https://cdn.operator.example",
        // A SiteLink location added from the console connects to this set's simulator (content/new-location.spec.ts).
        [NEW_LOCATION_SITELINK_PASSWORD_ENV]: DEMO_CORP.password,
        [NEW_LOCATION_SITELINK_API_KEY_ENV]: DEMO_CORP.apiKey,
      }),
      stdout: "pipe" as const,
      stderr: "pipe" as const,
    },
    {
      // The SiteLink location: Lumberton connected to the SiteLink simulator (tests/e2e/storage-software/sitelink-*.spec.ts).
      command: `npx tsx scripts/e2e-sitelink-server.ts`,
      reuseExistingServer: false,
      timeout: 120_000,
      env: productionTestEnv({
        PORT: String(set.sitelinkPort),
        E2E_SITELINK_SIM_PORT: String(set.simPort),
        PGLITE_DIR: set.sitelinkPgliteDir,
        BUILD_DIR: process.env.BUILD_DIR ?? "build",
      }),
      stdout: "pipe" as const,
      stderr: "pipe" as const,
    },
    ]),
    {
      command: `node scripts/e2e-wait.mjs ${SETS.flatMap((set) => [`${set.baseURL}/healthz`, `${set.sitelinkBaseURL}/healthz`]).join(" ")}`,
      wait: { stdout: /e2e servers ready/ },
      reuseExistingServer: false,
      timeout: 150_000,
      stdout: "pipe" as const,
      stderr: "pipe" as const,
    },
  ],
});
