/**
 * The environment of every server the browser suite starts (issue 35, decision 432): the production
 * build in production mode, with a live site's guards, headers and cookies (HTTPS on: Secure and
 * `__Host-` cookies, HSTS; Chromium treats http://localhost as a secure context, so they work there),
 * plus only what a test needs and production refuses without the test runner's mark:
 * - GATEHOUSE_TEST_RUNNER=1: this production process is the test runner's, so
 * - E2E_HOOKS=1 (the hooks at /__test/hooks) and FAKE_NOW (the clock) may be on;
 * - ALLOWED_HOSTS=localhost: production answers only its configured hosts, and the tests reach the
 *   server as http://localhost:PORT (the website's own domain stays the configured origin);
 * - PAYMENT_GATEWAY=test: the demonstration gateway (production takes it only when asked, decision 200);
 * - the background jobs off (billing, housekeeping, publishing, SiteLink sync, mail retry): the tests
 *   run them through hooks, at the moment they choose.
 */
/**
 * The environment variable holding the SiteLink simulator's password on the browser tests' main
 * server: a location added from the console names it (content/new-location.spec.ts, decision 681).
 */
export const NEW_LOCATION_SITELINK_PASSWORD_ENV = "SITELINK_E2E_NEW_LOCATION_PASSWORD";
/** And the API key's (given in its own field of the form, as an environment variable's name). */
export const NEW_LOCATION_SITELINK_API_KEY_ENV = "SITELINK_E2E_NEW_LOCATION_API_KEY";

export function productionTestEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: "production",
    GATEHOUSE_TEST_RUNNER: "1",
    E2E_HOOKS: "1",
    ALLOWED_HOSTS: "localhost",
    PAYMENT_GATEWAY: "test",
    BILLING_SCHEDULE: "off",
    HOUSEKEEPING: "off",
    PUBLISH_SCHEDULE: "off",
    SITELINK_SYNC: "off",
    EMAIL_RETRY: "off",
    ...extra,
  };
}
