import { defineConfig } from "vitest/config";
import path from "node:path";

const alias = { "~": path.resolve(import.meta.dirname, "app") };

const file = (name: string) => `tests/integration/${name}.test.ts`;
const withPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * The integration suite runs on both drivers (docs/decisions/265-integration-suite-per-driver.md):
 * - on PostgreSQL (the production database), when TEST_DATABASE_URL is set: every file but those
 *   that test the embedded database itself;
 * - on PGlite: every file when PostgreSQL is not there; with PostgreSQL there, the files whose outcome
 *   the driver can change. PGlite is PostgreSQL's own engine compiled to WebAssembly, so the SQL of
 *   the other files behaves the same; what differs is the client around it: one connection and one
 *   transaction at a time, no pool, LISTEN/NOTIFY in-process, migrations and seeding through it, the
 *   data directory's lock, and the request path of the public site and the rental on the database a
 *   fresh checkout starts with. The portal's pages and the reservation run on PostgreSQL only: the
 *   browser suite runs both, end to end, on PGlite (the production build on a fresh PGlite database,
 *   with and without JavaScript), so their PGlite re-run here (94 s and 25 s of a worker) checked
 *   nothing the browser does not (decision 520).
 */
const EMBEDDED_ONLY = ["payments/billing-cli", "db/pglite-private-dir", "db/demo-tenant-seed"].map(file);
const DRIVER_SENSITIVE = [
  "db/migrations",
  "db/seed",
  "site/cache-notify",
  "db/pool",
  "rental/move-in",
  "rental/move-in-ledger",
  "rental/rush",
  "rental/submit",
  "site/pages",
  "web/form-outage",
  "web/logging",
  // bytea: pg gives a Buffer, PGlite a Uint8Array (the stored image sizes, decision 321).
  "content/media-uploads",
].map(file);

const integration = (name: string, driver: "pglite" | "postgres") => ({
  resolve: { alias },
  test: {
    name,
    include: driver === "postgres" || !withPostgres ? ["tests/integration/**/*.test.ts"] : [...EMBEDDED_ONLY, ...DRIVER_SENSITIVE],
    exclude: driver === "postgres" ? EMBEDDED_ONLY : [],
    globalSetup: ["tests/integration/global-setup.ts"],
    setupFiles: ["tests/setup/fresh-process-state.ts", "tests/setup/fail-on-console-error.ts", "tests/support/localhost-names.ts"],
    env: { TEST_DRIVER: driver, NODE_ENV: "test" },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // PGlite databases are ~100 MB each in memory: two workers fit the 2-core machines here. Both
    // drivers' projects have the same maxWorkers, so vitest runs their files in one pool of two workers
    // (two in all, not two each).
    maxWorkers: 2,
    isolate: process.env.VITEST_ISOLATE !== "0",
  },
});

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          // A few tests import the server's modules cold (several seconds on a loaded 2-core machine).
          testTimeout: 20_000,
          // Two workers, one per core (vitest's default is one fewer than the cores: one here, leaving
          // a core idle through the stage). The files share nothing: temporary directories and port 0.
          maxWorkers: 2,
          include: ["app/**/*.test.{ts,tsx}", "server/**/*.test.ts", "tests/unit/**/*.test.{ts,tsx}", "sitelink-simulator/**/*.test.ts", "stripe-fake/**/*.test.ts", "twilio-fake/**/*.test.ts"],
          setupFiles: ["tests/setup/fail-on-console-error.ts"],
          env: { NODE_ENV: "test" },
        },
      },
      integration("integration", "pglite"),
      {
        // Fault tests (issue 14): the BUILT server against a private PostgreSQL that is stopped and
        // started again, an SMTP server that goes away. Slow (about a minute each); one file at a time.
        resolve: { alias },
        test: {
          name: "fault",
          include: ["tests/fault/**/*.test.ts"],
          globalSetup: ["tests/fault/global-setup.ts"],
          // The console's origin, http://admin.localhost:PORT (decision 450), from Node too.
          setupFiles: ["tests/support/localhost-names.ts"],
          env: { NODE_ENV: "test" },
          testTimeout: 60_000,
          hookTimeout: 150_000,
          fileParallelism: false,
          pool: "forks",
        },
      },
      ...(process.env.TEST_DATABASE_URL ? [integration("integration-postgres", "postgres")] : []),
    ],
  },
});
