import { defineConfig, devices } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 3210);
const BASE_URL = `http://localhost:${PORT}`;
/** The second server: Lumberton connected to the SiteLink simulator (tests/e2e/sitelink-*.spec.ts, scripts/e2e-sitelink-server.ts). */
export const SITELINK_PORT = Number(process.env.E2E_SITELINK_PORT ?? 3420);
export const SITELINK_SIM_PORT = Number(process.env.E2E_SITELINK_SIM_PORT ?? 3422);
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const launchOptions = {
  executablePath,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
};

/** A 390 × 844 phone (iPhone 12–15 class): the narrowest width the site is designed and tested for. */
const PHONE_390 = { width: 390, height: 844 };

/**
 * Browser tests against the built server (npm run build first; `npm run test:e2e` does), on a
 * fresh seeded PGlite database under data/e2e. Every spec runs with JavaScript and without at a
 * desktop size, and again with JavaScript at 390 px ("mobile-390", issue 9) — except:
 * - security-http, public-redirects, page-cache: HTTP protocol checks (headers, redirects, the page
 *   cache) made with `request`, no page is rendered, so the viewport cannot change what they see;
 * - mobile-nav: it sets the 390 px viewport itself and already runs in both projects.
 * The no-JavaScript flows are not repeated at 390 px: the server sends the same HTML at any width,
 * and the CSS that lays it out is the same the mobile-390 project checks (keeps `npm test` short).
 */
export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  // Long flows (a whole rental, the portal tour) take 20–30 s on a loaded 2-core machine.
  timeout: 60_000,
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: { baseURL: BASE_URL, trace: "retain-on-failure" },
  projects: [
    { name: "js", use: { ...devices["Desktop Chrome"], launchOptions } },
    { name: "no-js", use: { ...devices["Desktop Chrome"], javaScriptEnabled: false, launchOptions } },
    {
      name: "mobile-390",
      use: { ...devices["Desktop Chrome"], viewport: PHONE_390, launchOptions },
      testIgnore: ["**/security-http.spec.ts", "**/public-redirects.spec.ts", "**/page-cache.spec.ts", "**/mobile-nav.spec.ts"],
    },
  ],
  webServer: [
    {
      command: `node scripts/e2e-server.mjs`,
      url: `${BASE_URL}/healthz`,
      reuseExistingServer: false,
      timeout: 120_000,
      env: { PORT: String(PORT), PGLITE_DIR: process.env.E2E_PGLITE_DIR ?? "data/e2e", BUILD_DIR: process.env.BUILD_DIR ?? "build", NODE_ENV: "test", E2E_HOOKS: "1", FAKE_NOW: process.env.FAKE_NOW ?? "", CSP_EXTRA_SCRIPT_SRC: "https://cdn.operator.example" },
      stdout: "pipe",
      stderr: "pipe",
    },
    {
      command: `npx tsx scripts/e2e-sitelink-server.ts`,
      url: `http://localhost:${SITELINK_PORT}/healthz`,
      reuseExistingServer: false,
      timeout: 120_000,
      env: {
        PORT: String(SITELINK_PORT),
        E2E_SITELINK_SIM_PORT: String(SITELINK_SIM_PORT),
        PGLITE_DIR: process.env.E2E_SITELINK_PGLITE_DIR ?? `${process.env.E2E_PGLITE_DIR ?? "data/e2e"}-sitelink`,
        BUILD_DIR: process.env.BUILD_DIR ?? "build",
        NODE_ENV: "test",
        E2E_HOOKS: "1",
      },
      stdout: "pipe",
      stderr: "pipe",
    },
  ],
});
